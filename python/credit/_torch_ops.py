"""The torch side: argument checks, output allocation, and the torch.library
registration of each kernel as ``<namespace>::<kernel>`` with a CUDA implementation (the
C API's launchers on torch's current stream) and a fake one (shapes only), so
torch.compile traces through the op and CUDA graphs capture it."""

import threading

from .errors import CreditError, DeviceError, DtypeError, LayoutError, ShapeError
from ._signature import ELEM_DTYPES, schema_name

try:
    import torch
except ImportError:  # the package imports without torch; kernels then cannot run
    torch = None

_MAX_N = (1 << 31) - 1
_lock = threading.Lock()
_libraries = {}  # namespace -> torch.library.Library
_registry = {}  # qualified name -> the Kernel its op runs now


def is_compiling():
    return torch is not None and torch.compiler.is_compiling()


def require_torch():
    if torch is None:
        raise CreditError("credit: running a kernel needs PyTorch (import torch failed)")
    return torch


def dtype_of(elem):
    name = ELEM_DTYPES.get(elem)
    if name is None or not hasattr(torch, name):
        raise CreditError("credit: element type %s has no torch dtype here" % elem)
    return getattr(torch, name)


def check(kernel, tensors):
    """Validates the inputs against the signature; returns (row shape, M, N)."""
    name = kernel.name
    if len(tensors) != len(kernel.inputs):
        raise TypeError("%s takes %d tensors (%s), got %d" % (
            name, len(kernel.inputs), ", ".join(a.name for a in kernel.inputs), len(tensors)))
    for a, t in zip(kernel.inputs, tensors):
        if not isinstance(t, torch.Tensor):
            raise DtypeError("%s: %s must be a torch.Tensor, got %s" % (name, a.name, type(t).__name__))
        want = dtype_of(a.elem)
        if t.dtype != want:
            raise DtypeError("%s: %s must be %s (%s), got %s" % (name, a.name, want, a.elem, t.dtype))
    devices = {t.device for t in tensors}
    for a, t in zip(kernel.inputs, tensors):
        if t.device.type != "cuda":
            raise DeviceError("%s: %s is on %s; the kernel runs on a CUDA device" % (name, a.name, t.device))
    if len(devices) > 1:
        raise DeviceError("%s: the tensors are on different devices: %s" % (
            name, ", ".join("%s on %s" % (a.name, t.device) for a, t in zip(kernel.inputs, tensors))))
    for a, t in zip(kernel.inputs, tensors):
        if not t.is_contiguous():
            raise LayoutError("%s: %s must be contiguous (call .contiguous()); its strides are %s" % (
                name, a.name, tuple(t.stride())))
    rows = [(a, t) for a, t in zip(kernel.inputs, tensors) if a.kind == "row"]
    if not rows:
        raise CreditError("%s: the kernel has no row input to take the shape from" % name)
    first, x = rows[0]
    if x.dim() < 1:
        raise ShapeError("%s: %s must have at least one dimension (rows of N), got a 0-d tensor" % (name, first.name))
    shape = tuple(x.shape)
    N = shape[-1]
    if N < 1 or N > _MAX_N:
        raise ShapeError("%s: the row width N = %s must be in [1, %d]" % (name, N, _MAX_N))
    for a, t in zip(kernel.inputs, tensors):
        if a.kind == "row" and tuple(t.shape) != shape:
            raise ShapeError("%s: %s has shape %s, %s has %s; row inputs must have the same shape" % (
                name, a.name, tuple(t.shape), first.name, shape))
        if a.kind == "broadcast" and tuple(t.shape) != (N,):
            raise ShapeError("%s: %s is shared by every row and must have shape (%s,), got %s" % (
                name, a.name, N, tuple(t.shape)))
        if a.kind == "scalar" and tuple(t.shape) != shape[:-1]:
            raise ShapeError("%s: %s holds one value per row and must have shape %s, got %s" % (
                name, a.name, shape[:-1], tuple(t.shape)))
    M = 1
    for d in shape[:-1]:
        M *= d
    return shape, M, N


def check_launch(kernel, variant, P, protocol):
    """The launch options: a variant the file generated, P in {0, 1, 2, 4, 8, 16}, protocol 0 or 1."""
    if variant != "auto" and variant not in kernel.variants:
        raise ValueError("%s: unknown variant %r; this file generated %s" % (
            kernel.name, variant, ", ".join(["auto"] + kernel.variants)))
    if P not in (0, 1, 2, 4, 8, 16):
        raise ValueError("%s: P (CTAs per row) must be 0 (pick), 1, 2, 4, 8 or 16, got %r" % (kernel.name, P))
    if protocol not in (0, 1):
        raise ValueError("%s: protocol must be 0 (sync) or 1 (mbarrier), got %r" % (kernel.name, protocol))


def allocate(kernel, shape, device):
    return [torch.empty(shape if a.kind == "row" else shape[:-1], dtype=dtype_of(a.elem), device=device)
            for a in kernel.outputs]


def split_params(kernel, args, named):
    """(tensors, runtime param values) of a call: the params after the tensors or by name."""
    n, names = len(kernel.inputs), [a.name for a in kernel.params]
    tensors, given = list(args[:n]), list(args[n:])
    unknown = sorted(set(named) - set(names) - {schema_name(x) for x in names})
    if unknown:
        raise TypeError("%s: unexpected keyword argument(s) %s (runtime params: %s)" % (
            kernel.name, ", ".join(unknown), ", ".join(names) or "none"))
    if len(given) > len(names):
        raise TypeError("%s takes %d tensors and %d runtime params, got %d arguments" % (
            kernel.name, n, len(names), len(args)))
    values = []
    for i, name in enumerate(names):
        v = given[i] if i < len(given) else named.get(name, named.get(schema_name(name)))
        if v is None:
            raise TypeError("%s: missing runtime param %s (a float)" % (kernel.name, name))
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError("%s: runtime param %s must be a float, got %s" % (kernel.name, name, type(v).__name__))
        values.append(float(v))
    return tensors, values


def _split(kernel, args, kwargs):
    n, k = len(kernel.inputs), len(kernel.params)
    tensors, values, rest = list(args[:n]), list(args[n:n + k]), list(args[n + k:])
    for a in kernel.params[len(values):]:
        values.append(kwargs[schema_name(a.name)])
    variant = kwargs.get("variant", rest[0] if len(rest) > 0 else "auto")
    P = kwargs.get("P", rest[1] if len(rest) > 1 else 0)
    protocol = kwargs.get("protocol", rest[2] if len(rest) > 2 else 1)
    return tensors, [float(v) for v in values], variant, P, protocol


def _result(outputs):
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def run(kernel, tensors, variant, P, protocol, values=()):
    """The CUDA implementation: allocates the outputs and launches on the current stream."""
    shape, M, N = check(kernel, tensors)
    check_launch(kernel, variant, P, protocol)
    device = tensors[0].device
    outputs = allocate(kernel, shape, device)
    if M > 0:
        stream = torch.cuda.current_stream(device).cuda_stream
        ptrs = [t.data_ptr() for t in list(tensors) + outputs]
        kernel.program.launch(variant, ptrs, M, N, int(P), int(protocol), stream, device.index or 0, values)
    return _result(outputs)


def fake(kernel, tensors):
    shape, _, _ = check(kernel, tensors)
    return _result(allocate(kernel, shape, tensors[0].device))


def register(kernel, namespace):
    """Registers (or rebinds) ``namespace::kernel.name``; returns the op's default overload."""
    require_torch()
    qualname = "%s::%s" % (namespace, kernel.name)
    with _lock:
        previous = _registry.get(qualname)
        if previous is not None:
            if previous.schema != kernel.schema:
                raise CreditError(
                    "credit: %s is already registered with another signature (%s); load this file with "
                    "another namespace= to keep both" % (qualname, previous.schema))
            _registry[qualname] = kernel  # the op now runs this file's program
            return getattr(getattr(torch.ops, namespace), kernel.name).default
        lib = _libraries.get(namespace)
        if lib is None:
            lib = _libraries[namespace] = torch.library.Library(namespace, "FRAGMENT")
        lib.define(kernel.schema)

        def cuda_impl(*args, **kwargs):
            k = _registry[qualname]
            tensors, values, variant, P, protocol = _split(k, args, kwargs)
            return run(k, tensors, variant, P, protocol, values)

        def fake_impl(*args, **kwargs):
            k = _registry[qualname]
            tensors, _, _, _, _ = _split(k, args, kwargs)
            return fake(k, tensors)

        lib.impl(kernel.name, cuda_impl, "CUDA")
        torch.library.register_fake(qualname, fake_impl, lib=lib)
        _registry[qualname] = kernel
    return getattr(getattr(torch.ops, namespace), kernel.name).default
