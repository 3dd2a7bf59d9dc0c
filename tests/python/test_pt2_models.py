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
import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")
pt2e = pytest.importorskip("torchao.quantization.pt2e.quantize_pt2e")
xnnpack = pytest.importorskip("torchao.testing.pt2e._xnnpack_quantizer")

import qnnrules  # noqa: E402
import qnnrules.torch as qt  # noqa: E402

SOC = "SM8650"
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


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(torch.nn.Module):
    def __init__(self, dim, heads, seq):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.wq = torch.nn.Linear(dim, dim, bias=False)
        self.wk = torch.nn.Linear(dim, dim, bias=False)
        self.wv = torch.nn.Linear(dim, dim, bias=False)
        self.wo = torch.nn.Linear(dim, dim, bias=False)
        pos = torch.arange(seq, dtype=torch.float32)[:, None]
        freq = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
        self.register_buffer("cos", torch.cos(pos * freq), persistent=False)
        self.register_buffer("sin", torch.sin(pos * freq), persistent=False)

    def rope(self, x):
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.cat([x1 * self.cos - x2 * self.sin, x1 * self.sin + x2 * self.cos], dim=-1)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = (w(x).view(b, s, self.heads, self.head_dim).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        out = torch.nn.functional.scaled_dot_product_attention(self.rope(q), self.rope(k), v, is_causal=True)
        return self.wo(out.transpose(1, 2).reshape(b, s, d))


class Block(torch.nn.Module):
    def __init__(self, dim, heads, seq):
        super().__init__()
        self.attn_norm, self.attn = RMSNorm(dim), Attention(dim, heads, seq)
        self.mlp_norm = RMSNorm(dim)
        self.w1 = torch.nn.Linear(dim, 4 * dim, bias=False)
        self.w3 = torch.nn.Linear(dim, 4 * dim, bias=False)
        self.w2 = torch.nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        h = self.mlp_norm(x)
        return x + self.w2(torch.nn.functional.silu(self.w1(h)) * self.w3(h))


class Decoder(torch.nn.Module):
    """A small Llama-style decoder: embedding, RMSNorm, rotary causal attention, SwiGLU MLP."""

    def __init__(self, vocab=256, dim=64, heads=4, layers=2, seq=16):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.layers = torch.nn.ModuleList(Block(dim, heads, seq) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.head = torch.nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


def image(n=224):
    return (torch.randn(1, 3, n, n),)


MODELS = {
    "tiny": (Tiny, lambda: image(16)),
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), image),
    "mobilenet_v3_large": (lambda: torchvision.models.mobilenet_v3_large(weights=None), image),
    "vit_b_16": (lambda: torchvision.models.vit_b_16(weights=None), image),
    "decoder": (Decoder, lambda: (torch.randint(0, 256, (1, 16)),)),
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


def cli(path, *args):
    exe = os.environ.get("QNNRULES_VALIDATE_EXE")
    if not exe:
        pytest.fail("QNNRULES_VALIDATE_EXE is not set: run these tests through ctest")
    proc = subprocess.run([exe, str(path), "--backend", "htp", "--soc", SOC, "--format", "json", *args],
                          capture_output=True, text=True, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


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
