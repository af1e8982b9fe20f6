"""The results file of record, docs/results/bench.json (no torch; schema in docs/performance.md).

    {"schema": "creditc-bench", "version": 1,
     "runs":    {"<run id>": {date, device, driver, cuda, torch, triton, commit, copy_GBps, ...}},
     "records": [{"workload", "dtype", "M", "N", "impl", "run", "median_ms", "frac_copy",
                  "max_rel_err", ...}, ...]}

A record is identified by (workload, dtype, M, N, impl); merging keeps the later of two records
with the same identity. Files are written whole to a temporary file and renamed over the target,
so a run that is killed leaves the previous complete file, never half of one.
"""
import json
import os
import tempfile

from . import shapes

SCHEMA = "creditc-bench"
VERSION = 1

# Implementation names, exactly as they appear in records.
CREDITC_AUTO = "creditc_auto"
CREDITC_FASTEST = "creditc_fastest"
PEERS = ("torch_compile_default", "torch_compile_max_autotune", "triton_autotuned", "eager")
IMPLS = (CREDITC_AUTO, CREDITC_FASTEST) + PEERS

KEY_FIELDS = ("workload", "dtype", "M", "N", "impl")


class RecordsError(ValueError):
    """A results file that cannot be read as this schema (the message names the file and why)."""


def new_doc():
    return {"schema": SCHEMA, "version": VERSION, "runs": {}, "records": []}


def key(rec):
    return tuple(rec[f] for f in KEY_FIELDS)


def is_timed(rec):
    """A record with a time that passed its check (failed checks and errors have no time)."""
    return (isinstance(rec.get("median_ms"), (int, float)) and rec["median_ms"] > 0
            and not rec.get("check_failed") and not rec.get("error"))


def validate(doc, where="results"):
    if not isinstance(doc, dict):
        raise RecordsError(f"{where}: not a JSON object")
    if doc.get("schema") != SCHEMA:
        raise RecordsError(f"{where}: schema is {doc.get('schema')!r}, expected {SCHEMA!r}")
    if doc.get("version") != VERSION:
        raise RecordsError(f"{where}: version {doc.get('version')!r} (this tool reads {VERSION})")
    if not isinstance(doc.get("runs"), dict) or not isinstance(doc.get("records"), list):
        raise RecordsError(f"{where}: 'runs' must be an object and 'records' a list")
    for i, rec in enumerate(doc["records"]):
        if not isinstance(rec, dict):
            raise RecordsError(f"{where}: records[{i}] is not an object")
        missing = [f for f in KEY_FIELDS if f not in rec]
        if missing:
            raise RecordsError(f"{where}: records[{i}] lacks {', '.join(missing)}")
        if rec["impl"] not in IMPLS:
            raise RecordsError(f"{where}: records[{i}] has unknown impl {rec['impl']!r}")
        if not isinstance(rec["M"], int) or not isinstance(rec["N"], int):
            raise RecordsError(f"{where}: records[{i}]: M and N must be integers")
    return doc


def load(path):
    """Reads and validates a results file; RecordsError with the reason if it cannot."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise RecordsError(f"{path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise RecordsError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    return validate(doc, path)


def load_or_new(path):
    return load(path) if path and os.path.exists(path) else new_doc()


def upsert(doc, rec):
    """Adds rec, replacing a record with the same identity."""
    k = key(rec)
    doc["records"] = [r for r in doc["records"] if key(r) != k]
    doc["records"].append(rec)


def merge(*docs):
    """One document holding every run and, per identity, the record of the last doc that has it."""
    out = new_doc()
    by_key = {}
    for d in docs:
        out["runs"].update(d.get("runs", {}))
        for rec in d.get("records", []):
            by_key[key(rec)] = rec
    out["records"] = list(by_key.values())
    return out


def find(doc, workload, dtype, M, N, impl):
    for r in doc["records"]:
        if key(r) == (workload, dtype, M, N, impl):
            return r
    return None


def _order(rec):
    w = rec["workload"]
    wi = shapes.ALL_WORKLOADS.index(w) if w in shapes.ALL_WORKLOADS else len(shapes.ALL_WORKLOADS)
    ii = IMPLS.index(rec["impl"]) if rec["impl"] in IMPLS else len(IMPLS)
    return (wi, w, rec["dtype"], rec["N"], rec["M"], ii)


def save(doc, path):
    """Writes doc (records sorted: workload, dtype, N, impl) atomically."""
    doc = dict(doc, records=sorted(doc["records"], key=_order))
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".bench-", suffix=".json", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
