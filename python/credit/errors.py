"""The exceptions of the credit package: one class per kind of mistake, each also an
instance of the built-in exception a Python user would expect (TypeError for a dtype,
ValueError for a shape, ...), so ``except ValueError`` keeps working."""


class CreditError(RuntimeError):
    """Base class of every error the package raises."""


class CompileError(CreditError):
    """creditc rejected a .credit source (the message holds its located diagnostics),
    or NVRTC could not compile a generated file (the message holds its log)."""


class LibraryError(CreditError):
    """The C library (libcredit_capi.so) or one it needs could not be found or loaded."""


class LaunchError(CreditError):
    """The launcher refused a launch or a CUDA call failed; ``status`` is its code."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class DtypeError(CreditError, TypeError):
    """A tensor of the wrong dtype."""


class DeviceError(CreditError, ValueError):
    """A tensor not on a CUDA device, or tensors on different devices."""


class ShapeError(CreditError, ValueError):
    """Tensors whose shapes do not fit the kernel's signature."""


class LayoutError(CreditError, ValueError):
    """A non-contiguous tensor."""


class UnknownKernelError(CreditError, AttributeError, KeyError):
    """A kernel name the loaded file does not define."""

    def __str__(self):  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
