"""The report generator and the results file, on a small synthetic bench.json (no torch, no GPU).

    python3 -m unittest discover -s bench/tests -t .      (or python3 -m pytest bench/tests)
"""
import contextlib
import io
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import report  # noqa: E402
from benchlib import records as R  # noqa: E402
from benchlib import shapes as S  # noqa: E402

SMALL = os.path.join(HERE, "data", "bench-small.json")


class ShapesTest(unittest.TestCase):
    def test_rows_make_each_input_at_least_256_mib(self):
        for N in S.NS:
            M = S.rows_for(N)
            self.assertGreaterEqual(M * N * 4, 256 << 20)
            self.assertGreaterEqual(M, 4096)
        self.assertEqual(S.rows_for(4096), 16384)
        self.assertEqual(S.rows_for(65536), 4096)
        self.assertEqual(S.rows_for(4096, "bf16"), 32768)

    def test_parsing_rejects_unknown_names_and_bad_numbers(self):
        self.assertEqual(S.parse_workloads("paper"), list(S.PAPER))
        self.assertEqual(S.parse_workloads("softmax, rmsnorm"), ["softmax", "rmsnorm"])
        with self.assertRaisesRegex(ValueError, "unknown workload: nope"):
            S.parse_workloads("softmax,nope")
        self.assertEqual(S.parse_ns("4096, 65536"), [4096, 65536])
        self.assertEqual(S.parse_ns("all"), list(S.NS))
        with self.assertRaisesRegex(ValueError, "integers"):
            S.parse_ns("4k")
        with self.assertRaisesRegex(ValueError, "positive"):
            S.parse_ns("0")


class RecordsTest(unittest.TestCase):
    def rec(self, impl="eager", N=4096, ms=1.0, run="a"):
        return {"workload": "softmax", "dtype": "fp32", "M": S.rows_for(N), "N": N, "impl": impl,
                "run": run, "median_ms": ms}

    def test_merge_keeps_the_later_record_of_an_identity(self):
        a = R.new_doc()
        a["runs"]["a"] = {"date": "1"}
        R.upsert(a, self.rec(ms=2.0))
        R.upsert(a, self.rec(impl="creditc_auto", ms=1.0))
        b = R.new_doc()
        b["runs"]["b"] = {"date": "2"}
        R.upsert(b, self.rec(ms=1.5, run="b"))
        m = R.merge(a, b)
        self.assertEqual(set(m["runs"]), {"a", "b"})
        self.assertEqual(len(m["records"]), 2)
        self.assertEqual(R.find(m, "softmax", "fp32", 16384, 4096, "eager")["median_ms"], 1.5)

    def test_upsert_replaces(self):
        d = R.new_doc()
        R.upsert(d, self.rec(ms=2.0))
        R.upsert(d, self.rec(ms=3.0))
        self.assertEqual([r["median_ms"] for r in d["records"]], [3.0])

    def test_save_is_atomic_and_sorted(self):
        d = R.new_doc()
        R.upsert(d, self.rec(N=65536))
        R.upsert(d, self.rec(impl="creditc_auto", N=65536))
        R.upsert(d, self.rec(N=4096))
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "sub", "bench.json")
            R.save(d, p)
            self.assertEqual(os.listdir(os.path.dirname(p)), ["bench.json"])  # no temporary left
            back = R.load(p)
        self.assertEqual([(r["N"], r["impl"]) for r in back["records"]],
                         [(4096, "eager"), (65536, "creditc_auto"), (65536, "eager")])

    def test_load_errors_name_the_file_and_the_reason(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "x.json")
            with open(p, "w") as f:
                f.write('{"schema": "creditc-bench",\n "version": }')
            with self.assertRaisesRegex(R.RecordsError, r"x\.json:2:13: invalid JSON"):
                R.load(p)
            with open(p, "w") as f:
                json.dump({"schema": "other"}, f)
            with self.assertRaisesRegex(R.RecordsError, "schema is 'other'"):
                R.load(p)
            doc = R.new_doc()
            doc["records"].append(dict(self.rec(), impl="triton"))
            with open(p, "w") as f:
                json.dump(doc, f)
            with self.assertRaisesRegex(R.RecordsError, "unknown impl 'triton'"):
                R.load(p)
            with self.assertRaisesRegex(R.RecordsError, "No such file"):
                R.load(os.path.join(t, "none.json"))

    def test_failed_checks_and_errors_are_not_timed(self):
        self.assertTrue(R.is_timed(self.rec()))
        self.assertFalse(R.is_timed(dict(self.rec(), check_failed=True)))
        self.assertFalse(R.is_timed(dict(self.rec(), error="launch status 5")))
        r = self.rec()
        del r["median_ms"]
        self.assertFalse(R.is_timed(r))


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc = R.load(SMALL)
        cls.shapes = report.summarize(cls.doc)
        cls.head = report.headline(cls.shapes)

    def shape(self, w, N):
        return next(s for s in self.shapes if s["workload"] == w and s["N"] == N)

    def test_strongest_peer_is_the_fastest_checked_peer(self):
        s = self.shape("layernorm", 65536)
        self.assertEqual(s["peer_best"], "torch_compile_max_autotune")
        self.assertAlmostEqual(s["speedup"], 0.75 / 0.5)
        # pearson_bwd's Triton failed its check: excluded, and listed as failed
        p = self.shape("pearson_bwd", 65536)
        self.assertNotIn("triton_autotuned", p["peers_ms"])
        self.assertIn("triton_autotuned", p["failed"])

    def test_geomean_over_the_six_paper_workloads(self):
        want = math.exp((5 * math.log(1.5) + math.log(1.2)) / 6)
        self.assertAlmostEqual(self.head["geomean_speedup"], want, places=12)

    def test_geomean_is_incomplete_when_a_paper_workload_is_missing(self):
        doc = R.merge(self.doc)
        doc["records"] = [r for r in doc["records"] if not (r["workload"] == "lars" and r["impl"] == "creditc_auto")]
        head = report.headline(report.summarize(doc))
        self.assertIsNone(head["geomean_speedup"])
        self.assertEqual(head["geomean_missing"], ["lars"])

    def test_goals_misses(self):
        m = {k: [(s["workload"], s["N"]) for s in v] for k, v in self.head["misses"].items()}
        self.assertEqual(m["win"], [("softmax", 65536)])
        self.assertEqual(m["parity"], [])
        self.assertEqual(m["copy"], [("quant_int8", 16384)])
        self.assertEqual(m["dispatch"], [("softmax", 65536)])
        self.assertEqual(self.head["copy_shapes"], 13)
        self.assertEqual(self.head["copy_at_goal"], 12)

    def test_plan_label(self):
        self.assertEqual(report.plan_label({"variant": 2, "P": 8, "protocol": 1, "source": "model"}),
                         "cluster mbarrier P=8 (model)")
        self.assertEqual(report.plan_label({"variant": 1, "P": 1, "protocol": 0, "source": "fallback"}),
                         "staged (fallback)")
        self.assertEqual(report.plan_label(None), "-")

    def test_cli_writes_markdown_merges_and_prints_the_headline(self):
        with tempfile.TemporaryDirectory() as t:
            extra = R.new_doc()
            extra["runs"]["r2"] = {"date": "later"}
            R.upsert(extra, {"workload": "lars", "dtype": "fp32", "M": 4096, "N": 65536, "impl": "eager",
                             "run": "r2", "median_ms": 0.4, "frac_copy": 1.2, "max_rel_err": 0.0})
            ep = os.path.join(t, "extra.json")
            R.save(extra, ep)
            merged = os.path.join(t, "merged.json")
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                rc = report.main([SMALL, ep, "--out", t, "--write-merged", merged])
            self.assertEqual(rc, 0)
            out = buf.getvalue()
            # lars 65536 now loses to eager (0.4 ms against 0.5)
            self.assertIn("geomean speedup of creditc_auto over the strongest peer at N = 65536", out)
            self.assertIn("lars N=65536: 0.800x against eager", out)
            self.assertIn("pearson_bwd N=65536 triton_autotuned: check failed", out)
            with open(os.path.join(t, "bench.md")) as f:
                md = f.read()
            self.assertIn("| layernorm | 4096 | 65536 | 0.5000 | cluster mbarrier P=4 (model) |", md)
            self.assertIn("**Geometric-mean speedup at N = 65536 (six paper workloads):", md)
            m = R.load(merged)
            self.assertEqual(set(m["runs"]), {"r1", "r2"})
            # the extra file's lars eager record replaced the first file's
            self.assertEqual(len(m["records"]), len(self.doc["records"]))
            self.assertEqual(R.find(m, "lars", "fp32", 4096, 65536, "eager")["median_ms"], 0.4)
            try:
                import matplotlib  # noqa: F401
                self.assertTrue(os.path.exists(os.path.join(t, "bench-speedup.png")))
                self.assertTrue(os.path.exists(os.path.join(t, "bench-copy.png")))
            except ImportError:
                pass

    def test_cli_reports_a_bad_file_without_a_traceback(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "bad.json")
            with open(p, "w") as f:
                f.write("[]")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = report.main([p, "--out", t])
            self.assertEqual(rc, 1)
            self.assertIn("bad.json: not a JSON object", err.getvalue())


class Bf16ReportTest(unittest.TestCase):
    """The report of the bf16 set: its own headline set, no Triton peer, what the eager peer ran."""

    def doc(self, skip=()):
        d = R.new_doc()
        d["runs"]["b1"] = {"date": "2026-12-05T12:00:00+00:00", "device": {"name": "NVIDIA H200", "sms": 132}}
        for i, w in enumerate(S.BF16):
            for N in (16384, 65536):
                M = S.rows_for(N, "bf16")
                base = {"workload": w, "dtype": "bf16", "M": M, "N": N, "run": "b1", "max_rel_err": 2e-3}
                auto = 0.5 if w != "softmax_bf16" else 0.6
                if (w, "creditc_auto") not in skip:
                    R.upsert(d, dict(base, impl="creditc_auto", median_ms=auto, frac_copy=0.95,
                                     plan={"variant": 1, "P": 1, "protocol": 0, "source": "model"}))
                R.upsert(d, dict(base, impl="creditc_fastest", median_ms=0.5, frac_copy=0.95, variant="staged"))
                R.upsert(d, dict(base, impl="torch_compile_max_autotune", median_ms=0.55, frac_copy=0.86))
                eager = dict(base, impl="eager", median_ms=0.75, frac_copy=0.63, op=f"op of {w}")
                if w == "rmsnorm_bf16":
                    eager.update(op="F.rms_norm (y only, no rstd)", omits=["rstd"])
                R.upsert(d, eager)
        # an fp32 record in the same file is left out of the bf16 report
        R.upsert(d, {"workload": "softmax", "dtype": "fp32", "M": 4096, "N": 65536, "impl": "creditc_auto",
                     "run": "b1", "median_ms": 9.0, "frac_copy": 0.1})
        return d

    def test_headline_is_over_the_bf16_set(self):
        shapes = report.summarize(self.doc(), "bf16")
        self.assertEqual({s["dtype"] for s in shapes}, {"bf16"})
        head = report.headline(shapes, "bf16")
        want = math.exp((4 * math.log(0.55 / 0.5) + math.log(0.55 / 0.6)) / 5)
        self.assertAlmostEqual(head["geomean_speedup"], want, places=12)
        self.assertEqual(head["geomean_over"], "five bf16 workloads")
        head = report.headline(report.summarize(self.doc(skip={("layernorm_bf16", "creditc_auto")}), "bf16"), "bf16")
        self.assertIsNone(head["geomean_speedup"])
        self.assertEqual(head["geomean_missing"], ["layernorm_bf16"])
        self.assertIn("over the 4 measured", report.text(head, []))
        self.assertEqual([(s["workload"], s["N"]) for s in head["misses"]["win"]], [("softmax_bf16", 65536)])

    def test_cli_renders_the_bf16_records(self):
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "bench-bf16.json")
            R.save(self.doc(), p)
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                rc = report.main([p, "--out", t, "--dtype", "bf16", "--name", "bench-bf16"])
            self.assertEqual(rc, 0)
            self.assertIn("at N = 65536, five bf16 workloads:", buf.getvalue())
            self.assertIn("  rmsnorm_bf16 ", buf.getvalue())
            with open(os.path.join(t, "bench-bf16.md")) as f:
                md = f.read()
            self.assertIn("# creditc benchmark of record, bf16 workloads", md)
            self.assertIn("no autotuned Triton peer for bf16", md)
            self.assertIn("| rmsnorm_bf16 | 8192 | 16384 | 0.5000 |", md)
            self.assertIn("| cross_entropy_bwd_bf16 | 4096 | 65536 | 0.5000 | staged (model) |", md)
            self.assertIn("- rmsnorm_bf16: eager `F.rms_norm (y only, no rstd)`; eager omits rstd", md)
            self.assertNotIn("| softmax |", md)

    def test_the_fp32_report_has_no_peers_section(self):
        shapes = report.summarize(R.load(SMALL))
        md = report.markdown(R.load(SMALL), shapes, report.headline(shapes))
        self.assertNotIn("What the peers ran", md)
        self.assertIn("(six paper workloads)", md)


if __name__ == "__main__":
    unittest.main()
