"""Two libraries built from files generated for one kernel name, loaded side by side (no GPU).

Builds a small stand-in for a generated file (the same extern "C" names, an inline function's
static and a C++17 inline variable, as a dispatch cache would be) twice, and checks that the two
libraries keep separate state when loaded the way bench/compare_gen.py loads them. A control
build without the isolation flags shows the loader merging that state. Needs nvcc (skipped
without it) and g++ for the control.
"""
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchlib import creditlib as C  # noqa: E402

TOY = r"""
#include <cuda_runtime.h>
inline int& counter() { static int c = 0; return c; }
struct Cache { static inline int value = 0; };
extern "C" {
int credit_toy_set(int v) { counter() = v; Cache::value = v; return 0; }
int credit_toy_get() { return counter() * 1000 + Cache::value; }
long long credit_toy_max_legal_n_named(const char*, int P, int) { return P == 1 ? TOY_TAG : 0; }
int credit_toy_launch_named(const char*, void* const*, long long, long long, int, int, cudaStream_t) { return 0; }
const char* credit_toy_status_string(int) { return "ok"; }
const char* credit_toy_signature() { return "x:in:row:f32;y:out:row:f32"; }
}
"""


def _toy_dir(t):
    gen = os.path.join(t, "gen")
    os.makedirs(gen)
    with open(os.path.join(gen, "toy.cu"), "w") as f:
        f.write(TOY)
    return gen


class SideBySideTest(unittest.TestCase):
    @unittest.skipIf(shutil.which("nvcc") is None, "nvcc not installed")
    def test_two_builds_of_one_kernel_name_keep_separate_state(self):
        with tempfile.TemporaryDirectory() as t:
            gen = _toy_dir(t)
            libs = os.path.join(t, "libs")
            a = C.build_libraries(gen, ["toy"], libs, "old", extra=["-DTOY_TAG=1"], log=lambda *_: None)["toy"]
            b = C.build_libraries(gen, ["toy"], libs, "new", extra=["-DTOY_TAG=2"], log=lambda *_: None)["toy"]
            self.assertNotEqual(a, b)
            ka, kb = C.GeneratedKernel(a, "toy"), C.GeneratedKernel(b, "toy")
            self.assertEqual(C.check_side_by_side(ka, kb), [])
            self.assertEqual((ka.max_legal_n("staged", 1, 0), kb.max_legal_n("staged", 1, 0)), (1, 2))
            for k in (ka, kb):
                k.lib.credit_toy_set.argtypes = [ctypes.c_int]
            ka.lib.credit_toy_set(5)
            self.assertEqual(ka.lib.credit_toy_get(), 5005)
            self.assertEqual(kb.lib.credit_toy_get(), 0)
            kb.lib.credit_toy_set(7)
            self.assertEqual(ka.lib.credit_toy_get(), 5005)
            self.assertEqual(kb.lib.credit_toy_get(), 7007)
            self.assertEqual(ka.signature(), [("x", "in", "row", "f32"), ("y", "out", "row", "f32")])
            C.check_signature(ka, [("x", "row")], [("y", "row", None)])
            with self.assertRaises(C.ApiError):
                C.check_signature(ka, [("x", "row"), ("w", "row")], [("y", "row", None)])
            # the same inputs again: the cached library is reused, nothing is rebuilt
            logged = []
            again = C.build_libraries(gen, ["toy"], libs, "old", extra=["-DTOY_TAG=1"], log=logged.append)
            self.assertEqual(again["toy"], a)
            self.assertEqual(logged, [])

    @unittest.skipIf(shutil.which("g++") is None, "g++ not installed")
    def test_without_the_flags_the_loader_merges_the_state(self):
        src = TOY.replace("#include <cuda_runtime.h>", "typedef void* cudaStream_t;")
        with tempfile.TemporaryDirectory() as t:
            cpp = os.path.join(t, "toy.cpp")
            with open(cpp, "w") as f:
                f.write(src)
            paths = []
            for tag in (1, 2):
                so = os.path.join(t, f"libtoy{tag}.so")
                subprocess.run(["g++", "-std=c++17", "-shared", "-fPIC", f"-DTOY_TAG={tag}", cpp, "-o", so],
                               check=True)
                paths.append(so)
            self.assertTrue(C.gnu_unique_symbols(paths[0]))
            ka, kb = (C.GeneratedKernel(p, "toy") for p in paths)
            self.assertTrue(any("STB_GNU_UNIQUE" in p for p in C.check_side_by_side(ka, kb)))
            ka.lib.credit_toy_set.argtypes = [ctypes.c_int]
            ka.lib.credit_toy_set(5)
            self.assertEqual(kb.lib.credit_toy_get(), 5005)  # shared: what the flags prevent

    def test_missing_files_are_named(self):
        with tempfile.TemporaryDirectory() as t:
            with self.assertRaisesRegex(C.BuildError, "no generated file for a, b"):
                C.build_libraries(t, ["a", "b"], os.path.join(t, "libs"), "x")

    def test_header_plan_check(self):
        with tempfile.TemporaryDirectory() as t:
            h = os.path.join(t, "k.h")
            fields = "".join(f"  {'int' if ty is ctypes.c_int else 'double'} {n};  /* doc */\n"
                             for n, ty in C.CreditPlan._fields_)
            with open(h, "w") as f:
                f.write("typedef struct credit_plan {\n" + fields + "} credit_plan;\n")
            C.check_header_plan(h)
            with open(h, "w") as f:
                f.write("typedef struct credit_plan {\n  int variant;\n  double tB_ms;\n} credit_plan;\n")
            with self.assertRaisesRegex(C.ApiError, "the harness reads"):
                C.check_header_plan(h)

    def test_labels(self):
        self.assertEqual(C.label("cluster", 8, 1), "cluster_mbarrier_P8")
        self.assertEqual(C.label("staged", 1, 0), "staged")


if __name__ == "__main__":
    unittest.main()
