"""The bf16 workload set without torch or a GPU: the registry's signatures against the .credit files
(and against creditc's launch API where build/bin/creditc exists), compulsory bytes per operand,
marshalling tensors into the launch API's argument array by signature, and the workload sets."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from benchlib import creditlib as C  # noqa: E402
from benchlib import records as R  # noqa: E402
from benchlib import shapes as S  # noqa: E402

CREDITC = os.path.join(ROOT, "build", "bin", "creditc")


def credit_declarations(path):
    """[(name, in|out, kind, type)] of a .credit file's `in` and `out` lines, in order."""
    decl = re.compile(r"^\s*(in|out)\s+(\w+)\s*:\s*(\w+)\s*(\[N\])?\s*(broadcast)?")
    out = []
    with open(path) as f:
        for line in f:
            m = decl.match(line.split("#", 1)[0])
            if m:
                d, name, ty, row, bc = m.groups()
                out.append((name, d, "broadcast" if bc else "row" if row else "scalar", ty))
    return out


class FakeDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


class FakeTensor:
    """What marshal() reads of a tensor: dtype, shape, is_contiguous(), data_ptr()."""

    def __init__(self, dtype, shape, ptr, contiguous=True):
        self.dtype, self.shape, self.ptr, self.contiguous = FakeDtype(dtype), tuple(shape), ptr, contiguous

    def is_contiguous(self):
        return self.contiguous

    def data_ptr(self):
        return self.ptr


class SignatureTest(unittest.TestCase):
    def test_registry_signatures_are_the_credit_declarations(self):
        self.assertEqual(set(S.SIGNATURES), set(S.BF16))
        for name in S.BF16:
            with self.subTest(workload=name):
                src = os.path.join(ROOT, "dsl_examples", f"{name}.credit")
                self.assertEqual(S.parse_signature(S.SIGNATURES[name]), credit_declarations(src))

    @unittest.skipUnless(os.access(CREDITC, os.X_OK), "no build/bin/creditc")
    def test_registry_signatures_are_creditcs_launch_api(self):
        with tempfile.TemporaryDirectory() as t:
            for name in S.BF16:
                with self.subTest(workload=name):
                    cu = os.path.join(t, f"{name}.cu")
                    subprocess.run([CREDITC, os.path.join(ROOT, "dsl_examples", f"{name}.credit"), "-o", cu,
                                    f"--header={os.path.join(t, name + '.h')}"], check=True, capture_output=True)
                    with open(cu) as f:
                        m = re.search(rf"credit_{name}_signature\(\) {{ return \"([^\"]*)\"", f.read())
                    self.assertIsNotNone(m)
                    self.assertEqual(m.group(1), S.SIGNATURES[name])

    def test_compulsory_bytes_count_each_operand_in_its_own_size(self):
        M, N = 4096, 65536
        ops = lambda name: [(k, t) for _, _, k, t in S.parse_signature(S.SIGNATURES[name])]  # noqa: E731
        self.assertEqual(S.compulsory_bytes(ops("rmsnorm_bf16"), M, N), 2 * M * N + 2 * N + 2 * M * N + 4 * M)
        self.assertEqual(S.compulsory_bytes(ops("cross_entropy_fwd_bf16"), M, N), 2 * M * N + 8 * M + 4 * M + 4 * M)
        self.assertEqual(S.compulsory_bytes(ops("cross_entropy_bwd_bf16"), M, N), 2 * M * N + 8 * M + 4 * M + 2 * M * N)
        self.assertEqual(S.compulsory_bytes(ops("layernorm_bf16"), M, N), 4 * M * N + 4 * N)
        self.assertEqual(S.compulsory_bytes(ops("softmax_bf16"), M, N), 4 * M * N)
        # the fp32 rule is unchanged: quant_int8 reads f32 x, writes i8 q and an f32 scale per row
        self.assertEqual(S.compulsory_bytes([("row", "f32"), ("row", "i8"), ("scalar", "f32")], 4, 8),
                         4 * 4 * 8 + 4 * 8 + 4 * 4)
        self.assertEqual(S.operand_bytes("scalar", "i64", 7, 1000), 56)
        self.assertEqual(S.operand_bytes("broadcast", "bf16", 7, 1000), 2000)


class MarshalTest(unittest.TestCase):
    SIG = S.parse_signature("x:in:row:bf16;t:in:scalar:i64;g:in:scalar:f32;dx:out:row:bf16")
    M, N = 3, 5

    def tensors(self, **over):
        t = {"x": FakeTensor("bfloat16", (3, 5), 100), "t": FakeTensor("int64", (3,), 200),
             "g": FakeTensor("float32", (3,), 300), "dx": FakeTensor("bfloat16", (3, 5), 400)}
        t.update(over)
        return t

    def test_pointers_follow_the_signature_not_the_given_order(self):
        named = list(reversed(list(self.tensors().items())))
        self.assertEqual(C.marshal(self.SIG, named, self.M, self.N), [100, 200, 300, 400])

    def test_a_wrong_type_shape_or_layout_is_refused(self):
        for over, msg in (({"t": FakeTensor("float32", (3,), 200)}, r"t: float32, the kernel takes i64 \(int64\)"),
                          ({"t": FakeTensor("int32", (3,), 200)}, "t: int32, the kernel takes i64"),
                          ({"x": FakeTensor("float32", (3, 5), 100)}, "x: float32, the kernel takes bf16"),
                          ({"g": FakeTensor("float32", (3, 1), 300)}, r"g: shape \[3, 1\], the kernel takes scalar \[3\]"),
                          ({"dx": FakeTensor("bfloat16", (3, 5), 400, contiguous=False)}, "dx: not contiguous"),
                          ({"y": FakeTensor("bfloat16", (3, 5), 500)}, "not arguments of the kernel: y")):
            with self.subTest(msg=msg), self.assertRaisesRegex(C.ApiError, msg):
                C.marshal(self.SIG, self.tensors(**over), self.M, self.N, where="cross_entropy_bwd_bf16")
        named = self.tensors()
        del named["g"]
        with self.assertRaisesRegex(C.ApiError, "g: no tensor"):
            C.marshal(self.SIG, named, self.M, self.N)

    def test_broadcast_and_untyped_signatures(self):
        sig = S.parse_signature(S.SIGNATURES["layernorm_bf16"])
        named = {"x": FakeTensor("bfloat16", (3, 5), 1), "gamma": FakeTensor("bfloat16", (5,), 2),
                 "beta": FakeTensor("bfloat16", (5,), 3), "y": FakeTensor("bfloat16", (3, 5), 4)}
        self.assertEqual(C.marshal(sig, named, 3, 5), [1, 2, 3, 4])
        # a signature without types (older files) checks names and shapes only
        old = [("x", "in", "row"), ("y", "out", "row")]
        self.assertEqual(C.marshal(old, {"x": FakeTensor("float64", (3, 5), 1),
                                         "y": FakeTensor("float32", (3, 5), 2)}, 3, 5), [1, 2])

    def test_check_signature_compares_typed_registry_entries(self):
        class Lib:
            path = "libcredit_x.so"

            def __init__(self, sig):
                self.sig = sig

            def signature(self):
                return S.parse_signature(self.sig)

        sig = "x:in:row:bf16;t:in:scalar:i64;loss:out:scalar:f32;lse:out:scalar:f32"
        ins = [("x", "row", "bf16"), ("t", "scalar", "i64")]
        outs = [("loss", "scalar", "f32"), ("lse", "scalar", "f32")]
        C.check_signature(Lib(sig), ins, outs)
        with self.assertRaisesRegex(C.ApiError, "argument t is i32, the workload registry has i64"):
            C.check_signature(Lib(sig.replace("i64", "i32")), ins, outs)
        with self.assertRaisesRegex(C.ApiError, "the workload registry has"):
            C.check_signature(Lib(sig), ins, outs[:1])
        # fp32 workloads' "float" entries are the run's type: not compared, as before
        C.check_signature(Lib("x:in:row:f32;q:out:row:i8"), [("x", "row")], [("q", "row", "i8")])
        C.check_signature(Lib("x:in:row:f32;y:out:row:f32"), [("x", "row")], [("y", "row", "float")])


class SetsTest(unittest.TestCase):
    def test_each_dtype_has_its_set_and_widths(self):
        self.assertEqual(S.parse_workloads("all", "bf16"), list(S.BF16))
        self.assertEqual(S.parse_workloads("all"), list(S.WORKLOADS))
        self.assertEqual(S.parse_ns("all", "bf16"), [4096, 16384, 32768, 65536, 131072, 262144])
        self.assertEqual(S.parse_ns("all"), list(S.NS))
        self.assertEqual(S.infer_dtype("softmax_bf16, rmsnorm_bf16"), "bf16")
        self.assertEqual(S.infer_dtype("all"), "fp32")
        self.assertEqual(S.infer_dtype("paper"), "fp32")
        with self.assertRaisesRegex(ValueError, "several dtypes"):
            S.infer_dtype("softmax,softmax_bf16")
        with self.assertRaisesRegex(ValueError, "unknown workload: softmax"):
            S.parse_workloads("softmax", "bf16")
        self.assertEqual(S.dtype_of("cross_entropy_fwd_bf16"), "bf16")
        self.assertEqual(S.dtype_of("lars"), "fp32")

    def test_rows_keep_each_bf16_row_input_at_256_mib(self):
        for N in S.NS_BY_DTYPE["bf16"]:
            M = S.rows_for(N, "bf16")
            self.assertGreaterEqual(M * N * 2, 256 << 20)
            self.assertGreaterEqual(M, 4096)
        self.assertEqual([S.rows_for(N, "bf16") for N in (4096, 16384, 32768)], [32768, 8192, 4096])

    def test_records_sort_bf16_after_fp32(self):
        doc = R.new_doc()
        for w, dt in (("softmax_bf16", "bf16"), ("softmax", "fp32"), ("rmsnorm_bf16", "bf16")):
            R.upsert(doc, {"workload": w, "dtype": dt, "M": 4096, "N": 65536, "impl": "eager", "run": "r"})
        with tempfile.TemporaryDirectory() as t:
            p = os.path.join(t, "b.json")
            R.save(doc, p)
            self.assertEqual([r["workload"] for r in R.load(p)["records"]],
                             ["softmax", "rmsnorm_bf16", "softmax_bf16"])


@unittest.skipIf(shutil.which("bash") is None, "no bash")
class ScriptTest(unittest.TestCase):
    def test_gpu_bench_documents_and_checks_the_dtype(self):
        script = os.path.join(ROOT, "scripts", "gpu-bench.sh")
        p = subprocess.run(["bash", script, "--help"], capture_output=True, text=True)
        self.assertIn("--dtype bf16", p.stderr)
        p = subprocess.run(["bash", script, "--dtype", "fp16", "--gen", "x"], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--dtype fp16: fp32 or bf16", p.stderr)


if __name__ == "__main__":
    unittest.main()
