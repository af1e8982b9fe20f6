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
                          (["--dtype", "bf16"], "fp32 kernels only"),
                          (["--impls", "creditc_auto"], "--gen DIR is needed"),
                          (["--gen", "/nonexistent", "--impls", "creditc_auto"], "not a directory")):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as cm:
                run.parse_args(argv)
            self.assertEqual(cm.exception.code, 2)
            self.assertIn(msg, err.getvalue())

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
