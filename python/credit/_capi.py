"""ctypes binding of the runtime's C API (runtime/capi/include/credit/capi.h).

The library is looked up, in order: $CREDIT_CAPI_LIB; libcredit_capi.so beside this
package (credit/lib/); the build trees of the repository the package sits in; the
bundle python/tools/prepare_bundle.sh writes (.gpu/python/lib). It needs
libnvrtc (CUDA 13): found through its run path, the loader's path, $CUDA_HOME, or the
NVIDIA wheels torch installs.
"""

import ctypes
import glob
import json
import os
import sys
import threading

from .errors import CompileError, LibraryError, LaunchError

CAPI_ERROR = -1
_EXPECTED_VERSION = 1
_LIB_NAME = "libcredit_capi.so"


class Plan(ctypes.Structure):
    """What "auto" decided for a shape (credit_capi_plan)."""

    _fields_ = [
        ("variant", ctypes.c_int),
        ("P", ctypes.c_int),
        ("protocol", ctypes.c_int),
        ("baseline", ctypes.c_int),
        ("source", ctypes.c_int),
        ("evaluated", ctypes.c_int),
        ("tB_ms", ctypes.c_double),
        ("deltaT_ms", ctypes.c_double),
        ("measured_ms", ctypes.c_double),
    ]

    VARIANTS = ("reread", "staged", "cluster")
    SOURCES = ("model", "autotune", "fallback", "structural rule", "measured candidates")

    def as_dict(self):
        d = {name: getattr(self, name) for name, _ in self._fields_}
        d["variant_name"] = self.VARIANTS[self.variant] if 0 <= self.variant < 3 else str(self.variant)
        d["source_name"] = self.SOURCES[self.source] if 0 <= self.source < len(self.SOURCES) else str(self.source)
        return d


def _candidates():
    env = os.environ.get("CREDIT_CAPI_LIB")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "lib", _LIB_NAME)
    repo = os.path.dirname(os.path.dirname(here))
    for build in sorted(glob.glob(os.path.join(repo, "build*"))):
        yield os.path.join(build, "runtime", "capi", _LIB_NAME)
        yield os.path.join(build, "capi", _LIB_NAME)
    yield os.path.join(repo, ".gpu", "python", "lib", _LIB_NAME)  # python/tools/prepare_bundle.sh


def _preload_nvrtc():
    """Makes libnvrtc.so.13 loadable where the library's run path does not reach it."""
    dirs = []
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home:
        dirs += [os.path.join(cuda_home, "lib64"), os.path.join(cuda_home, "lib")]
    dirs += ["/usr/local/cuda/lib64", "/usr/local/cuda/lib"]
    try:  # the NVIDIA wheels that torch depends on
        import nvidia  # noqa: F401

        for base in getattr(nvidia, "__path__", []):
            dirs += glob.glob(os.path.join(base, "*", "lib"))
    except ImportError:
        pass
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "libnvrtc.so.13*"))):
            try:
                ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                return True
            except OSError:
                continue
    return False


_lib = None
_lib_lock = threading.Lock()


def _declare(lib):
    c = ctypes
    vp, cp, ll = c.c_void_p, c.c_char_p, c.c_longlong
    sigs = {
        "credit_capi_version": ([], c.c_int),
        "credit_capi_last_error": ([], cp),
        "credit_program_create": ([cp, cp, cp, cp, c.c_int, c.POINTER(vp)], c.c_int),
        "credit_program_destroy": ([vp], None),
        "credit_program_info": ([vp], cp),
        "credit_program_load": ([vp], c.c_int),
        "credit_program_launch": ([vp, cp, c.POINTER(vp), ll, ll, c.c_int, c.c_int, vp, c.c_int], c.c_int),
        "credit_program_last_plan": ([vp, ll, ll, c.c_int, c.POINTER(Plan)], c.c_int),
        "credit_program_autotune": ([vp, c.POINTER(vp), ll, ll, vp, c.c_int, c.POINTER(Plan)], c.c_int),
        "credit_program_max_legal_n": ([vp, cp, c.c_int, c.c_int], ll),
        "credit_capi_status_string": ([c.c_int], cp),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = res


def library():
    """The loaded C library (loaded on first use)."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            if not os.path.exists(path):
                tried.append(path + " (missing)")
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                if "nvrtc" in str(e) and _preload_nvrtc():
                    lib = ctypes.CDLL(path)
                else:
                    tried.append("%s (%s)" % (path, e))
                    continue
            _declare(lib)
            version = lib.credit_capi_version()
            if version != _EXPECTED_VERSION:
                tried.append("%s (C API version %d, this package needs %d)" % (path, version, _EXPECTED_VERSION))
                continue
            _lib = lib
            return lib
        raise LibraryError(
            "credit: cannot load %s. Build it with the runtime (cmake --build build --target credit_capi) "
            "or point CREDIT_CAPI_LIB at it. Tried:\n  %s" % (_LIB_NAME, "\n  ".join(tried) or "(nothing)"))


def last_error(lib):
    msg = lib.credit_capi_last_error()
    return msg.decode("utf-8", "replace") if msg else ""


class Program:
    """One generated file compiled for one GPU architecture."""

    def __init__(self, source, name, arch, cache_dir=None, use_cache=True):
        self._lib = library()
        handle = ctypes.c_void_p()
        rc = self._lib.credit_program_create(
            source.encode(), name.encode(), arch.encode(),
            (cache_dir or "").encode(), 1 if use_cache else 0, ctypes.byref(handle))
        if rc != 0:
            raise CompileError(last_error(self._lib))
        self._handle = handle
        self.info = json.loads(self._lib.credit_program_info(handle).decode("utf-8", "replace"))
        self._loaded = False

    def __del__(self):
        handle = getattr(self, "_handle", None)
        # At interpreter exit the CUDA runtime may be gone already: the process frees all.
        if handle and self._lib is not None and not sys.is_finalizing():
            self._lib.credit_program_destroy(handle)
            self._handle = None

    def _check(self, rc, what):
        if rc != 0:
            msg = last_error(self._lib) if rc == CAPI_ERROR else self._lib.credit_capi_status_string(rc).decode()
            raise LaunchError("%s: %s (status %d)" % (what, msg, rc), rc)

    def load(self):
        if not self._loaded:
            self._check(self._lib.credit_program_load(self._handle), "%s: load" % self.info["kernel"])
            self._loaded = True

    def _arguments(self, pointers, values):
        """The argument array: the data pointers, then each runtime param's address (the
        floats live in `floats`, which the caller keeps until the call returns)."""
        floats = (ctypes.c_float * max(len(values), 1))(*values)
        addresses = [ctypes.addressof(floats) + 4 * i for i in range(len(values))]
        return (ctypes.c_void_p * (len(pointers) + len(values)))(*(list(pointers) + addresses)), floats

    def launch(self, variant, pointers, M, N, P, protocol, stream, device, values=()):
        args, floats = self._arguments(pointers, values)
        rc = self._lib.credit_program_launch(self._handle, variant.encode(), args, M, N, P, protocol,
                                             ctypes.c_void_p(stream or None), device)
        self._check(rc, "%s (variant %s, M=%d, N=%d, P=%d)" % (self.info["kernel"], variant, M, N, P))

    def last_plan(self, M, N, device):
        plan = Plan()
        rc = self._lib.credit_program_last_plan(self._handle, M, N, device, ctypes.byref(plan))
        return plan.as_dict() if rc == 0 else None

    def autotune(self, pointers, M, N, stream, device, values=()):
        args, floats = self._arguments(pointers, values)
        plan = Plan()
        rc = self._lib.credit_program_autotune(self._handle, args, M, N, ctypes.c_void_p(stream or None), device,
                                               ctypes.byref(plan))
        self._check(rc, "%s: autotune" % self.info["kernel"])
        return plan.as_dict()

    def max_legal_n(self, variant, P=1, protocol=1):
        return self._lib.credit_program_max_legal_n(self._handle, variant.encode(), P, protocol)
