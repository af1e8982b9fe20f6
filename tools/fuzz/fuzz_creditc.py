#!/usr/bin/env python3
"""Grammar and mutation fuzzer for creditc (docs/usage.md, "Fuzzing").

Generates .credit programs from the language's grammar and mutates the seed
corpus (tools/fuzz/corpus and dsl_examples), runs creditc on each along one of
its paths (the text and JSON reports, -o with --header, --emit=mlir,
--emit=header, --emit=reference, predict) and checks the contract every input
must keep, whatever it is:
  - the exit status is 0, 1 or 2 (no signal, no abort);
  - nothing on stderr from AddressSanitizer or UndefinedBehaviorSanitizer;
  - it ends within --timeout seconds and writes at most 10 MB;
  - outputs are all or nothing: exit 0 leaves every asked-for file, any other
    status none; no temporary is left in the output directory.
With --compile-every K, every K-th accepted run that wrote CUDA (-o, stdin) or
a reference (--emit=reference) has it compiled, with nvcc or g++ ("ok-compiled"
counts those); --modes cuda,stdin,reference with --compile-every 1 samples them
alone.

A failing input is saved under --out (the input, the command, the reason).
Exit status: 0 when no failure was found, 1 otherwise.

  tools/fuzz/fuzz_creditc.py --creditc build/bin/creditc --seconds 30
  tools/fuzz/fuzz_creditc.py --creditc build-asan/bin/creditc --runs 100000 --jobs 2
"""
import argparse
import hashlib
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MAX_OUTPUT = 10 * 1024 * 1024
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
                     "AddressSanitizer:DEADLYSIGNAL", "SUMMARY: UndefinedBehaviorSanitizer")

# ---------------------------------------------------------------- grammar ----
UNARY = ["abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "round", "f32"]
REDUCE = ["sum", "max", "min", "logsumexp"]
REJECTED_FNS = ["scan_sum", "median", "sort", "topk", "quantile", "i8", "f16", "bf16", "u8", "i64", "clamp"]
ODD_NAMES = ["INFINITY", "NAN", "INT_MAX", "M_PI", "errno", "linux", "stdout", "float", "int",
             "Row", "e", "r", "M", "kStages", "credit_x", "cudaFoo", "x_", "main", "threadIdx",
             "__x", "_Y", "assert", "NULL", "EOF", "signbit", "N2", "i8x", "complex", "and"]
NUMBERS = ["0", "1", "2", "0.5", "1e-12", "127", "3e38", "1e38", "1e-45", "1e-50", "1e999",
           "0x10", "1.", ".5", "1e", "-1", "65504", "340282346638528859811704183484516925440",
           "0.0000000000000000000000000000000000000000001", "1e-38", "nan", "inf"]


class Gen:
    """A random .credit program: mostly well-formed, sometimes not."""

    def __init__(self, rng):
        self.r = rng

    def name(self, used):
        r = self.r
        for _ in range(20):
            n = r.choice(ODD_NAMES) if r.random() < 0.25 else \
                r.choice("abcdefghmpqstuvwxyz") + (str(r.randrange(10)) if r.random() < 0.5 else "")
            if n not in used:
                used.add(n)
                return n
        n = "v%d" % len(used)
        used.add(n)
        return n

    def expr(self, elems, rows, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.3:
            pool = elems + rows
            if pool and r.random() < 0.8:
                return r.choice(pool)
            return r.choice(NUMBERS[:9]) if r.random() < 0.9 else r.choice(NUMBERS)
        k = r.random()
        if k < 0.45:
            return "%s %s %s" % (self.expr(elems, rows, depth - 1), r.choice("+-*/"),
                                 self.expr(elems, rows, depth - 1))
        if k < 0.7:
            return "%s(%s)" % (r.choice(UNARY), self.expr(elems, rows, depth - 1))
        if k < 0.8:
            return "(%s)" % self.expr(elems, rows, depth - 1)
        if k < 0.87:
            return "%s(%s, %s)" % (r.choice(["max", "min"]), self.expr(elems, rows, depth - 1),
                                   self.expr(elems, rows, depth - 1))
        if k < 0.9:
            return "where(%s, %s, %s)" % (self.cond(elems, rows, depth - 1), self.expr(elems, rows, depth - 1),
                                          self.expr(elems, rows, depth - 1))
        if k < 0.92:
            return "-" + self.expr(elems, rows, depth - 1)
        if k < 0.98:
            return "clamp(%s, -127, 127)" % self.expr(elems, rows, depth - 1)
        return "%s(%s)" % (r.choice(REJECTED_FNS), self.expr(elems, rows, depth - 1))

    def cond(self, elems, rows, depth):
        # A bool: a comparison (of values, i or inf), combined with && || !.
        r = self.r
        pool = elems + rows + ["i", "inf", "-inf"]
        c = "%s %s %s" % (self.expr(elems, rows, depth) if r.random() < 0.5 else r.choice(pool),
                          r.choice(["<", "<=", ">", ">=", "==", "!="]), r.choice(pool))
        k = r.random()
        if depth > 0 and k < 0.2:
            return "%s %s %s" % (c, r.choice(["&&", "||"]), self.cond(elems, rows, depth - 1))
        if k < 0.3:
            return "!(%s)" % c
        return c

    def program(self):
        r = self.r
        used = set()
        kname = self.name(used) if r.random() < 0.9 else "k"
        lines = ["kernel %s {" % kname]
        ins = [self.name(used) for _ in range(r.randint(1, 4))]
        bcast = [i for i in ins[1:] if r.random() < 0.3]
        for i in ins:
            elem = r.choice(["f32"] * 6 + ["bf16", "f16", "u8", "i8"])
            lines.append("  in %s: %s[N]%s" % (i, elem, " broadcast" if i in bcast else ""))
        # Sometimes a per-row class index and a mask.
        index = self.name(used) if r.random() < 0.2 else None
        if index:
            lines.append("  in %s: %s" % (index, r.choice(["i32", "i64", "f32"])))
        mask = self.name(used) if r.random() < 0.2 else None
        if mask:
            lines.append("  in %s: bool[N]" % mask)
        params = [self.name(used) for _ in range(r.randint(0, 2))]
        for p in params:
            if r.random() < 0.3:  # a runtime param: a launch argument
                lines.append("  param %s: f32" % p)
            else:
                lines.append("  param %s: f32 = %s" % (p, r.choice(NUMBERS[:9] if r.random() < 0.95 else NUMBERS)))
        outs = [self.name(used) for _ in range(r.randint(1, 3))]
        i8 = set(o for o in outs if r.random() < 0.15)
        rowouts = set(o for o in outs if o not in i8 and r.random() < 0.15)
        for o in outs:
            lines.append("  out %s: %s" % (o, "i8[N]" if o in i8 else "f32" if o in rowouts
                                            else r.choice(["f32"] * 4 + ["bf16", "f16"]) + "[N]"))
        elems, rows = list(ins), list(params) + ([index] if index else [])
        for _ in range(r.randint(0, 4) if r.random() < 0.15 else r.randint(1, 3)):
            stats = []
            for _ in range(r.randint(1, 2)):
                s = self.name(used)
                arg = self.expr(elems, rows, 2)
                if r.random() < 0.8:
                    arg = "%s %s (%s)" % (r.choice(ins), r.choice("+-*"), arg)
                red = "%s(%s)" % (r.choice(REDUCE), arg)
                if r.random() < 0.3:
                    red = "%s(%s)" % (r.choice(["sqrt", "rsqrt", "log"]), red)
                if r.random() < 0.3:
                    red += " / N"
                stats.append("%s = %s" % (s, red))
            lines.append("  stage { %s }" % "; ".join(stats) if len(stats) == 1 or r.random() < 0.5
                         else "  stage {\n    " + "\n    ".join(stats) + "\n  }")
            rows.extend(st.split(" = ")[0] for st in stats)
        for _ in range(r.randint(0, 6)):
            l = self.name(used)
            row_level = r.random() < 0.4
            e = self.expr([] if row_level else elems, rows, 3)
            lines.append("  let %s = %s" % (l, e))
            (rows if row_level else elems).append(l)
        for o in outs:
            if o in rowouts:
                lines.append("  %s = %s" % (o, self.expr([], rows, 3) if rows else "1"))
            else:
                e = self.expr(elems, rows, 3)
                if r.random() < 0.7:
                    e = "%s * (%s)" % (r.choice(ins), e)
                if mask and r.random() < 0.6:
                    e = "where(%s, %s, 0)" % (mask, e)
                lines.append("  %s = %s" % (o, "i8(clamp(round(%s), -127, 127))" % e if o in i8 else e))
        lines.append("}")
        text = "\n".join(lines) + "\n"
        return text


# ---------------------------------------------------------------- mutator ----
TOKENS = [b"kernel", b"in", b"out", b"param", b"stage", b"let", b"{", b"}", b"(", b")", b"=",
          b"+", b"-", b"*", b"/", b",", b":", b"f32", b"i8", b"bf16", b"f16", b"u8", b"bool", b"i32", b"i64", b"[N]", b"N", b"#", b"//", b"\n",
          b"\r", b"\r\n", b"\t", b"\x00", b"\xff", b"\xc3\xa9", b"sum(", b"max(", b"1e-50", b"1e999",
          b"3e38 * 10", b"0/0", b"INFINITY", b"NAN", b"INT_MAX", b"M_PI", b"((((((((((", b"))))))))))",
          b"<", b"<=", b"==", b"!=", b">=", b"&&", b"||", b"!", b"&", b"where(", b"inf", b"-inf", b" i "]


def mutate(data, rng, corpus):
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        k = rng.random()
        pos = rng.randrange(len(b) + 1)
        if k < 0.2 and b:
            del b[pos:pos + rng.randint(1, 8)]
        elif k < 0.45:
            b[pos:pos] = rng.choice(TOKENS if rng.random() < 0.7 else ODD_NAMES_B)
        elif k < 0.55 and b:
            b[min(pos, len(b) - 1)] = rng.randrange(256)
        elif k < 0.7:
            ls = bytes(b).split(b"\n")
            i = rng.randrange(len(ls))
            j = rng.randrange(len(ls))
            ls.insert(j, ls[i])
            b = bytearray(b"\n".join(ls))
        elif k < 0.8:
            ls = bytes(b).split(b"\n")
            del ls[rng.randrange(len(ls))]
            b = bytearray(b"\n".join(ls))
        elif k < 0.9 and corpus:
            other = rng.choice(corpus)
            a = rng.randrange(len(other) + 1)
            b[pos:pos] = other[a:a + rng.randint(1, 80)]
        else:  # replace a number
            for num in (b"1e-12", b"127", b"0.5", b"1e-9", b"0.1", b"2", b"1"):
                if num in b:
                    b = b.replace(num, rng.choice(NUMBERS).encode(), 1)
                    break
    return bytes(b[:200000])


ODD_NAMES_B = [n.encode() for n in ODD_NAMES]


def load_corpus(dirs):
    out = []
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(".credit"):
                    with open(os.path.join(root, f), "rb") as fh:
                        out.append(fh.read())
    return out


# ----------------------------------------------------------------- runner ----
STAGE_OPTIONS = ["--fuse-moments", "--fuse-moments=false", "--fuse-online=all", "--fuse-online=none",
                 "--no-stage-opt"]
MODES = ["report", "json", "cuda", "mlir", "header", "reference", "predict", "stdin", "predict-json"]


def command(creditc, mode, src, work, rng):
    """The command line of one run and the files it must write on success."""
    o = lambda name: os.path.join(work, name)
    extra = []
    if rng.random() < 0.2:
        extra.append("--N=%d" % rng.choice([1, 7, 1024, 65536, 1000000, 2147483647]))
    if rng.random() < 0.1:
        extra.append("--cta-threads=%d" % rng.choice([128, 512, 1024]))
    # The stage rewrites (docs/dsl.md, "Stage optimization"), on and off.
    stage = [rng.choice(STAGE_OPTIONS)] if rng.random() < 0.3 else []
    extra += stage
    if mode == "report":
        return [creditc, src] + extra, []
    if mode == "json":
        return [creditc, src, "--report=json"] + extra, []
    if mode == "stdin":
        return [creditc, "-", "-o", o("s.cu")] + extra, [o("s.cu")]
    if mode == "cuda":
        prefix = ["--prefix=fz_%d" % rng.randrange(100)] if rng.random() < 0.3 else []
        var = ["--variant=%s" % rng.choice(["reread", "staged", "cluster", "control"])] \
            if rng.random() < 0.2 else []
        return [creditc, src, "-o", o("k.cu"), "--header=" + o("k.h")] + prefix + var + extra, \
            [o("k.cu"), o("k.h")]
    if mode == "mlir":
        return [creditc, src, "--emit=mlir", "-o", o("k.mlir")] + extra, [o("k.mlir")]
    if mode == "header":
        return [creditc, src, "--emit=header", "-o", o("k.h")] + extra, [o("k.h")]
    if mode == "reference":
        return [creditc, src, "--emit=reference", "-o", o("k.cpp")] + extra, [o("k.cpp")]
    profile = os.path.join(ROOT, "tests", "lit", "Model", "Inputs", "synthetic-profile.json")
    M = rng.choice(["1", "4096", "9223372036854775807", "123456789012", "0", "-5"])
    N = rng.choice(["1", "65536", "2147483647", "4096", "0", "99999999999"])
    tB = rng.choice(["0.5", "1e-300", "1e300", "0", "-1", "inf", "nan", "1e-9"])
    cmd = [creditc, "predict", src, "--profile", profile, "--M", M, "--N", N, "--tB", tB] + stage
    if mode == "predict-json":
        cmd.append("--report=json")
    return cmd, []


def run_one(args, data, mode, seed):
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="credit-fuzz-", dir=args.tmp)
    try:
        src = os.path.join(work, "in.credit")
        with open(src, "wb") as f:
            f.write(data)
        cmd, files = command(args.creditc, mode, src, work, rng)
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        t0 = time.time()
        for attempt in range(30):
            try:
                # The limit is CPU time (a loaded machine stretches wall time); the
                # wall-clock limit only catches a process that waits forever.
                p = subprocess.run(cmd, input=data if mode == "stdin" else None, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=max(120, 12 * args.timeout), env=env,
                                   stdin=None if mode == "stdin" else subprocess.DEVNULL,
                                   preexec_fn=lambda: resource.setrlimit(
                                       resource.RLIMIT_CPU, (int(args.timeout), int(args.timeout) + 1)))
                break
            except subprocess.TimeoutExpired:
                return "timeout (wall clock)", cmd, b"", 0, args.timeout
            except OSError:  # the binary is being relinked: wait for it
                time.sleep(2)
        else:
            return "cannot run creditc", cmd, b"", 0, 0
        dt = time.time() - t0
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
            return "timeout (over %g s of CPU)" % args.timeout, cmd, p.stderr, p.returncode, dt
        if p.returncode not in (0, 1, 2):
            return "exit %d" % p.returncode, cmd, p.stderr, p.returncode, dt
        for m in SANITIZER_MARKERS:
            if m in err:
                return "sanitizer", cmd, p.stderr, p.returncode, dt
        size = len(p.stdout) + sum(os.path.getsize(f) for f in files if os.path.exists(f))
        if size > MAX_OUTPUT:
            return "output %d bytes" % size, cmd, b"", p.returncode, dt
        present = [f for f in files if os.path.exists(f)]
        if p.returncode == 0 and len(present) != len(files):
            return "exit 0 but missing " + ",".join(os.path.basename(f) for f in files
                                                   if f not in present), cmd, p.stderr, 0, dt
        if p.returncode != 0 and present:
            return "exit %d but left %s" % (p.returncode, ",".join(map(os.path.basename, present))), \
                cmd, p.stderr, p.returncode, dt
        left = sorted(set(os.listdir(work)) - {"in.credit"} - set(map(os.path.basename, files)))
        if left:
            return "left behind " + ",".join(left), cmd, p.stderr, p.returncode, dt
        compilable = [f for f in present if f.endswith((".cu", ".cpp"))]
        if p.returncode == 0 and args.compile_every and compilable and \
                int(hashlib.sha1(data).hexdigest(), 16) % args.compile_every == 0:
            why = compile_outputs(args, mode, work, files)
            if why:
                return why, cmd, b"", 0, dt
            return "ok-compiled", cmd, b"", 0, dt
        return "ok", cmd, b"", p.returncode, dt
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compile_outputs(args, mode, work, files):
    for f in files:
        if f.endswith(".cu") and args.nvcc:
            p = subprocess.run([args.nvcc, "-std=c++17", "-arch=sm_90", "-c", "-I" +
                                os.path.join(ROOT, "runtime", "include"), f, "-o",
                                os.path.join(work, "k.o")], capture_output=True)
            if p.returncode:
                return "nvcc rejects the CUDA: " + p.stderr.decode()[-400:]
        if f.endswith(".cpp"):
            p = subprocess.run(["g++", "-std=c++17", "-c", f, "-o", os.path.join(work, "r.o")],
                               capture_output=True)
            if p.returncode:
                return "g++ rejects the reference: " + p.stderr.decode()[-400:]
    return None


def save(args, data, result):
    why, cmd, stderr, rc, _ = result
    h = hashlib.sha1(data).hexdigest()[:12]
    d = os.path.join(args.out, h)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "input.credit"), "wb") as f:
        f.write(data)
    with open(os.path.join(d, "failure.txt"), "w") as f:
        f.write("%s\n%s\n" % (why, " ".join(cmd)))
        f.write(stderr.decode("utf-8", "replace")[-8000:])
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--creditc", default=os.path.join(ROOT, "build", "bin", "creditc"))
    ap.add_argument("--runs", type=int, default=0, help="stop after this many runs (0: no limit)")
    ap.add_argument("--seconds", type=float, default=0, help="stop after this long (0: no limit)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10.0, help="CPU seconds a run may take")
    ap.add_argument("--out", default="fuzz-failures")
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--compile-every", type=int, default=0,
                    help="compile every K-th accepted output with nvcc / g++ (0: never)")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--corpus", action="append", default=[])
    ap.add_argument("--modes", default=",".join(MODES),
                    help="comma-separated paths to run (default all): " + ", ".join(MODES))
    ap.add_argument("--stats-every", type=int, default=1000)
    args = ap.parse_args()
    args.creditc = os.path.abspath(args.creditc)
    if not args.runs and not args.seconds:
        ap.error("give --runs or --seconds")
    corpus = load_corpus(args.corpus or [os.path.join(HERE, "corpus"), os.path.join(ROOT, "dsl_examples")])
    if not corpus:
        ap.error("no seed corpus")
    modes = [m for m in args.modes.split(",") if m]
    if not modes or any(m not in MODES for m in modes):
        ap.error("--modes: choose from " + ", ".join(MODES))
    master = random.Random(args.seed)
    gen = Gen(master)

    def inputs():
        i = 0
        while True:
            k = master.random()
            if k < 0.45:
                data = gen.program().encode()
            elif k < 0.9:
                data = mutate(master.choice(corpus), master, corpus)
            else:
                data = master.choice(corpus)
            yield i, data, modes[master.randrange(len(modes))], master.randrange(1 << 30)
            i += 1

    start = time.time()
    counts, failures, seen = {}, 0, set()
    done = 0
    src = inputs()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        while True:
            stop = (args.runs and done + len(pending) >= args.runs) or \
                   (args.seconds and time.time() - start >= args.seconds)
            while not stop and len(pending) < 2 * args.jobs:
                _, data, mode, seed = next(src)
                pending.add(pool.submit(lambda d=data, m=mode, s=seed: (d, m, run_one(args, d, m, s))))
                stop = args.runs and done + len(pending) >= args.runs
            if not pending:
                break
            # The first to finish, not the oldest: a slow run must not idle the other workers.
            fut = next(iter(wait(pending, return_when=FIRST_COMPLETED).done))
            pending.remove(fut)
            data, mode, result = fut.result()
            done += 1
            why = result[0]
            key = why if why in ("ok", "ok-compiled") else "fail"
            counts[key] = counts.get(key, 0) + 1
            counts["rc%d" % result[3]] = counts.get("rc%d" % result[3], 0) + 1
            if key == "fail":
                failures += 1
                sig = (why.split(":")[0], mode)
                d = save(args, data, result)
                if sig not in seen:
                    seen.add(sig)
                    print("FAIL [%s] %s -> %s" % (mode, why.splitlines()[0][:200], d), flush=True)
            if done % args.stats_every == 0:
                print("%d runs, %.0f s, %s" % (done, time.time() - start, counts), flush=True)
    print("done: %d runs in %.0f s, %d failures, %s" % (done, time.time() - start, failures, counts),
          flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
