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
        for name, wl in W.WORKLOADS.items():
            with self.subTest(workload=name):
                ins = self.inputs(name)
                ref = checks.reference(wl, ins)
                outs = wl.eager(*ins)
                self.assertEqual([tuple(o.shape) for o in outs], [tuple(s) for s, _ in wl.output_specs(6, 1000)])
                self.assertLessEqual(checks.max_rel_err(outs, ref), 1e-5)
                self.assertEqual([o.dtype for o in outs], [d for _, d in wl.output_specs(6, 1000)])

    def test_compile_sources_compute_the_same_math(self):
        from torch_impls import COMPILE
        for name, wl in W.WORKLOADS.items():
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
