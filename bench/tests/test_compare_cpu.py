"""bench/compare_gen.py's per-shape logic on the CPU with two stand-in libraries (skipped without
torch): ratios, failed checks, plans that differ, and the detection of shared dispatch state."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "peers"))

try:
    import torch
except ImportError:
    torch = None

import compare_gen as G  # noqa: E402
from bench.tests.fakes import FakeKernel, fake_timing, fake_torch, registering  # noqa: E402


@unittest.skipIf(torch is None, "torch not installed")
class CompareShapeTest(unittest.TestCase):
    def setUp(self):
        import workloads
        from benchlib import checks
        self.reg = {}
        self.wl = registering(workloads.WORKLOADS["softmax"], self.reg)
        self.env = G.Env(fake_torch(), fake_timing(), checks, "cpu", reps=5, warmup=1, tolerance=0.02)

    def test_ratios_failures_and_plans(self):
        old = FakeKernel(self.wl, self.reg, {"auto": 1.0, "reread": 2.0, "staged": 1.0, "cluster_sync_P2": 0.8,
                                             "cluster_mbarrier_P4": 0.5},
                         plan={"variant": "cluster", "P": 4, "protocol": "mbarrier"})
        new = FakeKernel(self.wl, self.reg, {"auto": 0.9, "reread": 2.0, "staged": 1.05, "cluster_sync_P2": 0.8,
                                             "cluster_mbarrier_P4": 0.5},
                         broken={"cluster_sync_P2"}, plan={"variant": "cluster", "P": 2, "protocol": "sync"})
        row, msgs = G.compare_shape(self.wl, old, new, 512, 8, self.env)
        k = row["kernels"]
        self.assertAlmostEqual(k["auto"]["ratio"], 0.9)
        self.assertAlmostEqual(k["staged"]["ratio"], 1.05)
        self.assertEqual(k["reread"]["ratio"], 1.0)
        self.assertNotIn("ratio", k["cluster_sync_P2"])  # the new one failed its check: not timed
        self.assertEqual(msgs["failures"], ["softmax N=512 cluster_sync_P2 (new): max_rel_err inf"])
        self.assertEqual(sorted(f[2] for f in msgs["flagged"]), ["auto", "staged"])
        self.assertEqual(msgs["plans_differ"], ["softmax N=512: m4 > s2"])
        line = G.table_line(row)
        self.assertTrue(line.startswith("softmax"))
        self.assertIn("m4>s2", line)
        self.assertIn("  0.900", line)
        self.assertIn("x", line.split()[6])  # s2 column
        self.assertEqual(line.split()[-1], "0.900")  # the ratio furthest from 1

    def test_shared_dispatch_state_is_detected(self):
        shared = {}
        old = FakeKernel(self.wl, self.reg, {}, plan={"variant": "staged"}, plans=shared)
        new = FakeKernel(self.wl, self.reg, {}, plan={"variant": "staged"}, plans=shared)
        with self.assertRaisesRegex(G.IsolationError, "dispatch caches are shared"):
            G.compare_shape(self.wl, old, new, 512, 8, self.env)


if __name__ == "__main__":
    unittest.main()


class CompareArgsTest(unittest.TestCase):
    def test_bf16_set_is_accepted_and_sized_as_bf16(self):
        d = os.path.dirname(HERE)
        args = G.parse_args(["--new", d, "--old", d, "--workloads", "rmsnorm_bf16,softmax_bf16", "--N", "16384"])
        self.assertEqual(args.dtype, "bf16")
        self.assertEqual(args.workload_list, ["rmsnorm_bf16", "softmax_bf16"])
        self.assertEqual(args.n_list, [16384])

    def test_sets_of_two_dtypes_are_refused(self):
        d = os.path.dirname(HERE)
        with self.assertRaises(SystemExit):
            G.parse_args(["--new", d, "--old", d, "--workloads", "rmsnorm_bf16,softmax"])
