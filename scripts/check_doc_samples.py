#!/usr/bin/env python3
"""Runs the command-line samples of a Markdown document and compares their output.

A sample is a ```console block right after the line `<!-- sample -->`. Each
`$ <command>` line runs in a scratch directory holding the examples by the names
the documents use (layernorm.credit, row_sum.credit, ... and dsl_examples/); the
lines after it, up to the next `$` line, are its expected output (stdout and
stderr together). A line `…` stands for any number of lines.

  check_doc_samples.py docs/usage.md --creditc build/bin/creditc [--update]

--update rewrites the expected output of every sample that differs (the whole
output: put the `…` back by hand where the output is long). Exit status: 0 when
every sample matches, 1 otherwise.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ELLIPSIS = "…"


def scratch_dir(creditc):
    d = tempfile.mkdtemp(prefix="credit-doc-")
    ex = os.path.join(ROOT, "dsl_examples")
    os.symlink(ex, os.path.join(d, "dsl_examples"))
    for name in os.listdir(ex):
        if name.endswith(".credit"):
            shutil.copy(os.path.join(ex, name), d)
    shutil.copy(os.path.join(ex, "rejected", "onepass_rowsum.credit"), os.path.join(d, "row_sum.credit"))
    shutil.copy(os.path.join(ROOT, "docs", "results", "h200-profile.json"), os.path.join(d, "nvidia-h200.json"))
    bindir = os.path.join(d, ".bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(creditc), os.path.join(bindir, "creditc"))
    return d, bindir


def matches(expected, actual):
    """Whether `actual` (lines) fits `expected` (lines, `…` any run of lines)."""
    pattern = "".join(".*?\n" if l == ELLIPSIS else re.escape(l + "\n") for l in expected)
    pattern = pattern.replace(".*?\n", "(?:.*\n)*?")
    return re.fullmatch(pattern, "".join(l + "\n" for l in actual)) is not None


def run(cmd, cwd, bindir):
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), NO_COLOR="1")
    p = subprocess.run(["bash", "-c", "{ " + cmd + "\n} 2>&1"], cwd=cwd, env=env, stdout=subprocess.PIPE, timeout=120)
    return p.stdout.decode("utf-8", "replace").rstrip("\n").split("\n") if p.stdout.strip() else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("doc")
    ap.add_argument("--creditc", required=True)
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    lines = open(args.doc, encoding="utf-8").read().split("\n")
    out, failures, checked = [], 0, 0
    i = 0
    d, bindir = scratch_dir(args.creditc)
    try:
        while i < len(lines):
            out.append(lines[i])
            if lines[i].strip() != "<!-- sample -->":
                i += 1
                continue
            i += 1
            assert lines[i].startswith("```console"), "%s:%d: a sample is a console block" % (args.doc, i + 1)
            out.append(lines[i])
            i += 1
            while not lines[i].startswith("```"):
                assert lines[i].startswith("$ "), "%s:%d: expected a '$ ' line" % (args.doc, i + 1)
                cmd, start = lines[i][2:], i
                i += 1
                expected = []
                while not lines[i].startswith("$ ") and not lines[i].startswith("```"):
                    expected.append(lines[i])
                    i += 1
                actual = run(cmd, d, bindir)
                checked += 1
                out.append(lines[start])
                if matches(expected, actual):
                    out.extend(expected)
                    continue
                failures += 1
                print("%s:%d: the output of '%s' differs:" % (args.doc, start + 1, cmd))
                print("  expected:\n    " + "\n    ".join(expected))
                print("  actual:\n    " + "\n    ".join(actual))
                out.extend(actual)
            out.append(lines[i])
            i += 1
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if args.update and failures:
        open(args.doc, "w", encoding="utf-8").write("\n".join(out))
        print("updated %d sample(s) in %s" % (failures, args.doc))
    print("%d command(s) checked, %d differ" % (checked, failures))
    return 1 if failures and not args.update else 0


if __name__ == "__main__":
    sys.exit(main())
