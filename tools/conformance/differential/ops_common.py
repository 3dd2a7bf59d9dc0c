"""What the forms of ops_compute.py and ops_layout.py share: axes drawn as exporters write them,
broadcast shapes, constants, and the second operand of a broadcasting op."""
import numpy as np

F32 = np.float32
INT64_MAX = 9223372036854775807
MAX_RANK = 6


def _ax(b, rank):
    """An axis in [-rank, rank): negative about half the time, as exporters write them."""
    return b.rng.randrange(-rank, rank)


def _bshape(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


def _val(b, shape, away_from_zero=False):
    v = b.np.standard_normal(shape).astype(F32)
    if away_from_zero:  # a divisor: |v| in [0.5, 2.5]
        v = (np.sign(v) + (v == 0)) * (0.5 + np.abs(v) % 2.0)
    return b.const(v.astype(F32))


def _same_shape(b, x):
    """Another pool tensor of x's shape, if any (a join of two branches)."""
    c = [t for t in b.pool if t != x and b.shape[t] == b.shape[x]]
    return b.rng.choice(c) if c else None


def operand(b, x, divisor=False):
    """The second operand of a broadcasting op, in the forms exporters write."""
    s, r = b.shape[x], b.rng.random()
    if r < 0.18 or not s:
        return _val(b, (), divisor)                                     # a scalar constant
    if r < 0.26:
        return _val(b, (1,), divisor)
    if r < 0.46:                                                        # rank-mismatched constant
        k = b.rng.randint(1, len(s))
        return _val(b, tuple(d if b.rng.random() < 0.6 else 1 for d in s[-k:]), divisor)
    if r < 0.56:
        return _val(b, s, divisor)
    if r < 0.7 and not divisor:
        y = _same_shape(b, x)
        if y:
            return y
    if r < 0.92 and not divisor:                                        # a computed operand
        k = b.rng.randint(1, len(s))
        # keep x's dim or broadcast it; where x has a 1, sometimes broadcast x instead (masks)
        shape = [(b.draw_dim() if b.rng.random() < 0.3 else 1) if d == 1 else d if b.rng.random() < 0.6 else 1
                 for d in s[-k:]]
        return b.fresh(tuple(shape))
    return x if not divisor else _val(b, s, True)
