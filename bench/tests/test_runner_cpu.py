"""bench/run.py's measurement logic on the CPU, with a stand-in for a generated library (skipped
without torch): what a record holds for creditc_fastest, creditc_auto and eager, and how failed
checks and refused launches are recorded."""
import os
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "peers"))

try:
    import torch
except ImportError:
    torch = None

import run  # noqa: E402
from bench.tests.fakes import FakeKernel, fake_timing, fake_torch  # noqa: E402


@unittest.skipIf(torch is None, "torch not installed")
class RunnerTest(unittest.TestCase):
    def setUp(self):
        import workloads
        from benchlib import checks
        self.checks = checks
        self.wl = workloads.WORKLOADS["layernorm"]
        M, N = 8, 256
        ins = self.wl.make_inputs(M, N, seed=1, device="cpu")
        self.sh = types.SimpleNamespace(wl=self.wl, M=M, N=N, dtype=torch.float32, bytes=1000, copy_ms=0.25,
                                        inputs=ins, ref=checks.reference(self.wl, ins), tol=1e-5)
        self.args = run.parse_args(["--dry-run", "--tslice"])
        self.args.tslice = False

    def runner(self, kernel):
        return run.Runner(self.args, fake_torch(), fake_timing(), self.checks, {"layernorm": kernel})

    def test_fastest_takes_the_fastest_checked_variant_and_lists_the_rest(self):
        k = FakeKernel(self.wl, self.sh.inputs, {"reread": 1.0, "staged": 0.6, "cluster_sync_P2": 0.3,
                                                 "cluster_mbarrier_P4": 0.5},
                       broken={"cluster_sync_P2"}, refused={"staged"})
        r = self.runner(k)
        rec = {"impl": "creditc_fastest"}
        r.creditc_fastest(self.sh, rec)
        self.assertEqual(rec["variant"], "cluster_mbarrier_P4")  # the faster sync P2 failed its check
        self.assertEqual(rec["median_ms"], 0.5)
        self.assertEqual(rec["frac_copy"], 0.5)
        self.assertEqual(rec["variants"], {"reread": 1.0, "cluster_mbarrier_P4": 0.5})
        self.assertIn("check failed", rec["excluded"]["cluster_sync_P2"])
        self.assertIn("cluster too large", rec["excluded"]["staged"])
        self.assertEqual(len(r.creditc_failures), 1)
        self.assertNotIn("check_failed", rec)

    def test_fastest_with_no_passing_variant_is_a_failed_record(self):
        k = FakeKernel(self.wl, self.sh.inputs, {}, broken={"reread", "staged", "cluster_sync_P2",
                                                            "cluster_mbarrier_P4"})
        rec = {"impl": "creditc_fastest"}
        self.runner(k).creditc_fastest(self.sh, rec)
        self.assertTrue(rec["check_failed"])
        self.assertNotIn("median_ms", rec)

    def test_auto_records_first_use_and_the_plan_and_loads_every_variant_first(self):
        plan = {"variant": "cluster", "P": 4, "protocol": "mbarrier", "source": "model"}
        k = FakeKernel(self.wl, self.sh.inputs, {"auto": 0.4}, plan=plan)
        rec = {"impl": "creditc_auto"}
        self.runner(k).creditc_auto(self.sh, rec)
        self.assertEqual(rec["plan"], plan)
        self.assertGreaterEqual(rec["first_use_ms"], 0.0)
        self.assertEqual(rec["median_ms"], 0.4)
        self.assertLessEqual(rec["max_rel_err"], 1e-5)
        self.assertEqual(k.calls, ["reread", "staged", "cluster_sync_P2", "cluster_mbarrier_P4"])

    def test_auto_failing_its_check_is_not_timed(self):
        k = FakeKernel(self.wl, self.sh.inputs, {}, broken={"auto"}, plan={"variant": "reread"})
        rec = {"impl": "creditc_auto"}
        r = self.runner(k)
        r.creditc_auto(self.sh, rec)
        self.assertTrue(rec["check_failed"])
        self.assertNotIn("median_ms", rec)
        self.assertEqual(rec["plan"], {"variant": "reread"})
        self.assertEqual(len(r.creditc_failures), 1)

    def test_auto_refuses_a_shape_already_planned(self):
        k = FakeKernel(self.wl, self.sh.inputs, {})
        k.plans[(8, 256)] = {"variant": "staged"}
        rec = {"impl": "creditc_auto"}
        self.runner(k).creditc_auto(self.sh, rec)
        self.assertIn("already holds a plan", rec["error"])

    def test_eager_peer_record(self):
        rec = {"impl": "eager"}
        self.runner(None).eager(self.sh, rec)
        self.assertEqual(rec["op"], "F.layer_norm")
        self.assertLessEqual(rec["max_rel_err"], 1e-5)
        self.assertIn("prepare_s", rec)
        self.assertEqual(rec["median_ms"], 0.5)

    def test_line_formats_every_kind_of_record(self):
        self.assertIn("op=closed (omits lse)", run.line({"workload": "cross_entropy_fwd_bf16", "N": 4096, "M": 8,
                                                          "impl": "eager", "wall_s": 0.1, "median_ms": 0.1,
                                                          "frac_copy": 0.5, "max_rel_err": 1e-3, "op": "closed",
                                                          "ops": {"closed": 0.1}, "omits": ["lse"]}))
        base = {"workload": "softmax", "N": 4096, "M": 16384, "wall_s": 1.0}
        self.assertIn("ERROR boom", run.line(dict(base, impl="eager", error="boom")))
        self.assertIn("CHECK FAILED", run.line(dict(base, impl="eager", check_failed=True, max_rel_err=0.5)))
        text = run.line(dict(base, impl="creditc_auto", median_ms=0.1, frac_copy=0.9, max_rel_err=1e-7,
                             plan={"variant": "cluster", "protocol": "sync", "P": 2, "source": "model"},
                             first_use_ms=3.0))
        self.assertIn("plan=cluster/sync/P2 (model) first use 3.0 ms", text)
        text = run.line(dict(base, impl="triton_autotuned", median_ms=0.1, frac_copy=0.9, max_rel_err=1e-7,
                             config={"ONE_PASS": True, "BLOCK": 4096, "num_warps": 8, "num_stages": 1},
                             config_source="autotuned", prepare_s=3.2))
        self.assertIn("one-pass BLOCK=4096 w=8 s=1 (autotuned) prepare 3.2 s", text)


@unittest.skipIf(torch is None, "torch not installed")
class Bf16RunnerTest(unittest.TestCase):
    """The harness on the bf16 workloads: typed operands marshalled by signature, the bf16
    tolerance, eager idioms and omitted outputs."""

    def setUp(self):
        import torch_impls
        import workloads
        from benchlib import checks
        self.checks, self.TI, self.W = checks, torch_impls, workloads
        self.args = run.parse_args(["--dry-run", "--dtype", "bf16"])

    def shape(self, name, M=8, N=256):
        wl = self.W.WORKLOADS[name]
        ins = wl.make_inputs(M, N, seed=1, device="cpu", dtype=torch.bfloat16)
        return types.SimpleNamespace(wl=wl, M=M, N=N, dtype=torch.bfloat16, bytes=wl.compulsory_bytes(M, N),
                                     copy_ms=0.25, inputs=ins, ref=self.checks.reference(wl, ins),
                                     tol=self.checks.tolerance(torch.bfloat16))

    def runner(self, sh, kernel=None):
        return run.Runner(self.args, fake_torch(), fake_timing(), self.checks, {sh.wl.name: kernel})

    def test_typed_operands_reach_the_kernel_in_signature_order(self):
        for name in ("cross_entropy_fwd_bf16", "cross_entropy_bwd_bf16", "rmsnorm_bf16"):
            with self.subTest(workload=name):
                sh = self.shape(name)
                k = FakeKernel(sh.wl, sh.inputs, {"reread": 0.5, "staged": 0.4, "cluster_sync_P2": 0.3,
                                                  "cluster_mbarrier_P4": 0.6}, source=self.TI.COMPILE[name])
                rec = {"impl": "creditc_fastest"}
                self.runner(sh, k).creditc_fastest(sh, rec)
                self.assertEqual(rec["variant"], "cluster_sync_P2")
                self.assertLessEqual(rec["max_rel_err"], 1e-2)
                rec = {"impl": "creditc_auto"}
                self.runner(sh, k).creditc_auto(sh, rec)
                self.assertIn("median_ms", rec)

    def test_a_tensor_of_the_wrong_type_is_refused_before_the_launch(self):
        from benchlib.creditlib import ApiError
        sh = self.shape("cross_entropy_bwd_bf16")
        x, t, g = sh.inputs
        sh.inputs = (x, t.to(torch.int32), g)
        k = FakeKernel(sh.wl, sh.inputs, {}, source=self.TI.COMPILE[sh.wl.name])
        with self.assertRaisesRegex(ApiError, "t: int32, the kernel takes i64"):
            self.runner(sh, k).creditc_fastest(sh, {"impl": "creditc_fastest"})
        self.assertEqual(k.calls, [])

    def test_eager_with_two_idioms_records_both_and_runs_the_faster(self):
        sh = self.shape("cross_entropy_bwd_bf16")
        r = self.runner(sh)
        times = iter([0.7, 0.4])
        r.bench = lambda fn: (lambda ms: {"median_ms": ms, "min_ms": ms, "all": [ms] * 15})(next(times))
        rec = {"impl": "eager"}
        try:
            r.eager(sh, rec)
        except RuntimeError as e:  # an op the CPU build lacks in bf16
            self.skipTest(str(e))
        self.assertEqual(set(rec["ops"]), set(sh.wl.eager_idioms()))
        self.assertEqual(sorted(rec["ops"].values()), [0.4, 0.7])
        self.assertEqual(rec["ops"][rec["op"]], 0.4)
        self.assertEqual(rec["median_ms"], 0.4)
        self.assertEqual(rec["frac_copy"], 0.25 / 0.4)
        self.assertLessEqual(rec["max_rel_err"], 1e-2)
        self.assertNotIn("omits", rec)

    def test_an_eager_peer_that_omits_an_output_is_checked_on_the_rest(self):
        sh = self.shape("cross_entropy_fwd_bf16")
        rec = {"impl": "eager"}
        self.runner(sh).eager(sh, rec)
        self.assertEqual(rec["omits"], ["lse"])
        self.assertIn("median_ms", rec)
        self.assertLessEqual(rec["max_rel_err"], 1e-2)
        self.assertNotIn("ops", rec)


if __name__ == "__main__":
    unittest.main()
