"""Checked text patches of generated .cu files, for the experiments that time or instrument copies of
them (never the compiler's output itself). Every substitution must match as often as expected, so that
a change in what creditc emits stops the experiment instead of silently measuring an unpatched kernel."""
import os
import re
import shutil

# The head of the one device template every kernel of a generated file instantiates.
BODY_HEAD = "template <int VEC, int MODE, int RPT, int THREADS, int PIECES = 1, bool CLAIMS = false>\n__device__ __forceinline__ void credit_"


def sub_checked(src, pattern, repl, what, count=1):
    """re.sub(pattern, repl, src) in multiline mode (repl may refer to groups, \\1), where the pattern
    matches exactly `count` times (None: at least once); otherwise SystemExit naming `what`."""
    n = len(re.findall(pattern, src, flags=re.M))
    if (n < 1) if count is None else (n != count):
        raise SystemExit(f"{what}: pattern {pattern!r} matched {n} times, expected {count or 'at least 1'}")
    return re.sub(pattern, repl, src, flags=re.M)


def insert_before_body(src, text, what):
    """`text` (declarations at namespace scope) inserted right before the body template."""
    n = src.count(BODY_HEAD)
    if n != 1:
        raise SystemExit(f"{what}: the body template's head matched {n} times")
    return src.replace(BODY_HEAD, text + BODY_HEAD)


def write_patched_copies(gen, out, patch):
    """A copy of the generated-files directory `gen` in `out`: every workload's .cu file as
    patch(source, workload), the rest (headers, references, registry, commit) unchanged."""
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(gen)):
        path = os.path.join(gen, name)
        if not name.endswith(".cu"):
            shutil.copy(path, os.path.join(out, name))
            continue
        with open(path) as f:
            src = f.read()
        with open(os.path.join(out, name), "w") as f:
            f.write(patch(src, name[:-len(".cu")]))
