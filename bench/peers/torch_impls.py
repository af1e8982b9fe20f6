"""PyTorch peers of the benchmark's workloads (dsl_examples/*.credit).

Conventions (shared by every peer in bench/peers):
  * row inputs      : [M, N], contiguous, the benchmark's dtype
  * broadcast inputs: [N]      (gamma, beta)
  * per-row scalars : [M]      (the upstream gradient g of wvar_bwd / pearson_bwd)
  * outputs         : a tuple in .credit declaration order; per-element outputs [M, N], per-row [M]
  * params          : keyword arguments whose defaults are the .credit defaults

Three functions per workload:
  MATH[name]    a literal transcription of the .credit stages; on float64 inputs, the reference.
  EAGER[name]   the eager peer: PyTorch's native fused kernel where one computes this math
                (F.layer_norm, F.rms_norm, softmax, log_softmax, the log-softmax backward that
                F.cross_entropy's gradient runs), else MATH.
  COMPILE[name] what torch.compile is given: EAGER, except for cross_entropy_bwd, where a user
                writes softmax(x) * sum(t) - t (Inductor decomposes the native ops anyway).
`compiled(name, impl)` is the torch.compile'd peer of one of the two configurations in MODES.

The bf16 workloads (BF16_NAMES) take bf16 rows and gamma/beta, i64 class indices and f32 per-row
gradients, compute in f32 and return their outputs in the .credit types (bf16 rows, f32 per-row
results). An eager peer returns None for an output its fused op does not produce (F.rms_norm has
no rstd, F.cross_entropy no lse): it does less work, and the check skips that output.
eager_idioms(name) lists the eager idioms, several where there are (the gradient of
F.cross_entropy: autograd, or the closed form); the benchmark times each and records the faster.
"""
import types

import torch
import torch.nn.functional as F

NAMES = ("layernorm", "wvar_bwd", "pearson_bwd", "softmax_logits_bwd", "lars", "quant_int8",
         "softmax", "log_softmax", "rmsnorm", "cross_entropy_bwd")
BF16_NAMES = ("rmsnorm_bf16", "layernorm_bf16", "softmax_bf16", "cross_entropy_fwd_bf16", "cross_entropy_bwd_bf16")

# .credit `param` defaults.
PARAMS = {
    "layernorm": {"eps": 1e-5},
    "wvar_bwd": {},
    "pearson_bwd": {},
    "softmax_logits_bwd": {},
    "lars": {"lr": 0.1, "mom": 0.9, "wd": 1e-4, "eta": 1e-3},
    "quant_int8": {},
    "softmax": {},
    "log_softmax": {},
    "rmsnorm": {"eps": 1e-6},
    "cross_entropy_bwd": {},
    "rmsnorm_bf16": {"eps": 1e-6},
    "layernorm_bf16": {"eps": 1e-5},
    "softmax_bf16": {},
    "cross_entropy_fwd_bf16": {},
    "cross_entropy_bwd_bf16": {},
}


def round_half_away(v):
    """C roundf: nearest integer, ties away from zero (torch.round rounds ties to even).
    v - trunc(v) is exact in binary floating point, so the tie test is exact."""
    t = torch.trunc(v)
    return t + torch.sign(v) * ((v - t).abs() >= 0.5).to(v.dtype)


# ---- literal transcriptions of the .credit files (also the float64 reference) ----------------
def layernorm_math(x, gamma, beta, eps=1e-5):
    n = x.shape[-1]
    mean = x.sum(-1, keepdim=True) / n
    xc = x - mean
    var = (xc * xc).sum(-1, keepdim=True) / n
    rstd = torch.rsqrt(var + eps)
    return (xc * rstd * gamma + beta,)


def wvar_bwd_math(x, w, g):
    sw = w.sum(-1, keepdim=True)
    mu = (w * x).sum(-1, keepdim=True) / sw
    d = x - mu
    v = (w * d * d).sum(-1, keepdim=True) / sw
    gg = g.unsqueeze(-1)
    return gg * 2 * w * d / sw, gg * (d * d - v) / sw


def pearson_bwd_math(x, y, g):
    n = x.shape[-1]
    xc = x - x.sum(-1, keepdim=True) / n
    yc = y - y.sum(-1, keepdim=True) / n
    sxy = (xc * yc).sum(-1, keepdim=True)
    sxx = (xc * xc).sum(-1, keepdim=True)
    syy = (yc * yc).sum(-1, keepdim=True)
    den = torch.sqrt(sxx * syy)
    r = sxy / den
    gg = g.unsqueeze(-1)
    return gg * (yc / den - r * xc / sxx), gg * (xc / den - r * yc / syy)


def softmax_logits_bwd_math(x, dy):
    m = x.amax(-1, keepdim=True)
    e = torch.exp(x - m)
    s = e.sum(-1, keepdim=True)
    d = (dy * e / s).sum(-1, keepdim=True)
    return (e / s * (dy - d),)


def lars_math(w, g, v, lr=0.1, mom=0.9, wd=1e-4, eta=1e-3):
    wn = torch.sqrt((w * w).sum(-1, keepdim=True))
    gn = torch.sqrt((g * g).sum(-1, keepdim=True))
    trust = eta * wn / (gn + wd * wn + 1e-9)
    vn = mom * v + lr * trust * (g + wd * w)
    return vn, w - vn


def quant_int8_math(x):
    amax = x.abs().amax(-1, keepdim=True)
    s = torch.clamp_min(amax, 1e-12) / 127
    q = round_half_away(x / s).clamp(-127.0, 127.0).to(torch.int8)
    return q, s.squeeze(-1)


def softmax_math(x):
    m = x.amax(-1, keepdim=True)
    s = torch.exp(x - m).sum(-1, keepdim=True)
    return (torch.exp(x - m) / s,)


def log_softmax_math(x):
    m = x.amax(-1, keepdim=True)
    s = torch.exp(x - m).sum(-1, keepdim=True)
    return (x - m - torch.log(s),)


def rmsnorm_math(x, gamma, eps=1e-6):
    ms = (x * x).sum(-1, keepdim=True) / x.shape[-1]
    return (x * torch.rsqrt(ms + eps) * gamma,)


def cross_entropy_bwd_math(x, t):
    m = x.amax(-1, keepdim=True)
    s = torch.exp(x - m).sum(-1, keepdim=True)
    st = t.sum(-1, keepdim=True)
    return (torch.exp(x - m) / s * st - t,)


# bf16 workloads: the same transcription, in the inputs' float type (float64 for the reference);
# the class index t stays an integer, `where(i == t, ...)` compares it with the column index.
def rmsnorm_bf16_math(x, gamma, eps=1e-6):
    ms = (x * x).sum(-1, keepdim=True) / x.shape[-1]
    r = torch.rsqrt(ms + eps)
    return x * r * gamma, r.squeeze(-1)


def _is_target(x, t):
    return torch.arange(x.shape[-1], device=x.device) == t.unsqueeze(-1)


def cross_entropy_fwd_bf16_math(x, t):
    m = x.amax(-1, keepdim=True)
    s = torch.exp(x - m).sum(-1, keepdim=True)
    xt = torch.where(_is_target(x, t), x, torch.zeros((), dtype=x.dtype, device=x.device)).sum(-1)
    lse = (torch.log(s) + m).squeeze(-1)
    return lse - xt, lse


def cross_entropy_bwd_bf16_math(x, t, g):
    m = x.amax(-1, keepdim=True)
    s = torch.exp(x - m).sum(-1, keepdim=True)
    return (g.unsqueeze(-1) * (torch.exp(x - m) / s - _is_target(x, t).to(x.dtype)),)


# ---- eager peers: native fused kernels where PyTorch has them -------------------------------
def layernorm_eager(x, gamma, beta, eps=1e-5):
    # Biased variance, eps inside the square root: the .credit math exactly.
    return (F.layer_norm(x, (x.shape[-1],), gamma, beta, eps),)


def softmax_logits_bwd_eager(x, dy):
    p = torch.softmax(x, dim=-1)
    return (p * (dy - (dy * p).sum(-1, keepdim=True)),)


def softmax_eager(x):
    return (torch.softmax(x, dim=-1),)


def log_softmax_eager(x):
    return (torch.log_softmax(x, dim=-1),)


def rmsnorm_eager(x, gamma, eps=1e-6):
    if hasattr(F, "rms_norm"):
        return (F.rms_norm(x, (x.shape[-1],), gamma, eps),)
    return rmsnorm_math(x, gamma, eps)


def cross_entropy_bwd_eager(x, t):
    # The kernels F.cross_entropy(x, t, reduction="sum")'s gradient runs for soft targets:
    # log_softmax, then the fused log-softmax backward with grad -t: -t + softmax(x) * sum(t).
    lsm = torch.log_softmax(x, dim=-1)
    return (torch._log_softmax_backward_data(-t, lsm, -1, x.dtype),)


def cross_entropy_bwd_user(x, t):
    return (torch.softmax(x, dim=-1) * t.sum(-1, keepdim=True) - t,)


# ---- bf16 eager peers ------------------------------------------------------------------------
def rmsnorm_bf16_eager(x, gamma, eps=1e-6):
    # F.rms_norm returns y only (no rstd).
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, (x.shape[-1],), gamma, eps), None
    return rmsnorm_bf16_user(x, gamma, eps)


def layernorm_bf16_eager(x, gamma, beta, eps=1e-5):
    return (F.layer_norm(x, (x.shape[-1],), gamma, beta, eps),)


def cross_entropy_fwd_bf16_eager(x, t):
    # The loss in x's type (bf16), and no lse: F.cross_entropy does not return it.
    return F.cross_entropy(x, t, reduction="none"), None


def cross_entropy_bwd_bf16_closed(x, t, g):
    # softmax(x) * g - onehot(t) * g: the softmax, an in-place scale by g, and g subtracted at
    # the target column (one element per row).
    dx = torch.softmax(x, dim=-1)
    dx.mul_(g.unsqueeze(-1))
    dx.scatter_add_(-1, t.unsqueeze(-1), g.unsqueeze(-1).to(dx.dtype).neg_())
    return (dx,)


class CrossEntropyBwdAutograd:
    """The gradient of F.cross_entropy(x, t, reduction="none") w.r.t. x for the upstream g, as
    autograd computes it in training: the forward (whose log_softmax the backward reads) runs once
    here, and each call is the backward alone (nll_loss's backward, then the fused log-softmax
    backward). g is given in the loss's type, as autograd would receive it."""

    def __init__(self, x, t, g):
        self.x = x.detach().requires_grad_()
        with torch.enable_grad():
            self.loss = F.cross_entropy(self.x, t, reduction="none")
        self.g = g.to(self.loss.dtype)

    def __call__(self):
        return torch.autograd.grad(self.loss, self.x, self.g, retain_graph=True)


# ---- bf16 torch.compile sources: the .credit math as a user writes it, every output produced ----
def rmsnorm_bf16_user(x, gamma, eps=1e-6):
    xf = x.float()
    r = torch.rsqrt(xf.square().mean(-1, keepdim=True) + eps)
    return (xf * r * gamma.float()).to(x.dtype), r.squeeze(-1)


def cross_entropy_fwd_bf16_user(x, t):
    xf = x.float()
    lse = torch.logsumexp(xf, dim=-1)
    return lse - xf.gather(-1, t.unsqueeze(-1)).squeeze(-1), lse


def cross_entropy_bwd_bf16_user(x, t, g):
    p = torch.softmax(x.float(), dim=-1)
    return ((p - _is_target(x, t).float()) * g.unsqueeze(-1)).to(x.dtype),


MATH = {
    "layernorm": layernorm_math, "wvar_bwd": wvar_bwd_math, "pearson_bwd": pearson_bwd_math,
    "softmax_logits_bwd": softmax_logits_bwd_math, "lars": lars_math, "quant_int8": quant_int8_math,
    "softmax": softmax_math, "log_softmax": log_softmax_math, "rmsnorm": rmsnorm_math,
    "cross_entropy_bwd": cross_entropy_bwd_math,
    "rmsnorm_bf16": rmsnorm_bf16_math, "layernorm_bf16": layernorm_math, "softmax_bf16": softmax_math,
    "cross_entropy_fwd_bf16": cross_entropy_fwd_bf16_math, "cross_entropy_bwd_bf16": cross_entropy_bwd_bf16_math,
}

EAGER = dict(MATH, layernorm=layernorm_eager, softmax_logits_bwd=softmax_logits_bwd_eager,
             softmax=softmax_eager, log_softmax=log_softmax_eager, rmsnorm=rmsnorm_eager,
             cross_entropy_bwd=cross_entropy_bwd_eager,
             rmsnorm_bf16=rmsnorm_bf16_eager, layernorm_bf16=layernorm_bf16_eager, softmax_bf16=softmax_eager,
             cross_entropy_fwd_bf16=cross_entropy_fwd_bf16_eager,
             cross_entropy_bwd_bf16=cross_entropy_bwd_bf16_closed)

# What a record's "op" field says the eager peer ran.
EAGER_OPS = {
    "layernorm": "F.layer_norm", "softmax_logits_bwd": "torch.softmax + elementwise",
    "softmax": "torch.softmax", "log_softmax": "torch.log_softmax",
    "rmsnorm": "F.rms_norm" if hasattr(F, "rms_norm") else "elementwise (no F.rms_norm)",
    "cross_entropy_bwd": "torch.log_softmax + torch._log_softmax_backward_data (F.cross_entropy's gradient)",
    "rmsnorm_bf16": "F.rms_norm (y only, no rstd)" if hasattr(F, "rms_norm") else "elementwise (no F.rms_norm)",
    "layernorm_bf16": "F.layer_norm",
    "softmax_bf16": "torch.softmax",
    "cross_entropy_fwd_bf16": "F.cross_entropy(reduction='none') (loss in bf16, no lse)",
    "cross_entropy_bwd_bf16": "closed form: torch.softmax, mul_(g), scatter_add_(-g) at t",
}
AUTOGRAD_CE_OP = "torch.autograd.grad of F.cross_entropy(reduction='none') (forward outside the timing)"


def _plain(name):
    return lambda *inputs, **params: (lambda: EAGER[name](*inputs, **params))


def eager_idioms(name):
    """{op label: make(*inputs) -> zero-argument callable returning the outputs}: what the eager peer
    can run, the default op first. Making an idiom may run work that stays outside the timing (the
    autograd forward)."""
    out = {EAGER_OPS.get(name, "elementwise and reductions (no fused op)"): _plain(name)}
    if name == "cross_entropy_bwd_bf16":
        out[AUTOGRAD_CE_OP] = CrossEntropyBwdAutograd
    return out


COMPILE = dict(EAGER, cross_entropy_bwd=cross_entropy_bwd_user,
               rmsnorm_bf16=rmsnorm_bf16_user, cross_entropy_fwd_bf16=cross_entropy_fwd_bf16_user,
               cross_entropy_bwd_bf16=cross_entropy_bwd_bf16_user)


def _quant_int8_reference(x):
    # x is float64. The scale is an f32 output in the .credit types, so the reference rounds s to
    # f32 (as every f32 implementation does) and then divides in float64: q_ref = round(x / s32).
    amax = x.abs().amax(-1, keepdim=True)
    s = (torch.clamp_min(amax, 1e-12) / 127).float().double()
    q = round_half_away(x / s).clamp(-127.0, 127.0).to(torch.int8)
    return q, s.squeeze(-1)


def reference(name, *inputs, **params):
    """float64 reference: the literal .credit math on .double() copies of the float inputs (integer
    inputs, class indices, as they are). Float outputs come back as float64; quant_int8: q as int8,
    scale holding the f32-rounded scale."""
    inputs = [t.double() if t.is_floating_point() else t for t in inputs]
    if name == "quant_int8":
        return _quant_int8_reference(*inputs)
    return MATH[name](*inputs, **params)


# ---- torch.compile ---------------------------------------------------------------------------
# The two configurations measured; the strongest peer takes the faster (both are recorded).
MODES = {
    "torch_compile_default": {"mode": None, "coordinate_descent_tuning": False},
    "torch_compile_max_autotune": {"mode": "max-autotune-no-cudagraphs", "coordinate_descent_tuning": True},
}


def _raise_recompile_limits(limit=1024):
    # dynamic=False gives one graph per shape. Dynamo's per-code-object cache limit (8 by default)
    # would otherwise make later shapes silently fall back to eager.
    cfg = torch._dynamo.config
    for attr in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                 "accumulated_cache_size_limit"):
        if hasattr(cfg, attr):
            try:
                setattr(cfg, attr, max(int(getattr(cfg, attr)), limit))
            except Exception:  # an alias that cannot be set: the other name covers it
                pass


def _own_code(fn, tag):
    """A copy of fn with its own code object: Dynamo caches compiled graphs per code object, so
    two torch.compile configurations of one function must not share it."""
    code = fn.__code__.replace(co_name=f"{fn.__name__}_{tag}")
    return types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, fn.__closure__)


class CompiledPeer:
    """torch.compile(COMPILE[name], dynamic=False, fullgraph=True) in one of MODES.

    prepare(*inputs) makes the first call for a shape (compilation and any autotuning happen
    there, under the mode's Inductor options) and returns its outputs; later calls are plain."""

    def __init__(self, name, impl):
        spec = MODES[impl]
        _raise_recompile_limits()
        kwargs = {"dynamic": False, "fullgraph": True}
        if spec["mode"]:
            kwargs["mode"] = spec["mode"]
        self.name, self.impl, self.spec = name, impl, spec
        self.fn = torch.compile(_own_code(COMPILE[name], impl), **kwargs)

    def prepare(self, *inputs):
        with torch._inductor.config.patch(coordinate_descent_tuning=self.spec["coordinate_descent_tuning"]):
            return self.fn(*inputs)

    def __call__(self, *inputs):
        return self.fn(*inputs)


_COMPILED = {}


def compiled(name, impl="torch_compile_default"):
    key = (name, impl)
    if key not in _COMPILED:
        _COMPILED[key] = CompiledPeer(name, impl)
    return _COMPILED[key]
