"""Validating a converted decoder from Python (issue 34): Quantizer.validate on the in-memory
converted GraphModule, 16a4w_block against per-channel (16a4w), split into its phases:
qnnrules.torch.to_dict and Graph.from_dict with the block-wise scales and zero points as JSON
lists (what validate did before) and as numpy buffers (what it does now), Engine.check. A Qwen3 decoder with Qwen3-0.6B's layer
dimensions (hidden 1024, MLP 3072, 16 / 8 heads, head_dim 128; random weights, no download),
a small vocabulary by default (the embedding is per-channel either way), one calibration batch.

    PYTHONPATH=build/python .venv/bin/python benchmarks/quantizer_validate_block.py --layers 8

Prints one JSON line per config: wall seconds of each phase (best of --repeat), node count.
The converted model is also exported to a .pt2 archive (torch.export.save) and run from there:
`Engine.run(path)` in the same process and `qnn-validate FILE` as a user runs it
(--validate-exe, default build/tools/qnn-validate/qnn-validate).
"""

import argparse
import json
import os
import subprocess
import tempfile
import time

import torch
import transformers
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e

import qnnrules
import qnnrules.torch as qt
from qnnrules import fx_reader

SOC = "SM8650"


def decoder(layers, vocab, tokens):
    config = transformers.Qwen3Config(vocab_size=vocab, hidden_size=1024, intermediate_size=3072,
                                      num_hidden_layers=layers, num_attention_heads=16, num_key_value_heads=8,
                                      head_dim=128, max_position_embeddings=256, tie_word_embeddings=True)
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config).eval()
    ids = torch.randint(0, vocab, (1, tokens))
    with torch.no_grad():  # the output is transformers' ModelOutput (a pytree): logits inside
        gm = torch.export.export(model, (ids,), {"use_cache": False}, strict=False).module()
    return gm, ids


def best(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def measure(config, layers, vocab, tokens, repeat, validate_exe):
    gm, ids = decoder(layers, vocab, tokens)
    q = qt.Quantizer(backend="htp", soc=SOC, config=config, strict=False)
    prepared = qt.prepare_pt2e(gm, q)
    with torch.no_grad():
        prepared(ids, use_cache=False)
        converted = convert_pt2e(prepared)
    engine = q.engine
    t_validate, _ = best(lambda: q.validate(converted), repeat)  # first: no other graph held yet
    t_dict, d = best(lambda: qt.to_dict(converted), repeat)
    t_graph, graph = best(lambda: qnnrules.Graph.from_dict(d, d["name"]), repeat)
    buffers = []
    t_dict_buffers, d_buffers = best(lambda: qt.to_dict(converted, buffers=buffers.clear() or buffers), repeat)
    t_graph_buffers, graph_buffers = best(lambda: fx_reader.graph_of(d_buffers, buffers), repeat)
    assert graph_buffers.to_dict() == graph.to_dict()  # the same graph either way
    t_check, report = best(lambda: engine.check(graph), repeat)
    with tempfile.TemporaryDirectory() as tmp:
        pt2 = os.path.join(tmp, f"decoder_{config}.pt2")
        torch.export.save(torch.export.export(converted, (ids,), {"use_cache": False}, strict=False), pt2)
        t_pt2, pt2_report = best(lambda: engine.run(pt2), repeat)
        cli = [validate_exe, pt2, "--backend", "htp", "--soc", SOC, "--warn"]
        t_cli, cli_run = best(lambda: subprocess.run(cli, capture_output=True, text=True), repeat)
        assert cli_run.returncode == 0, cli_run.stderr
    return {"config": config, "layers": layers, "nodes": len(d["nodes"]), "errors": report.error_count,
            "buffered_values": sum(len(b[2]) for b in buffers),
            "seconds": {"to_dict (lists)": round(t_dict, 3), "from_dict (JSON)": round(t_graph, 3),
                        "to_dict (buffers)": round(t_dict_buffers, 3), "graph_of (buffers)": round(t_graph_buffers, 3),
                        "check": round(t_check, 3), "Quantizer.validate": round(t_validate, 3),
                        "Engine.run(.pt2)": round(t_pt2, 3), "qnn-validate .pt2": round(t_cli, 3)},
            "pt2_errors": pt2_report.error_count}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--vocab", type=int, default=4096)
    p.add_argument("--tokens", type=int, default=16)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--configs", nargs="+", default=["16a4w_block", "16a4w"])
    p.add_argument("--validate-exe", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                          "build", "tools", "qnn-validate", "qnn-validate"))
    args = p.parse_args()
    torch.set_num_threads(1)
    for config in args.configs:
        print(json.dumps(measure(config, args.layers, args.vocab, args.tokens, args.repeat, args.validate_exe)), flush=True)


if __name__ == "__main__":
    main()
