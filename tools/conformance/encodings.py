"""Tensor encodings of a conformance case, shared by the ONNX and the qnnrules-JSON writers.

An encoding is a plain dict so that a case stays JSON-serialisable:
  {"float": "float16"|"float32"}                       an unquantized tensor
  {"q": "uint8"|"int8"|"uint16"|"int16"|"int4"|"int2"|"int32",
   "scale": float | [float], "zp": int | [int], "axis": int (per-channel), "block": int}
Both writers read only these keys, so the two forms of a case cannot drift apart.
"""

# (qmin, qmax) of each storage type as the ONNX QDQ ops define them.
RANGES = {"uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
          "int4": (-8, 7), "int2": (-2, 1), "int32": (-2**31, 2**31 - 1)}


def act(dtype, scale=0.05, zp=None):
    """A per-tensor activation encoding; the zero point defaults to mid-range (asymmetric)."""
    if zp is None:
        zp = {"uint8": 128, "uint16": 32768, "int8": 0, "int16": 0}[dtype]
    return {"q": dtype, "scale": scale, "zp": zp}


def flt(dtype):
    return {"float": dtype}


U8 = act("uint8", 0.05)
U16 = act("uint16", 0.0005)
S8 = act("int8", 0.05)
S16 = act("int16", 0.0005)
F16 = flt("float16")
F32 = flt("float32")


def weight(dtype, channels=None, axis=0, zp=0, block=None, scale=0.02):
    """A weight encoding: per-tensor when channels is None, else per-channel along axis."""
    if channels is None:
        return {"q": dtype, "scale": scale, "zp": zp}
    enc = {"q": dtype, "scale": [round(scale * (1 + 0.1 * i), 6) for i in range(channels)],
           "zp": [zp] * channels, "axis": axis}
    if block is not None:
        enc["block"] = block
    return enc


def is_float(enc):
    return "float" in enc
