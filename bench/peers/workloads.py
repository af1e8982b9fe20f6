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
or "scalar". Element types: "float" (the benchmark's dtype: the fp32 workloads) or a type word of
the launch API's signature (f32, bf16, i64, i8, ...: the bf16 workloads, whose operands have types
of their own). inputs [(name, kind)] or [(name, kind, type)], outputs [(name, kind, type)].
Params are the .credit defaults; every peer takes them as keyword arguments.
"""

import os
import sys
from dataclasses import dataclass, field

import torch

if __package__:
    from . import torch_impls as TI
else:  # bench/peers on sys.path
    import torch_impls as TI

try:
    from benchlib import shapes as S
except ImportError:  # bench/peers alone on sys.path (selfcheck.py): benchlib is beside it
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchlib import shapes as S

NAMES = TI.NAMES
BF16_NAMES = TI.BF16_NAMES
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
TORCH_TYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16, "i8": torch.int8,
               "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8, "bool": torch.bool}
TYPE_WORDS = {v: k for k, v in TORCH_TYPES.items()}


def _type_word(type_, dtype):
    """A registry element type as a signature type word: "float" is the run's float type."""
    return TYPE_WORDS[dtype] if type_ == "float" else type_


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

    def input_types(self, dtype=torch.float32):
        """[torch dtype] of the inputs: "float" ones in dtype, typed ones in their own type."""
        return [TORCH_TYPES[_type_word(i[2] if len(i) > 2 else "float", dtype)] for i in self.inputs]

    def make_inputs(self, M, N, seed=0, device="cuda", dtype=torch.float32):
        """Fresh random inputs (tuple in declared order), deterministic in (M, N, seed)."""
        gen = torch.Generator(device=device)
        gen.manual_seed(int(seed))
        return tuple(t.to(d) for t, d in zip(self._make(M, N, gen, device), self.input_types(dtype)))

    def output_specs(self, M, N, dtype=torch.float32):
        """[(shape, torch dtype)] of the outputs."""
        return [((M, N) if kind == "row" else (M,), TORCH_TYPES[_type_word(et, dtype)])
                for _, kind, et in self.outputs]

    def alloc_outputs(self, M, N, device="cuda", dtype=torch.float32):
        return tuple(torch.empty(s, dtype=d, device=device) for s, d in self.output_specs(M, N, dtype))

    def operands(self, dtype=torch.float32):
        """[(name, "in" | "out", kind, type word)] in signature order, "float" resolved to dtype."""
        ins = [(i[0], "in", i[1], _type_word(i[2] if len(i) > 2 else "float", dtype)) for i in self.inputs]
        return ins + [(n, "out", k, _type_word(et, dtype)) for n, k, et in self.outputs]

    def compulsory_bytes(self, M, N, dtype=torch.float32):
        """Bytes of one read of every input and one write of every output, each operand in its own
        element size (bf16 rows 2 B, i64 class indices 8 B a row, f32 per-row results 4 B)."""
        return S.compulsory_bytes([(k, t) for _, _, k, t in self.operands(dtype)], M, N)

    def named(self, inputs, outputs):
        """[(name, tensor)] of inputs then outputs, for the launch API's marshalling."""
        return list(zip([i[0] for i in self.inputs] + [o[0] for o in self.outputs], tuple(inputs) + tuple(outputs)))

    def rows_of(self, inputs, r0, r1):
        """The inputs restricted to rows [r0, r1) (broadcast inputs whole)."""
        return tuple(t if spec[1] == "broadcast" else t[r0:r1] for t, spec in zip(inputs, self.inputs))

    # -- peers -----------------------------------------------------------------------------
    def eager(self, *inputs, **params):
        """The default eager op's outputs (None for an output it does not produce)."""
        return TI.EAGER[self.name](*inputs, **params)

    @property
    def eager_op(self):
        return TI.EAGER_OPS.get(self.name, "elementwise and reductions (no fused op)")

    def eager_idioms(self):
        """{op label: make(*inputs) -> zero-argument callable}, the default op first (torch_impls)."""
        return TI.eager_idioms(self.name)

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


LOGIT_SCALE = 2.0  # bf16 logits ~ N(0, 2^2): a spread like a language-model head's


def _mk_logits(M, N, gen, dev):
    return (LOGIT_SCALE * _randn(gen, dev, M, N),)


def _mk_classes(M, N, gen, dev, grad=False):
    x = LOGIT_SCALE * _randn(gen, dev, M, N)
    t = torch.randint(0, N, (M,), generator=gen, device=dev, dtype=torch.int64)
    return (x, t, _randn(gen, dev, M)) if grad else (x, t)


def _typed(name, make):
    """A bf16 workload: its operands from its launch API signature (benchlib/shapes.py)."""
    sig = S.parse_signature(S.SIGNATURES[name])
    return Workload(name, [(n, k, t) for n, d, k, t in sig if d == "in"],
                    [(n, k, t) for n, d, k, t in sig if d == "out"], TI.PARAMS[name], make)


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
    # bf16: x ~ N(0, 1) for the norms, gamma = 1 + 0.1 N(0, 1), beta = 0.1 N(0, 1) (then rounded to
    # bf16); logits 2 N(0, 1); class indices uniform in [0, N); g ~ N(0, 1) in f32.
    "rmsnorm_bf16": _typed("rmsnorm_bf16", lambda M, N, gen, dev: _mk_affine(M, N, gen, dev, beta=False)),
    "layernorm_bf16": _typed("layernorm_bf16", _mk_affine),
    "softmax_bf16": _typed("softmax_bf16", _mk_logits),
    "cross_entropy_fwd_bf16": _typed("cross_entropy_fwd_bf16", _mk_classes),
    "cross_entropy_bwd_bf16": _typed("cross_entropy_bwd_bf16",
                                     lambda M, N, gen, dev: _mk_classes(M, N, gen, dev, grad=True)),
}

assert tuple(WORKLOADS) == NAMES + BF16_NAMES
assert NAMES == S.WORKLOADS and BF16_NAMES == S.BF16
