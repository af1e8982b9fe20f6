"""creditc kernels as PyTorch operators.

    import credit, torch
    ops = credit.load("layernorm.credit")        # or a generated .cu, or source text
    y = ops.layernorm(x, gamma, beta)            # torch.ops.credit.layernorm under the hood
    y = ops.layernorm(x, gamma, beta, variant="cluster", P=4)

Every kernel of the file becomes a torch.library custom op ``<namespace>::<kernel>``
(default namespace ``credit``) with a fake implementation, so torch.compile(fullgraph=True)
traces it and CUDA graphs capture it. A .credit file is turned into CUDA by creditc (on
PATH or $CREDITC); the CUDA is compiled by the runtime's NVRTC path with its disk cache
($CREDIT_CACHE_DIR, default ~/.cache/creditc), so a GPU machine needs neither creditc nor a
C++ compiler: load the .cu files a build machine generated.
"""

import os

from . import _capi, _source, _signature, _torch_ops
from .errors import (CompileError, CreditError, DeviceError, DtypeError, LaunchError, LayoutError, LibraryError,
                     ShapeError, UnknownKernelError)

__all__ = [
    "load", "Kernel", "Module", "CreditError", "CompileError", "LibraryError", "LaunchError", "DtypeError",
    "DeviceError", "ShapeError", "LayoutError", "UnknownKernelError", "default_arch",
]
__version__ = "0.1.0"


def default_arch():
    """The current CUDA device's architecture ("sm_90"), or None without torch or a GPU."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    major, minor = torch.cuda.get_device_capability()
    return "sm_%d%d" % (major, minor)


class Kernel:
    """One kernel of a loaded file: call it on tensors (inputs in signature order)."""

    def __init__(self, program, namespace, register=True):
        self.program = program
        info = program.info
        self.name = info["kernel"]
        self.signature = info["signature"]
        self.inputs, self.outputs, self.params = _signature.parse(self.signature)
        self.schema = _signature.schema(self.name, self.inputs, self.outputs, self.params)
        self.namespace = namespace
        self.qualname = "%s::%s" % (namespace, self.name)
        self.op = None
        if register and _torch_ops.torch is not None:
            self.op = _torch_ops.register(self, namespace)

    @property
    def info(self):
        """The compile's details: variants, whether the file has a device profile, from_cache, compile_ms..."""
        return self.program.info

    @property
    def variants(self):
        """The variants this file generated (launch_generic's names), "auto" aside."""
        return [v for v in self.program.info["variants"] if v != "control"]  # control: no data, timing only

    def __call__(self, *args, variant="auto", P=0, protocol=1, **params):
        """Runs the kernel; returns its output (a tuple for several). args: the input tensors,
        then the runtime params (floats; also by name). variant: "auto" (the model-driven
        dispatch where the file has a device profile, else the structural rule), "cluster" (P
        CTAs per row; P=0 the smallest legal), "staged", "reread", or another of
        ``self.variants``; protocol 0 sync, 1 mbarrier (cluster only)."""
        if self.op is None:
            _torch_ops.require_torch()
            raise CreditError("%s was loaded with register=False" % self.qualname)
        tensors, values = _torch_ops.split_params(self, args, params)
        if not _torch_ops.is_compiling():  # traced calls are checked by the fake implementation
            self._check_call(tensors, variant, P, protocol)
        return self.op(*tensors, *values, variant=variant, P=P, protocol=protocol)

    def _check_call(self, tensors, variant, P, protocol):
        _torch_ops.check(self, tensors)
        _torch_ops.check_launch(self, variant, P, protocol)

    def last_plan(self, *tensors):
        """What "auto" decided for these tensors' shape on their device, or None."""
        _torch_ops.require_torch()
        shape, M, N = _torch_ops.check(self, tensors)
        return self.program.last_plan(M, N, tensors[0].device.index or 0)

    def autotune(self, *args, **params):
        """Times every variant on these tensors (and runtime params) and makes "auto" use the
        fastest for their shape (needs a device profile in the file). Returns the decision."""
        torch = _torch_ops.require_torch()
        tensors, values = _torch_ops.split_params(self, args, params)
        shape, M, N = _torch_ops.check(self, tensors)
        device = tensors[0].device
        outputs = _torch_ops.allocate(self, shape, device)
        ptrs = [t.data_ptr() for t in list(tensors) + outputs]
        return self.program.autotune(ptrs, M, N, torch.cuda.current_stream(device).cuda_stream, device.index or 0,
                                     values)

    def max_legal_n(self, variant="cluster", P=2, protocol=1):
        """The largest row width a variant supports at P on the file's target (Eq. 3); 0 where the
        file was not generated with that variant."""
        return self.program.max_legal_n(variant, P, protocol)

    def __repr__(self):
        return "<credit kernel %s: %s>" % (self.qualname, self.signature)


class Module:
    """The kernels of one credit.load, by name: ``m.layernorm``, ``m["layernorm"]``."""

    def __init__(self, kernels, origin):
        self._kernels = dict(kernels)
        self._origin = origin
        for name, kernel in self._kernels.items():  # plain attributes: torch.compile reads them directly
            if not hasattr(type(self), name):
                setattr(self, name, kernel)

    def __getattr__(self, name):  # only for names that are not attributes
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._kernels[name]
        except KeyError:
            raise UnknownKernelError("%s defines no kernel %r; it defines: %s" % (
                self._origin, name, ", ".join(sorted(self._kernels)) or "none")) from None

    __getitem__ = __getattr__

    def __iter__(self):
        return iter(self._kernels.values())

    def __len__(self):
        return len(self._kernels)

    def __contains__(self, name):
        return name in self._kernels

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._kernels))

    @property
    def kernels(self):
        return dict(self._kernels)

    def __repr__(self):
        return "<credit module %s: %s>" % (self._origin, ", ".join(sorted(self._kernels)))


def load(path_or_source, *, namespace="credit", arch=None, cache_dir=None, use_cache=True, creditc=None,
         profile=None, creditc_args=(), register=True):
    """Loads every kernel of a .credit file, a generated .cu file, or source text.

    namespace: the torch.library namespace of the ops. arch: the GPU architecture to
    compile for (default: the current device's, else the file's). cache_dir / use_cache:
    the NVRTC kernel cache. creditc, profile, creditc_args: how a .credit source is
    generated (creditc's --profile gives "auto" the model-driven dispatch).
    register=False: compile only, register no op (the kernels cannot be called).
    """
    origin = os.fspath(path_or_source) if isinstance(path_or_source, os.PathLike) or (
        isinstance(path_or_source, str) and "\n" not in path_or_source) else "<source>"
    generated = _source.resolve(path_or_source, creditc=creditc, profile=profile, extra_args=creditc_args)
    target = arch or default_arch() or ""
    kernels = {}
    for name, text in generated:
        program = _capi.Program(text, name, target, cache_dir=cache_dir, use_cache=use_cache)
        if register and default_arch() is not None:
            program.load()  # before any stream capture: loading is not a stream operation
        kernel = Kernel(program, namespace, register=register)
        kernels[kernel.name] = kernel
    return Module(kernels, origin)
