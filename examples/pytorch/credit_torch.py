"""creditc-generated kernels on torch tensors (examples/pytorch/README.md).

JIT-builds credit_ops.cpp together with the CUDA files that creditc generated
(examples/pytorch/prepare.sh, default .gpu/pytorch/ of the repository, or
$CREDIT_TORCH_GEN) with torch.utils.cpp_extension.load, once per process (torch
caches the build in $TORCH_EXTENSIONS_DIR). The generated files include the
runtime's headers (runtime/include of the repository).

    import credit_torch
    y = credit_torch.layernorm(x, weight, bias)           # == F.layer_norm(x, (N,), weight, bias, 1e-5)
    q, scale = credit_torch.quant_int8(x)
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIME_INCLUDE = os.path.abspath(os.path.join(HERE, "..", "..", "runtime", "include"))
KERNELS = ("layernorm", "quant_int8")
_ext = None


def gen_dir():
    return os.path.abspath(os.environ.get("CREDIT_TORCH_GEN")
                           or os.path.join(HERE, "..", "..", ".gpu", "pytorch"))


def load(verbose=False):
    """The extension module (built on first use)."""
    global _ext
    if _ext is not None:
        return _ext
    from torch.utils.cpp_extension import load as load_extension
    gen = gen_dir()
    missing = [f"{k}{ext}" for k in KERNELS for ext in (".cu", ".h")
               if not os.path.isfile(os.path.join(gen, k + ext))]
    if missing:
        raise FileNotFoundError(f"{gen}: missing {', '.join(missing)}; generate them with "
                                "examples/pytorch/prepare.sh where creditc is built and copy them "
                                "here (or set CREDIT_TORCH_GEN)")
    # The clustered kernels need sm_90 (Hopper) or newer; build for that only.
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    _ext = load_extension(
        name="credit_torch_ext",
        sources=[os.path.join(HERE, "credit_ops.cpp")] + [os.path.join(gen, k + ".cu") for k in KERNELS],
        extra_include_paths=[gen, RUNTIME_INCLUDE],
        extra_cflags=["-O2"],
        extra_cuda_cflags=["-O3"],
        verbose=verbose)
    return _ext


def _check_options(P, protocol):
    if protocol not in (0, 1):
        raise ValueError(f"protocol must be 0 (sync) or 1 (mbarrier), got {protocol!r}")
    if not isinstance(P, int) or not 0 <= P <= 16:
        raise ValueError(f"P must be 0 (automatic) or 1, 2, 4, 8, 16, got {P!r}")


def _check_vector(v, x, name):
    """weight/bias: shape [N] (N = x.size(-1)); device, dtype and layout are checked by the module."""
    if x.dim() >= 1 and tuple(v.shape) != (x.shape[-1],):
        raise ValueError(f"{name} must have shape [{x.shape[-1]}] (the row width of x), got {list(v.shape)}")


def layernorm(x, weight, bias, P=0, protocol=0):
    """LayerNorm over the last dimension, eps = 1e-5 (compiled into layernorm.credit).
    P = 0 picks the cluster size (layernorm_plan); protocol 0 = sync, 1 = mbarrier."""
    _check_options(P, protocol)
    _check_vector(weight, x, "weight")
    _check_vector(bias, x, "bias")
    return load().layernorm(x, weight, bias, P, protocol)


def quant_int8(x, P=0, protocol=0):
    """Row-wise symmetric int8 quantization over the last dimension: (q int8, scale float32)."""
    _check_options(P, protocol)
    return load().quant_int8(x, P, protocol)


def layernorm_plan(N, protocol=0):
    """(variant, P) that layernorm(P=0) launches for a row width N."""
    return load().layernorm_plan(N, protocol)
