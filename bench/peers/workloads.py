"""Registry of the benchmark's workloads and their peers (eager PyTorch, torch.compile, Triton).

    from workloads import WORKLOADS            # (bench/peers on sys.path)
    wl = WORKLOADS["wvar_bwd"]
    ins  = wl.make_inputs(M, N, seed=0, device="cuda")   # tuple, declared order
    outs = wl.eager(*ins)                      # tuple of outputs, declared order
    outs = wl.alloc_outputs(M, N)              # preallocated outputs for the Triton peer
    wl.triton(*ins, *outs)                     # autotuned; writes outs in place (config= to pin one)
    ref  = wl.reference(*ins)                  # float64 reference (q: int8)
    wl.compulsory_bytes(M, N)                  # one read of every input + one write of every output

Kinds: inputs are "row" ([M, N]), "broadcast" ([N]) or "scalar" (per-row, [M]); outputs are "row"
or "scalar" with an element type: "float" (the benchmark's dtype) or "i8".
Params are the .credit defaults; every peer takes them as keyword arguments.
"""

from dataclasses import dataclass, field

import torch

if __package__:
    from . import torch_impls as TI
else:  # bench/peers on sys.path
    import torch_impls as TI

NAMES = TI.NAMES
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def _triton_module():
    # Imported lazily so that the registry and the torch peers work without Triton.
    if __package__:
        from . import triton_kernels
    else:
        import triton_kernels
    return triton_kernels


@dataclass
class Workload:
    name: str
    inputs: list    # [(name, kind)]
    outputs: list   # [(name, kind, "float" | "i8")]
    params: dict
    _make: object = field(repr=False)

    def make_inputs(self, M, N, seed=0, device="cuda", dtype=torch.float32):
        """Fresh random inputs (tuple in declared order), deterministic in (M, N, seed)."""
        gen = torch.Generator(device=device)
        gen.manual_seed(int(seed))
        return tuple(t.to(dtype) for t in self._make(M, N, gen, device))

    def output_specs(self, M, N, dtype=torch.float32):
        """[(shape, torch dtype)] of the outputs."""
        return [((M, N) if kind == "row" else (M,), torch.int8 if et == "i8" else dtype)
                for _, kind, et in self.outputs]

    def alloc_outputs(self, M, N, device="cuda", dtype=torch.float32):
        return tuple(torch.empty(s, dtype=d, device=device) for s, d in self.output_specs(M, N, dtype))

    def compulsory_bytes(self, M, N, dtype=torch.float32):
        """Bytes of one read of every input and one write of every output."""
        elem = torch.empty((), dtype=dtype).element_size()
        total = sum({"row": M * N, "broadcast": N, "scalar": M}[k] * elem for _, k in self.inputs)
        for shape, d in self.output_specs(M, N, dtype):
            n = shape[0] * (shape[1] if len(shape) > 1 else 1)
            total += n * torch.empty((), dtype=d).element_size()
        return total

    def rows_of(self, inputs, r0, r1):
        """The inputs restricted to rows [r0, r1) (broadcast inputs whole)."""
        return tuple(t if kind == "broadcast" else t[r0:r1] for t, (_, kind) in zip(inputs, self.inputs))

    # -- peers -----------------------------------------------------------------------------
    def eager(self, *inputs, **params):
        return TI.EAGER[self.name](*inputs, **params)

    @property
    def eager_op(self):
        return TI.EAGER_OPS.get(self.name, "elementwise and reductions (no fused op)")

    def compiled(self, impl="torch_compile_default"):
        return TI.compiled(self.name, impl)

    def triton(self, *args, **kwargs):
        """run_<name>(inputs..., outputs..., config=None): writes the outputs in place."""
        return _triton_module().RUN[self.name](*args, **kwargs)

    def reference(self, *inputs, **params):
        return TI.reference(self.name, *inputs, **params)


# ---- input generators: x ~ N(0, 1) unless the math needs otherwise ---------------------------
def _randn(gen, device, *shape):
    return torch.randn(*shape, generator=gen, device=device, dtype=torch.float32)


def _rand(gen, device, *shape, lo=0.0, hi=1.0):
    return torch.rand(*shape, generator=gen, device=device, dtype=torch.float32) * (hi - lo) + lo


def _mk_affine(M, N, gen, dev, beta=True):
    x = _randn(gen, dev, M, N)
    gamma = 1.0 + 0.1 * _randn(gen, dev, N)
    return (x, gamma, 0.1 * _randn(gen, dev, N)) if beta else (x, gamma)


def _mk_wvar_bwd(M, N, gen, dev):
    return _randn(gen, dev, M, N), _rand(gen, dev, M, N, lo=0.5, hi=1.5), _randn(gen, dev, M)  # sw > 0


def _mk_pearson_bwd(M, N, gen, dev):
    return _randn(gen, dev, M, N), _randn(gen, dev, M, N), _randn(gen, dev, M)


def _mk_rows(k):
    return lambda M, N, gen, dev: tuple(_randn(gen, dev, M, N) for _ in range(k))


def _mk_cross_entropy_bwd(M, N, gen, dev):
    x = _randn(gen, dev, M, N)
    t = _rand(gen, dev, M, N)
    return x, t / t.sum(-1, keepdim=True)  # soft targets: a distribution per row


ROW, BC, SC = "row", "broadcast", "scalar"

WORKLOADS = {
    "layernorm": Workload("layernorm", [("x", ROW), ("gamma", BC), ("beta", BC)], [("y", ROW, "float")],
                          TI.PARAMS["layernorm"], _mk_affine),
    "wvar_bwd": Workload("wvar_bwd", [("x", ROW), ("w", ROW), ("g", SC)],
                         [("dx", ROW, "float"), ("dw", ROW, "float")], {}, _mk_wvar_bwd),
    "pearson_bwd": Workload("pearson_bwd", [("x", ROW), ("y", ROW), ("g", SC)],
                            [("gx", ROW, "float"), ("gy", ROW, "float")], {}, _mk_pearson_bwd),
    "softmax_logits_bwd": Workload("softmax_logits_bwd", [("x", ROW), ("dy", ROW)], [("dx", ROW, "float")],
                                   {}, _mk_rows(2)),
    "lars": Workload("lars", [("w", ROW), ("g", ROW), ("v", ROW)],
                     [("v_out", ROW, "float"), ("w_out", ROW, "float")], TI.PARAMS["lars"], _mk_rows(3)),
    "quant_int8": Workload("quant_int8", [("x", ROW)], [("q", ROW, "i8"), ("scale", SC, "float")], {},
                           _mk_rows(1)),
    "softmax": Workload("softmax", [("x", ROW)], [("y", ROW, "float")], {}, _mk_rows(1)),
    "log_softmax": Workload("log_softmax", [("x", ROW)], [("y", ROW, "float")], {}, _mk_rows(1)),
    "rmsnorm": Workload("rmsnorm", [("x", ROW), ("gamma", BC)], [("y", ROW, "float")], TI.PARAMS["rmsnorm"],
                        lambda M, N, gen, dev: _mk_affine(M, N, gen, dev, beta=False)),
    "cross_entropy_bwd": Workload("cross_entropy_bwd", [("x", ROW), ("t", ROW)], [("dx", ROW, "float")], {},
                                  _mk_cross_entropy_bwd),
}

assert tuple(WORKLOADS) == NAMES
