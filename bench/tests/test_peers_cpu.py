"""The peers' math and the harness's checks on the CPU (skipped where torch is not installed).

Every eager peer against the float64 reference, the reference in row chunks against the whole,
and the check's verdicts on poisoned and perturbed outputs.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "peers"))

try:
    import torch
except ImportError:  # the report and planning tests run without torch
    torch = None


@unittest.skipIf(torch is None, "torch not installed")
class PeersOnCpuTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        global W, checks
        import workloads as W
        from benchlib import checks

    def inputs(self, name, M=6, N=1000, seed=3):
        return W.WORKLOADS[name].make_inputs(M, N, seed=seed, device="cpu")

    def test_every_eager_peer_matches_the_reference(self):
        for name in W.NAMES:
            wl = W.WORKLOADS[name]
            with self.subTest(workload=name):
                ins = self.inputs(name)
                ref = checks.reference(wl, ins)
                outs = wl.eager(*ins)
                self.assertEqual([tuple(o.shape) for o in outs], [tuple(s) for s, _ in wl.output_specs(6, 1000)])
                self.assertLessEqual(checks.max_rel_err(outs, ref), 1e-5)
                self.assertEqual([o.dtype for o in outs], [d for _, d in wl.output_specs(6, 1000)])

    def test_compile_sources_compute_the_same_math(self):
        from torch_impls import COMPILE
        for name in W.NAMES:
            wl = W.WORKLOADS[name]
            with self.subTest(workload=name):
                ins = self.inputs(name)
                self.assertLessEqual(checks.max_rel_err(COMPILE[name](*ins), checks.reference(wl, ins)), 1e-5)

    def test_chunked_reference_equals_the_whole(self):
        wl = W.WORKLOADS["pearson_bwd"]
        ins = self.inputs("pearson_bwd", M=10, N=300)
        whole = wl.reference(*ins)
        saved = checks.CHUNK_ELEMS
        checks.CHUNK_ELEMS = 900  # three rows per chunk, the last chunk one row
        try:
            parts = checks.reference(wl, ins)
        finally:
            checks.CHUNK_ELEMS = saved
        for a, b in zip(whole, parts):
            self.assertTrue(torch.equal(a, b))

    def test_poisoned_or_wrong_outputs_fail_the_check(self):
        wl = W.WORKLOADS["wvar_bwd"]
        ins = self.inputs("wvar_bwd")
        ref = checks.reference(wl, ins)
        outs = [o.clone() for o in wl.eager(*ins)]
        self.assertLessEqual(checks.max_rel_err(outs, ref), 1e-5)
        outs[1][2, 7] = float("nan")  # one element never written
        self.assertEqual(checks.max_rel_err(outs, ref), float("inf"))
        outs = [o.clone() for o in wl.eager(*ins)]
        outs[0][0] *= 1.01  # one row off by 1%
        self.assertGreater(checks.max_rel_err(outs, ref), 1e-5)
        checks.poison(outs)
        self.assertTrue(all(bool(torch.isnan(o).all()) for o in outs))
        self.assertEqual(checks.max_rel_err(outs[:1], ref), float("inf"))  # an output missing

    def test_int8_outputs_accept_off_by_one_only(self):
        wl = W.WORKLOADS["quant_int8"]
        ins = self.inputs("quant_int8")
        ref = checks.reference(wl, ins)
        q, s = (o.clone() for o in wl.eager(*ins))
        self.assertEqual(checks.max_rel_err((q, s), ref), 0.0)
        q[0, 0] = ref[0][0, 0] + (1 if ref[0][0, 0] < 127 else -1)
        self.assertEqual(checks.max_rel_err((q, s), ref), 0.0)
        checks.poison((q,))
        self.assertTrue(bool((q == -128).all()))
        self.assertEqual(checks.max_rel_err((q, s), ref), 1.0)

    def test_compulsory_bytes(self):
        self.assertEqual(W.WORKLOADS["layernorm"].compulsory_bytes(4, 8), 4 * (4 * 8 + 8 + 8 + 4 * 8))
        self.assertEqual(W.WORKLOADS["quant_int8"].compulsory_bytes(4, 8), 4 * 4 * 8 + 4 * 8 + 4 * 4)
        self.assertEqual(W.WORKLOADS["wvar_bwd"].compulsory_bytes(4, 8), 4 * (2 * 32 + 4 + 2 * 32))

    def test_soft_targets_are_distributions(self):
        x, t = self.inputs("cross_entropy_bwd")
        self.assertTrue(torch.allclose(t.sum(-1), torch.ones(6), atol=1e-5))
        self.assertTrue(bool((t >= 0).all()))


@unittest.skipIf(torch is None, "torch not installed")
class Bf16PeersOnCpuTest(unittest.TestCase):
    """The bf16 workloads' inputs, peers and reference on the CPU (bf16 arithmetic where the CPU
    has it): every output the peer produces within the bf16 tolerance of the float64 reference."""

    @classmethod
    def setUpClass(cls):
        global W, TI, checks
        import torch_impls as TI
        import workloads as W
        from benchlib import checks
        cls.tol = checks.tolerance(torch.bfloat16)

    def inputs(self, name, M=6, N=1000, seed=3):
        return W.WORKLOADS[name].make_inputs(M, N, seed=seed, device="cpu", dtype=torch.bfloat16)

    def test_inputs_have_the_declared_types_and_ranges(self):
        x, t, g = self.inputs("cross_entropy_bwd_bf16", M=64, N=4096)
        self.assertEqual((x.dtype, t.dtype, g.dtype), (torch.bfloat16, torch.int64, torch.float32))
        self.assertEqual((tuple(x.shape), tuple(t.shape), tuple(g.shape)), ((64, 4096), (64,), (64,)))
        self.assertTrue(bool((t >= 0).all()) and bool((t < 4096).all()))
        self.assertAlmostEqual(float(x.float().std()), W.LOGIT_SCALE, delta=0.05)
        x, gamma, beta = self.inputs("layernorm_bf16")
        self.assertEqual({x.dtype, gamma.dtype, beta.dtype}, {torch.bfloat16})
        # the run's float type does not change a typed workload's inputs
        x32 = W.WORKLOADS["softmax_bf16"].make_inputs(4, 8, seed=1, device="cpu", dtype=torch.float32)[0]
        self.assertEqual(x32.dtype, torch.bfloat16)

    def test_output_types_follow_the_signature(self):
        specs = W.WORKLOADS["rmsnorm_bf16"].output_specs(4, 8)
        self.assertEqual(specs, [((4, 8), torch.bfloat16), ((4,), torch.float32)])
        specs = W.WORKLOADS["cross_entropy_fwd_bf16"].output_specs(4, 8)
        self.assertEqual(specs, [((4,), torch.float32), ((4,), torch.float32)])

    def _check(self, name, outs, ins, exact_types=True):
        wl = W.WORKLOADS[name]
        ref = checks.reference(wl, ins)
        self.assertLessEqual(checks.max_rel_err(outs, ref), self.tol)
        for o, (shape, dtype) in zip(outs, wl.output_specs(*ins[0].shape)):
            if o is not None:
                self.assertEqual(tuple(o.shape), shape)
                if exact_types:
                    self.assertEqual(o.dtype, dtype)

    def test_compile_sources_produce_every_output_in_its_type(self):
        for name in W.BF16_NAMES:
            with self.subTest(workload=name):
                ins = self.inputs(name)
                outs = TI.COMPILE[name](*ins)
                self.assertEqual(len(outs), len(W.WORKLOADS[name].outputs))
                self.assertNotIn(None, outs)
                self._check(name, outs, ins)

    def test_every_eager_idiom_matches_the_reference(self):
        for name in W.BF16_NAMES:
            for op, make in W.WORKLOADS[name].eager_idioms().items():
                with self.subTest(workload=name, op=op):
                    ins = self.inputs(name)
                    try:
                        outs = make(*ins)()
                    except RuntimeError as e:  # an op the CPU build lacks in bf16
                        self.skipTest(f"{op}: {e}")
                    # the eager loss is bf16, F.cross_entropy's type: checked by value
                    self._check(name, outs, ins, exact_types=name != "cross_entropy_fwd_bf16")

    def test_eager_peers_say_what_they_omit(self):
        wl = W.WORKLOADS["cross_entropy_fwd_bf16"]
        outs = wl.eager(*self.inputs("cross_entropy_fwd_bf16"))
        self.assertEqual(checks.omitted(wl.outputs, outs), ["lse"])
        self.assertIn("no lse", wl.eager_op)
        if hasattr(torch.nn.functional, "rms_norm"):
            wl = W.WORKLOADS["rmsnorm_bf16"]
            self.assertEqual(checks.omitted(wl.outputs, wl.eager(*self.inputs("rmsnorm_bf16"))), ["rstd"])

    def test_cross_entropy_bwd_has_two_eager_idioms_that_agree(self):
        ins = self.inputs("cross_entropy_bwd_bf16", M=8, N=512)
        idioms = W.WORKLOADS["cross_entropy_bwd_bf16"].eager_idioms()
        self.assertEqual(len(idioms), 2)
        self.assertIn(TI.AUTOGRAD_CE_OP, idioms)
        try:
            a, b = (make(*ins)()[0] for make in idioms.values())
        except RuntimeError as e:
            self.skipTest(str(e))
        self.assertEqual((a.dtype, b.dtype), (torch.bfloat16, torch.bfloat16))
        self.assertLess(float((a.double() - b.double()).norm() / b.double().norm()), 2e-2)
        # the autograd idiom runs the backward alone, again and again
        peer = TI.CrossEntropyBwdAutograd(*ins)
        self.assertTrue(torch.equal(peer()[0], peer()[0]))

    def test_reference_takes_class_indices_as_integers(self):
        x, t = self.inputs("cross_entropy_fwd_bf16", M=5, N=300)
        loss, lse = checks.reference(W.WORKLOADS["cross_entropy_fwd_bf16"], (x, t))
        x64 = x.double()
        want = torch.logsumexp(x64, -1)
        self.assertTrue(torch.allclose(lse, want, rtol=1e-12, atol=0))
        self.assertTrue(torch.allclose(loss, want - x64[torch.arange(5), t], rtol=1e-12, atol=0))
        (dx,) = TI.reference("cross_entropy_bwd_bf16", x, t, torch.ones(5))
        self.assertTrue(torch.allclose(dx.sum(-1), torch.zeros(5, dtype=torch.float64), atol=1e-12))
        self.assertTrue(bool((dx[torch.arange(5), t] < 0).all()))

    def test_compulsory_bytes_per_operand(self):
        M, N = 4, 8
        self.assertEqual(W.WORKLOADS["rmsnorm_bf16"].compulsory_bytes(M, N), 2 * M * N + 2 * N + 2 * M * N + 4 * M)
        self.assertEqual(W.WORKLOADS["layernorm_bf16"].compulsory_bytes(M, N), 2 * (2 * M * N + 2 * N))
        self.assertEqual(W.WORKLOADS["softmax_bf16"].compulsory_bytes(M, N), 2 * 2 * M * N)
        self.assertEqual(W.WORKLOADS["cross_entropy_fwd_bf16"].compulsory_bytes(M, N), 2 * M * N + 8 * M + 4 * M * 2)
        self.assertEqual(W.WORKLOADS["cross_entropy_bwd_bf16"].compulsory_bytes(M, N),
                         2 * M * N + 8 * M + 4 * M + 2 * M * N)
        # the run's float type sizes only "float" operands: fp32 workloads in bf16 halve, typed ones stay
        self.assertEqual(W.WORKLOADS["softmax"].compulsory_bytes(M, N, torch.bfloat16), 2 * 2 * M * N)
        self.assertEqual(W.WORKLOADS["softmax_bf16"].compulsory_bytes(M, N, torch.float32), 2 * 2 * M * N)

    def test_operands_are_the_signature(self):
        from benchlib import shapes as S
        for name in W.BF16_NAMES:
            self.assertEqual(W.WORKLOADS[name].operands(), S.parse_signature(S.SIGNATURES[name]))
        self.assertEqual(W.WORKLOADS["quant_int8"].operands(),
                         [("x", "in", "row", "f32"), ("q", "out", "row", "i8"), ("scale", "out", "scalar", "f32")])


@unittest.skipIf(torch is None, "torch not installed")
class CompiledCopiesTest(unittest.TestCase):
    def test_each_configuration_compiles_its_own_code_object(self):
        import torch_impls as TI
        a = TI._own_code(TI.softmax_eager, "torch_compile_default")
        b = TI._own_code(TI.softmax_eager, "torch_compile_max_autotune")
        self.assertIsNot(a.__code__, b.__code__)
        self.assertIsNot(a.__code__, TI.softmax_eager.__code__)
        x = torch.randn(3, 50)
        self.assertTrue(torch.equal(a(x)[0], TI.softmax_eager(x)[0]))
        f = TI._own_code(TI.rmsnorm_eager, "t")  # defaults carried over
        g = torch.ones(50)
        self.assertTrue(torch.equal(f(x, g)[0], TI.rmsnorm_eager(x, g)[0]))


if __name__ == "__main__":
    unittest.main()
