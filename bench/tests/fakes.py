"""Stand-ins for a generated library, torch.cuda and the timer, for tests of the harness on the CPU."""
import ctypes
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchlib import creditlib as C  # noqa: E402


class FakeKernel:
    """Launchers that write the eager peer's outputs (or those of `source`, a function of the inputs
    returning every output in its type) through the raw pointers they are given, in the order of
    the signature the workload registry implies.
    `inputs`: the input tensors, or a dict data_ptr -> tensor filled later (see registering())."""

    def __init__(self, wl, inputs, times, broken=(), refused=(), plan=None, plans=None, source=None):
        self.wl, self.times = wl, times
        self.source = source or wl.eager
        self.name = wl.name
        self.by_ptr = inputs if isinstance(inputs, dict) else {t.data_ptr(): t for t in inputs}
        self.broken, self.refused, self.plan_to_make = broken, refused, plan
        self.plans = {} if plans is None else plans  # a shared dict: two libraries sharing state
        self.has_dispatch = True
        self.calls = []

    def signature(self):
        import torch
        return [tuple(op) for op in self.wl.operands(torch.float32)]

    def pointers(self, named, M, N):
        return C.marshal(self.signature(), named, M, N, where=self.name)

    def configs(self, N):
        return [("reread", 1, 0), ("staged", 1, 0), ("cluster", 2, 0), ("cluster", 4, 1)]

    def _write(self, ptrs, broken):
        n = len(self.wl.inputs)
        outs = self.source(*[self.by_ptr[p] for p in ptrs[:n]])
        if broken:
            return  # leaves the poison
        for o, p in zip(outs, ptrs[n:]):
            o = o.contiguous()
            ctypes.memmove(p, o.data_ptr(), o.numel() * o.element_size())

    def launcher(self, v, P, proto, ptrs, M, N, stream):
        lab = C.label(v, P, proto)

        def fn():
            self.calls.append(lab)
            if lab in self.refused:
                raise C.ApiError(f"{lab}: launch status 5: cluster too large")
            self._write(ptrs, lab in self.broken)
        fn._ms = self.times.get(lab, 1.0)
        return fn

    def auto_launcher(self, ptrs, M, N, stream):
        def fn():
            self.plans[(M, N)] = self.plan_to_make
            self._write(ptrs, "auto" in self.broken)
        fn._ms = self.times.get("auto", 1.0)
        return fn

    def last_plan(self, M, N):
        return self.plans.get((M, N))


def fake_timing():
    def bench(fn, reps=15, warmup=5):
        fn()
        ms = getattr(fn, "_ms", 0.5)
        return {"median_ms": ms, "min_ms": ms, "all": [ms] * reps}
    return types.SimpleNamespace(bench=bench, bench_interleaved=lambda fns, reps=15, warmup=5:
                                 [bench(fn, reps) for fn in fns])


def fake_torch():
    cuda = types.SimpleNamespace(synchronize=lambda: None, empty_cache=lambda: None,
                                 current_stream=lambda: types.SimpleNamespace(cuda_stream=0))
    return types.SimpleNamespace(cuda=cuda)


def registering(wl, registry):
    """The workload, with every input it makes entered into registry (data_ptr -> tensor)."""
    import dataclasses

    def make(M, N, gen, dev):
        ts = wl._make(M, N, gen, dev)
        registry.update({t.data_ptr(): t for t in ts})
        return ts
    return dataclasses.replace(wl, _make=make)
