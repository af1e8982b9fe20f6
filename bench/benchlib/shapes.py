"""The benchmark's workloads and shapes (no torch).

Every row input is at least MIN_ROW_BYTES (256 MiB) and M is at least MIN_ROWS:
M(N) = max(MIN_ROWS, ceil(MIN_ROW_BYTES / (N * element size))), the same for every workload of a
dtype, so no input fits in the 50 MB L2 and every N runs at least 4096 rows (the paper's M).

Two workload sets, selected by the run's dtype: the fp32 set (the paper's six and four general
ones; their operands are all of the run's float type, or int8) and the bf16 set (kernels of their
own, dsl_examples/<name>.credit, with 16-bit rows and typed per-row operands: SIGNATURES).
"""

# The six workloads of the CREDIT paper's evaluation; the geometric-mean headline is over these.
PAPER = ("layernorm", "wvar_bwd", "pearson_bwd", "softmax_logits_bwd", "lars", "quant_int8")
# General workloads written the way a user would: the device profile holds no figure for them,
# so they show what the dispatch does for a kernel it was not calibrated on.
GENERAL = ("softmax", "log_softmax", "rmsnorm", "cross_entropy_bwd")
WORKLOADS = PAPER + GENERAL
# bf16 workloads as a transformer layer runs them: bf16 rows, f32 arithmetic, f32 per-row results.
BF16 = ("rmsnorm_bf16", "layernorm_bf16", "softmax_bf16", "cross_entropy_fwd_bf16", "cross_entropy_bwd_bf16")
ALL_WORKLOADS = WORKLOADS + BF16
SETS = {"fp32": WORKLOADS, "bf16": BF16}

# Their data arguments in the launch API's signature words (name:in|out:row|broadcast|scalar:type),
# as credit_<name>_signature() returns them; bench/tests check them against the .credit files.
SIGNATURES = {
    "rmsnorm_bf16": "x:in:row:bf16;gamma:in:broadcast:bf16;y:out:row:bf16;rstd:out:scalar:f32",
    "layernorm_bf16": "x:in:row:bf16;gamma:in:broadcast:bf16;beta:in:broadcast:bf16;y:out:row:bf16",
    "softmax_bf16": "x:in:row:bf16;y:out:row:bf16",
    "cross_entropy_fwd_bf16": "x:in:row:bf16;t:in:scalar:i64;loss:out:scalar:f32;lse:out:scalar:f32",
    "cross_entropy_bwd_bf16": "x:in:row:bf16;t:in:scalar:i64;g:in:scalar:f32;dx:out:row:bf16",
}

NS = (4096, 8192, 16384, 32768, 65536, 131072, 262144)
NS_BY_DTYPE = {"fp32": NS, "bf16": (4096, 16384, 32768, 65536, 131072, 262144)}
HEADLINE_N = 65536
# The workloads the geometric-mean headline is taken over, per dtype.
HEADLINE_SET = {"fp32": PAPER, "bf16": BF16}

MIN_ROW_BYTES = 256 << 20
MIN_ROWS = 4096

# dtype name -> element bytes of its float type. fp16 is reserved (no workload set yet).
DTYPES = {"fp32": 4, "bf16": 2, "fp16": 2}
SUPPORTED_DTYPES = ("fp32", "bf16")
FLOAT_TYPE = {"fp32": "f32", "bf16": "bf16", "fp16": "f16"}

# Element bytes of the signature's type words.
ELEM_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "i8": 1, "i32": 4, "i64": 8, "u8": 1, "bool": 1}
COUNT = {"row": lambda M, N: M * N, "broadcast": lambda M, N: N, "scalar": lambda M, N: M}


def parse_signature(text):
    """'x:in:row:bf16;t:in:scalar:i64' -> [("x", "in", "row", "bf16"), ("t", "in", "scalar", "i64")]."""
    return [tuple(item.split(":")) for item in text.split(";") if item]


def dtype_of(workload):
    """The dtype (workload set) a workload belongs to."""
    return next((d for d, ws in SETS.items() if workload in ws), "fp32")


def operand_bytes(kind, type_word, M, N):
    """Bytes of one operand: its element count by kind times its own element size."""
    return COUNT[kind](M, N) * ELEM_BYTES[type_word]


def compulsory_bytes(operands, M, N):
    """One read of every input and one write of every output, each in its own element size.
    operands: [(kind, type word)] (row, broadcast or scalar; f32, bf16, i64, ...)."""
    return sum(operand_bytes(k, t, M, N) for k, t in operands)


def rows_for(N, dtype="fp32", min_row_bytes=MIN_ROW_BYTES, min_rows=MIN_ROWS):
    """M for a row width N: each [M, N] input at least min_row_bytes, and at least min_rows rows."""
    if N < 1:
        raise ValueError(f"N must be positive (got {N})")
    elem = DTYPES[dtype]
    return max(min_rows, -(-min_row_bytes // (N * elem)))


def parse_list(text, known, what):
    """'a,b' -> ['a', 'b'], every name checked against `known` (a clear error otherwise)."""
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise ValueError(f"no {what} given")
    bad = [n for n in names if n not in known]
    if bad:
        raise ValueError(f"unknown {what}: {', '.join(bad)} (known: {', '.join(known)})")
    return names


def parse_ns(text, dtype="fp32"):
    """'4096,65536' or 'all' (the dtype's widths) -> [4096, 65536]; each a positive integer."""
    if text.strip() == "all":
        return list(NS_BY_DTYPE.get(dtype, NS))
    out = []
    for s in text.split(","):
        s = s.strip()
        if not s:
            continue
        try:
            n = int(s)
        except ValueError:
            raise ValueError(f"N must be integers (got {s!r})") from None
        if n < 1:
            raise ValueError(f"N must be positive (got {n})")
        out.append(n)
    if not out:
        raise ValueError("no N given")
    return out


def parse_workloads(text, dtype="fp32"):
    """'all' (the dtype's set), 'paper', 'general' (fp32) or a comma-separated list of the dtype's
    workload names."""
    t = text.strip()
    known = SETS.get(dtype, ())
    if t == "all":
        return list(known)
    if t in ("paper", "general"):
        if dtype != "fp32":
            raise ValueError(f"'{t}' is a set of fp32 workloads (the {dtype} set: {', '.join(known)})")
        return list(PAPER if t == "paper" else GENERAL)
    return parse_list(t, known, "workload")


def infer_dtype(workloads_text):
    """The dtype a --workloads argument names: that of its workloads (one set only), else fp32."""
    names = [s.strip() for s in workloads_text.split(",") if s.strip()]
    found = {dtype_of(n) for n in names if n in ALL_WORKLOADS}
    if len(found) > 1:
        raise ValueError(f"workloads of several dtypes ({', '.join(sorted(found))}): run each set apart")
    return found.pop() if found else "fp32"
