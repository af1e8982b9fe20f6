"""Hand-written Triton peers for the six CREDIT workloads (no autotuning).

One program per row (grid = (M,)).  Two code paths, picked by a fixed rule on N:

  "reg"  (N <= REG_MAX = 16384): BLOCK = max(next_pow2(N), 128) and the whole row lives in
         registers.  Every input element is loaded once, every stage is reduced from registers,
         every output is stored once: the compulsory traffic only.
         num_warps = 4 (BLOCK <= 1024), 8 (BLOCK <= 4096), 16 (BLOCK >= 8192).
  "loop" (N > REG_MAX): the classic multi-pass Triton pattern.  Each stage loops over the row in
         chunks of LOOP_BLOCK = 4096 (num_warps = 8), accumulating a [BLOCK] vector of partials that
         is reduced once at the end of the pass; the final pass re-reads the row and computes the
         outputs.  Consecutive passes traverse the row in opposite directions, so a pass starts on
         the chunks the previous pass touched last (the ones most likely still in L2).
         softmax_logits_bwd uses the exact online rescaling trick for m, s and also for
         t = sum(dy * exp(x - m)) (d = t / s), so it makes 2 passes instead of 4.

Every launcher takes inputs then outputs (in .credit order), writes the outputs in place, and
accepts keyword overrides: path ("reg" | "loop"), block, num_warps, and the .credit params.
`plan(N, path=None, block=None, num_warps=None)` returns the (path, BLOCK, num_warps) it will use.
"""

import triton
import triton.language as tl

try:
    from triton.language.extra import libdevice
except ImportError:  # pragma: no cover - older Triton layouts
    from triton.language.extra.cuda import libdevice

REG_MAX = 16384      # widest row held in registers
REG_MIN_BLOCK = 128  # smallest register block (one element per thread at 4 warps)
LOOP_BLOCK = 4096    # chunk of the looped path
LOOP_WARPS = 8


def _next_pow2(n):
    return 1 << max(0, int(n) - 1).bit_length()


def plan(N, path=None, block=None, num_warps=None):
    """(path, BLOCK, num_warps) for a row of width N."""
    if N < 1:
        raise ValueError("N must be >= 1")
    if path is None:
        path = "reg" if N <= REG_MAX else "loop"
    if path == "reg":
        b = block or max(_next_pow2(N), REG_MIN_BLOCK)
        if b < N or (b & (b - 1)):
            raise ValueError(f"reg path needs a power-of-two BLOCK >= N (N={N}, BLOCK={b})")
        nw = num_warps or (4 if b <= 1024 else 8 if b <= 4096 else 16)
    elif path == "loop":
        b = block or LOOP_BLOCK
        if b & (b - 1):
            raise ValueError(f"BLOCK must be a power of two (got {b})")
        nw = num_warps or LOOP_WARPS
    else:
        raise ValueError(f"unknown path {path!r}")
    return path, b, nw


def _shape(x):
    if x.dim() != 2 or not x.is_contiguous():
        raise ValueError("row inputs must be contiguous [M, N] tensors")
    return x.shape[0], x.shape[1]


# ==============================================================================================
# layernorm: mean; var = mean((x-mean)^2); y = (x-mean) * rsqrt(var+eps) * gamma + beta
# ==============================================================================================
@triton.jit
def _layernorm_reg(x_ptr, gamma_ptr, beta_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    gamma = tl.load(gamma_ptr + cols, mask=mask, other=0.0)
    beta = tl.load(beta_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + base + cols, xc * rstd * gamma + beta, mask=mask)


@triton.jit
def _layernorm_loop(x_ptr, gamma_ptr, beta_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    lane = tl.arange(0, BLOCK)
    nchunks = tl.cdiv(N, BLOCK)
    # pass 1 (forward): mean
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        acc += tl.load(x_ptr + base + cols, mask=cols < N, other=0.0)
    mean = tl.sum(acc, axis=0) / N
    # pass 2 (backward): centred variance
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = (nchunks - 1 - k) * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        xc = tl.where(mask, x - mean, 0.0)
        acc2 += xc * xc
    var = tl.sum(acc2, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    # pass 3 (forward): outputs
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        gamma = tl.load(gamma_ptr + cols, mask=mask, other=0.0)
        beta = tl.load(beta_ptr + cols, mask=mask, other=0.0)
        tl.store(y_ptr + base + cols, (x - mean) * rstd * gamma + beta, mask=mask)


def run_layernorm(x, gamma, beta, y, *, eps=1e-5, path=None, block=None, num_warps=None):
    M, N = _shape(x)
    p, b, nw = plan(N, path, block, num_warps)
    kern = _layernorm_reg if p == "reg" else _layernorm_loop
    kern[(M,)](x, gamma, beta, y, N, float(eps), BLOCK=b, num_warps=nw)
    return (y,)


# ==============================================================================================
# wvar_bwd: sw = sum(w), mu = sum(w x)/sw; v = sum(w (x-mu)^2)/sw;
#           dx = g 2 w (x-mu)/sw;  dw = g ((x-mu)^2 - v)/sw
# ==============================================================================================
@triton.jit
def _wvar_bwd_reg(x_ptr, w_ptr, g_ptr, dx_ptr, dw_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + base + cols, mask=mask, other=0.0)
    g = tl.load(g_ptr + row)
    sw = tl.sum(w, axis=0)
    mu = tl.sum(w * x, axis=0) / sw
    d = tl.where(mask, x - mu, 0.0)
    v = tl.sum(w * d * d, axis=0) / sw
    a = 2.0 * g / sw
    b = g / sw
    tl.store(dx_ptr + base + cols, a * w * d, mask=mask)
    tl.store(dw_ptr + base + cols, b * (d * d - v), mask=mask)


@triton.jit
def _wvar_bwd_loop(x_ptr, w_ptr, g_ptr, dx_ptr, dw_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    lane = tl.arange(0, BLOCK)
    nchunks = tl.cdiv(N, BLOCK)
    # pass 1 (forward): sw, sum(w x)
    acc_w = tl.zeros([BLOCK], dtype=tl.float32)
    acc_wx = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + base + cols, mask=mask, other=0.0)
        acc_w += w
        acc_wx += w * x
    sw = tl.sum(acc_w, axis=0)
    mu = tl.sum(acc_wx, axis=0) / sw
    # pass 2 (backward): v
    acc_v = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = (nchunks - 1 - k) * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + base + cols, mask=mask, other=0.0)
        d = tl.where(mask, x - mu, 0.0)
        acc_v += w * d * d
    v = tl.sum(acc_v, axis=0) / sw
    g = tl.load(g_ptr + row)
    a = 2.0 * g / sw
    b = g / sw
    # pass 3 (forward): outputs
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + base + cols, mask=mask, other=0.0)
        d = x - mu
        tl.store(dx_ptr + base + cols, a * w * d, mask=mask)
        tl.store(dw_ptr + base + cols, b * (d * d - v), mask=mask)


def run_wvar_bwd(x, w, g, dx, dw, *, path=None, block=None, num_warps=None):
    M, N = _shape(x)
    p, b, nw = plan(N, path, block, num_warps)
    kern = _wvar_bwd_reg if p == "reg" else _wvar_bwd_loop
    kern[(M,)](x, w, g, dx, dw, N, BLOCK=b, num_warps=nw)
    return dx, dw


# ==============================================================================================
# pearson_bwd: mx, my; sxy, sxx, syy; den = sqrt(sxx syy), r = sxy/den;
#              gx = g ((y-my)/den - r (x-mx)/sxx);  gy = g ((x-mx)/den - r (y-my)/syy)
# ==============================================================================================
@triton.jit
def _pearson_bwd_reg(x_ptr, y_ptr, g_ptr, gx_ptr, gy_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
    y = tl.load(y_ptr + base + cols, mask=mask, other=0.0)
    g = tl.load(g_ptr + row)
    mx = tl.sum(x, axis=0) / N
    my = tl.sum(y, axis=0) / N
    xc = tl.where(mask, x - mx, 0.0)
    yc = tl.where(mask, y - my, 0.0)
    sxy = tl.sum(xc * yc, axis=0)
    sxx = tl.sum(xc * xc, axis=0)
    syy = tl.sum(yc * yc, axis=0)
    den = tl.sqrt(sxx * syy)
    r = sxy / den
    a = g / den
    bx = g * r / sxx
    by = g * r / syy
    tl.store(gx_ptr + base + cols, a * yc - bx * xc, mask=mask)
    tl.store(gy_ptr + base + cols, a * xc - by * yc, mask=mask)


@triton.jit
def _pearson_bwd_loop(x_ptr, y_ptr, g_ptr, gx_ptr, gy_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    lane = tl.arange(0, BLOCK)
    nchunks = tl.cdiv(N, BLOCK)
    # pass 1 (forward): means
    acc_x = tl.zeros([BLOCK], dtype=tl.float32)
    acc_y = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        mask = cols < N
        acc_x += tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        acc_y += tl.load(y_ptr + base + cols, mask=mask, other=0.0)
    mx = tl.sum(acc_x, axis=0) / N
    my = tl.sum(acc_y, axis=0) / N
    # pass 2 (backward): centred second moments
    acc_xy = tl.zeros([BLOCK], dtype=tl.float32)
    acc_xx = tl.zeros([BLOCK], dtype=tl.float32)
    acc_yy = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = (nchunks - 1 - k) * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        y = tl.load(y_ptr + base + cols, mask=mask, other=0.0)
        xc = tl.where(mask, x - mx, 0.0)
        yc = tl.where(mask, y - my, 0.0)
        acc_xy += xc * yc
        acc_xx += xc * xc
        acc_yy += yc * yc
    sxy = tl.sum(acc_xy, axis=0)
    sxx = tl.sum(acc_xx, axis=0)
    syy = tl.sum(acc_yy, axis=0)
    den = tl.sqrt(sxx * syy)
    r = sxy / den
    g = tl.load(g_ptr + row)
    a = g / den
    bx = g * r / sxx
    by = g * r / syy
    # pass 3 (forward): outputs
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        y = tl.load(y_ptr + base + cols, mask=mask, other=0.0)
        xc = x - mx
        yc = y - my
        tl.store(gx_ptr + base + cols, a * yc - bx * xc, mask=mask)
        tl.store(gy_ptr + base + cols, a * xc - by * yc, mask=mask)


def run_pearson_bwd(x, y, g, gx, gy, *, path=None, block=None, num_warps=None):
    M, N = _shape(x)
    p, b, nw = plan(N, path, block, num_warps)
    kern = _pearson_bwd_reg if p == "reg" else _pearson_bwd_loop
    kern[(M,)](x, y, g, gx, gy, N, BLOCK=b, num_warps=nw)
    return gx, gy


# ==============================================================================================
# softmax_logits_bwd: m = max x; s = sum exp(x-m); d = sum(dy exp(x-m))/s; dx = p (dy - d)
# ==============================================================================================
@triton.jit
def _softmax_logits_bwd_reg(x_ptr, dy_ptr, dx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + base + cols, mask=mask, other=-float("inf"))
    dy = tl.load(dy_ptr + base + cols, mask=mask, other=0.0)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)  # masked lanes: exp(-inf) = 0
    s = tl.sum(e, axis=0)
    p = e * (1.0 / s)
    d = tl.sum(dy * p, axis=0)
    tl.store(dx_ptr + base + cols, p * (dy - d), mask=mask)


@triton.jit
def _softmax_logits_bwd_loop(x_ptr, dy_ptr, dx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    lane = tl.arange(0, BLOCK)
    nchunks = tl.cdiv(N, BLOCK)
    # pass 1 (forward), online per lane: m_vec, s_vec = sum exp(x - m_vec), t_vec = sum dy exp(x - m_vec)
    # finite "minus infinity" (a literal: jitted code may not read plain module globals), so
    # exp(m_old - m_new) stays finite (= 1) on lanes that have only seen masked (-inf) elements.
    m_vec = tl.full([BLOCK], -3.0e38, dtype=tl.float32)
    s_vec = tl.zeros([BLOCK], dtype=tl.float32)
    t_vec = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=-float("inf"))
        dy = tl.load(dy_ptr + base + cols, mask=mask, other=0.0)
        m_new = tl.maximum(m_vec, x)
        alpha = tl.exp(m_vec - m_new)
        e = tl.exp(x - m_new)
        s_vec = s_vec * alpha + e
        t_vec = t_vec * alpha + dy * e
        m_vec = m_new
    m = tl.max(m_vec, axis=0)
    scale = tl.exp(m_vec - m)
    s = tl.sum(s_vec * scale, axis=0)
    inv_s = 1.0 / s
    d = tl.sum(t_vec * scale, axis=0) * inv_s
    # pass 2 (backward): outputs
    for k in range(0, nchunks):
        cols = (nchunks - 1 - k) * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        dy = tl.load(dy_ptr + base + cols, mask=mask, other=0.0)
        p = tl.exp(x - m) * inv_s
        tl.store(dx_ptr + base + cols, p * (dy - d), mask=mask)


def run_softmax_logits_bwd(x, dy, dx, *, path=None, block=None, num_warps=None):
    M, N = _shape(x)
    p, b, nw = plan(N, path, block, num_warps)
    kern = _softmax_logits_bwd_reg if p == "reg" else _softmax_logits_bwd_loop
    kern[(M,)](x, dy, dx, N, BLOCK=b, num_warps=nw)
    return (dx,)


# ==============================================================================================
# lars: wn = ||w||, gn = ||g||; trust = eta wn / (gn + wd wn + 1e-9);
#       vn = mom v + lr trust (g + wd w); v_out = vn; w_out = w - vn
# ==============================================================================================
@triton.jit
def _lars_reg(w_ptr, g_ptr, v_ptr, vout_ptr, wout_ptr, N, lr, mom, wd, eta, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    w = tl.load(w_ptr + base + cols, mask=mask, other=0.0)
    g = tl.load(g_ptr + base + cols, mask=mask, other=0.0)
    wn = tl.sqrt(tl.sum(w * w, axis=0))
    gn = tl.sqrt(tl.sum(g * g, axis=0))
    c = lr * (eta * wn / (gn + wd * wn + 1e-9))
    v = tl.load(v_ptr + base + cols, mask=mask, other=0.0)
    vn = mom * v + c * (g + wd * w)
    tl.store(vout_ptr + base + cols, vn, mask=mask)
    tl.store(wout_ptr + base + cols, w - vn, mask=mask)


@triton.jit
def _lars_loop(w_ptr, g_ptr, v_ptr, vout_ptr, wout_ptr, N, lr, mom, wd, eta, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    lane = tl.arange(0, BLOCK)
    nchunks = tl.cdiv(N, BLOCK)
    # pass 1 (forward): both norms
    acc_ww = tl.zeros([BLOCK], dtype=tl.float32)
    acc_gg = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        mask = cols < N
        w = tl.load(w_ptr + base + cols, mask=mask, other=0.0)
        g = tl.load(g_ptr + base + cols, mask=mask, other=0.0)
        acc_ww += w * w
        acc_gg += g * g
    wn = tl.sqrt(tl.sum(acc_ww, axis=0))
    gn = tl.sqrt(tl.sum(acc_gg, axis=0))
    c = lr * (eta * wn / (gn + wd * wn + 1e-9))
    # pass 2 (backward): outputs
    for k in range(0, nchunks):
        cols = (nchunks - 1 - k) * BLOCK + lane
        mask = cols < N
        w = tl.load(w_ptr + base + cols, mask=mask, other=0.0)
        g = tl.load(g_ptr + base + cols, mask=mask, other=0.0)
        v = tl.load(v_ptr + base + cols, mask=mask, other=0.0)
        vn = mom * v + c * (g + wd * w)
        tl.store(vout_ptr + base + cols, vn, mask=mask)
        tl.store(wout_ptr + base + cols, w - vn, mask=mask)


def run_lars(w, g, v, v_out, w_out, *, lr=0.1, mom=0.9, wd=1e-4, eta=1e-3,
             path=None, block=None, num_warps=None):
    M, N = _shape(w)
    p, b, nw = plan(N, path, block, num_warps)
    kern = _lars_reg if p == "reg" else _lars_loop
    kern[(M,)](w, g, v, v_out, w_out, N, float(lr), float(mom), float(wd), float(eta),
               BLOCK=b, num_warps=nw)
    return v_out, w_out


# ==============================================================================================
# quant_int8: amax = max|x|; s = max(amax, 1e-12)/127; q = i8(clamp(round(x/s), -127, 127));
#             scale = s.  Divisions are IEEE round-to-nearest (tl.div_rn; Triton's `/` is
#             div.full.f32, up to 2 ulp off), round is C roundf (ties away from zero).
# ==============================================================================================
@triton.jit
def _quant_int8_reg(x_ptr, q_ptr, scale_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
    amax = tl.max(tl.abs(x), axis=0)
    # s as a uniform [BLOCK] vector so that div_rn sees two operands of one shape.
    zero = tl.zeros([BLOCK], dtype=tl.float32)
    s = tl.div_rn(zero + tl.maximum(amax, 1e-12), zero + 127.0)
    r = libdevice.round(tl.div_rn(x, s))
    r = tl.minimum(tl.maximum(r, -127.0), 127.0)
    tl.store(q_ptr + base + cols, r.to(tl.int8), mask=mask)
    tl.store(scale_ptr + row + cols * 0, s, mask=cols == 0)


@triton.jit
def _quant_int8_loop(x_ptr, q_ptr, scale_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    lane = tl.arange(0, BLOCK)
    nchunks = tl.cdiv(N, BLOCK)
    # pass 1 (forward): amax
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, nchunks):
        cols = k * BLOCK + lane
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=0.0)
        acc = tl.maximum(acc, tl.abs(x))
    amax = tl.max(acc, axis=0)
    zero = tl.zeros([BLOCK], dtype=tl.float32)
    s = tl.div_rn(zero + tl.maximum(amax, 1e-12), zero + 127.0)
    tl.store(scale_ptr + row + lane * 0, s, mask=lane == 0)
    # pass 2 (backward): q
    for k in range(0, nchunks):
        cols = (nchunks - 1 - k) * BLOCK + lane
        mask = cols < N
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        r = libdevice.round(tl.div_rn(x, s))
        r = tl.minimum(tl.maximum(r, -127.0), 127.0)
        tl.store(q_ptr + base + cols, r.to(tl.int8), mask=mask)


def run_quant_int8(x, q, scale, *, path=None, block=None, num_warps=None):
    M, N = _shape(x)
    p, b, nw = plan(N, path, block, num_warps)
    kern = _quant_int8_reg if p == "reg" else _quant_int8_loop
    kern[(M,)](x, q, scale, N, BLOCK=b, num_warps=nw)
    return q, scale


RUN = {
    "layernorm": run_layernorm,
    "wvar_bwd": run_wvar_bwd,
    "pearson_bwd": run_pearson_bwd,
    "softmax_logits_bwd": run_softmax_logits_bwd,
    "lars": run_lars,
    "quant_int8": run_quant_int8,
}
