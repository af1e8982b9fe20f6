"""The credit package on a GPU: every bundled example against a float64 torch reference,
explicit variants, opcheck, torch.compile(fullgraph=True), CUDA graph capture, the
errors, and the NVRTC cache (cold load, warm load, a second process).

Where the kernels come from: $CREDIT_TEST_GEN (a folder of generated .cu files, e.g.
.gpu/python/gen from python/tools/prepare_bundle.sh), else dsl_examples/*.credit through
creditc. Runs under pytest or as ``python3 python/tests/run_all.py``; skips without torch
or a CUDA device.
"""

import concurrent.futures
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

import credit  # noqa: E402
from credit._signature import ELEM_DTYPES  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

# A fresh kernel cache for the run, so the first loads are cold; the second-process test
# reuses it.
CACHE_DIR = os.environ.setdefault("CREDIT_TEST_CACHE_DIR", tempfile.mkdtemp(prefix="credit-test-cache-"))


def require_gpu():
    if torch is None:
        raise unittest.SkipTest("no torch")
    if not torch.cuda.is_available():
        raise unittest.SkipTest("no CUDA device")


# ---- the examples and their references (float64, the .credit files' semantics) ----

def _f64(*ts):
    return [t.double() for t in ts]


def ref_layernorm(x, gamma, beta):
    x, gamma, beta = _f64(x, gamma, beta)
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) * torch.rsqrt(var + 1e-5) * gamma + beta


def ref_standardize_residual_bf16(x, r):
    v = sum(_f64(x, r))
    mean = v.mean(-1, keepdim=True)
    sd = torch.sqrt(((v - mean) ** 2).mean(-1) + 1e-6)
    return (v - mean) / sd.unsqueeze(-1), sd


def ref_rmsnorm(x, gamma):
    x, gamma = _f64(x, gamma)
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * gamma


def ref_softmax(x):
    return torch.softmax(x.double(), -1)


def ref_log_softmax(x):
    return torch.log_softmax(x.double(), -1)


def ref_softmax_logits_bwd(x, dy):
    x, dy = _f64(x, dy)
    p = torch.softmax(x, -1)
    return p * (dy - (dy * p).sum(-1, keepdim=True))


def ref_cross_entropy_bwd(x, t):
    x, t = _f64(x, t)
    return torch.softmax(x, -1) * t.sum(-1, keepdim=True) - t


def ref_lars(w, g, v, lr=0.1, mom=0.9, wd=1e-4, eta=1e-3):
    w, g, v = _f64(w, g, v)
    wn, gn = w.norm(dim=-1, keepdim=True), g.norm(dim=-1, keepdim=True)
    trust = eta * wn / (gn + wd * wn + 1e-9)
    vn = mom * v + lr * trust * (g + wd * w)
    return vn, w - vn


def ref_pearson_bwd(x, y, g):
    x, y, g = _f64(x, y, g)
    g = g.unsqueeze(-1)
    dx, dy = x - x.mean(-1, keepdim=True), y - y.mean(-1, keepdim=True)
    sxy, sxx, syy = [(a * b).sum(-1, keepdim=True) for a, b in ((dx, dy), (dx, dx), (dy, dy))]
    den = torch.sqrt(sxx * syy)
    r = sxy / den
    return g * (dy / den - r * dx / sxx), g * (dx / den - r * dy / syy)


def ref_wvar_bwd(x, w, g):
    x, w, g = _f64(x, w, g)
    g = g.unsqueeze(-1)
    sw = w.sum(-1, keepdim=True)
    mu = (w * x).sum(-1, keepdim=True) / sw
    v = (w * (x - mu) ** 2).sum(-1, keepdim=True) / sw
    return g * 2 * w * (x - mu) / sw, g * ((x - mu) ** 2 - v) / sw


def ref_quant_int8(x):
    s = x.double().abs().amax(-1).clamp_min(1e-12) / 127
    return torch.clamp(torch.round(x.double() / s.unsqueeze(-1)), -127, 127), s


def _masked_softmax(x, keep):
    m = torch.where(keep, x, torch.full_like(x, -math.inf)).amax(-1, keepdim=True)
    e = torch.where(keep, torch.exp(x - m), torch.zeros_like(x))
    return torch.where(keep, torch.exp(x - m) / e.sum(-1, keepdim=True), torch.zeros_like(x))


def ref_threshold_softmax(x):
    x = x.double()
    return _masked_softmax(x, x > 0)


def ref_causal_softmax(x, pos):
    x, pos = _f64(x, pos)
    cols = torch.arange(x.shape[-1], device=x.device, dtype=torch.float64)
    return _masked_softmax(x, cols <= pos.unsqueeze(-1))


def ref_rmsnorm_bf16(x, gamma):
    x, gamma = _f64(x, gamma)
    r = torch.rsqrt((x * x).mean(-1) + 1e-6)
    return x * r.unsqueeze(-1) * gamma, r


def ref_rmsnorm_bwd_bf16(x, dy, gamma, rstd):
    x, dy, gamma, rstd = _f64(x, dy, gamma, rstd)
    r = rstd.unsqueeze(-1)
    c = (dy * gamma * x).mean(-1, keepdim=True)
    return r * (dy * gamma - x * (r * r * c))


def _target_column(x, t):
    """Per row, whether column j is the class index t (never where t is outside [0, N), e.g. -100)."""
    cols = torch.arange(x.shape[-1], device=x.device)
    return cols == t.long().unsqueeze(-1)


def ref_softmax_temperature_bf16(x, temperature):
    return torch.softmax(x.double() / temperature, -1)


def ref_cross_entropy_fwd_bf16(x, t):
    x = x.double()
    lse = torch.logsumexp(x, -1)
    xt = torch.where(_target_column(x, t), x, torch.zeros_like(x)).sum(-1)  # 0 for an ignored row
    return lse - xt, lse


def ref_cross_entropy_smoothed_f16(x, t, eps):
    x = x.double()
    xt = torch.where(_target_column(x, t), x, torch.zeros_like(x)).sum(-1)  # 0 for an ignored row
    return torch.logsumexp(x, -1) - (1 - eps) * xt - eps * x.mean(-1)


def ref_cross_entropy_bwd_bf16(x, t, g):
    x, g = _f64(x, g)
    onehot = _target_column(x, t).double()
    return g.unsqueeze(-1) * (torch.softmax(x, -1) - onehot)


def ref_masked_softmax_bf16(x, keep):
    return _masked_softmax(x.double(), keep.bool())


def ref_masked_layernorm_residual(valid, x, res, gamma, eps=1e-5):
    keep = valid != 0
    x, res, gamma = _f64(x, res, gamma)
    v = x + res
    zero = torch.zeros_like(v)
    cnt = keep.sum(-1, keepdim=True).clamp_min(1).double()
    mu = torch.where(keep, v, zero).sum(-1, keepdim=True) / cnt
    var = torch.where(keep, (v - mu) ** 2, zero).sum(-1, keepdim=True) / cnt
    return torch.where(keep, (v - mu) * torch.rsqrt(var + eps) * gamma, zero)


def ref_layernorm_f16(x, gamma, beta):
    x, gamma, beta = _f64(x, gamma, beta)
    mean = x.mean(-1)
    rstd = torch.rsqrt(((x - mean.unsqueeze(-1)) ** 2).mean(-1) + 1e-5)
    return (x - mean.unsqueeze(-1)) * rstd.unsqueeze(-1) * gamma + beta, mean, rstd


# The runtime params the tests pass (after the tensors), by kernel.
PARAM_VALUES = {"softmax_temperature_bf16": {"temperature": 0.7}, "cross_entropy_smoothed_f16": {"eps": 0.1}}


def param_values(kernel):
    return [PARAM_VALUES[kernel.name][a.name] for a in kernel.params]


REFERENCES = {
    "softmax_temperature_bf16": ref_softmax_temperature_bf16,
    "layernorm": ref_layernorm, "rmsnorm": ref_rmsnorm, "softmax": ref_softmax, "log_softmax": ref_log_softmax,
    "softmax_logits_bwd": ref_softmax_logits_bwd, "cross_entropy_bwd": ref_cross_entropy_bwd, "lars": ref_lars,
    "pearson_bwd": ref_pearson_bwd, "wvar_bwd": ref_wvar_bwd, "quant_int8": ref_quant_int8,
    "threshold_softmax": ref_threshold_softmax, "causal_softmax": ref_causal_softmax,
    "rmsnorm_bf16": ref_rmsnorm_bf16, "rmsnorm_bwd_bf16": ref_rmsnorm_bwd_bf16, "layernorm_f16": ref_layernorm_f16,
    "softmax_bf16": ref_softmax, "layernorm_bf16": ref_layernorm,
    "masked_layernorm_residual": ref_masked_layernorm_residual, "cross_entropy_fwd_bf16": ref_cross_entropy_fwd_bf16,
    "cross_entropy_bwd_bf16": ref_cross_entropy_bwd_bf16, "masked_softmax_bf16": ref_masked_softmax_bf16,
    "cross_entropy_smoothed_f16": ref_cross_entropy_smoothed_f16,
    "standardize_residual_bf16": ref_standardize_residual_bf16,
}
# Inputs that must be positive for the reference to be well conditioned.
POSITIVE = {("cross_entropy_bwd", "t"), ("wvar_bwd", "w"), ("rmsnorm_bwd_bf16", "rstd")}


def _integer_input(a, s, N, gen):
    """i32 / i64: class indices in [0, N), two rows (of four or more) at the ignore index -100;
    bool: a mask about 3/4 true; u8 in [0, 3], i8 in [-3, 3]. The middle row (of three or
    more) of a byte row input is all zero: a mask that keeps nothing."""
    dtype = getattr(torch, ELEM_DTYPES[a.elem])
    if a.elem in ("i32", "i64"):
        t = torch.randint(0, N, s, device="cuda", generator=gen, dtype=dtype)
        flat = t.view(-1)
        if flat.numel() >= 4:
            flat[1] = flat[-1] = -100
        return t
    if a.elem == "bool":
        t = torch.rand(s, device="cuda", generator=gen) < 0.75
    else:
        t = torch.randint(0 if a.elem == "u8" else -3, 4, s, device="cuda", generator=gen, dtype=dtype)
    rows = t.view(-1, N)
    if a.kind == "row" and rows.shape[0] >= 3:
        rows[rows.shape[0] // 2] = 0
    return t


def make_inputs(kernel, shape, seed=0):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    out = []
    for a in kernel.inputs:
        s = shape if a.kind == "row" else (shape[-1],) if a.kind == "broadcast" else shape[:-1]
        if a.elem in ("i32", "i64", "bool", "u8", "i8"):
            out.append(_integer_input(a, s, shape[-1], gen))
            continue
        if (kernel.name, a.name) in POSITIVE:
            t = torch.rand(s, device="cuda", generator=gen) + 0.5
        else:
            t = torch.randn(s, device="cuda", generator=gen)
        out.append(t.to(getattr(torch, ELEM_DTYPES[a.elem])))
    return out


# Per output type: a 16-bit output is rounded once at the store, a relative error of
# at most 2^-9 (bf16) or 2^-11 (f16) on top of the f32 arithmetic's.
RTOL = {torch.float32: 1e-3, torch.bfloat16: 8e-3, torch.float16: 2e-3} if torch else {}


def assert_matches(kernel, outputs, reference, what=""):
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    refs = reference if isinstance(reference, tuple) else (reference,)
    assert len(outs) == len(refs), "%s: %d outputs, reference has %d" % (kernel.name, len(outs), len(refs))
    for a, o, r in zip(kernel.outputs, outs, refs):
        assert tuple(o.shape) == tuple(r.shape), "%s %s %s: shape %s, reference %s" % (
            kernel.name, a.name, what, tuple(o.shape), tuple(r.shape))
        if o.dtype == torch.int8:  # rounding ties may land one step apart
            err = (o.double() - r).abs().max().item()
            assert err <= 1, "%s %s %s: int8 off by %s" % (kernel.name, a.name, what, err)
            continue
        scale = max(r.abs().max().item(), 1e-30)
        torch.testing.assert_close(o.double(), r, rtol=RTOL[o.dtype], atol=2e-5 * scale,
                                   msg=lambda m: "%s %s %s: %s" % (kernel.name, a.name, what, m))


# ---- loading (once, in parallel: each file is one NVRTC compile) ----

def example_sources():
    gen = os.environ.get("CREDIT_TEST_GEN")
    if gen:
        files = sorted(glob.glob(os.path.join(gen, "*.cu")))
        if not files:
            raise AssertionError("CREDIT_TEST_GEN=%s holds no .cu files" % gen)
        return files
    try:
        credit._source.find_creditc()
    except credit.CreditError:
        raise unittest.SkipTest("no generated files ($CREDIT_TEST_GEN) and no creditc")
    return sorted(glob.glob(os.path.join(REPO, "dsl_examples", "*.credit")))


_loaded = {}
_load_seconds = {}


def examples():
    """{kernel name: Kernel} of every example, loaded once."""
    require_gpu()
    if not _loaded:
        files = example_sources()
        t0 = time.time()

        def one(path):
            t = time.time()
            return path, credit.load(path, cache_dir=CACHE_DIR), time.time() - t

        workers = min(len(files), os.cpu_count() or 4)
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            for path, module, seconds in pool.map(one, files):
                for k in module:
                    _loaded[k.name] = k
                    _load_seconds[k.name] = seconds
        print("  loaded %d kernels in %.1f s (%d NVRTC compiles in parallel)" % (
            len(_loaded), time.time() - t0, len(files)))
    return _loaded


def example(name):
    ks = examples()
    if name not in ks:
        raise unittest.SkipTest("example %s not bundled" % name)
    return ks[name]


# ---- tests ----

def test_examples_match_eager():
    for name, k in sorted(examples().items()):
        ref = REFERENCES.get(name)
        assert ref is not None, "no reference for example %s: add one to REFERENCES" % name
        for shape in ((2, 3, 1024), (5, 1000), (257,)):
            xs = make_inputs(k, shape)
            out = k(*xs, *param_values(k))
            torch.cuda.synchronize()
            assert_matches(k, out, ref(*xs, *param_values(k)), "shape %s" % (shape,))
        plan = k.last_plan(*make_inputs(k, (2, 3, 1024)))
        print("  %-20s ok  auto at M=6 N=1024: %s" % (name, plan and "%s P=%d (%s)" % (
            plan["variant_name"], plan["P"], plan["source_name"])))


def test_explicit_variants():
    k = example("layernorm")
    xs = make_inputs(k, (64, 4096))
    ref = ref_layernorm(*xs)
    for variant, P, protocol in (("staged", 0, 1), ("reread", 0, 1), ("cluster", 2, 0), ("cluster", 4, 1),
                                 ("cluster", 0, 1), ("cluster_regs", 2, 1)):
        if variant not in k.variants:
            continue
        out = k(*xs, variant=variant, P=P, protocol=protocol)
        torch.cuda.synchronize()
        assert_matches(k, out, ref, "variant %s P=%d protocol %d" % (variant, P, protocol))
    # a wide row through "auto": the dispatch may pick a cluster
    xs = make_inputs(k, (8, 65536))
    assert_matches(k, k(*xs), ref_layernorm(*xs), "auto N=65536")
    print("  auto at M=8 N=65536:", k.last_plan(*xs))


# Every opcheck test for these (one of each argument kind and output count); the quick
# ones (schema, autograd registration, fake tensor) for the others, unless
# CREDIT_TEST_FULL=1 (AOT dispatch with dynamic shapes takes seconds per op).
FULL_OPCHECK = {"layernorm", "quant_int8", "pearson_bwd"}
QUICK_OPCHECK = ("test_schema", "test_autograd_registration", "test_faketensor")


def test_opcheck():
    full = os.environ.get("CREDIT_TEST_FULL") == "1"
    for name, k in sorted(examples().items()):
        xs = make_inputs(k, (4, 256))
        t = time.time()
        utils = None if full or name in FULL_OPCHECK else QUICK_OPCHECK
        kwargs = {} if utils is None else {"test_utils": utils}
        torch.library.opcheck(k.op, tuple(xs) + tuple(param_values(k)), {"variant": "auto", "P": 0, "protocol": 1},
                              **kwargs)
        print("  opcheck %-20s %s (%.1f s)" % (name, "all tests" if utils is None else "quick tests", time.time() - t))


def _two_ops(ln, sb):
    def f(x, gamma, beta, dy):
        h = ln(x, gamma, beta)
        h = torch.tanh(h) * 2.0 + x
        return sb(h, dy) * 1000.0 + torch.relu(h)  # the softmax gradient's scale is 1/N
    return f


def _two_ops_inputs(ln, sb):
    x, gamma, beta = make_inputs(ln, (16, 2048), seed=1)
    dy = torch.randn(16, 2048, device="cuda")
    return x, gamma, beta, dy


def _two_ops_reference(x, gamma, beta, dy):
    h = torch.tanh(ref_layernorm(x, gamma, beta)) * 2.0 + x.double()
    return ref_softmax_logits_bwd(h, dy) * 1000.0 + torch.relu(h)


def test_compile_fullgraph():
    ln, sb = example("layernorm"), example("softmax_logits_bwd")
    f = _two_ops(ln, sb)
    args = _two_ops_inputs(ln, sb)
    ref = _two_ops_reference(*args)
    for backend in ("aot_eager", "inductor"):
        torch._dynamo.reset()
        t = time.time()
        g = torch.compile(f, fullgraph=True, backend=backend)
        out = g(*args)
        torch.cuda.synchronize()
        torch.testing.assert_close(out.double(), ref, rtol=1e-3, atol=1e-4)
        args2 = _two_ops_inputs(ln, sb)
        out2 = g(*args2)  # same shapes: no recompile
        torch.cuda.synchronize()
        torch.testing.assert_close(out2.double(), _two_ops_reference(*args2), rtol=1e-3, atol=1e-4)
        print("  torch.compile(fullgraph=True, backend=%s): ok (%.1f s)" % (backend, time.time() - t))


def test_cuda_graph_capture():
    ln, sb = example("layernorm"), example("softmax_logits_bwd")
    f = _two_ops(ln, sb)
    static = [a.clone() for a in _two_ops_inputs(ln, sb)]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up: the dispatch decides (and times) outside the capture
        for _ in range(2):
            f(*static)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = f(*static)
    for seed in (3, 4):
        fresh = _two_ops_inputs(ln, sb)
        gen = torch.Generator(device="cuda").manual_seed(seed)
        fresh = [a + 0.1 * torch.randn(a.shape, device="cuda", generator=gen) for a in fresh]
        for s, a in zip(static, fresh):
            s.copy_(a)
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(static_out.double(), _two_ops_reference(*fresh), rtol=1e-3, atol=1e-4)
    print("  CUDA graph: captured 2 credit ops + torch ops, 2 replays ok")


def _raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        print("  %-26s %s" % (type(e).__name__ + ":", str(e).splitlines()[0][:100]))
        return e
    raise AssertionError("%s did not raise %s" % (getattr(fn, "__name__", fn), exc.__name__))


def test_errors():
    k = example("layernorm")
    x, gamma, beta = make_inputs(k, (4, 512))
    _raises(credit.DtypeError, k, x.double(), gamma, beta)
    _raises(TypeError, k, x.half(), gamma, beta)  # also a TypeError
    _raises(credit.DeviceError, k, x.cpu(), gamma.cpu(), beta.cpu())
    _raises(credit.DeviceError, k, x, gamma.cpu(), beta)
    _raises(credit.ShapeError, k, x, gamma[:100], beta)
    _raises(credit.ShapeError, k, torch.empty(4, 0, device="cuda"), gamma, beta)
    _raises(credit.LayoutError, k, torch.randn(512, 4, device="cuda").t(), gamma, beta)
    _raises(TypeError, k, x, gamma)
    _raises(ValueError, k, x, gamma, beta, variant="no_such_variant")
    _raises(ValueError, k, x, gamma, beta, variant="cluster", P=3)
    _raises(ValueError, k, x, gamma, beta, protocol=2)
    # refused by the launcher itself: a row too wide for one CTA's shared memory
    wide = torch.randn(1, 1 << 20, device="cuda")
    g1, b1 = torch.randn(1 << 20, device="cuda"), torch.randn(1 << 20, device="cuda")
    e = _raises(credit.LaunchError, k, wide, g1, b1, variant="staged_smem")
    assert "not legal" in str(e), str(e)
    module = credit.load(_example_path("layernorm"), cache_dir=CACHE_DIR)
    _raises(credit.UnknownKernelError, getattr, module, "no_such_kernel")
    _raises(KeyError, lambda: module["no_such_kernel"])
    q = example("pearson_bwd") if "pearson_bwd" in examples() else None
    if q is not None:
        a, b, g = make_inputs(q, (4, 512))
        _raises(credit.ShapeError, q, a, b, g[:2])


def test_runtime_params():
    if "softmax_temperature_bf16" not in examples():
        raise unittest.SkipTest("softmax_temperature_bf16 not bundled")
    k = example("softmax_temperature_bf16")
    (x,) = make_inputs(k, (8, 4096))
    for temperature in (0.25, 1.0, 3.0):  # one compiled kernel, the value given at each call
        assert_matches(k, k(x, temperature), ref_softmax_temperature_bf16(x, temperature), "T=%g" % temperature)
        assert_matches(k, k(x, temperature=temperature), ref_softmax_temperature_bf16(x, temperature),
                       "T=%g by name" % temperature)
    for variant in ("staged", "reread"):
        assert_matches(k, k(x, 0.5, variant=variant), ref_softmax_temperature_bf16(x, 0.5), variant)
    _raises(TypeError, k, x)                     # missing
    _raises(TypeError, k, x, "0.7")              # not a number
    _raises(TypeError, k, x, 0.7, 0.8)           # one too many
    _raises(TypeError, k, x, tempreature=0.7)    # misspelt
    print("  runtime param: three temperatures, by position and by name, staged and reread")


def test_credit_source_errors():
    try:
        creditc = credit._source.find_creditc()
    except credit.CreditError:
        raise unittest.SkipTest("no creditc here: the diagnostics test needs it")
    src = "kernel bad {\n  in x : f32[N]\n  out y : f32[N]\n  y = x + zz\n}\n"
    e = _raises(credit.CompileError, credit.load, src, creditc=creditc)
    assert "<source>:4:" in str(e) and "zz" in str(e), str(e)


def test_compile_without_gpu():
    """A .credit file through creditc and NVRTC on a machine without a GPU (or torch)."""
    try:
        creditc = credit._source.find_creditc()
    except credit.CreditError:
        raise unittest.SkipTest("no creditc here")
    src = os.path.join(REPO, "dsl_examples", "rmsnorm.credit")
    cache = tempfile.mkdtemp(prefix="credit-test-cpu-")
    m = credit.load(src, creditc=creditc, creditc_args=["--variant=reread"], arch="sm_90", cache_dir=cache,
                    register=False)
    k = m.rmsnorm
    assert [a.name for a in k.inputs] == ["x", "gamma"] and [a.name for a in k.outputs] == ["y"], k.signature
    assert k.variants == ["reread"], k.variants
    assert not k.info["from_cache"] and k.info["cubin_bytes"] > 0, k.info
    assert k.schema == "rmsnorm(Tensor x, Tensor gamma, str variant='auto', int P=0, int protocol=1) -> Tensor"
    assert k.max_legal_n("reread", 1, 0) > 0
    assert k.max_legal_n("staged", 1, 0) == 0  # not generated (--variant=reread)
    again = credit.load(src, creditc=creditc, creditc_args=["--variant=reread"], arch="sm_90", cache_dir=cache,
                        register=False)
    assert again.rmsnorm.info["from_cache"]
    two = ("kernel first_op {\n  in x : f32[N]\n  out y : f32[N]\n  stage { m = max(x) }\n  y = x - m\n}\n"
           "kernel second_op {\n  in x : f32[N]\n  out s : f32\n  stage { m = sum(x) / N }\n"
           "  stage { v = sum((x - m) * (x - m) * (x - m)) }\n  s = v\n}\n")
    both = credit.load(two, creditc=creditc, creditc_args=["--variant=reread"], arch="sm_90", cache_dir=cache,
                       register=False)
    assert sorted(k.name for k in both) == ["first_op", "second_op"], both
    assert [a.kind for a in both.second_op.outputs] == ["scalar"], both.second_op.signature
    one_pass = "kernel row_sum {\n  in x : f32[N]\n  out s : f32\n  stage { t = sum(x) }\n  s = t\n}\n"
    e = _raises(credit.CompileError, credit.load, one_pass, creditc=creditc, register=False)
    assert "row_sum" in str(e) and "one-pass" in str(e), str(e)
    print("  rmsnorm (reread only): NVRTC %.0f ms cold, from the cache the second time" % k.info["compile_ms"])


def _example_path(name):
    for path in example_sources():
        if os.path.splitext(os.path.basename(path))[0] == name:
            return path
    raise unittest.SkipTest("example %s not bundled" % name)


def test_load_times_and_disk_cache():
    ks = examples()
    cold = {n: (k.info["from_cache"], k.info["compile_ms"]) for n, k in ks.items()}
    for n in sorted(cold):
        print("  first load %-20s %s %7.0f ms (NVRTC%s)" % (
            n, "cache" if cold[n][0] else "cold ", cold[n][1], "" if cold[n][0] else " compile"))
    path = _example_path("layernorm")
    t = time.time()
    warm = credit.load(path, cache_dir=CACHE_DIR)
    warm_s = time.time() - t
    assert warm.layernorm.info["from_cache"], "a second load in the process missed the cache"
    print("  warm load (same process) layernorm: %.3f s" % warm_s)
    code = ("import sys, time, json; sys.path.insert(0, %r); t = time.time(); import torch, credit; "
            "m = credit.load(%r, cache_dir=%r); x = torch.randn(4, 1024, device='cuda'); "
            "g = torch.randn(1024, device='cuda'); y = m.layernorm(x, g, g); torch.cuda.synchronize(); "
            "print(json.dumps({'from_cache': m.layernorm.info['from_cache'], 'ms': m.layernorm.info['compile_ms'], "
            "'s': time.time() - t}))") % (os.path.join(REPO, "python"), path, CACHE_DIR)
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert r["from_cache"], "the second process did not hit the disk cache: %s" % r
    print("  second process: from the disk cache, compile step %.1f ms; import+load+run %.2f s" % (r["ms"], r["s"]))
