"""Build a graph (format v1, docs/graph-format.md) from Python code.

    b = GraphBuilder("tiny")
    x = b.input("x", "float32", [1, 3, 8, 8], qspec=U8)
    w = b.parameter("w", "float32", [4, 3, 3, 3])
    y = b.call("conv", "aten.conv2d.default", [x.q(U8), w.q(W8), None], outputs=[("float32", [1, 4, 6, 6], U8)])
    b.output([y])
    graph = b.build()        # a qnnrules.Graph, checked by the engine's strict reader

Quant specs are dicts with the format's keys ({"dtype": "uint8", "quant_min": 0, ...} or
{"shared_with": {"node": "conv"}}).
"""

from . import _qnnrules


class Ref:
    """A tensor argument: output ``output`` of node ``node``, with the input edge's quant spec."""

    __slots__ = ("node", "output", "qspec")

    def __init__(self, node, output=0, qspec=None):
        self.node, self.output, self.qspec = node, output, qspec

    def q(self, qspec):
        """The same tensor with an annotation on the edge it feeds."""
        return Ref(self.node, self.output, qspec)

    def __getitem__(self, output):
        return Ref(self.node, output, self.qspec)

    def to_json_value(self):
        d = {"ref": self.node}
        if self.output:
            d["output"] = self.output
        if self.qspec is not None:
            d["qspec"] = self.qspec
        return d


def _value(v):
    if isinstance(v, Ref):
        return v.to_json_value()
    if isinstance(v, (list, tuple)):
        return [_value(e) for e in v]
    return v


def _outputs(outputs):
    out = []
    for o in outputs:
        if isinstance(o, dict):
            out.append(o)
            continue
        dtype, shape, *rest = o
        d = {"dtype": dtype, "shape": list(shape)}
        if rest and rest[0] is not None:
            d["qspec"] = rest[0]
        out.append(d)
    return out


class GraphBuilder:
    """Collects nodes in topological order; build() hands them to the engine's reader."""

    def __init__(self, name=""):
        self.name = name
        self.nodes = []

    def _add(self, node):
        self.nodes.append(node)
        return Ref(node["name"])

    def input(self, name, dtype, shape, qspec=None):
        return self._add({"name": name, "kind": "input", "outputs": _outputs([(dtype, shape, qspec)])})

    def parameter(self, name, dtype, shape, qspec=None):
        return self._add({"name": name, "kind": "parameter", "outputs": _outputs([(dtype, shape, qspec)])})

    def constant(self, name, dtype, shape, qspec=None):
        return self._add({"name": name, "kind": "constant", "outputs": _outputs([(dtype, shape, qspec)])})

    def call(self, name, target, args=(), kwargs=None, outputs=(), module=None):
        """``outputs``: (dtype, shape[, qspec]) tuples or format v1 dicts."""
        node = {"name": name, "kind": "call", "target": target, "args": [_value(a) for a in args]}
        if kwargs:
            node["kwargs"] = {k: _value(v) for k, v in kwargs.items()}
        if outputs:
            node["outputs"] = _outputs(outputs)
        if module:
            node["module"] = module
        return self._add(node)

    def output(self, values, name="output"):
        self._add({"name": name, "kind": "output", "args": [_value(list(values))]})

    def to_dict(self):
        d = {"format": "qnnrules-graph", "version": 1, "nodes": self.nodes}
        if self.name:
            d["name"] = self.name
        return d

    def build(self):
        return _qnnrules.Graph.from_dict(self.to_dict(), self.name or "<builder>")
