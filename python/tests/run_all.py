#!/usr/bin/env python3
"""Runs python/tests/test_credit.py without pytest (pytest runs it too).

    python3 python/tests/run_all.py [--bundle DIR] [-k SUBSTRING]

--bundle DIR: a folder python/tools/prepare_bundle.sh wrote (gen/*.cu, lib/libcredit_capi.so);
where its library cannot be loaded here (another C library), the C API is built from
runtime/ with CMake into build-capi/ first. Exit status 0 when nothing failed.
"""

import argparse
import os
import subprocess
import sys
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _loads(lib):
    code = "import ctypes, sys; ctypes.CDLL(sys.argv[1])"
    proc = subprocess.run([sys.executable, "-c", code, lib], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc.returncode == 0, proc.stderr.strip().splitlines()[-1:] or [""]


def _build_capi():
    build = os.path.join(REPO, "build-capi")
    print("building the C API from runtime/ into %s" % build, flush=True)
    gen = ["-G", "Ninja"] if subprocess.run(["which", "ninja"], stdout=subprocess.DEVNULL).returncode == 0 else []
    subprocess.run(["cmake", "-S", os.path.join(REPO, "runtime"), "-B", build, "-DCMAKE_BUILD_TYPE=Release"] + gen,
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "--target", "credit_capi", "-j", str(os.cpu_count() or 4)], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build, "capi", "libcredit_capi.so")


def setup_bundle(bundle):
    gen = os.path.join(bundle, "gen")
    if os.path.isdir(gen):
        os.environ.setdefault("CREDIT_TEST_GEN", gen)
    lib = os.path.join(bundle, "lib", "libcredit_capi.so")
    if "CREDIT_CAPI_LIB" in os.environ or not os.path.exists(lib):
        return
    ok, why = _loads(lib)
    if not ok:
        print("the bundled %s does not load here (%s)" % (lib, why[0]))
        lib = _build_capi()
    os.environ["CREDIT_CAPI_LIB"] = lib


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle", help="a folder prepare_bundle.sh wrote")
    ap.add_argument("-k", default="", help="run the tests whose name contains this")
    args = ap.parse_args()
    if args.bundle:
        setup_bundle(os.path.abspath(args.bundle))
    sys.path.insert(0, HERE)
    import test_credit

    torch = test_credit.torch
    gpu = torch.cuda.get_device_name() if torch is not None and torch.cuda.is_available() else "no GPU"
    try:
        lib = test_credit.credit._capi.library()._name
    except test_credit.credit.CreditError as e:
        lib = "NOT LOADED: %s" % e
    print("python %s, torch %s, %s, kernels from %s, library %s" % (
        sys.version.split()[0], getattr(torch, "__version__", "(none)"), gpu,
        os.environ.get("CREDIT_TEST_GEN", "creditc"), lib), flush=True)

    tests = [(n, getattr(test_credit, n)) for n in dir(test_credit) if n.startswith("test_") and args.k in n]
    order = {n: i for i, n in enumerate(test_credit.__dict__)}
    tests.sort(key=lambda t: order.get(t[0], 0))
    results = []
    t_all = time.time()
    for name, fn in tests:
        print("== %s" % name, flush=True)
        t = time.time()
        try:
            fn()
            status = "PASS"
        except unittest.SkipTest as e:
            status = "SKIP (%s)" % e
        except Exception:  # noqa: BLE001 -- report every failure, run the rest
            traceback.print_exc()
            status = "FAIL"
        results.append((name, status, time.time() - t))
        print("-- %s %s (%.1f s)" % (name, status, time.time() - t), flush=True)
    print("\nsummary (%.1f s):" % (time.time() - t_all))
    for name, status, secs in results:
        print("  %-34s %s  %.1f s" % (name, status, secs))
    failed = [r for r in results if r[1] == "FAIL"]
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
