#!/usr/bin/env python3
"""Self-check of the PyTorch example: the creditc kernels against the eager
PyTorch formulas over several shapes (odd N, 3-D, empty, misaligned storage,
every cluster size and protocol, a side stream), and the argument checks.

    python3 examples/pytorch/test_credit_torch.py [--require-gpu] [--verbose]

Exit 0: every check passed, or no GPU (prints "no GPU: skipped", unless
--require-gpu, then exit 1). Exit 1: a check failed (listed).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

failures = []


def check(ok, what):
    print(f"  {what:<72} {'ok' if ok else 'FAILED'}")
    if not ok:
        failures.append(what)


def rel_err(got, ref):
    scale = ref.abs().max().item() if ref.numel() else 0.0
    return (got.double() - ref.double()).abs().max().item() / max(scale, 1e-30) if ref.numel() else 0.0


def expect_error(fn, exc, needle, what):
    try:
        fn()
    except exc as e:  # noqa: PERF203
        check(needle.lower() in str(e).lower(), f"{what}: {exc.__name__} ({needle!r})")
        return
    except Exception as e:  # the wrong type of error
        check(False, f"{what}: expected {exc.__name__}, got {type(e).__name__}: {e}")
        return
    check(False, f"{what}: expected {exc.__name__}, no error")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--require-gpu", action="store_true", help="fail instead of skipping without a GPU")
    ap.add_argument("--verbose", action="store_true", help="show the extension build")
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    import credit_torch

    if not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0):
        print("no GPU: skipped" if not torch.cuda.is_available()
              else f"{torch.cuda.get_device_name()} is older than sm_90: skipped")
        return 1 if args.require_gpu else 0

    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, kernels from {credit_torch.gen_dir()}")
    ext = credit_torch.load(verbose=args.verbose)
    print(f"  layernorm signature: {ext.layernorm_signature()}")
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(0)

    def randn(*shape):
        return torch.randn(*shape, device=dev, generator=gen)

    def ln_ref(x, w, b):
        return F.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)

    def quant_ref(x):
        s = x.abs().amax(dim=-1).clamp_min(1e-12) / 127
        q = torch.clamp(torch.round(x / s.unsqueeze(-1)), -127, 127).to(torch.int8)
        return q, s

    # --- layernorm: automatic P over several shapes, odd N included ---
    print("layernorm vs torch.nn.functional.layer_norm (P chosen by layernorm_plan)")
    for shape in [(1, 1), (4, 7), (3, 5, 33), (64, 1000), (33, 4099), (16, 8192), (8, 16384),
                  (7, 65537), (4, 65536), (2, 262144), (0, 512)]:
        x = randn(*shape) * 2 + 0.5
        w, b = 1 + 0.1 * randn(shape[-1]), 0.1 * randn(shape[-1])
        y = credit_torch.layernorm(x, w, b)
        torch.cuda.synchronize()
        variant, P = credit_torch.layernorm_plan(shape[-1])
        err = rel_err(y, ln_ref(x, w, b))
        check(y.shape == x.shape and y.dtype == x.dtype and err <= 1e-4 and not y.isnan().any(),
              f"shape {str(tuple(shape)):<14} {variant} P={P:<2} rel.err {err:.1e}")

    # --- every cluster size x protocol, staged-free: explicit P ---
    x = randn(64, 8192)
    w, b = 1 + 0.1 * randn(8192), 0.1 * randn(8192)
    ref = ln_ref(x, w, b)
    outs = {}
    for P in (1, 2, 4, 8, 16):
        for protocol in (0, 1):
            y = credit_torch.layernorm(x, w, b, P=P, protocol=protocol)
            torch.cuda.synchronize()
            outs[(P, protocol)] = y
            err = rel_err(y, ref)
            check(err <= 1e-4, f"(64, 8192) P={P:<2} {'mbarrier' if protocol else 'sync':<8} rel.err {err:.1e}")
        check(torch.equal(outs[(P, 0)], outs[(P, 1)]), f"(64, 8192) P={P}: sync and mbarrier bitwise equal")

    # Misaligned but contiguous storage (offset of one float): the VEC = 1 kernels.
    buf = randn(33 * 4100 + 1)
    x = buf[1:].view(33, 4100)
    w, b = 1 + 0.1 * randn(4100), 0.1 * randn(4100)
    err = rel_err(credit_torch.layernorm(x, w, b), ln_ref(x, w, b))
    check(err <= 1e-4, f"misaligned x (storage offset 1), (33, 4100), rel.err {err:.1e}")

    # A side stream: the kernel runs on torch's current stream.
    s = torch.cuda.Stream()
    x = randn(128, 16384)
    w, b = torch.ones(16384, device=dev), torch.zeros(16384, device=dev)
    with torch.cuda.stream(s):
        y = credit_torch.layernorm(x, w, b)
    s.synchronize()
    err = rel_err(y, ln_ref(x, w, b))
    check(err <= 1e-4, f"on a side stream, (128, 16384), rel.err {err:.1e}")

    # --- quant_int8 vs the eager formula (round half away vs half even: |dq| <= 1) ---
    print("quant_int8 vs the eager formula")
    for shape in [(1, 1), (5, 1001), (64, 4096), (2, 3, 777), (3, 65536)]:
        x = randn(*shape) * 3
        q, scale = credit_torch.quant_int8(x)
        torch.cuda.synchronize()
        q_ref, s_ref = quant_ref(x)
        dq = (q.int() - q_ref.int()).abs().max().item()
        ds = rel_err(scale, s_ref)
        check(q.dtype == torch.int8 and q.shape == x.shape and scale.shape == x.shape[:-1]
              and dq <= 1 and ds <= 1e-6, f"shape {str(tuple(shape)):<14} |dq| <= {dq}, scale rel.err {ds:.1e}")

    # --- argument checks raise Python errors ---
    print("argument checks")
    x, w, b = randn(4, 256), torch.ones(256, device=dev), torch.zeros(256, device=dev)
    lnorm = credit_torch.layernorm
    expect_error(lambda: lnorm(x.cpu(), w, b), RuntimeError, "CUDA tensor", "x on the CPU")
    expect_error(lambda: lnorm(x.double(), w, b), TypeError, "float32", "x float64")
    expect_error(lambda: lnorm(x.half(), w, b), TypeError, "float32", "x float16")
    expect_error(lambda: lnorm(randn(256, 4).t(), w, b), RuntimeError, "contiguous", "x transposed")
    expect_error(lambda: lnorm(x, torch.ones(255, device=dev), b), ValueError, "shape", "weight of the wrong size")
    expect_error(lambda: lnorm(x, w.cpu(), b), RuntimeError, "must be on", "weight on the CPU")
    expect_error(lambda: lnorm(x, w, b.double()), TypeError, "float32", "bias float64")
    expect_error(lambda: lnorm(x, w, b, protocol=2), ValueError, "protocol", "protocol 2")
    expect_error(lambda: lnorm(x, w, b, P=32), ValueError, "P must be", "P = 32")
    expect_error(lambda: lnorm(x, w, b, P=3), RuntimeError, "not launched", "P = 3 (refused by the launcher)")
    expect_error(lambda: lnorm(torch.empty(4, 0, device=dev), w[:0], b[:0]), ValueError, "positive", "N = 0")
    big = ext.layernorm_max_legal_n("cluster", 1, 0) + 4
    expect_error(lambda: lnorm(torch.zeros(1, big, device=dev), torch.ones(big, device=dev),
                               torch.zeros(big, device=dev), P=1),
                 RuntimeError, "not launched", f"N = {big} > Eq. 3 bound for P = 1")
    expect_error(lambda: credit_torch.quant_int8(x.cpu()), RuntimeError, "CUDA tensor", "quant_int8: x on the CPU")
    # Last, and straight into the module (no Python-side check first): its own
    # ValueError path (credit_ops.cpp, checkValue).
    expect_error(lambda: ext.layernorm(x, torch.ones(255, device=dev), b, 0, 0), ValueError, "shape",
                 "module: weight of the wrong size")
    expect_error(lambda: ext.layernorm(x, w, b, 32, 0), ValueError, "P must be", "module: P = 32")
    expect_error(lambda: ext.layernorm(x.double(), w, b, 0, 0), TypeError, "float32", "module: x float64")
    expect_error(lambda: ext.layernorm(x, w, b, 3, 0), RuntimeError, "not launched", "module: P = 3")

    print(f"{len(failures)} check(s) FAILED: {failures}" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
