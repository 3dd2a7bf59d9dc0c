"""The compute forms a random graph is drawn from: convolutions, matrix products, element-wise and
normalization ops, reductions, pooling, Resize, Where (ops.py has the table and the contract)."""
import math

import numpy as np

from .graph import MAX_WEIGHT
from .ops_common import F32, _ax, _bshape, _val, operand


def binary(op):
    def emit(b, x):
        y = operand(b, x, divisor=op == "Div")
        out = _bshape(b.shape[x], b.shape[y])
        a, c = (y, x) if op in ("Sub", "Add", "Mul") and b.rng.random() < 0.2 else (x, y)
        return [b.node(op, [a, c], shapes=[out])]
    return emit


def unary(op, **attrs):
    return lambda b, x: [b.node(op, [x], shapes=[b.shape[x]], **attrs)]


def gelu_erf(b, x):
    """torch.onnx's Gelu: x * 0.5 * (1 + erf(x / sqrt 2))."""
    s = b.shape[x]
    d = b.node("Div", [x, b.const(F32(1.4142135))], shapes=[s])
    e = b.node("Erf", [d], shapes=[s])
    a = b.node("Add", [e, b.const(F32(1.0))], shapes=[s])
    m = b.node("Mul", [x, a], shapes=[s])
    return [b.node("Mul", [m, b.const(F32(0.5))], shapes=[s])]


def clip(b, x):
    lo, hi = b.rng.choice([(0.0, 6.0), (-1.0, 1.0), (None, 1.0), (0.0, None), (-0.5, 3.0)])
    ins = [x, b.const(F32(lo)) if lo is not None else "", b.const(F32(hi)) if hi is not None else ""]
    while ins[-1] == "":
        ins.pop()
    return [b.node("Clip", ins, shapes=[b.shape[x]])]


def softmax(b, x):
    if not b.shape[x]:
        return None
    return [b.node("Softmax", [x], shapes=[b.shape[x]], axis=_ax(b, len(b.shape[x])))]


def layernorm(b, x):
    s = b.shape[x]
    if not s:
        return None
    axis = -1 if b.rng.random() < 0.7 else _ax(b, len(s))
    w = s[axis:] if axis < 0 else s[axis:]
    if math.prod(w) > 1 << 16:
        return None
    scale = b.const((1.0 + 0.1 * b.np.standard_normal(w)).astype(F32))
    ins = [x, scale] + ([b.weight(w, 0.1)] if b.rng.random() < 0.8 else [])
    return [b.node("LayerNormalization", ins, shapes=[s], axis=axis, epsilon=1e-5)]


def _reduce_last(b, op, x, s):
    return b.node(op, [x], shapes=[s[:-1] + (1,)], axes=[-1], keepdims=1)


def layernorm_decomposed(b, x):
    """LayerNorm as older exporters write it (qnn_preprocess_model fuses it back)."""
    s = b.shape[x]
    if not s or s[-1] > 1 << 14:
        return None
    m = _reduce_last(b, "ReduceMean", x, s)
    d = b.node("Sub", [x, m], shapes=[s])
    p = b.node("Pow", [d, b.const(F32(2.0))], shapes=[s])
    v = _reduce_last(b, "ReduceMean", p, s)
    a = b.node("Add", [v, b.const(F32(1e-5))], shapes=[s[:-1] + (1,)])
    q = b.node("Sqrt", [a], shapes=[s[:-1] + (1,)])
    n = b.node("Div", [d, q], shapes=[s])
    n = b.node("Mul", [n, b.const((1.0 + 0.1 * b.np.standard_normal(s[-1:])).astype(F32))], shapes=[s])
    return [b.node("Add", [n, b.weight(s[-1:], 0.1)], shapes=[s])]


def rmsnorm(b, x):
    """T5/Llama RMSNorm: x * (1 / sqrt(mean(x^2) + eps)) * w."""
    s = b.shape[x]
    if not s or s[-1] > 1 << 14:
        return None
    p = b.node("Pow", [x, b.const(F32(2.0))], shapes=[s])
    v = _reduce_last(b, "ReduceMean", p, s)
    a = b.node("Add", [v, b.const(F32(1e-6))], shapes=[s[:-1] + (1,)])
    q = b.node("Sqrt", [a], shapes=[s[:-1] + (1,)])
    r = b.node("Div", [b.const(F32(1.0)), q], shapes=[s[:-1] + (1,)])
    n = b.node("Mul", [x, r], shapes=[s])
    return [b.node("Mul", [n, b.const((1.0 + 0.1 * b.np.standard_normal(s[-1:])).astype(F32))], shapes=[s])]


def pow_(b, x):
    s = b.shape[x]
    e = b.rng.choice([2.0, 2.0, 3.0, 0.5])
    if e == 0.5:  # a root of something non-negative
        x = b.node("Relu", [x], shapes=[s])
    return [b.node("Pow", [x, b.const(F32(e))], shapes=[s])]


def sqrt(b, x):
    s = b.shape[x]
    if b.rng.random() < 0.5:
        m = b.node("Mul", [x, x], shapes=[s])
        a = b.node("Add", [m, b.const(F32(1e-6))], shapes=[s])
    else:
        a = b.node("Sigmoid", [x], shapes=[s])
    return [b.node("Sqrt", [a], shapes=[s])]


def reduce(op):
    def emit(b, x):
        s = b.shape[x]
        if not s:
            return None
        r = len(s)
        axes = sorted(b.rng.sample(range(r), b.rng.randint(1, min(r, 3))))
        keep = b.rng.random() < 0.6
        out = tuple(1 if i in axes else d for i, d in enumerate(s)) if keep else \
            tuple(d for i, d in enumerate(s) if i not in axes)
        axes = [a - r if b.rng.random() < 0.5 else a for a in axes]
        return [b.node(op, [x], shapes=[out], axes=axes, keepdims=int(keep))]
    return emit


def where(b, x):
    s = b.shape[x]
    fill = b.rng.choice([0.0, -1e4, -1e4, -3.4028234663852886e38, 1.0])
    r = b.rng.random()
    if r < 0.5:                                   # masked_fill(x < t, fill)
        cond = b.node(b.rng.choice(["Less", "Greater"]), [x, b.const(F32(0.1 * b.np.standard_normal()))])
        return [b.node("Where", [cond, b.const(F32(fill)), x], shapes=[s])]
    if r < 0.8 and len(s) >= 2:                   # a constant causal mask, broadcast
        m = np.triu(np.ones(s[-2:], bool), 1)
        return [b.node("Where", [b.const(m), b.const(F32(fill)), x], shapes=[s])]
    y = operand(b, x)
    cond = b.node("Greater", [x, y])
    out = _bshape(s, b.shape[y])
    return [b.node("Where", [cond, x, y], shapes=[out])]


def _pool_geometry(b, s, k_choices):
    sp = len(s) - 2
    k = [b.rng.choice(k_choices) for _ in range(sp)] if b.rng.random() < 0.3 else [b.rng.choice(k_choices)] * sp
    st = b.rng.choice([[1] * sp, [2] * sp, k])
    pads = [b.rng.randint(0, kk // 2) for kk in k] * 2 if b.rng.random() < 0.4 else [0] * (2 * sp)
    return k, st, pads


def pool(op):
    def emit(b, x):
        s = b.shape[x]
        if len(s) not in (3, 4):
            return None
        k, st, pads = _pool_geometry(b, s, [2, 3] if len(s) == 4 else [2, 3, 5])
        # ceil_mode only without padding: then no window starts in the padding, where ONNX's shape
        # inference and PyTorch-style kernels disagree about the last output
        ceil = int(b.rng.random() < 0.15 and not any(pads))
        sp = len(k)
        out = list(s[:2])
        for i in range(sp):
            n = s[2 + i] + pads[i] + pads[i + sp] - k[i]
            if n < 0:
                return None
            out.append((-(-n // st[i]) if ceil else n // st[i]) + 1)
        attrs = dict(kernel_shape=k, strides=st, pads=pads, ceil_mode=ceil)
        if op == "AveragePool":
            attrs["count_include_pad"] = int(b.rng.random() < 0.3)
        return [b.node(op, [x], shapes=[tuple(out)], **attrs)]
    return emit


def global_pool(b, x):
    s = b.shape[x]
    if not 3 <= len(s) <= 5:  # ORT's CPU kernel: 1-3 spatial dims
        return None
    return [b.node("GlobalAveragePool", [x], shapes=[s[:2] + (1,) * (len(s) - 2)])]


def conv(b, x):
    s = b.shape[x]
    if len(s) not in (3, 4):
        return None
    c, sp = s[1], len(s) - 2
    g = b.rng.random()
    if g < 0.25 and c > 1:
        groups, cout = c, c * b.rng.choice([1, 1, 2])                   # depthwise
    elif g < 0.35:
        divs = [d for d in range(2, c) if c % d == 0] or [1]
        groups = b.rng.choice(divs)
        cout = groups * b.rng.randint(1, 4)
    else:
        groups, cout = 1, b.size(b.rng.choice([1, 4, 8, 16, 32, 64, 96, 128]))
    ks = [1, 3, 3, 5, 7] if sp == 2 else [1, 3, 5, 10, 7]
    k = [b.rng.choice(ks)] * sp if b.rng.random() < 0.85 else [b.rng.choice(ks) for _ in range(sp)]
    dil = [b.rng.choice([1, 1, 1, 2])] * sp
    st = b.rng.choice([[1] * sp, [1] * sp, [2] * sp, k])
    r = b.rng.random()
    pads = ([kk // 2 * d for kk, d in zip(k, dil)] * 2 if r < 0.5 else [0] * (2 * sp) if r < 0.85
            else [b.rng.randint(0, kk) for kk in k] + [b.rng.randint(0, kk) for kk in k])
    w = (cout, c // groups) + tuple(k)
    if math.prod(w) > MAX_WEIGHT:
        return None
    out = [s[0], cout]
    for i in range(sp):
        n = s[2 + i] + pads[i] + pads[i + sp] - dil[i] * (k[i] - 1) - 1
        if n < 0:
            return None
        out.append(n // st[i] + 1)
    ins = [x, b.weight(w)] + ([b.weight((cout,), 0.1)] if b.rng.random() < 0.8 else [])
    return [b.node("Conv", ins, shapes=[tuple(out)], group=groups, kernel_shape=k, strides=st,
                   dilations=dil, pads=pads)]


def matmul(b, x):
    s = b.shape[x]
    if not s:
        return None
    r = b.rng.random()
    if r < 0.5 or len(s) < 2:                     # nn.Linear on rank != 2: MatMul (+ Add bias)
        k, n = s[-1], b.size(b.rng.choice([1, 8, 16, 32, 64, 128, 256]))
        if k * n > MAX_WEIGHT:
            return None
        out = s[:-1] + (n,)
        y = b.node("MatMul", [x, b.weight((k, n), 1.0 / math.sqrt(k))], shapes=[out])
        if b.rng.random() < 0.6:
            y = b.node("Add", [b.weight((n,), 0.1), y] if b.rng.random() < 0.5 else [y, b.weight((n,), 0.1)],
                       shapes=[out])
        return [y]
    if r < 0.7:                                   # attention scores: x @ x^T
        perm = list(range(len(s)))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        t = b.node("Transpose", [x], shapes=[s[:-2] + (s[-1], s[-2])], perm=perm)
        return [b.node("MatMul", [x, t], shapes=[s[:-2] + (s[-2], s[-2])])]
    batch = list(s[:-2])                          # two computed operands, broadcast batch dims
    drop = b.rng.randint(0, len(batch))
    batch = [1 if b.rng.random() < 0.3 else d for d in batch[drop:]]
    other = tuple(batch) + (s[-1], b.draw_dim())
    y = b.fresh(other)
    out = _bshape(s[:-2], other[:-2]) + (s[-2], other[-1])
    return [b.node("MatMul", [x, y], shapes=[out])]


def gemm(b, x):
    s = b.shape[x]
    if len(s) != 2:
        return None
    trans_a = int(b.rng.random() < 0.1)
    m, k = (s[1], s[0]) if trans_a else s
    n = b.size(b.rng.choice([1, 8, 16, 32, 64, 128, 256]))
    if k * n > MAX_WEIGHT:
        return None
    trans_b = int(b.rng.random() < 0.7)
    ins = [x, b.weight((n, k) if trans_b else (k, n))]
    c = b.rng.random()
    if c < 0.7:
        ins.append(b.weight((n,), 0.1))
    elif c < 0.8:
        ins.append(b.weight((1, n), 0.1))
    alpha = 1.0 if b.rng.random() < 0.85 else 0.5
    return [b.node("Gemm", ins, shapes=[(m, n)], transA=trans_a, transB=trans_b, alpha=alpha, beta=1.0)]


def einsum(b, x):
    """Equations exporters write (attention, batched and plain linear layers)."""
    s = b.shape[x]
    forms = {2: ["ij,jk->ik"], 3: ["bij,bjk->bik", "bnd,dc->bnc"], 4: ["bhqd,bhkd->bhqk", "bhqk,bhkd->bhqd", "bhwc,cd->bhwd"]}
    if len(s) not in forms:
        return None
    eq = b.rng.choice(forms[len(s)])
    ins, outs = eq.split("->")
    a, o = ins.split(",")
    dims = dict(zip(a, s))
    for ch in o:
        dims.setdefault(ch, b.draw_dim())
    other = tuple(dims[ch] for ch in o)
    constant = len(o) == 2 or b.rng.random() < 0.3
    if constant and math.prod(other) > MAX_WEIGHT:
        return None
    y = b.weight(other, 1.0 / math.sqrt(other[-2])) if constant else b.fresh(other)
    return [b.node("Einsum", [x, y], shapes=[tuple(dims[ch] for ch in outs)], equation=eq)]


def resize(b, x):
    s = b.shape[x]
    if len(s) not in (3, 4):
        return None
    mode = b.rng.choice(["nearest", "nearest", "linear", "linear"] + (["cubic"] if len(s) == 4 else []))
    ctm = b.rng.choice(["asymmetric", "half_pixel", "align_corners", "pytorch_half_pixel"])
    sp = len(s) - 2
    attrs = dict(mode=mode, coordinate_transformation_mode=ctm)
    if mode == "nearest":
        attrs["nearest_mode"] = b.rng.choice(["floor", "round_prefer_floor", "round_prefer_ceil"])
    if b.rng.random() < 0.6:
        f = b.rng.choice([2.0, 2.0, 0.5, 1.5, 3.0])
        out = s[:2] + tuple(int(math.floor(d * f)) for d in s[2:])
        ins = [x, "", b.const(np.array([1.0, 1.0] + [f] * sp, F32))]
    else:
        out = s[:2] + tuple(max(1, d * b.rng.choice([2, 2, 3]) // b.rng.choice([1, 2])) for d in s[2:])
        ins = [x, "", "", b.ints(list(out))]
    if 0 in out:
        return None
    return [b.node("Resize", ins, shapes=[out], **attrs)]
