"""Port-by-port comparison of two annotations of one graph (graph format v1 dicts), and the
grouping of qnnrules diagnostics. Standard library only: the recorded-data test runs it with
Debian's python3, without the venv.

A port is an input edge ("in[i]", list elements "in[i.j]") or an output ("out[k]") of a call
node. Its effective encoding is its own spec; an input edge without a spec reads its producer's
output encoding (as PT2E inserts no observer there). Shared specs are followed to the port that
owns the concrete spec (its "root"); two annotations agree on sharing when the port's root is
the same port in both.
"""

_FULL_RANGE = {
    "uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
    "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-2**63, 2**63 - 1),
}


def strip_annotations(graph):
    """A copy of ``graph`` with every qspec removed (the float graph both quantizers start from)."""
    def clean(v):
        if isinstance(v, dict):
            return {k: clean(e) for k, e in v.items() if k != "qspec"}
        if isinstance(v, list):
            return [clean(e) for e in v]
        return v
    out = clean(graph)
    for nd in out["nodes"]:
        nd.pop("meta", None)
    out.pop("meta", None)
    return out


def _refs(args):
    """(port label, ref dict) for every tensor reference among positional arguments."""
    for i, a in enumerate(args):
        if isinstance(a, dict) and "ref" in a:
            yield f"in[{i}]", a
        elif isinstance(a, list):
            for j, e in enumerate(a):
                if isinstance(e, dict) and "ref" in e:
                    yield f"in[{i}.{j}]", e


class _Graph:
    def __init__(self, graph):
        self.nodes = {nd["name"]: nd for nd in graph["nodes"]}
        self.edge_spec = {}   # (producer, output, consumer) -> spec
        self.port = {}        # (node, label) -> (spec or None, producer location or None)
        for nd in graph["nodes"]:
            if nd.get("kind") != "call":
                continue
            for label, r in _refs(nd.get("args", [])):
                key = (r["ref"], r.get("output", 0), nd["name"])
                if "qspec" in r:
                    self.edge_spec.setdefault(key, (label, r["qspec"]))
                self.port[(nd["name"], label)] = (r.get("qspec"), (r["ref"], r.get("output", 0)))
            for k, o in enumerate(nd.get("outputs", [])):
                self.port[(nd["name"], f"out[{k}]")] = (o.get("qspec"), None)

    def _output_spec(self, name, k):
        outs = self.nodes.get(name, {}).get("outputs", [])
        return outs[k].get("qspec") if k < len(outs) else None

    def root(self, node, label, depth=0):
        """(root location, concrete spec) of a port; (None, None) when it resolves to no spec."""
        spec, producer = self.port.get((node, label), (None, None))
        loc = (node, label)
        if spec is None and producer is not None:  # an unannotated edge reads the producer's output
            node, label = producer[0], f"out[{producer[1]}]"
            loc, spec = (node, label), self._output_spec(*producer)
        while spec is not None and "shared_with" in spec and depth < 1000:
            depth += 1
            ref = spec["shared_with"]
            if "edge" in ref:
                producer_name, consumer = ref["edge"]
                hit = None
                for (p, k, c), v in self.edge_spec.items():
                    if p == producer_name and c == consumer:
                        hit = v
                        break
                if hit is not None:
                    loc, spec = (consumer, hit[0]), hit[1]
                else:
                    loc, spec = (producer_name, "out[0]"), self._output_spec(producer_name, 0)
            else:
                k = ref.get("output", 0)
                loc, spec = (ref["node"], f"out[{k}]"), self._output_spec(ref["node"], k)
        return (loc, spec) if spec is not None else (None, None)


def describe(spec):
    """The fields compared, as short strings: type (dtype and range), qscheme, axis, block, fixed."""
    if spec is None:
        return {"type": "float"}
    dtype = spec["dtype"]
    lo, hi = _FULL_RANGE.get(dtype, (None, None))
    lo = spec.get("quant_min", lo)
    hi = spec.get("quant_max", hi)
    qscheme = spec.get("qscheme", "per_tensor_affine")
    d = {"type": f"{dtype} {lo}..{hi}", "qscheme": qscheme}
    if qscheme.startswith("per_channel"):
        d["axis"] = str(spec.get("ch_axis", 0))
    if spec.get("block_size"):
        d["block"] = "x".join(str(b) for b in spec["block_size"])
    if "scale" in spec and not isinstance(spec["scale"], list):
        d["fixed"] = f"{spec['scale']:.9g}/{spec.get('zero_point', 0)}"
    return d


def _relation(g, node, label, loc):
    """How a port's root relates to the port, in words that do not depend on node names."""
    if loc is None:
        return "none"
    if loc == (node, label):
        return "own"
    if loc[0] == node:
        return f"own {loc[1]}"
    spec, producer = g.port.get((node, label), (None, None))
    if producer is not None and loc == (producer[0], f"out[{producer[1]}]"):
        return "producer output"
    target = g.nodes.get(loc[0], {}).get("target", g.nodes.get(loc[0], {}).get("kind", "?"))
    return f"{target} {loc[1].split('[')[0]}"


def compare(reference, candidate):
    """{class key: count} of port differences of ``candidate`` against ``reference`` (same nodes).

    A class key is "field | target | port | reference value | candidate value"; fields are type,
    qscheme, axis, block, fixed and sharing (how the port's root relates to it). Only ports
    where either side has an encoding are compared; nodes missing on one side are a "node" class."""
    ref, cand = _Graph(reference), _Graph(candidate)
    classes = {}

    def add(key):
        classes[key] = classes.get(key, 0) + 1

    for (node, label) in sorted(set(ref.port) | set(cand.port)):
        nd = ref.nodes.get(node) or cand.nodes.get(node)
        target = nd.get("target", "?")
        if node not in ref.nodes or node not in cand.nodes:
            add(f"node | {target} | - | {'present' if node in ref.nodes else 'absent'} | "
                f"{'present' if node in cand.nodes else 'absent'}")
            continue
        rloc, rspec = ref.root(node, label)
        cloc, cspec = cand.root(node, label)
        if rspec is None and cspec is None:
            continue
        rd, cd = describe(rspec), describe(cspec)
        port = label.split(".")[0] + ("]" if "." in label else "")
        for field in ("type", "qscheme", "axis", "block", "fixed"):
            if rd.get(field) != cd.get(field):
                add(f"{field} | {target} | {port} | {rd.get(field, '-')} | {cd.get(field, '-')}")
        rrel, crel = _relation(ref, node, label, rloc), _relation(cand, node, label, cloc)
        if rrel != crel and rspec is not None and cspec is not None:
            add(f"sharing | {target} | {port} | {rrel} | {crel}")
    return classes


def diagnostic_groups(diagnostics):
    """{group key: count}, the key "severity code | op | rule | port name" (the port's index
    and name, without node names, so a group is the same across models)."""
    groups = {}
    for d in diagnostics:
        key = f"{d['severity']} {d['code']} | {d.get('op') or '-'} | {d.get('rule') or '-'} | {d.get('port') or '-'}"
        groups[key] = groups.get(key, 0) + 1
    return groups
