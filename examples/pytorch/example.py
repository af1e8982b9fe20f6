#!/usr/bin/env python3
"""creditc kernels as PyTorch operators, in a few lines.

    python3 examples/pytorch/example.py [FILE ...]

FILE: .credit files (needs creditc on PATH or $CREDITC) or the .cu files creditc
generated for them (default: dsl_examples/layernorm and softmax_logits_bwd, taken from
.gpu/python/gen when python/tools/prepare_bundle.sh wrote it, else through creditc).
"""

import os
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "python"))  # or: pip install ./python

import torch  # noqa: E402

import credit  # noqa: E402


def source(name):
    generated = os.path.join(root, ".gpu", "python", "gen", name + ".cu")
    return generated if os.path.exists(generated) else os.path.join(root, "dsl_examples", name + ".credit")


def main():
    t = time.time()
    ops = credit.load(source("layernorm"))  # every kernel of the file: ops.layernorm
    bwd = credit.load(source("softmax_logits_bwd"))
    print("loaded in %.1f s (NVRTC compile, or the kernel cache: %s)" % (
        time.time() - t, "hit" if ops.layernorm.info["from_cache"] else "miss"))

    x = torch.randn(4, 128, 8192, device="cuda")  # any leading dims: rows = 4 * 128
    gamma, beta = torch.randn(8192, device="cuda"), torch.randn(8192, device="cuda")

    y = ops.layernorm(x, gamma, beta)  # the model-driven dispatch picks the variant
    ref = torch.nn.functional.layer_norm(x, (8192,), gamma, beta, eps=1e-5)
    print("layernorm  max |err| vs torch: %.2e  (auto chose %s)" % (
        (y - ref).abs().max().item(), ops.layernorm.last_plan(x, gamma, beta)))
    y4 = torch.ops.credit.layernorm(x, gamma, beta, variant="cluster", P=4)  # the registered op
    print("cluster P=4 max |err|: %.2e" % (y4 - ref).abs().max().item())

    @torch.compile(fullgraph=True)
    def block(x, gamma, beta, dy):
        h = torch.nn.functional.gelu(ops.layernorm(x, gamma, beta))
        return bwd.softmax_logits_bwd(h, dy)

    dy = torch.randn_like(x)
    out = block(x, gamma, beta, dy)
    h = torch.nn.functional.gelu(ref)
    p = torch.softmax(h, -1)
    print("compiled block max |err|: %.2e" % (out - p * (dy - (dy * p).sum(-1, keepdim=True))).abs().max().item())

    for path in sys.argv[1:]:
        for k in credit.load(path):
            print("%s: %s, variants %s" % (k.qualname, k.signature, ", ".join(k.variants)))


if __name__ == "__main__":
    main()
