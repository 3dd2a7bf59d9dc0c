"""The bottom of qnnrules' torch front end: what every other module of it reads of an FX graph
(node targets as graph format v1 names them, dtype and qscheme names, tensor metadata,
attributes, the annotation keys). It imports nothing of qnnrules but ``_requires``, so the
reader (fx_reader), the writer (torch) and the Quantizer (pt2e*) all stand on it and none
on another's private helpers."""

import operator

try:
    import torch
    import torch.fx
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

ANNOTATION_KEY = "qnnrules_annotation"   # what write_back writes and from_fx reads back
TORCH_ANNOTATION_KEY = "quantization_annotation"  # PyTorch PT2E quantizers' annotations

_DTYPES = {
    torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float64: "float64",
    torch.int8: "int8", torch.int16: "int16", torch.int32: "int32", torch.int64: "int64",
    torch.uint8: "uint8", torch.bool: "bool",
}
for _name in ("uint16", "uint32"):  # only in newer torch
    if hasattr(torch, _name):
        _DTYPES[getattr(torch, _name)] = _name
_DTYPES_BY_NAME = {v: k for k, v in _DTYPES.items()}

_QSCHEMES = {
    torch.per_tensor_affine: "per_tensor_affine", torch.per_tensor_symmetric: "per_tensor_symmetric",
    torch.per_channel_affine: "per_channel_affine", torch.per_channel_symmetric: "per_channel_symmetric",
}
_QSCHEMES_BY_NAME = {v: k for k, v in _QSCHEMES.items()}


class ConversionError(ValueError):
    """The GraphModule holds something graph format v1 cannot express (named in the message)."""


def _target_name(node):
    t = node.target
    if isinstance(t, str):
        return t
    if t is operator.getitem:
        return "getitem"
    if isinstance(t, torch._ops.OpOverload):
        return str(t)  # "aten.convolution.default"
    if isinstance(t, torch._ops.OpOverloadPacket):
        # convert_pt2e calls some ops by their packet (torch.ops.torchao.dequantize_affine): named
        # as the overload it resolves to, as torch.export serializes it ("torchao.dequantize_affine.default").
        overloads = t.overloads()
        return f"{t}.default" if "default" in overloads or not overloads else f"{t}.{overloads[0]}"
    name = getattr(t, "__name__", None) or str(t)
    module = getattr(t, "__module__", None)
    return name if module in (None, "_operator", "operator", "builtins") else f"{module}.{name}"


def _tensor_entries(value):
    """The tensors a node produces, from meta "val" (FakeTensor) or "tensor_meta" (TensorMetadata)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and not hasattr(value, "shape"):
        return [_one_tensor(v) for v in value]
    return [_one_tensor(value)]


def _one_tensor(v):
    if v is None or not hasattr(v, "dtype") or not hasattr(v, "shape"):
        return None
    dtype = _DTYPES.get(v.dtype)
    if dtype is None:
        raise ConversionError(f"dtype {v.dtype} has no name in graph format v1")
    shape = []
    for s in v.shape:
        try:
            shape.append(int(s))
        except (TypeError, ValueError):  # a symbolic size: unknown
            shape.append(-1)
    return {"dtype": dtype, "shape": shape}


def _node_tensors(node):
    meta = node.meta
    for key in ("val", "tensor_meta"):
        if key in meta:
            entries = _tensor_entries(meta[key])
            if entries is not None:
                return entries
    return None


def _attr(gm, target):
    value = gm
    for part in target.split("."):
        value = getattr(value, part, None)
    return value


# convert_pt2e's quantize/dequantize ops (quantized_decomposed's, and torchao's affine ones that

# block-wise observers convert to), as _target_name spells them.
_QUANTIZE_PREFIXES = ("quantized_decomposed.quantize_", "torchao.quantize_affine")
_QDQ_PREFIXES = ("quantized_decomposed.", "torchao.quantize_affine", "torchao.dequantize_affine")


def _is_qdq(name):
    return name.startswith(_QDQ_PREFIXES)



def _tensor_refs(value):
    if isinstance(value, dict) and "ref" in value:
        yield value
    elif isinstance(value, list):
        for e in value:
            yield from _tensor_refs(e)
    elif isinstance(value, dict):
        for e in value.values():
            yield from _tensor_refs(e)
