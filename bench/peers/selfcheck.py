#!/usr/bin/env python3
"""Self-check of every peer against the float64 reference (run on the GPU machine).

    python3 bench/peers/selfcheck.py            # a few minutes on an H200, exit status 1 on failure
    python3 bench/peers/selfcheck.py --full     # torch.compile (both configurations) at every shape
    python3 bench/peers/selfcheck.py --no-compile --workloads lars,quant_int8

For every workload, N in NS and M in MS it runs eager PyTorch and the autotuned Triton peer; at
M = CONFIG_M it also runs every config of the Triton autotuner's space at that N (so that no config
the autotuner could pick is wrong), and torch.compile (default configuration) runs at
COMPILE_SHAPES (one compile per workload and shape). Pass criteria:
  * f32 outputs: relative L2 error ||out - ref|| / ||ref|| <= 1e-5 over the finite elements; NaN/inf
    must sit where the reference has them; where the reference is exactly 0 (pure rounding noise
    in f32) max |out| <= 1e-5 instead. N = 1 rows are degenerate (zero variance amplifies the
    rounding of x - mean), so there rtol is 1e-2: N = 1 checks masking and indexing, not accuracy.
  * int8 q: equal to the reference (float64 x / s with s rounded to f32, as the .credit type of
    scale says) except near .5 ties: a mismatch is tolerated only where that x/s lies within
    max(1e-6, 2^-22 |x/s|) of a tie, and at most max(1, 1e-5 * numel) of those.
  * Triton outputs are written into NaN / -128 pre-filled buffers with one guard row after the
    last row: unwritten elements show up as NaN, writes past the end as a changed guard row.
"""

import argparse
import math
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import workloads as W  # noqa: E402

NS = (1, 31, 1000, 4096, 4099, 16384, 65536)
MS = (1, 7, 64)
COMPILE_SHAPES = ((64, 4096), (64, 65536))  # torch.compile is slow to compile: 2 shapes each
CONFIG_M = 7  # every Triton config of the space is checked at this M
RTOL = 1e-5
ZERO_ATOL = 1e-5
RTOL_N1 = 1e-2  # N = 1 rows are degenerate (zero variance): outputs are amplified rounding noise
I8_FILL = -128  # never produced (q is clamped to [-127, 127])


def say(*a, **kw):
    print(*a, **kw, flush=True)


def sync(device):
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def check_f32(out, ref, rtol=RTOL):
    """-> (ok, err, note)"""
    if tuple(out.shape) != tuple(ref.shape):
        return False, math.inf, f"shape {tuple(out.shape)} != {tuple(ref.shape)}"
    if out.dtype != torch.float32:
        return False, math.inf, f"dtype {out.dtype} != float32"
    o, r = out.double(), ref.double()
    on, rn = torch.isnan(o), torch.isnan(r)
    if not torch.equal(on, rn):
        return False, math.inf, f"NaN pattern differs ({int(on.sum())} NaN vs {int(rn.sum())} in ref)"
    oi, ri = torch.isinf(o), torch.isinf(r)
    if not torch.equal(oi, ri) or not torch.equal(o[oi], r[ri]):
        return False, math.inf, f"inf pattern differs ({int(oi.sum())} inf vs {int(ri.sum())} in ref)"
    fin = ~(rn | ri)
    o, r = o[fin], r[fin]
    if r.numel() == 0:
        return True, 0.0, "non-finite everywhere, as in ref"
    den = torch.linalg.vector_norm(r).item()
    if den == 0.0:
        err = o.abs().max().item()
        return err <= ZERO_ATOL, err, "ref is 0: max|out|"
    err = torch.linalg.vector_norm(o - r).item() / den
    return (err <= rtol), err, "" if rtol == RTOL else f"(rtol {rtol:g})"


def check_i8(q, q_ref, x, scale_ref):
    """-> (ok, n_mismatch, note)"""
    if tuple(q.shape) != tuple(q_ref.shape):
        return False, math.inf, f"shape {tuple(q.shape)} != {tuple(q_ref.shape)}"
    if q.dtype != torch.int8:
        return False, math.inf, f"dtype {q.dtype} != int8"
    v = x.double() / scale_ref.double().unsqueeze(-1)
    av = v.abs()
    tie_dist = (av - torch.floor(av) - 0.5).abs()
    near = tie_dist <= torch.clamp_min(av * 2.0 ** -22, 1e-6)
    mism = q != q_ref
    hard = mism & ~near
    n_hard = int(hard.sum())
    n_soft = int((mism & near).sum())
    allowed = max(1.0, 1e-5 * q.numel())
    note = f"{n_soft} near-tie mismatches (allowed {allowed:g})" if n_soft else ""
    if n_hard:
        idx = hard.nonzero()[:5].tolist()
        ex = ", ".join(f"[{i},{j}] x/s={v[i, j].item():.9g} q={int(q[i, j])} ref={int(q_ref[i, j])}"
                       for i, j in idx)
        note = f"{n_hard} mismatches away from ties, e.g. {ex}; {note}"
    return (n_hard == 0 and n_soft <= allowed), n_hard + n_soft, note


def compare(wl, outs, ref, inputs):
    """-> (ok, worst, notes) over every output."""
    ok, worst, notes = True, 0.0, []
    if not isinstance(outs, (tuple, list)) or len(outs) != len(wl.outputs):
        return False, math.inf, [f"expected {len(wl.outputs)} outputs, got {type(outs).__name__}"]
    for (oname, _, etype), o, r in zip(wl.outputs, outs, ref):
        if etype == "i8":
            scale_ref = ref[[n for n, _, _ in wl.outputs].index("scale")]
            good, err, note = check_i8(o, r, inputs[0], scale_ref)
        else:
            good, err, note = check_f32(o, r, RTOL_N1 if inputs[0].shape[-1] == 1 else RTOL)
        if not good or (note and etype == "i8"):
            notes.append(f"{oname}: {'FAIL ' if not good else ''}err={err:.3g} {note}".rstrip())
        ok = ok and good
        worst = max(worst, err) if etype != "i8" else worst
    return ok, worst, notes


def run_triton(wl, inputs, **kw):
    """Triton peer into NaN / -128 pre-filled outputs with a guard row; returns the outputs."""
    x = inputs[0]
    M, N = x.shape
    bufs, views = [], []
    for shape, dtype in wl.output_specs(M, N):
        shape = (M + 1,) + tuple(shape[1:])
        b = torch.empty(shape, dtype=dtype, device=x.device)
        b.fill_(I8_FILL if dtype == torch.int8 else float("nan"))
        bufs.append(b)
        views.append(b[:M])
    wl.triton(*inputs, *views, **kw)
    sync(x.device)
    for (oname, _, _), b in zip(wl.outputs, bufs):
        dtype = b.dtype
        g = b[M]
        intact = bool((g == I8_FILL).all()) if dtype == torch.int8 else bool(torch.isnan(g).all())
        if not intact:
            raise RuntimeError(f"output {oname}: write past the last row (guard row changed)")
    return tuple(views)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", default=",".join(W.NAMES))
    ap.add_argument("--full", action="store_true", help="torch.compile (both configurations) at every shape")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--no-configs", action="store_true", help="skip the sweep over the Triton config space")
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args()

    names = [n for n in args.workloads.split(",") if n]
    for n in names:
        if n not in W.NAMES:  # the fp32 set: the bf16 peers are checked by bench/run.py before timing
            ap.error(f"unknown workload {n!r}; known: {', '.join(W.NAMES)}")
    dev = args.device
    t_start = time.time()
    say(f"torch {torch.__version__}", end="")
    try:
        import triton
        say(f", triton {triton.__version__}", end="")
    except Exception as e:  # noqa: BLE001
        say(f", triton unavailable ({e})", end="")
    if dev.startswith("cuda") and torch.cuda.is_available():
        say(f", {torch.cuda.get_device_name()}")
    else:
        say("")
    tk = W._triton_module()
    say("triton config space per N: " + "; ".join(f"N={n}: {len(tk.space(n))}" for n in NS))

    impl_cols = ["eager", "triton", "configs", "compiled"]
    say(f"{'workload':<19} {'M':>3} {'N':>6}  " + "  ".join(f"{c:>10}" for c in impl_cols) + "   (worst f32 rel-L2 err)")
    n_pass = n_fail = 0
    failures = []
    modes = ["torch_compile_default"] + (["torch_compile_max_autotune"] if args.full else [])
    for name in names:
        wl = W.WORKLOADS[name]
        t_wl = time.time()
        for N in NS:
            for M in MS:
                inputs = wl.make_inputs(M, N, seed=1000 * M + N, device=dev)
                ref = wl.reference(*inputs)
                impls = [("eager", "eager", lambda: wl.eager(*inputs)),
                         ("triton", "triton", lambda: run_triton(wl, inputs))]
                if M == CONFIG_M and not args.no_configs:
                    for cfg in tk.space(N):
                        tag = (f"{'one-pass' if cfg['ONE_PASS'] else 'looped'} BLOCK={cfg['BLOCK']} "
                               f"w={cfg['num_warps']} s={cfg['num_stages']}")
                        impls.append(("configs", tag, lambda cfg=cfg: run_triton(wl, inputs, config=cfg)))
                if not args.no_compile and (args.full or (M, N) in COMPILE_SHAPES):
                    for mode in modes:
                        peer = wl.compiled(mode)
                        impls.append(("compiled", mode, lambda peer=peer: peer.prepare(*inputs)))
                cells = {c: [] for c in impl_cols}
                lines = []
                for col, label, fn_ in impls:
                    try:
                        outs = fn_()
                        sync(dev)
                        ok, worst, notes = compare(wl, outs, ref, inputs)
                    except Exception as e:  # noqa: BLE001
                        ok, worst = False, math.inf
                        notes = [f"exception {type(e).__name__}: {e}"]
                        tb = traceback.format_exc().strip().splitlines()
                        notes += ["    " + ln for ln in tb[-6:]]
                    cells[col].append((ok, worst))
                    if ok:
                        n_pass += 1
                    else:
                        n_fail += 1
                        failures.append(f"{name} M={M} N={N} {label}")
                    lines += [f"    {label}: {n}" for n in notes]

                def cell(c):
                    if not cells[c]:
                        return ""
                    if not all(ok for ok, _ in cells[c]):
                        return "FAIL"
                    return f"{max(w for _, w in cells[c]):.2e}"
                say(f"{name:<19} {M:>3} {N:>6}  " + "  ".join(f"{cell(c):>10}" for c in impl_cols))
                for ln in lines:
                    say(ln)
        say(f"  [{name}: {time.time() - t_wl:.1f} s]")
    if not args.no_compile:
        try:  # every compiled shape should be its own Inductor graph (no silent eager fallback)
            from torch._dynamo.utils import counters
            say(f"dynamo: {dict(counters['stats'])}")
        except Exception:  # noqa: BLE001
            pass
    say(f"total {time.time() - t_start:.1f} s")
    if failures:
        say("FAILED: " + "; ".join(failures))
    say(f"{n_pass} passed, {n_fail} failed")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
