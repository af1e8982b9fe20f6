"""PyTorch peers for the six CREDIT workloads (dsl_examples/*.credit).

Conventions (shared by every peer in bench/peers):
  * row inputs      : float32 [M, N], contiguous
  * broadcast inputs: float32 [N]      (LayerNorm's gamma, beta)
  * per-row scalars : float32 [M]      (the upstream gradient g of wvar_bwd / pearson_bwd)
  * outputs         : returned as a tuple in .credit declaration order; per-element outputs are
                      [M, N] (float32, or int8 for quant_int8's q), per-row outputs are [M].
  * params          : keyword arguments whose defaults are the .credit defaults.

Two functions per workload:
  MATH[name]  - a literal transcription of the .credit stages.  Run on float64 inputs it is the
                reference (`reference`).
  EAGER[name] - the eager PyTorch peer: MATH, except where PyTorch has a fused op for the same math
                (F.layer_norm for layernorm, torch.softmax for softmax_logits_bwd), which is both
                the faster eager code and what a user would hand to torch.compile.
`compiled(name)` wraps EAGER[name] (or MATH[name] with variant="math") in
torch.compile(dynamic=False, fullgraph=True).
"""

import torch
import torch.nn.functional as F

NAMES = ("layernorm", "wvar_bwd", "pearson_bwd", "softmax_logits_bwd", "lars", "quant_int8")

# .credit `param` defaults.
PARAMS = {
    "layernorm": {"eps": 1e-5},
    "wvar_bwd": {},
    "pearson_bwd": {},
    "softmax_logits_bwd": {},
    "lars": {"lr": 0.1, "mom": 0.9, "wd": 1e-4, "eta": 1e-3},
    "quant_int8": {},
}


def round_half_away(v):
    """C roundf: nearest integer, ties away from zero (torch.round rounds ties to even).

    v - trunc(v) is exact in binary floating point, so the tie test is exact.
    """
    t = torch.trunc(v)
    return t + torch.sign(v) * ((v - t).abs() >= 0.5).to(v.dtype)


# ----------------------------------------------------------------------------------------------
# Literal transcriptions of the .credit files (also the float64 reference).
# ----------------------------------------------------------------------------------------------
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
    dx = gg * 2 * w * d / sw
    dw = gg * (d * d - v) / sw
    return dx, dw


def pearson_bwd_math(x, y, g):
    n = x.shape[-1]
    mx = x.sum(-1, keepdim=True) / n
    my = y.sum(-1, keepdim=True) / n
    xc = x - mx
    yc = y - my
    sxy = (xc * yc).sum(-1, keepdim=True)
    sxx = (xc * xc).sum(-1, keepdim=True)
    syy = (yc * yc).sum(-1, keepdim=True)
    den = torch.sqrt(sxx * syy)
    r = sxy / den
    gg = g.unsqueeze(-1)
    gx = gg * (yc / den - r * xc / sxx)
    gy = gg * (xc / den - r * yc / syy)
    return gx, gy


def softmax_logits_bwd_math(x, dy):
    m = x.amax(-1, keepdim=True)
    e = torch.exp(x - m)
    s = e.sum(-1, keepdim=True)
    d = (dy * e / s).sum(-1, keepdim=True)
    p = e / s
    return (p * (dy - d),)


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


# ----------------------------------------------------------------------------------------------
# Eager peers (fused PyTorch ops where PyTorch has them for exactly this math).
# ----------------------------------------------------------------------------------------------
def layernorm_eager(x, gamma, beta, eps=1e-5):
    # Biased variance, eps inside the square root: the .credit math exactly.
    return (F.layer_norm(x, (x.shape[-1],), gamma, beta, eps),)


def softmax_logits_bwd_eager(x, dy):
    # p = exp(x - m) / s;  d = sum(dy * p);  dx = p * (dy - d)
    p = torch.softmax(x, dim=-1)
    return (p * (dy - (dy * p).sum(-1, keepdim=True)),)


MATH = {
    "layernorm": layernorm_math,
    "wvar_bwd": wvar_bwd_math,
    "pearson_bwd": pearson_bwd_math,
    "softmax_logits_bwd": softmax_logits_bwd_math,
    "lars": lars_math,
    "quant_int8": quant_int8_math,
}

EAGER = {
    "layernorm": layernorm_eager,
    "wvar_bwd": wvar_bwd_math,
    "pearson_bwd": pearson_bwd_math,
    "softmax_logits_bwd": softmax_logits_bwd_eager,
    "lars": lars_math,
    "quant_int8": quant_int8_math,
}


def eager(name):
    return EAGER[name]


def _quant_int8_reference(x):
    # x is float64.  The scale is an f32 output in the .credit types, so the reference rounds s to
    # f32 (as every f32 implementation does) and then divides in float64: q_ref = round(x / s32).
    # An f32 implementation then differs only where its f32 quotient x/s32 (<= 0.5 ulp off for
    # IEEE division) straddles a .5 tie.
    amax = x.abs().amax(-1, keepdim=True)
    s = (torch.clamp_min(amax, 1e-12) / 127).float().double()
    q = round_half_away(x / s).clamp(-127.0, 127.0).to(torch.int8)
    return q, s.squeeze(-1)


def reference(name, *inputs, **params):
    """float64 reference: the literal .credit math on .double() copies of the inputs.

    Float outputs come back as float64.  quant_int8: q as int8, scale as float64 holding the
    f32-rounded scale (see _quant_int8_reference).
    """
    inputs = [t.double() for t in inputs]
    if name == "quant_int8":
        return _quant_int8_reference(*inputs)
    return MATH[name](*inputs, **params)


def _raise_recompile_limits(limit=1024):
    # dynamic=False gives one graph per shape.  Dynamo's per-code-object cache limit (8 by
    # default) would otherwise make later shapes silently fall back to eager.
    cfg = torch._dynamo.config
    for attr in ("recompile_limit", "cache_size_limit",
                 "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(cfg, attr):
            try:
                setattr(cfg, attr, max(int(getattr(cfg, attr)), limit))
            except Exception:  # an alias that cannot be set: the other name covers it
                pass


_COMPILED = {}


def compiled(name, mode=None, variant="eager"):
    """torch.compile(EAGER[name] (or MATH[name] when variant="math"), dynamic=False,
    fullgraph=True).  mode=None is Inductor's default mode; "max-autotune-no-cudagraphs" is the
    other mode meant here.  One wrapper per (name, mode, variant); each new input shape compiles
    once on first call (compile time is outside any timed region: warm up first)."""
    key = (name, mode, variant)
    fn = _COMPILED.get(key)
    if fn is None:
        _raise_recompile_limits()
        base = EAGER[name] if variant == "eager" else MATH[name]
        kwargs = {"dynamic": False, "fullgraph": True}
        if mode is not None:
            kwargs["mode"] = mode
        fn = torch.compile(base, **kwargs)
        _COMPILED[key] = fn
    return fn
