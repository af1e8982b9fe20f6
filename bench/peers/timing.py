"""GPU timing helpers for the peer benchmarks.

bench(fn, *, l2_flush_bytes=256 << 20, warmup=5, reps=15)
    -> {"median_ms", "min_ms", "all"}: fn() is called warmup times, then reps times, each timed
    with its own torch.cuda.Event pair; before every timed call a l2_flush_bytes buffer is
    written (zero_) so that no input is left in L2 (H200 L2 = 50 MB).  The flush is outside the
    event pair.  Pass l2_flush_bytes=0 to time with a warm L2.
copy_ceiling(nbytes=1 << 30) -> GB/s of a device-to-device torch.Tensor.copy_ of nbytes,
    counted as bytes read + bytes written (2 * nbytes), median of bench().
gbps(nbytes, ms) -> GB/s.
"""

import statistics

import torch

_FLUSH = {}


def _flush_buffer(nbytes, device):
    key = (int(nbytes), str(device))
    buf = _FLUSH.get(key)
    if buf is None:
        buf = torch.empty(int(nbytes), dtype=torch.uint8, device=device)
        _FLUSH[key] = buf
    return buf


def bench(fn, *, l2_flush_bytes=256 << 20, warmup=5, reps=15, device="cuda"):
    if reps < 1:
        raise ValueError("reps must be >= 1")
    flush = _flush_buffer(l2_flush_bytes, device) if l2_flush_bytes else None
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        if flush is not None:
            flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return {"median_ms": statistics.median(times), "min_ms": min(times), "all": times}


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def copy_ceiling(nbytes=1 << 30, device="cuda", warmup=3, reps=15):
    """Achievable copy bandwidth in GB/s (bytes read + written), median of reps."""
    n = int(nbytes) // 4
    src = torch.ones(n, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    t = bench(lambda: dst.copy_(src), warmup=warmup, reps=reps, device=device)
    del src, dst
    return gbps(2 * n * 4, t["median_ms"])


if __name__ == "__main__":
    print(f"copy ceiling: {copy_ceiling():.1f} GB/s (read + write, 1 GiB copy_)", flush=True)
