"""A generated file's data arguments (credit_<kernel>_signature()): ``name:in|out:kind:elem``
joined by ``;``; kind is row ([..., N]), broadcast ([N], shared by every row) or scalar
(one per row, [...]) or param (a runtime param: one f32 for every row, a float of the
call, after the tensors); elem is f32, bf16 or f16 (torch.float32, torch.bfloat16,
torch.float16; per-row arguments f32), i8 (torch.int8), or, for inputs only, u8 or bool
(torch.uint8, torch.bool: per element, a mask) or i32 or i64 (torch.int32, torch.int64:
per row, e.g. a class index)."""

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
    "i64": "int64",
    "bool": "bool",
}

# Where the language allows each type (docs/dsl.md, "Element types"): the kinds of an
# input, the kinds of an output.
_PLACES = {
    "f32": (("row", "broadcast", "scalar"), ("row", "scalar")),
    "bf16": (("row", "broadcast"), ("row",)),
    "f16": (("row", "broadcast"), ("row",)),
    "i8": (("row", "broadcast"), ("row",)),
    "u8": (("row", "broadcast"), ()),
    "bool": (("row", "broadcast"), ()),
    "i32": (("scalar",), ()),
    "i64": (("scalar",), ()),
}

# Names a torch schema reserves for itself.
_RESERVED = {"out", "self", "variant", "P", "protocol", "str", "int", "float", "bool", "Tensor"}


def parse(signature):
    args = []
    for field in filter(None, signature.split(";")):
        parts = field.split(":")
        if len(parts) == 4 and parts[2] == "param":  # a runtime param: one f32 for every row
            if parts[1] != "in" or parts[3] != "f32":
                raise ValueError("signature field %r: a runtime param is an f32 input" % field)
            args.append(Arg(*parts))
            continue
        if len(parts) != 4 or parts[1] not in ("in", "out") or parts[2] not in ("row", "broadcast", "scalar"):
            raise ValueError("unexpected signature field %r" % field)
        places = _PLACES.get(parts[3])
        if places is None:
            raise ValueError("unexpected element type in signature field %r" % field)
        if parts[2] not in places[0 if parts[1] == "in" else 1]:
            raise ValueError("signature field %r: an %s of type %s cannot be %s" % (
                field, "input" if parts[1] == "in" else "output", parts[3], parts[2]))
        args.append(Arg(*parts))
    return ([a for a in args if a.direction == "in" and a.kind != "param"],
            [a for a in args if a.direction == "out"], [a for a in args if a.kind == "param"])


def schema_name(name):
    return "arg_" + name if name in _RESERVED else name


def schema(name, inputs, outputs, runtime_params=()):
    """The torch.library schema of a kernel: its inputs as tensors, its runtime params as
    floats, then how to launch."""
    params = ", ".join(["Tensor %s" % schema_name(a.name) for a in inputs] +
                       ["float %s" % schema_name(a.name) for a in runtime_params])
    params += ", str variant='auto', int P=0, int protocol=1"
    ret = "Tensor" if len(outputs) == 1 else "(%s)" % ", ".join("Tensor" for _ in outputs)
    return "%s(%s) -> %s" % (name, params, ret)
