"""Real models through torch.export archives: export (float, and after prepare_pt2e /
calibrate / convert_pt2e), torch.export.save, then qnn-validate reads the .pt2.

Checked for every archive: the CLI exits 0 or 1 with a JSON report whose op-node count is the
ExportedProgram's, whose folded Q/DQ count is the program's, whose folded quantized ports are
the edges and outputs the program's Q/DQ nodes describe (read back from --output), and whose
verdict and errors are those of the in-process Python path (qnnrules.torch.from_fx on the same
ExportedProgram).

Run through CTest (python_pt2_models), or from the checkout root after a build:

    PYTHONPATH=build/python QNNRULES_VALIDATE_EXE=build/tools/qnn-validate/qnn-validate \\
        .venv/bin/python -m pytest -q -o markers=heavy tests/python/test_pt2_models.py -m "not heavy"

The torchvision models and the decoder are marked ``heavy`` (about a minute each on two
busy cores); ``-m "not heavy"`` keeps the tiny model for iterating.
"""

import json

import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")
pt2e = pytest.importorskip("torchao.quantization.pt2e.quantize_pt2e")
xnnpack = pytest.importorskip("torchao.testing.pt2e._xnnpack_quantizer")

import qnnrules  # noqa: E402
import qnnrules.torch as qt  # noqa: E402
from conftest import SOC, run_cli as cli  # noqa: E402
from models import Decoder, torchvision_model  # noqa: E402

QDQ_PREFIXES = ("quantized_decomposed.quantize_", "quantized_decomposed.dequantize_",
                "torchao.quantize_affine", "torchao.dequantize_affine")


# --- models ------------------------------------------------------------------------------------

class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.conv(x)).mean(dim=(2, 3))
        return torch.sigmoid(self.fc(y))


def image(n):
    return (torch.randn(1, 3, n, n),)


# The torchvision models and the KV-cache decoder of models.py, as the pt2e tests build them.
MODELS = {
    "tiny": (Tiny, lambda: image(16)),
    "resnet18": (lambda: torchvision_model("resnet18")[0], lambda: image(64)),
    "mobilenet_v3_large": (lambda: torchvision_model("mobilenet_v3_large")[0], lambda: image(64)),
    "vit_b_16": (lambda: torchvision_model("vit_b_16")[0], lambda: image(64)),
    "decoder": (Decoder, Decoder.example),
}


def export(name, quantized):
    make, example = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    args = example()
    with torch.no_grad():
        ep = torch.export.export(model, args)
        if not quantized:
            return ep
        quantizer = xnnpack.XNNPACKQuantizer().set_global(
            xnnpack.get_symmetric_quantization_config(is_per_channel=True))
        prepared = pt2e.prepare_pt2e(ep.module(), quantizer)
        prepared(*args)  # calibrate
        return torch.export.export(pt2e.convert_pt2e(prepared), args)


# --- what the program says ---------------------------------------------------------------------

def target(node):
    return qt._target_name(node) if node.op == "call_function" else ""


def is_qdq(node):
    return target(node).startswith(QDQ_PREFIXES)


def flat(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from flat(v)
        else:
            yield v


def expected_ports(ep):
    """On compute nodes: the input edges a dequantize node feeds (each use counted), and the
    nodes whose output a quantize node reads."""
    edges, outputs = 0, set()
    for n in ep.graph.nodes:
        if n.op != "call_function" or is_qdq(n):
            continue
        for a in flat(list(n.args) + list(n.kwargs.values())):
            if isinstance(a, torch.fx.Node) and is_qdq(a) and "dequantize" in target(a):
                edges += 1
        if any(is_qdq(u) and "dequantize" not in target(u) for u in n.users):
            outputs.add(n.name)
    return edges, outputs


def quantized_ports(graph_json):
    """The same from the folded graph qnn-validate wrote."""
    edges, outputs = 0, set()
    for n in graph_json["nodes"]:
        if n.get("kind") != "call":
            continue
        refs = flat(n.get("args", []) + list(n.get("kwargs", {}).values()))
        edges += sum(1 for r in refs if isinstance(r, dict) and "ref" in r and "qspec" in r)
        if any("qspec" in o for o in n.get("outputs", [])):
            outputs.add(n["name"])
    return edges, outputs


HEAVY = pytest.mark.heavy
CASES = [pytest.param(m, q, id=f"{m}-{'pt2e' if q else 'float'}", marks=() if m == "tiny" else HEAVY)
         for m in MODELS for q in (False, True)]


@pytest.mark.parametrize("name,quantized", CASES)
def test_cli_reads_exported_archive(name, quantized, tmp_path):
    ep = export(name, quantized)
    path = tmp_path / f"{name}.pt2"
    torch.export.save(ep, path)

    folded = tmp_path / "folded.json"
    rc, report = cli(path, "--warn", "--output", str(folded))
    assert rc == 0  # warn mode
    ops = [n for n in ep.graph.nodes if n.op == "call_function" and not is_qdq(n)]
    qdq = [n for n in ep.graph.nodes if is_qdq(n)]
    # Every call node but the folded Q/DQ ones is checked (getitem included), except those the
    # engine sets aside: dead nodes and constant subgraphs (vit_b_16's class-token expand).
    pruned = report["delegation"]
    set_aside = len(pruned.get("dead_nodes", [])) + len(pruned.get("constant_nodes", []))
    assert report["summary"]["nodes_checked"] + set_aside == len(ops), (report["summary"], set_aside)
    assert report.get("qdq_nodes_folded", 0) == len(qdq)
    if quantized:
        assert len(qdq) > 0
    edges, outputs = expected_ports(ep)
    got_edges, got_outputs = quantized_ports(json.loads(folded.read_text()))
    assert got_edges == edges
    assert got_outputs == outputs
    if quantized:
        assert edges > 0 and outputs

    # The same verdict and errors as the in-process Python path on the same program.
    strict_rc, strict = cli(path, "--strict")
    engine = qnnrules.Engine(backend="htp", soc=SOC, strict=True)
    python = engine.check(qt.from_fx(ep, name=name))
    path.unlink()  # vit_b_16's archive is 0.4 GB
    assert (strict_rc == 0) == python.ok
    key = lambda d: (d["code"], d["node"], d.get("port"), d.get("rule_id"))  # noqa: E731
    assert sorted(key(d) for d in strict["diagnostics"] if d["severity"] == "error") == \
        sorted(key(d.to_dict()) for d in python.diagnostics if d.to_dict()["severity"] == "error")
