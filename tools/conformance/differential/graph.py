"""The builder a random graph is drawn into: replayable, so a graph can be shrunk and cut.

A graph is drawn in steps (ops.py): each step takes float tensors of the pool and adds the nodes of
one exporter form (a Conv, a Gelu in its Erf form, a Shape -> Gather -> Concat -> Reshape chain),
whose outputs join the pool. Every random choice comes from two seeded generators, so
(seed, scale, skip) names a graph exactly:

- scale divides every size the generator draws (dims, channels, widths; never a 1, never below 2,
  never a kernel, stride or axis), so the same seed drawn at scale 8 is the same graph made small
  (as far as the smaller sizes leave the same choices open: they are re-drawn, not edited).
- skip is a set of step numbers whose nodes are left out; their outputs become graph inputs of the
  same shape, so every later step draws exactly as before. This is how minimize.py drops nodes
  without knowing any op.

Steps only exchange float tensors (int64 shape arithmetic stays inside its step), so a skipped
step's output is always a float graph input. Node names are "/s<step>/<Op>.<k>": no underscore,
so QNN's suffixes (NAME_token_3, NAME_1) never make one node's name a prefix of another's.
"""
import math
import random

OPSET = 17
IR_VERSION = 8
MAX_ELEMS = 1 << 20     # per tensor: keeps one oracle session around a second
MAX_WEIGHT = 1 << 17    # per constant: keeps the quantized files small
MAX_INPUTS = 4


class Builder:
    def __init__(self, seed, scale=1, skip=()):
        import numpy as np
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.scale, self.skip = scale, frozenset(skip)
        self.nodes, self.inits, self.inputs = [], [], []
        self.shape = {}                 # every float tensor: its shape (a tuple)
        self.pool = []                  # float tensors the steps may read, oldest first
        self.step = 0
        self.steps = []                 # per step: the form drawn
        self.emitted = 0                # nodes drawn, skipped steps' included
        self.oversized = False          # the current step made a constant above MAX_WEIGHT
        self._k = 0

    # sizes -----------------------------------------------------------------------------------
    def size(self, v):
        """A drawn size under the scale: 1 stays 1 (broadcasting depends on it), others >= 2."""
        return v if v <= 1 else max(2, int(round(v / self.scale)))

    def draw_dim(self):
        r = self.rng.random()
        if r < 0.22:
            return 1
        if r < 0.55:
            v = self.rng.randint(2, 8)
        elif r < 0.82:
            v = self.rng.randint(9, 40)
        elif r < 0.96:
            v = self.rng.randint(41, 160)
        else:
            v = self.rng.randint(161, 1024)
        return self.size(v)

    def draw_shape(self, rank, limit=MAX_ELEMS // 4):
        dims = [self.draw_dim() for _ in range(rank)]
        while math.prod(dims) > limit:  # shrink the largest dim until it fits
            i = dims.index(max(dims))
            dims[i] = max(1, dims[i] // 2)
        return tuple(dims)

    # tensors ---------------------------------------------------------------------------------
    def _name(self, what):
        self._k += 1
        return f"/s{self.step}/{what}.{self._k}"

    def fresh(self, shape):
        """A new float graph input; MAX_INPUTS at most (then a constant of the shape)."""
        if sum(1 for i in self.inputs if i[2] == "in") >= MAX_INPUTS:
            return self.const(self.np.standard_normal(shape).astype("float32"))
        name = f"input{len(self.inputs)}"
        self.inputs.append((name, tuple(shape), "in"))
        self.shape[name] = tuple(shape)
        return name

    def const(self, array, name=None):
        import numpy as np
        from onnx import numpy_helper
        array = np.asarray(array)
        self.oversized |= array.size > MAX_WEIGHT  # run_step undoes the step
        name = name or self._name("const")
        self.inits.append(numpy_helper.from_array(array, name))
        if array.dtype == np.float32:
            self.shape[name] = tuple(array.shape)
        return name

    def weight(self, shape, std=None):
        """A float constant that looks trained: normal, fan-in scaled, never a flat tensor."""
        fan = math.prod(shape[1:]) if len(shape) > 1 else 1
        std = std if std is not None else 1.0 / math.sqrt(max(1, fan))
        return self.const((self.np.standard_normal(shape) * std).astype("float32"))

    def ints(self, values):
        import numpy as np
        return self.const(np.asarray(values, dtype=np.int64))

    def node(self, op, inputs, n_out=1, shapes=None, **attrs):
        """Adds a node; `shapes` (one per output) registers float outputs with their shapes."""
        from onnx import helper
        name = self._name(op)
        outs = [f"{name}:{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=name, **attrs))
        for o, s in zip(outs, shapes or []):
            if s is not None:
                self.shape[o] = tuple(s)
        return outs[0] if n_out == 1 else outs

    # steps -----------------------------------------------------------------------------------
    def run_step(self, form, emit, x, max_nodes):
        """Draws one step: emit(builder, x) -> its float outputs (or None: not applicable here).
        A skipped step draws the same random numbers, then keeps only its outputs, as inputs.
        `emitted` counts skipped steps' nodes too, so where drawing stops does not depend on skip."""
        n_nodes, n_inits, n_inputs = len(self.nodes), len(self.inits), len(self.inputs)
        self.oversized = False
        outs = emit(self, x)
        added = len(self.nodes) - n_nodes
        if (not outs or self.oversized or self.emitted + added > max_nodes
                or any(math.prod(self.shape[o]) > MAX_ELEMS or 0 in self.shape[o] for o in outs)):
            # Not applicable to x (or too large, empty, too many nodes): undo; the caller draws again.
            del self.nodes[n_nodes:], self.inits[n_inits:], self.inputs[n_inputs:]
            return None
        self.emitted += added
        if self.step in self.skip:
            del self.nodes[n_nodes:], self.inits[n_inits:]
            for o in outs:
                self.inputs.append((o, self.shape[o], "skipped"))
        self.steps.append(form)
        self.pool.extend(outs)
        self.step += 1
        return outs

    def model(self):
        """The ONNX model: inputs nobody reads dropped; outputs = produced tensors nobody reads."""
        from onnx import TensorProto, helper
        read = {i for n in self.nodes for i in n.input}
        produced = [o for n in self.nodes for o in n.output]
        outs = [o for o in produced if o not in read and o in self.shape]
        inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s))
                  for n, s, _ in self.inputs if n in read]
        outputs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(self.shape[o])) for o in outs]
        inits = [t for t in self.inits if t.name in read]
        g = helper.make_graph(self.nodes, "differential", inputs, outputs, inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="qnnrules-differential")
        m.ir_version = IR_VERSION
        return m
