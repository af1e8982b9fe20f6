"""Registry of the six CREDIT workloads and their peers (eager PyTorch, torch.compile, Triton).

    from workloads import WORKLOADS            # (bench/peers on sys.path)
    wl = WORKLOADS["wvar_bwd"]
    ins  = wl.make_inputs(wl.default_M, 16384, seed=0, device="cuda")   # tuple, declared order
    outs = wl.eager(*ins)                      # tuple of outputs, declared order
    outs = wl.compiled()(*ins)                 # torch.compile(dynamic=False, fullgraph=True)
    outs = wl.alloc_outputs(M, N, device)      # preallocated outputs for the Triton peer
    wl.triton(*ins, *outs)                     # writes outs in place (kwargs: path/block/num_warps)
    ref  = wl.reference(*ins)                  # float64 reference (q: int8)
    wl.compulsory_bytes(M, N)                  # one read of every input + one write of every output

Kinds: inputs are "row" ([M, N] f32), "broadcast" ([N] f32) or "scalar" (per-row, [M] f32);
outputs are "row" ([M, N]) or "scalar" ([M]) with a torch dtype.
Params are the .credit defaults; every peer takes them as keyword arguments.
"""

from dataclasses import dataclass, field

import torch

if __package__:
    from . import torch_impls as TI
else:  # run as a script from bench/peers, or with bench/peers on sys.path
    import torch_impls as TI

DEFAULT_M = 4096
NAMES = TI.NAMES


def _triton_module():
    # Imported lazily so that the registry (and the torch peers) work without Triton.
    if __package__:
        from . import triton_kernels
    else:
        import triton_kernels
    return triton_kernels


@dataclass
class Workload:
    name: str
    inputs: list    # [(name, kind)]
    outputs: list   # [(name, kind, dtype)]
    params: dict
    default_M: int
    _make: object = field(repr=False)

    # -- data ------------------------------------------------------------------------------
    def make_inputs(self, M=None, N=4096, seed=0, device="cuda"):
        """Fresh random inputs (tuple in declared order), deterministic in (M, N, seed)."""
        M = self.default_M if M is None else M
        gen = torch.Generator(device=device)
        gen.manual_seed(int(seed))
        return tuple(self._make(M, N, gen, device))

    def alloc_outputs(self, M, N, device="cuda"):
        outs = []
        for _, kind, dtype in self.outputs:
            shape = (M, N) if kind == "row" else (M,)
            outs.append(torch.empty(shape, dtype=dtype, device=device))
        return tuple(outs)

    def compulsory_bytes(self, M, N):
        """Bytes of one read of every input and one write of every output."""
        total = 0
        for _, kind in self.inputs:
            total += {"row": M * N, "broadcast": N, "scalar": M}[kind] * 4
        for _, kind, dtype in self.outputs:
            elem = torch.empty((), dtype=dtype).element_size()
            total += (M * N if kind == "row" else M) * elem
        return total

    # -- peers -----------------------------------------------------------------------------
    def eager(self, *inputs, **params):
        return TI.EAGER[self.name](*inputs, **params)

    def compiled(self, mode=None, variant="eager"):
        """The torch.compile'd callable (inputs -> outputs tuple)."""
        return TI.compiled(self.name, mode=mode, variant=variant)

    def triton(self, *args, **kwargs):
        """run_<name>(inputs..., outputs..., **kwargs): writes the outputs in place."""
        return _triton_module().RUN[self.name](*args, **kwargs)

    def triton_alloc(self, *inputs, **kwargs):
        """Allocates the outputs, runs the Triton peer, returns the outputs tuple."""
        x = inputs[0]
        outs = self.alloc_outputs(x.shape[0], x.shape[1], x.device)
        self.triton(*inputs, *outs, **kwargs)
        return outs

    def triton_plan(self, N, **kwargs):
        """(path, BLOCK, num_warps) the Triton peer uses at width N."""
        return _triton_module().plan(N, **kwargs)

    def reference(self, *inputs, **params):
        return TI.reference(self.name, *inputs, **params)


# ---- input generators: x ~ N(0, 1) everywhere; w of wvar_bwd ~ U(0.5, 1.5) so sw > 0 ------------
def _randn(gen, device, *shape):
    return torch.randn(*shape, generator=gen, device=device, dtype=torch.float32)


def _rand(gen, device, *shape, lo=0.0, hi=1.0):
    return torch.rand(*shape, generator=gen, device=device, dtype=torch.float32) * (hi - lo) + lo


def _mk_layernorm(M, N, gen, dev):
    x = _randn(gen, dev, M, N)
    gamma = 1.0 + 0.1 * _randn(gen, dev, N)
    beta = 0.1 * _randn(gen, dev, N)
    return x, gamma, beta


def _mk_wvar_bwd(M, N, gen, dev):
    return _randn(gen, dev, M, N), _rand(gen, dev, M, N, lo=0.5, hi=1.5), _randn(gen, dev, M)


def _mk_pearson_bwd(M, N, gen, dev):
    # independent x, y: |r| ~ 1/sqrt(N), sxx, syy ~ N (> 0 for N > 1)
    return _randn(gen, dev, M, N), _randn(gen, dev, M, N), _randn(gen, dev, M)


def _mk_softmax_logits_bwd(M, N, gen, dev):
    return _randn(gen, dev, M, N), _randn(gen, dev, M, N)


def _mk_lars(M, N, gen, dev):
    return _randn(gen, dev, M, N), _randn(gen, dev, M, N), _randn(gen, dev, M, N)


def _mk_quant_int8(M, N, gen, dev):
    return (_randn(gen, dev, M, N),)


F32, I8 = torch.float32, torch.int8

WORKLOADS = {
    "layernorm": Workload(
        "layernorm", [("x", "row"), ("gamma", "broadcast"), ("beta", "broadcast")],
        [("y", "row", F32)], TI.PARAMS["layernorm"], 2048, _mk_layernorm),
    "wvar_bwd": Workload(
        "wvar_bwd", [("x", "row"), ("w", "row"), ("g", "scalar")],
        [("dx", "row", F32), ("dw", "row", F32)], TI.PARAMS["wvar_bwd"], DEFAULT_M, _mk_wvar_bwd),
    "pearson_bwd": Workload(
        "pearson_bwd", [("x", "row"), ("y", "row"), ("g", "scalar")],
        [("gx", "row", F32), ("gy", "row", F32)], TI.PARAMS["pearson_bwd"], DEFAULT_M,
        _mk_pearson_bwd),
    "softmax_logits_bwd": Workload(
        "softmax_logits_bwd", [("x", "row"), ("dy", "row")],
        [("dx", "row", F32)], TI.PARAMS["softmax_logits_bwd"], DEFAULT_M, _mk_softmax_logits_bwd),
    "lars": Workload(
        "lars", [("w", "row"), ("g", "row"), ("v", "row")],
        [("v_out", "row", F32), ("w_out", "row", F32)], TI.PARAMS["lars"], DEFAULT_M, _mk_lars),
    "quant_int8": Workload(
        "quant_int8", [("x", "row")],
        [("q", "row", I8), ("scale", "scalar", F32)], TI.PARAMS["quant_int8"], DEFAULT_M,
        _mk_quant_int8),
}

assert tuple(WORKLOADS) == NAMES
