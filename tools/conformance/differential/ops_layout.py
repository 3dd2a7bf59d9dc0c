"""The layout forms a random graph is drawn from: Reshape (constant targets and exporters' shape
arithmetic), Transpose, Concat, Split, Slice, Gather, (Un)Squeeze, Expand, Pad, Cast, Range,
ConstantOfShape (ops.py has the table and the contract)."""
import math

import numpy as np

from .ops_common import F32, INT64_MAX, MAX_RANK, _ax, _val


def _reshape_target(b, s):
    """A new shape for a tensor of shape s: merge, split, flatten or insert a 1."""
    r, kind = len(s), b.rng.choice(["merge", "split", "flatten", "insert", "insert"])
    if kind == "merge" and r >= 2:
        i = b.rng.randrange(r - 1)
        return s[:i] + (s[i] * s[i + 1],) + s[i + 2:]
    if kind == "split" and r < MAX_RANK:
        cands = [(i, f) for i, d in enumerate(s) for f in range(2, min(d, 17)) if d % f == 0]
        if cands:
            i, f = b.rng.choice(cands)
            return s[:i] + (f, s[i] // f) + s[i + 1:]
    if kind == "flatten" and r >= 2:
        k = b.rng.randrange(r)
        return s[:k] + (math.prod(s[k:]),)
    if r < MAX_RANK:
        i = b.rng.randint(0, r)
        return s[:i] + (1,) + s[i:]
    return None


def reshape(b, x):
    """Reshape to a constant target, with 0 (copy) and -1 (infer) where exporters put them."""
    s = b.shape[x]
    t = _reshape_target(b, s) if s else (1,)
    if t is None:
        return None
    spec = [0 if i < len(s) and d == s[i] and b.rng.random() < 0.3 else d for i, d in enumerate(t)]
    if b.rng.random() < 0.6:
        spec[b.rng.randrange(len(spec))] = -1
    return [b.node("Reshape", [x, b.ints(spec)], shapes=[t])]


def reshape_dynamic(b, x):
    """x.view(x.size(0), ..., -1) as torch.onnx writes it: Shape -> Gather -> Unsqueeze -> Concat."""
    s = b.shape[x]
    t = _reshape_target(b, s) if s else None
    if t is None:
        return None
    shp = b.node("Shape", [x])
    parts, infer = [], b.rng.randrange(len(t))
    for i, d in enumerate(t):
        if i == infer:
            parts.append(b.ints([-1]))
        elif i < len(s) and s[i] == d and b.rng.random() < 0.7:
            g = b.node("Gather", [shp, b.ints(i)], axis=0)
            parts.append(b.node("Unsqueeze", [g, b.ints([0])]))
        else:
            parts.append(b.ints([d]))
    cat = b.node("Concat", parts, axis=0)
    return [b.node("Reshape", [x, cat], shapes=[t])]


def flatten_slice(b, x):
    """x.flatten(k) through Shape -> Slice -> Concat([-1]) -> Reshape."""
    s = b.shape[x]
    if len(s) < 2:
        return None
    k = b.rng.randint(1, len(s) - 1)
    shp = b.node("Shape", [x])
    head = b.node("Slice", [shp, b.ints([0]), b.ints([k])])
    cat = b.node("Concat", [head, b.ints([-1])], axis=0)
    return [b.node("Reshape", [x, cat], shapes=[s[:k] + (math.prod(s[k:]),)])]


def transpose(b, x):
    s = b.shape[x]
    if len(s) < 2:
        return None
    perm = list(range(len(s)))
    if b.rng.random() < 0.4:
        perm[-1], perm[-2] = perm[-2], perm[-1]
    else:
        while perm == sorted(perm):
            b.rng.shuffle(perm)
    return [b.node("Transpose", [x], shapes=[tuple(s[p] for p in perm)], perm=perm)]


def concat(b, x):
    s = b.shape[x]
    if not s:
        return None
    axis = _ax(b, len(s))
    ins, total = [x], s[axis]
    for _ in range(b.rng.randint(1, 2)):
        r = b.rng.random()
        if r < 0.3:
            ins.append(x)
            total += s[axis]
            continue
        shape = list(s)
        shape[axis] = b.draw_dim()
        total += shape[axis]
        ins.append(b.fresh(tuple(shape)) if r < 0.7 else _val(b, tuple(shape)))
    out = list(s)
    out[axis] = total
    return [b.node("Concat", ins, shapes=[tuple(out)], axis=axis)]


def split(b, x):
    s = b.shape[x]
    axes = [i for i, d in enumerate(s) if d >= 2]
    if not axes:
        return None
    i = b.rng.choice(axes)
    d, n = s[i], b.rng.randint(2, min(3, s[i]))
    axis = i - len(s) if b.rng.random() < 0.5 else i
    if d % n == 0 and b.rng.random() < 0.4:
        sizes, ins = [d // n] * n, [x]              # equal parts, no 'split' input
    else:
        cuts = sorted(b.rng.sample(range(1, d), n - 1))
        sizes = [e - a for a, e in zip([0] + cuts, cuts + [d])]
        ins = [x, b.ints(sizes)]
    shapes = [s[:i] + (k,) + s[i + 1:] for k in sizes]
    return b.node("Split", ins, n_out=n, shapes=shapes, axis=axis)


def slice_(b, x):
    s = b.shape[x]
    if not s:
        return None
    r = len(s)
    axes = b.rng.sample(range(r), b.rng.randint(1, min(r, 3)))
    starts, ends, steps, out = [], [], [], list(s)
    for a in axes:
        d = s[a]
        step = b.rng.choice([1, 1, 1, 1, 2, -1, 3])
        if step > 0:
            st = b.rng.choice([0, b.rng.randint(0, d - 1), -b.rng.randint(1, d)])
            en = b.rng.choice([INT64_MAX, d, b.rng.randint(1, d), -b.rng.randint(1, d)])
        else:
            st = b.rng.choice([-1, d - 1, INT64_MAX])
            en = b.rng.choice([-INT64_MAX - 1, -d - 1, 0, -b.rng.randint(1, d)])
        n = len(range(*slice(st, en, step).indices(d)))
        if n == 0:
            return None
        out[a] = n
        starts.append(st), ends.append(en), steps.append(step)
    axes = [a - r if b.rng.random() < 0.4 else a for a in axes]
    ins = [x, b.ints(starts), b.ints(ends), b.ints(axes)]
    if any(st != 1 for st in steps) or b.rng.random() < 0.5:
        ins.append(b.ints(steps))
    return [b.node("Slice", ins, shapes=[tuple(out)])]


def gather(b, x):
    s = b.shape[x]
    if not s:
        return None
    a = b.rng.randrange(len(s))
    d = s[a]
    kind = b.rng.random()
    if kind < 0.4:
        idx = np.int64(b.rng.randint(-d, d - 1))                        # a scalar index: drops the axis
    elif kind < 0.85:
        idx = np.array([b.rng.randint(-d, d - 1) for _ in range(b.rng.randint(1, min(d, 8)))], np.int64)
    else:
        idx = np.array([[b.rng.randint(0, d - 1) for _ in range(3)] for _ in range(2)], np.int64)
    out = s[:a] + idx.shape + s[a + 1:]
    if len(out) > MAX_RANK:
        return None
    axis = a - len(s) if b.rng.random() < 0.4 else a
    return [b.node("Gather", [x, b.const(idx)], shapes=[out], axis=axis)]


def unsqueeze(b, x):
    s = b.shape[x]
    if len(s) >= MAX_RANK:
        return None
    out = list(s)
    pos = b.rng.randint(0, len(s))
    out.insert(pos, 1)
    axis = pos - len(out) if b.rng.random() < 0.4 else pos
    return [b.node("Unsqueeze", [x, b.ints([axis])], shapes=[tuple(out)])]


def squeeze(b, x):
    s = b.shape[x]
    ones = [i for i, d in enumerate(s) if d == 1]
    if not ones:
        return None
    if b.rng.random() < 0.25:  # no axes: every dim of 1 goes
        return [b.node("Squeeze", [x], shapes=[tuple(d for d in s if d != 1)])]
    axes = b.rng.sample(ones, b.rng.randint(1, len(ones)))
    out = tuple(d for i, d in enumerate(s) if i not in axes)
    return [b.node("Squeeze", [x, b.ints([a - len(s) if b.rng.random() < 0.4 else a for a in axes])], shapes=[out])]


def expand(b, x):
    s = b.shape[x]
    lead = b.rng.randint(0, 1 if 1 in s else 2)
    if len(s) + lead > MAX_RANK or (lead == 0 and 1 not in s):
        return None
    target = [b.draw_dim() for _ in range(lead)] + [b.draw_dim() if d == 1 else d for d in s]
    out = tuple(target)
    if b.rng.random() < 0.3:  # 1 = keep the input's dim, as expand(-1, ...) exports
        target = [1 if i >= lead and target[i] == s[i - lead] else t for i, t in enumerate(target)]
    return [b.node("Expand", [x, b.ints(target)], shapes=[out])]


def pad(b, x):
    s = b.shape[x]
    if not s:
        return None
    r, mode = len(s), b.rng.choice(["constant", "constant", "reflect", "edge"])
    axes = range(r - min(r, b.rng.choice([1, 2, 2])), r)
    pads = [0] * (2 * r)
    for a in axes:
        hi = s[a] - 1 if mode == "reflect" else 3
        pads[a], pads[a + r] = b.rng.randint(0, max(0, min(hi, 3))), b.rng.randint(0, max(0, min(hi, 3)))
    if not any(pads):
        return None
    out = tuple(d + pads[i] + pads[i + r] for i, d in enumerate(s))
    ins = [x, b.ints(pads)] + ([b.const(F32(b.rng.choice([0.0, -1.0])))] if mode == "constant" and b.rng.random() < 0.4 else [])
    return [b.node("Pad", ins, shapes=[out], mode=mode)]


def cast(b, x):
    s = b.shape[x]
    r = b.rng.random()
    if r < 0.4:                                   # a no-op Cast to float, as exporters leave them
        return [b.node("Cast", [x], shapes=[s], to=1)]
    if r < 0.6:                                   # float -> float16 -> float
        h = b.node("Cast", [x], to=10)
        return [b.node("Cast", [h], shapes=[s], to=1)]
    if not s:
        return None
    shp = b.node("Shape", [x])                    # x / sqrt(x.size(-1)): shape value as float
    g = b.node("Gather", [shp, b.ints(-1)], axis=0)
    c = b.node("Cast", [g], to=1)
    q = b.node("Sqrt", [c])
    return [b.node("Div", [x, q], shapes=[s])]


def range_(b, x):
    """x + arange(x.size(-1)) (positions): Shape -> Gather -> Range -> Cast."""
    s = b.shape[x]
    if not s:
        return None
    shp = b.node("Shape", [x])
    n = b.node("Gather", [shp, b.ints(-1)], axis=0)
    rg = b.node("Range", [b.ints(0), n, b.ints(1)])
    c = b.node("Cast", [rg], to=1)
    c = b.node("Mul", [c, b.const(F32(0.01))])
    return [b.node("Add", [x, c], shapes=[s])]


def constant_of_shape(b, x):
    """ones_like(x) * x + x as ConstantOfShape(Shape(x))."""
    s = b.shape[x]
    shp = b.node("Shape", [x])
    from onnx import numpy_helper
    ones = b.node("ConstantOfShape", [shp], value=numpy_helper.from_array(np.array([0.5], F32)))
    return [b.node(b.rng.choice(["Mul", "Add"]), [x, ones], shapes=[s])]
