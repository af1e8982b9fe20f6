"""Checking an implementation's outputs against the float64 reference before it is timed (torch).

  * reference(wl, inputs): the workload's .credit math on float64 copies, computed in row chunks
    (so that the float64 temporaries of a 4 GiB input stay small); float outputs kept as float64.
  * max_rel_err(outs, ref): per float output the relative L2 error ||out - ref|| / ||ref|| over
    the elements where the reference is finite (inf if the output has NaN there: a poisoned
    element never written); per int8 output the fraction of elements more than 1 away from the
    reference (a quotient at a .5 tie may round either way: off by one is accepted) or left at
    the poison -128 where the reference is not. The worst over the outputs. An output given as
    None is one the implementation does not produce (eager F.rms_norm has no rstd): skipped, but
    at least one output must be there.
  * poison(outs): NaN into float outputs, -128 (never produced: q is clamped to +-127) into int8
    ones, before the launch whose outputs are checked.
  * prepoison(specs): for implementations that return new tensors (eager, torch.compile): fills
    blocks of the outputs' sizes with the poison and frees them, so that the caching allocator
    hands poisoned memory to the outputs (best effort: the allocator decides).
"""
import torch

MAX_REL_ERR = {torch.float32: 1e-5, torch.bfloat16: 1e-2, torch.float16: 1e-3}
CHUNK_ELEMS = 1 << 25  # rows per reference chunk: about this many elements


def _chunks(M, N):
    rows = max(1, CHUNK_ELEMS // max(1, N))
    return [(r, min(M, r + rows)) for r in range(0, M, rows)]


def reference(wl, inputs, **params):
    M, N = inputs[0].shape
    out = None
    for r0, r1 in _chunks(M, N):
        part = wl.reference(*wl.rows_of(inputs, r0, r1), **params)
        if out is None:
            out = [torch.empty((M,) + tuple(p.shape[1:]), dtype=p.dtype, device=p.device) for p in part]
        for o, p in zip(out, part):
            o[r0:r1] = p
        del part
    return tuple(out)


def tolerance(dtype):
    return MAX_REL_ERR.get(dtype, 1e-5)


def max_rel_err(outs, ref):
    if len(outs) != len(ref) or all(o is None for o in outs):
        return float("inf")
    worst = 0.0
    for o, r in zip(outs, ref):
        if o is None:
            continue
        if tuple(o.shape) != tuple(r.shape):
            return float("inf")
        M = o.shape[0]
        N = o.shape[1] if o.dim() > 1 else 1
        if r.dtype == torch.int8:
            if o.dtype != torch.int8:
                return float("inf")
            bad = 0
            for r0, r1 in _chunks(M, N):
                oi, ri = o[r0:r1].int(), r[r0:r1].int()
                bad += int((((oi - ri).abs() > 1) | ((oi == -128) & (ri != -128))).sum())
            worst = max(worst, bad / max(1, o.numel()))
            continue
        num = den = 0.0
        for r0, r1 in _chunks(M, N):
            o64, r64 = o[r0:r1].double(), r[r0:r1].double()
            fin = torch.isfinite(r64)
            of = o64[fin]
            if not bool(torch.isfinite(of).all()):
                return float("inf")
            num += float(((of - r64[fin]) ** 2).sum())
            den += float((r64[fin] ** 2).sum())
        err = (num ** 0.5) / max(den ** 0.5, 1e-30)
        worst = max(worst, err)
    return worst


def omitted(outputs, outs):
    """Names of the outputs an implementation returned None for (outputs: the registry's)."""
    return [spec[0] for spec, o in zip(outputs, outs) if o is None]


def poison(outs):
    for o in outs:
        o.fill_(float("nan") if o.dtype.is_floating_point else -128)


def prepoison(specs, device="cuda"):
    bufs = [torch.empty(shape, dtype=dtype, device=device) for shape, dtype in specs]
    poison(bufs)
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()
    del bufs
