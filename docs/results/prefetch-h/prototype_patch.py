# Prototype: h-only inputs (broadcast / streamed) loaded into registers at entry in kRegPrefetch forms.
import re, sys
src, dst, names = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
t = open(src).read()
# 1. declarations after the last *_r declaration line
lines = t.split('\n')
out = []
decl_done = False
pref_done = False
h_count = {n: 0 for n in names}
i = 0
for ln in lines:
    out.append(ln)
    if not decl_done and '[kRegs ? kRegIters : 1][kUnroll][VEC];  // STAGED_REGS' in ln:
        # insert after the (void) line that follows; simpler: insert right here
        for n in names:
            out.append(f'  float {n}_p[kRegPrefetch ? kRegIters : 1][kUnroll][VEC];  // PROTOTYPE: h-only input at entry')
        decl_done = True
    if not pref_done and 'credit_ld_global_if(' in ln and '_r[it][u]' in ln:
        ind = ln[:len(ln) - len(ln.lstrip())]
        for n in names:
            out.append(f'{ind}credit_ld_global_if({n}_p[it][u], {n}_slice + (in_slice ? off : 0u), in_slice);  // {n} (h only)')
        pref_done = True
t = '\n'.join(out)
for n in names:
    pat = re.compile(r'(\s*)credit_ld_global<VEC>\(' + n + r'_v\[u\], ' + n + r'_slice \+ off\);([^\n]*)')
    t, k = pat.subn(lambda m: f'{m.group(1)}if constexpr (kRegPrefetch) credit_copy<VEC>({n}_v[u], {n}_p[it][u]); else credit_ld_global<VEC>({n}_v[u], {n}_slice + off);{m.group(2)}', t)
    print(n, 'h loads patched', k)
assert decl_done and pref_done
open(dst, 'w').write(t)
