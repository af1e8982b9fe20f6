#!/usr/bin/env python3
"""Compares the kernels of two CUDA files kernel by kernel: ptxas resources
(registers, stack, spills) and the instruction mix, in SASS where cuobjdump is on
the PATH, else in PTX. Kernels are matched by name (extern "C").

    scripts/compare-kernels.py OLD.cu NEW.cu [-I DIR ...] [--arch sm_90] [--all]

Prints one line per kernel (old/new) and, for a kernel that differs, the
instruction classes whose counts differ; exits 1 if a kernel of OLD is missing
in NEW. Used to check that a change to the device library or to the emitter
leaves the generated kernels as they were.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

SASS_CLASSES = ['LDG', 'STG', 'LDS', 'STS', 'LDSM', 'UBLKCP', 'SYNCS', 'BAR', 'MEMBAR', 'SHFL', 'ATOM', 'RED',
                'FFMA', 'FADD', 'FMUL', 'FMNMX', 'MUFU', 'IMAD', 'IADD3', 'LOP3', 'ISETP', 'BRA', 'LDC', 'S2R', 'S2UR']
PTX_CLASSES = ['ld.global', 'st.global', 'ld.shared', 'st.shared', 'cp.async.bulk', 'mbarrier', 'barrier.cluster',
               'bar.sync', 'shfl', 'atom', 'fma', 'add.f32', 'mul.f32', 'max.f32', 'min.f32', 'ex2', 'rsqrt',
               'mul.lo', 'mad', 'add.s', 'bra', 'ld.param', 'setp', 'selp', 'mov']


def compile_one(src, out_dir, tag, includes, arch):
    """ptxas -v log, object and PTX of one source."""
    obj = os.path.join(out_dir, tag + '.o')
    ptx = os.path.join(out_dir, tag + '.ptx')
    inc = sum((['-I', d] for d in includes), [])
    base = ['nvcc', '-std=c++17', '-arch=' + arch] + inc
    log = subprocess.run(base + ['-c', src, '-o', obj, '-Xptxas', '-v'], capture_output=True, text=True)
    if log.returncode != 0:
        sys.exit(f'nvcc failed on {src}:\n{log.stderr}')
    subprocess.run(base + ['-ptx', src, '-o', ptx], check=True, capture_output=True)
    return log.stderr, obj, ptx


def resources(log):
    res, cur = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            cur = m.group(1)
            res[cur] = {}
            continue
        m = re.search(r'(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads', line)
        if m and cur:
            res[cur].update(stack=int(m.group(1)), spills=int(m.group(2)) + int(m.group(3)))
        m = re.search(r'Used (\d+) registers', line)
        if m and cur:
            res[cur]['regs'] = int(m.group(1))
    return res


def sass_mix(obj):
    out = subprocess.run(['cuobjdump', '-sass', obj], capture_output=True, text=True, check=True).stdout
    mix, cur = {}, None
    for line in out.splitlines():
        m = re.match(r'\s+Function : (\w+)', line)
        if m:
            cur = m.group(1)
            mix[cur] = collections.Counter()
            continue
        m = re.match(r'\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
        if m and cur:
            op = m.group(1).split('.')[0]
            mix[cur]['total'] += 1
            for c in SASS_CLASSES:
                if op == c or (c in ('LDG', 'STG', 'LDS', 'STS') and op.startswith(c)):
                    mix[cur][c] += 1
    return mix


def ptx_mix(ptx):
    text = open(ptx).read()
    mix = {}
    for m in re.finditer(r'\.entry (\w+)\(.*?\n\)\n.*?\{(.*?)\n\}\n', text, re.S):
        c = collections.Counter()
        for line in m.group(2).splitlines():
            line = line.strip()
            if not line or line[0] in '/.{}$' or line.endswith(':'):
                continue
            if line.startswith('@'):
                line = line.split(None, 1)[1]
            op = line.split()[0].rstrip(';')
            c['total'] += 1
            for k in PTX_CLASSES:
                if op.startswith(k):
                    c[k] += 1
        mix[m.group(1)] = c
    return mix


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('old')
    ap.add_argument('new')
    ap.add_argument('-I', dest='includes', action='append', default=[])
    ap.add_argument('--arch', default='sm_90')
    ap.add_argument('--all', action='store_true', help='print the instruction classes of every kernel')
    a = ap.parse_args()
    sass = shutil.which('cuobjdump') is not None
    with tempfile.TemporaryDirectory() as tmp:
        log_o, obj_o, ptx_o = compile_one(a.old, tmp, 'old', a.includes, a.arch)
        log_n, obj_n, ptx_n = compile_one(a.new, tmp, 'new', a.includes, a.arch)
        res_o, res_n = resources(log_o), resources(log_n)
        mix_o = sass_mix(obj_o) if sass else ptx_mix(ptx_o)
        mix_n = sass_mix(obj_n) if sass else ptx_mix(ptx_n)
    classes = SASS_CLASSES if sass else PTX_CLASSES
    print(f"instruction mix from {'SASS (cuobjdump)' if sass else 'PTX (no cuobjdump on the PATH)'}")
    missing = differ = 0
    for k in sorted(res_o):
        if k not in res_n:
            print(f'{k}: missing in {a.new}')
            missing += 1
            continue
        ro, rn = res_o[k], res_n[k]
        mo, mn = mix_o.get(k, collections.Counter()), mix_n.get(k, collections.Counter())
        same = ro == rn and mo == mn
        differ += not same
        print(f"{k}: regs {ro.get('regs')}/{rn.get('regs')}, stack {ro.get('stack')}/{rn.get('stack')}, "
              f"spills {ro.get('spills')}/{rn.get('spills')}, instructions {mo['total']}/{mn['total']}"
              + ('' if same else '  differs'))
        for c in classes:
            if mo[c] != mn[c] or (a.all and mo[c]):
                print(f'    {c}: {mo[c]} -> {mn[c]}')
    print(f'{len(res_o)} kernels: {differ} differ, {missing} missing')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
