"""A generated file's data arguments (credit_<kernel>_signature()): ``name:in|out:kind:elem``
joined by ``;``; kind is row ([..., N]), broadcast ([N], shared by every row) or scalar
(one per row, [...]); elem is f32, bf16 or f16 (torch.float32, torch.bfloat16,
torch.float16; per-row arguments f32), or i8 (torch.int8, outputs only)."""

from collections import namedtuple

Arg = namedtuple("Arg", "name direction kind elem")

# creditc's element types and their torch dtype names.
ELEM_DTYPES = {
    "f32": "float32",
    "f16": "float16",
    "bf16": "bfloat16",
    "f64": "float64",
    "i8": "int8",
    "u8": "uint8",
    "i32": "int32",
}

# Names a torch schema reserves for itself.
_RESERVED = {"out", "self", "variant", "P", "protocol", "str", "int", "float", "bool", "Tensor"}


def parse(signature):
    args = []
    for field in filter(None, signature.split(";")):
        parts = field.split(":")
        if len(parts) != 4 or parts[1] not in ("in", "out") or parts[2] not in ("row", "broadcast", "scalar"):
            raise ValueError("unexpected signature field %r" % field)
        args.append(Arg(*parts))
    return [a for a in args if a.direction == "in"], [a for a in args if a.direction == "out"]


def schema_name(name):
    return "arg_" + name if name in _RESERVED else name


def schema(name, inputs, outputs):
    """The torch.library schema of a kernel: its inputs as tensors, then how to launch."""
    params = ", ".join("Tensor %s" % schema_name(a.name) for a in inputs)
    params += ", str variant='auto', int P=0, int protocol=1"
    ret = "Tensor" if len(outputs) == 1 else "(%s)" % ", ".join("Tensor" for _ in outputs)
    return "%s(%s) -> %s" % (name, params, ret)
