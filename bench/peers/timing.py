"""GPU timing of the benchmark: CUDA events, L2 flushed before every timed launch, median.

bench(fn, *, l2_flush_bytes=256 << 20, warmup=5, reps=15)
    -> {"median_ms", "min_ms", "all"}: fn() is called warmup times, then reps times, each timed
    with its own CUDA event pair on the current stream; before every timed call a l2_flush_bytes
    buffer is written (zero_) so that no input is left in L2 (H200: 50 MB). The flush is outside
    the event pair. l2_flush_bytes=0 times with a warm L2.
bench_interleaved(fns, ...) -> one such dict per fn, the fns timed in turn within each repetition
    (fn0, fn1, ..., fn0, fn1, ...), so that a drift of the clock or the memory affects all alike.
copy_ms(traffic_bytes) -> median ms of a device-to-device copy that reads and writes
    traffic_bytes in total (traffic_bytes / 2 copied), timed as bench() times a kernel.
copy_GBps(nbytes=1 << 30) -> GB/s (bytes read + written) of a copy of nbytes.
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


def bench_interleaved(fns, *, l2_flush_bytes=256 << 20, warmup=5, reps=15, device="cuda"):
    if reps < 1:
        raise ValueError("reps must be >= 1")
    flush = _flush_buffer(l2_flush_bytes, device) if l2_flush_bytes else None
    for _ in range(warmup):
        for fn in fns:
            fn()
    torch.cuda.synchronize()
    events = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
               for _ in range(reps)] for _ in fns]
    for i in range(reps):
        for fn, ev in zip(fns, events):
            if flush is not None:
                flush.zero_()
            ev[i][0].record()
            fn()
            ev[i][1].record()
    torch.cuda.synchronize()
    out = []
    for ev in events:
        times = [s.elapsed_time(e) for s, e in ev]
        out.append({"median_ms": statistics.median(times), "min_ms": min(times), "all": times})
    return out


def bench(fn, **kwargs):
    return bench_interleaved([fn], **kwargs)[0]


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def copy_ms(traffic_bytes, device="cuda", warmup=3, reps=15):
    n = max(1, int(traffic_bytes) // 2)
    src = torch.ones(n, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    t = bench(lambda: dst.copy_(src), warmup=warmup, reps=reps, device=device)
    del src, dst
    return t["median_ms"]


def copy_GBps(nbytes=1 << 30, device="cuda", warmup=3, reps=15):
    return gbps(2 * int(nbytes), copy_ms(2 * int(nbytes), device, warmup, reps))


if __name__ == "__main__":
    print(f"copy: {copy_GBps():.1f} GB/s (read + write, 1 GiB copy_)", flush=True)
