"""Building creditc's generated .cu files into shared libraries and calling their launch API.

No torch here: the launchers take device pointers and a stream as integers.

Two libraries built from files generated for the same kernel name (an old and a new code generator)
export the same extern "C" symbols. They can live in one process because each library is
  * opened with RTLD_LOCAL (its symbols never enter the global scope, so one library's lookups
    never find the other's definitions),
  * linked with -Bsymbolic (its own references bind to its own definitions), and
  * compiled with -fno-gnu-unique (inline variables and function-local statics, such as a dispatch
    cache, stay ordinary weak symbols; as STB_GNU_UNIQUE the dynamic linker would merge them across
    libraries whatever the dlopen flags).
check_side_by_side() verifies it for a loaded pair; bench/tests/test_creditlib.py builds two such
libraries from one source and checks that their state is separate.
"""
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

from . import shapes

HOST_ISOLATION_FLAGS = ("-fPIC", "-fno-gnu-unique")
LINK_ISOLATION_FLAGS = ("-Bsymbolic",)

VARIANTS = {0: "reread", 1: "staged", 2: "cluster"}
PROTOCOLS = {0: "sync", 1: "mbarrier"}
SOURCES = {0: "model", 1: "autotune", 2: "fallback"}
CLUSTER_SIZES = (2, 4, 8, 16)

STATUS_NO_PLAN = 102  # credit_<K>_last_plan: no decision for the shape yet

# The signature's element types as torch dtype names (str(tensor.dtype) is "torch.<name>"): the
# launchers take untyped pointers, so a tensor of another type would be read as garbage.
TORCH_DTYPE_NAMES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "i8": "int8", "i32": "int32",
                     "i64": "int64", "u8": "uint8", "bool": "bool"}


class BuildError(RuntimeError):
    pass


class ApiError(RuntimeError):
    pass


def nvcc_command(src, out, arch="sm_90", includes=(), extra=()):
    cmd = ["nvcc", "-O3", "-std=c++17", f"-arch={arch}", "-shared",
           "-Xcompiler", ",".join(HOST_ISOLATION_FLAGS), "-Xlinker", ",".join(LINK_ISOLATION_FLAGS)]
    for d in includes:
        cmd += ["-I", d]
    cmd += list(extra)
    return cmd + [src, "-o", out]


def _tree_digest(h, d):
    """Hashes every header under d (sorted), so that a library is rebuilt when they change."""
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".h", ".cuh", ".hpp", ".inc")):
                p = os.path.join(root, name)
                h.update(os.path.relpath(p, d).encode())
                with open(p, "rb") as f:
                    h.update(f.read())


def nvcc_version():
    try:
        return subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def library_path(src, lib_dir, tag, name, cmd_flags, includes):
    """<lib_dir>/<tag>/libcredit_<name>-<hash>.so; the hash covers the source, the headers under
    the include directories, the flags and nvcc's version."""
    h = hashlib.sha256()
    with open(src, "rb") as f:
        h.update(f.read())
    for d in includes:
        if os.path.isdir(d):
            _tree_digest(h, d)
    h.update("\0".join(cmd_flags).encode())
    h.update(nvcc_version().encode())
    return os.path.join(lib_dir, tag, f"libcredit_{name}-{h.hexdigest()[:16]}.so")


def build_libraries(gen_dir, names, lib_dir, tag, arch="sm_90", includes=(), extra=(), jobs=8, log=print):
    """nvcc every <gen_dir>/<name>.cu into a shared library under <lib_dir>/<tag>, in parallel;
    a library already built from the same inputs is reused. Returns {name: path}."""
    missing = [n for n in names if not os.path.exists(os.path.join(gen_dir, f"{n}.cu"))]
    if missing:
        raise BuildError(f"{gen_dir}: no generated file for {', '.join(missing)} "
                         f"(expected {', '.join(n + '.cu' for n in missing)})")
    if shutil.which("nvcc") is None:
        raise BuildError("nvcc not found on PATH (the CUDA toolkit's bin directory)")
    # The key names the include directories by position, not by path: their contents are hashed,
    # so a library built in another checkout of the same files is reused.
    flags = nvcc_command("SRC", "OUT", arch, [f"INCLUDE{i}" for i in range(len(includes))], extra)
    os.makedirs(os.path.join(lib_dir, tag), exist_ok=True)
    jobs_to_run, paths = [], {}
    for n in names:
        src = os.path.join(gen_dir, f"{n}.cu")
        so = library_path(src, lib_dir, tag, n, flags, includes)
        paths[n] = so
        if not os.path.exists(so):
            jobs_to_run.append((n, src, so))

    def build(job):
        n, src, so = job
        tmp = so + ".tmp"
        p = subprocess.run(nvcc_command(src, tmp, arch, includes, extra), capture_output=True, text=True)
        if p.returncode != 0:
            return n, p.stderr.strip()[-2000:] or f"nvcc exit {p.returncode}"
        os.replace(tmp, so)
        return n, None

    if jobs_to_run:
        log(f"building {len(jobs_to_run)} librar{'y' if len(jobs_to_run) == 1 else 'ies'} ({tag}): "
            + ", ".join(n for n, _, _ in jobs_to_run))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
            errors = [(n, e) for n, e in ex.map(build, jobs_to_run) if e]
        if errors:
            raise BuildError("\n".join(f"nvcc failed for {gen_dir}/{n}.cu:\n{e}" for n, e in errors))
    return paths


def gnu_unique_symbols(so):
    """Dynamic symbols of binding STB_GNU_UNIQUE ('u' in nm): merged across libraries by the loader."""
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True).stdout
    except OSError:
        return []
    return [line.split()[-1] for line in out.splitlines() if len(line.split()) >= 3 and line.split()[1] == "u"]


class CreditPlan(ctypes.Structure):
    """credit_plan of the generated header (docs/cost-model.md, "Dispatch")."""
    _fields_ = [("variant", ctypes.c_int), ("P", ctypes.c_int), ("protocol", ctypes.c_int),
                ("baseline", ctypes.c_int), ("source", ctypes.c_int), ("evaluated", ctypes.c_int),
                ("tB_ms", ctypes.c_double), ("deltaT_ms", ctypes.c_double), ("measured_ms", ctypes.c_double)]


def check_header_plan(header):
    """Raises ApiError if the generated header's credit_plan differs from CreditPlan."""
    with open(header) as f:
        text = f.read()
    m = re.search(r"typedef\s+struct\s+credit_plan\s*\{(.*?)\}\s*credit_plan\s*;", text, re.S)
    if not m:
        raise ApiError(f"{header}: no credit_plan struct (generate with --profile to get the dispatch)")
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    fields = re.findall(r"\b(int|double)\s+(\w+)\s*;", body)
    want = [("int" if t is ctypes.c_int else "double", n) for n, t in CreditPlan._fields_]
    if fields != want:
        raise ApiError(f"{header}: credit_plan is {fields}, the harness reads {want}")


def plan_dict(p):
    return {"variant": VARIANTS.get(p.variant, p.variant), "P": p.P,
            "protocol": PROTOCOLS.get(p.protocol, p.protocol) if p.variant == 2 else None,
            "source": SOURCES.get(p.source, p.source), "baseline": VARIANTS.get(p.baseline, p.baseline),
            "evaluated": bool(p.evaluated), "tB_ms": p.tB_ms, "deltaT_ms": p.deltaT_ms,
            "measured_ms": p.measured_ms}


def label(variant, P, protocol):
    """Variant label used in records: reread, staged, cluster_sync_P4, cluster_mbarrier_P8."""
    if variant.startswith("cluster"):
        return f"cluster_{PROTOCOLS[protocol]}_P{P}"
    return variant


class GeneratedKernel:
    """One generated file's launch API (credit_<name>_*), loaded from its own library."""

    def __init__(self, path, name):
        self.path, self.name = path, name
        self.lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
        # Files of creditc 0.1.0 before the launch API took an enum named the by-name
        # entries launch_generic and max_legal_n (same signatures).
        named = hasattr(self.lib, f"credit_{name}_launch_named")
        self.by_name = ("launch_named", "max_legal_n_named") if named else ("launch_generic", "max_legal_n")
        self._launch = self._fn(self.by_name[0], ctypes.c_int,
                                [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_longlong,
                                 ctypes.c_longlong, ctypes.c_int, ctypes.c_int, ctypes.c_void_p])
        self._max_n = self._fn(self.by_name[1], ctypes.c_longlong, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int])
        self._status = self._fn("status_string", ctypes.c_char_p, [ctypes.c_int])
        self._signature = self._fn("signature", ctypes.c_char_p, [])
        self.has_dispatch = hasattr(self.lib, f"credit_{name}_launch_auto_generic")
        if self.has_dispatch:
            self._auto = self._fn("launch_auto_generic", ctypes.c_int,
                                  [ctypes.POINTER(ctypes.c_void_p), ctypes.c_longlong, ctypes.c_longlong,
                                   ctypes.c_void_p])
            self._last_plan = self._fn("last_plan", ctypes.c_int,
                                       [ctypes.c_longlong, ctypes.c_longlong, ctypes.POINTER(CreditPlan)])

    def _fn(self, suffix, restype, argtypes):
        sym = f"credit_{self.name}_{suffix}"
        try:
            fn = getattr(self.lib, sym)
        except AttributeError:
            raise ApiError(f"{self.path}: no symbol {sym}") from None
        fn.restype, fn.argtypes = restype, argtypes
        return fn

    def address(self, suffix):
        return ctypes.cast(getattr(self.lib, f"credit_{self.name}_{suffix}"), ctypes.c_void_p).value

    def signature(self):
        """[(name, direction, kind, type)] from credit_<name>_signature()."""
        return shapes.parse_signature(self._signature().decode())

    def pointers(self, named, M, N):
        """The device pointers of `named` ([(name, tensor)] or a dict) in signature order, each
        tensor checked against its argument (marshal)."""
        if not hasattr(self, "_sig"):
            self._sig = self.signature()
        return marshal(self._sig, named, M, N, where=self.name)

    def status_string(self, status):
        s = self._status(status)
        return s.decode() if s else f"status {status}"

    def max_legal_n(self, variant, P, protocol):
        return self._max_n(variant.encode(), P, protocol)

    def configs(self, N):
        """(variant, P, protocol) of every generated variant legal at N: reread, staged where Eq. 3
        allows P = 1, cluster x {sync, mbarrier} x legal P."""
        out = [("reread", 1, 0)]
        if self.max_legal_n("staged", 1, 0) >= N:
            out.append(("staged", 1, 0))
        for protocol in (0, 1):
            for P in CLUSTER_SIZES:
                if self.max_legal_n("cluster", P, protocol) >= N:
                    out.append(("cluster", P, protocol))
        return out

    @staticmethod
    def _ptrs(ptrs):
        return (ctypes.c_void_p * len(ptrs))(*ptrs)

    def launcher(self, variant, P, protocol, ptrs, M, N, stream):
        """A zero-argument callable that launches the variant and raises on a non-zero status."""
        arr, v, s = self._ptrs(ptrs), variant.encode(), ctypes.c_void_p(stream)

        def fn():
            rc = self._launch(v, arr, M, N, P, protocol, s)
            if rc != 0:
                raise ApiError(f"{self.name} {label(variant, P, protocol)}: launch status {rc}: "
                               f"{self.status_string(rc)}")
        fn._keep = arr  # the pointer array lives as long as the launcher
        return fn

    def auto_launcher(self, ptrs, M, N, stream):
        if not self.has_dispatch:
            raise ApiError(f"{self.path}: no credit_{self.name}_launch_auto_generic "
                           "(generate the file with creditc --profile <device profile>)")
        arr, s = self._ptrs(ptrs), ctypes.c_void_p(stream)

        def fn():
            rc = self._auto(arr, M, N, s)
            if rc != 0:
                raise ApiError(f"{self.name} launch_auto: status {rc}: {self.status_string(rc)}")
        fn._keep = arr
        return fn

    def last_plan(self, M, N):
        """The dispatch's decision for (M, N) as a dict, or None if it has none yet."""
        p = CreditPlan()
        rc = self._last_plan(M, N, ctypes.byref(p))
        if rc == STATUS_NO_PLAN:
            return None
        if rc != 0:
            raise ApiError(f"{self.name} last_plan: status {rc}: {self.status_string(rc)}")
        return plan_dict(p)


def _shape(kind, M, N):
    return {"row": (M, N), "broadcast": (N,), "scalar": (M,)}[kind]


def marshal(signature, named, M, N, where="kernel"):
    """Device pointers (ints) in signature order ([(name, direction, kind[, type])]) from tensors
    given by name ([(name, tensor)] or a dict). Raises ApiError when an argument has no tensor,
    a tensor is left over, or a tensor's dtype (where the signature types it), shape ([M, N] row,
    [N] broadcast, [M] scalar) or layout (contiguous) differs from its argument's. Needs only
    dtype, shape, is_contiguous() and data_ptr() of a tensor (no torch import here)."""
    by_name = dict(named)
    ptrs, problems = [], []
    for entry in signature:
        name, _, kind = entry[:3]
        ty = entry[3] if len(entry) > 3 else None
        t = by_name.pop(name, None)
        if t is None:
            problems.append(f"{name}: no tensor")
            continue
        if ty in TORCH_DTYPE_NAMES and str(t.dtype) != "torch." + TORCH_DTYPE_NAMES[ty]:
            problems.append(f"{name}: {str(t.dtype).replace('torch.', '')}, the kernel takes {ty} "
                            f"({TORCH_DTYPE_NAMES[ty]})")
        if tuple(t.shape) != _shape(kind, M, N):
            problems.append(f"{name}: shape {list(t.shape)}, the kernel takes {kind} {list(_shape(kind, M, N))}")
        elif not t.is_contiguous():
            problems.append(f"{name}: not contiguous")
        ptrs.append(t.data_ptr())
    if by_name:
        problems.append(f"not arguments of the kernel: {', '.join(by_name)}")
    if problems:
        raise ApiError(f"{where}: " + "; ".join(problems))
    return ptrs


def check_signature(kernel, inputs, outputs):
    """Raises ApiError if the library's data arguments differ from the workload registry's
    (inputs [(name, kind[, type])], outputs [(name, kind, type)]): the pointers would go to the
    wrong places. Types are compared where the registry names a signature type ("float", the
    run's float type, is not compared)."""
    want = [(i[0], "in", i[1]) for i in inputs] + [(o[0], "out", o[1]) for o in outputs]
    kind = {"row": "row", "broadcast": "broadcast", "scalar": "scalar"}
    sig = kernel.signature()
    have = [(n, d, kind.get(k, k)) for n, d, k, *_ in sig]
    if have != want:
        raise ApiError(f"{kernel.path}: arguments {have}, the workload registry has {want}")
    want_types = [e[2] if len(e) > 2 else None for e in inputs] + [o[2] for o in outputs]
    for (n, _, _, *ty), w in zip(sig, want_types):
        if w in TORCH_DTYPE_NAMES and ty and ty[0] != w:
            raise ApiError(f"{kernel.path}: argument {n} is {ty[0]}, the workload registry has {w}")


def check_side_by_side(a, b):
    """Problems (a list of strings, empty when none) with two libraries of one kernel name loaded
    together: the same entry point must resolve to two addresses, and neither library may export
    STB_GNU_UNIQUE symbols (the loader would share them)."""
    problems = []
    for sa, sb in zip(a.by_name, b.by_name):
        if a.address(sa) == b.address(sb):
            problems.append(f"credit_{a.name}_{sa} resolves to one address in both libraries")
    for k in (a, b):
        uniq = gnu_unique_symbols(k.path)
        if uniq:
            problems.append(f"{k.path} exports {len(uniq)} STB_GNU_UNIQUE symbol(s), e.g. {uniq[0]}")
    return problems
