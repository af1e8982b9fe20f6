"""bench/run.py without a GPU: argument checks, what a run would measure, what it skips (--dry-run)."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import run  # noqa: E402
from benchlib import records as R  # noqa: E402

SMALL = os.path.join(HERE, "data", "bench-small.json")


def dry(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = run.main(["--dry-run", *argv])
    return rc, out.getvalue()


class PlanTest(unittest.TestCase):
    def test_measured_records_are_skipped_unless_forced(self):
        rc, out = dry("--results", SMALL, "--workloads", "softmax", "--N", "65536")
        self.assertEqual(rc, 0)
        self.assertIn("6 (shape, impl) units, 4 already measured", out)
        listed = [ln.split()[3] for ln in out.splitlines() if ln.startswith("  softmax")]
        self.assertEqual(listed, ["triton_autotuned", "torch_compile_max_autotune"])
        rc, out = dry("--results", SMALL, "--workloads", "softmax", "--N", "65536", "--force")
        self.assertEqual(len([ln for ln in out.splitlines() if ln.startswith("  softmax")]), 6)

    def test_resume_files_count_as_measured(self):
        with tempfile.TemporaryDirectory() as t:
            rc, out = dry("--results", os.path.join(t, "new.json"), "--resume", SMALL,
                          "--workloads", "layernorm", "--N", "65536,131072")
        self.assertEqual(rc, 0)
        self.assertIn("12 (shape, impl) units, 6 already measured", out)
        self.assertNotIn("N=65536", out)

    def test_run_order_and_rows(self):
        args = run.parse_args(["--dry-run", "--workloads", "rmsnorm", "--N", "4096,262144",
                               "--impls", "eager,creditc_auto,creditc_fastest"])
        units = run.planned_units(args, R.new_doc())
        self.assertEqual([(u[1], u[2], u[3]) for u in units],
                         [(4096, 16384, "creditc_fastest"), (4096, 16384, "creditc_auto"), (4096, 16384, "eager"),
                          (262144, 4096, "creditc_fastest"), (262144, 4096, "creditc_auto"),
                          (262144, 4096, "eager")])

    def test_bad_arguments_are_refused_with_a_message(self):
        for argv, msg in ((["--impls", "triton"], "unknown impl: triton"),
                          (["--N", "4k"], "integers"),
                          (["--workloads", "gelu"], "unknown workload: gelu"),
                          (["--dtype", "fp16"], "fp32, bf16 workload sets only"),
                          (["--dtype", "bf16", "--impls", "triton_autotuned"], "fp32 kernels only"),
                          (["--dtype", "bf16", "--workloads", "paper"], "a set of fp32 workloads"),
                          (["--dtype", "bf16", "--workloads", "rmsnorm"], "unknown workload: rmsnorm"),
                          (["--workloads", "softmax,softmax_bf16"], "several dtypes"),
                          (["--impls", "creditc_auto"], "--gen DIR is needed"),
                          (["--gen", "/nonexistent", "--impls", "creditc_auto"], "not a directory")):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as cm:
                run.parse_args(argv)
            self.assertEqual(cm.exception.code, 2)
            self.assertIn(msg, err.getvalue())

    def test_bf16_selects_its_own_workloads_widths_rows_and_peers(self):
        args = run.parse_args(["--dry-run", "--dtype", "bf16"])
        self.assertEqual(args.workload_list, ["rmsnorm_bf16", "layernorm_bf16", "softmax_bf16",
                                              "cross_entropy_fwd_bf16", "cross_entropy_bwd_bf16"])
        self.assertEqual(args.n_list, [4096, 16384, 32768, 65536, 131072, 262144])
        self.assertNotIn("triton_autotuned", args.impl_list)
        self.assertEqual(args.impl_list, ["creditc_fastest", "creditc_auto", "eager", "torch_compile_default",
                                          "torch_compile_max_autotune"])
        units = run.planned_units(args, R.new_doc())
        self.assertEqual(len(units), 5 * 6 * 5)
        # every row input at least 256 MiB of bf16, at least 4096 rows
        self.assertEqual(sorted({(u[1], u[2]) for u in units}),
                         [(4096, 32768), (16384, 8192), (32768, 4096), (65536, 4096), (131072, 4096),
                          (262144, 4096)])

    def test_naming_bf16_workloads_selects_bf16(self):
        args = run.parse_args(["--dry-run", "--workloads", "cross_entropy_bwd_bf16", "--N", "65536"])
        self.assertEqual(args.dtype, "bf16")
        self.assertEqual(run.planned_units(args, R.new_doc())[0][:3], ("cross_entropy_bwd_bf16", 65536, 4096))
        self.assertEqual(run.parse_args(["--dry-run"]).dtype, "fp32")

    def test_bf16_records_are_told_apart_from_fp32_ones(self):
        # a bf16 record of the same (M, N) does not count as the fp32 one, nor the other way round
        doc = R.new_doc()
        R.upsert(doc, {"workload": "softmax_bf16", "dtype": "bf16", "M": 4096, "N": 65536, "impl": "eager",
                       "run": "r", "median_ms": 1.0})
        args = run.parse_args(["--dry-run", "--workloads", "softmax_bf16", "--N", "65536", "--impls", "eager"])
        self.assertTrue(run.planned_units(args, doc)[0][4])
        args = run.parse_args(["--dry-run", "--workloads", "softmax", "--N", "65536", "--impls", "eager"])
        self.assertFalse(run.planned_units(args, doc)[0][4])

    def test_the_bf16_set_fits_one_run_of_eight_minutes(self):
        with tempfile.TemporaryDirectory() as t:
            rc, out = dry("--results", os.path.join(t, "b.json"), "--dtype", "bf16")
        self.assertEqual(rc, 0)
        self.assertIn("150 (shape, impl) units, 0 already measured", out)
        cold = int(out.split("estimate: ~")[1].split(" s")[0])
        self.assertLessEqual(cold, 480)
        self.assertNotIn("triton_autotuned", out)

    def test_an_unreadable_results_file_is_an_error_not_a_traceback(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "bench.json")
            with open(p, "w") as f:
                f.write("{")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = run.main(["--dry-run", "--results", p])
            self.assertEqual(rc, 1)
            self.assertIn("invalid JSON", err.getvalue())


if __name__ == "__main__":
    unittest.main()
