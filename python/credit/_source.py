"""From what the user gives credit.load to generated CUDA files: a generated .cu is used
as it is; a .credit file (or .credit source text) goes through creditc, found as the
``creditc`` argument, $CREDITC, or on PATH."""

import json
import os
import shutil
import subprocess
import tempfile
import warnings

from .errors import CompileError, CreditError

_GENERATED_MARKERS = ("CREDIT_ROW_KERNEL(", "CREDIT_CLUSTER_KERNEL(", "CREDIT_CONTROL_KERNEL(")


def is_generated(text):
    """Whether `text` is a CUDA file creditc generated (rather than .credit source)."""
    return any(m in text for m in _GENERATED_MARKERS)


def find_creditc(creditc=None):
    exe = creditc or os.environ.get("CREDITC") or shutil.which("creditc")
    if not exe or not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        raise CreditError(
            "credit: loading .credit source needs creditc (pass creditc=, set $CREDITC, or put it on PATH); "
            "on a machine without creditc, load the .cu files creditc generated elsewhere")
    return exe


def _run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def generate(path, creditc=None, profile=None, extra_args=(), display=None):
    """Runs creditc on a .credit file: [(kernel name, generated CUDA text)], one per
    kernel of the file. Raises CompileError with creditc's located diagnostics
    (`display`: the name they give the file)."""
    exe = find_creditc(creditc)
    shown = display or path

    def located(text):
        return text.strip().replace(path, shown) if display else text.strip()

    # Exit status 1: an error in the source; 2: a kernel was rejected (the report says why).
    rc, out, err = _run([exe, path, "--report=json"])
    if rc not in (0, 2):
        raise CompileError("creditc rejected %s:\n%s" % (shown, located(err)))
    try:
        report = json.loads(out)
    except ValueError as e:
        raise CreditError("creditc --report=json printed no JSON for %s: %s" % (shown, e))
    if isinstance(report, dict):
        report = [report]
    names = [r["kernel"] for r in report if "kernel" in r and r.get("accepted", True)]
    rejected = ["%s: %s" % (r.get("kernel", "?"), r.get("reason", r.get("category", "rejected")))
                for r in report if not r.get("accepted", True)]
    if rejected and not names:
        raise CompileError("creditc generates no kernel from %s:\n%s" % (shown, "\n".join(rejected)))
    if rejected:
        warnings.warn("credit.load(%s): creditc rejects %s" % (shown, "; ".join(rejected)), stacklevel=4)
    if not names:
        raise CompileError("%s defines no kernel" % shown)
    kernels = []
    with tempfile.TemporaryDirectory(prefix="credit-") as tmp:
        for name in names:
            cu = os.path.join(tmp, name + ".cu")
            cmd = [exe, path, "--kernel=" + name, "-o", cu]
            if profile:
                cmd.append("--profile=" + profile)
            cmd += list(extra_args)
            rc, _, err = _run(cmd)
            if rc != 0:
                raise CompileError("creditc could not generate kernel %s of %s:\n%s" % (name, shown, located(err)))
            with open(cu) as f:
                kernels.append((name, f.read()))
    return kernels


def resolve(path_or_source, creditc=None, profile=None, extra_args=()):
    """[(program name, generated CUDA text)] for a path (.cu, .credit) or source text."""
    text = None
    if isinstance(path_or_source, os.PathLike) or (
            isinstance(path_or_source, str) and "\n" not in path_or_source and len(path_or_source) < 4096):
        path = os.fspath(path_or_source)
        if not os.path.exists(path):
            raise FileNotFoundError("credit.load: no such file: %s" % path)
        with open(path) as f:
            text = f.read()
        if is_generated(text):
            return [(os.path.basename(path), text)]
        return generate(path, creditc, profile, extra_args)
    if not isinstance(path_or_source, str):
        raise TypeError("credit.load: expected a path or source text, got %r" % type(path_or_source).__name__)
    text = path_or_source
    if is_generated(text):
        return [("generated.cu", text)]
    with tempfile.TemporaryDirectory(prefix="credit-") as tmp:
        src = os.path.join(tmp, "source.credit")
        with open(src, "w") as f:
            f.write(text)
        return generate(src, creditc, profile, extra_args, display="<source>")
