"""benchmarks/data/quantizer_llm.json, the Quantizer against ExecuTorch's QnnQuantizer at real LLM
dimensions (benchmarks/quantizer_llm.py, a run of tens of minutes on a quiet machine): both
quantizers are measured on every run and config, docs/performance.md's table is the data's, and at
Qwen3-0.6B dimensions with 8 layers or more (issue 34's acceptance), per config: total CPU at most
half ExecuTorch's, no phase slower, peak RSS of the quantization at most 0.75x ExecuTorch's and 3x
the float weights, SQNR within 0.5 dB of ExecuTorch's or better."""

import importlib.util
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "benchmarks", "data", "quantizer_llm.json")
DOC = os.path.join(ROOT, "docs", "performance.md")


@pytest.fixture(scope="module")
def data():
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("quantizer_llm", os.path.join(ROOT, "benchmarks", "quantizer_llm.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_both_quantizers_on_every_run_and_config(data, script):
    cells = {}
    for r in data["rows"]:
        assert r["dims"] in script.DIMS and r["config"] in ("16a8w", "16a4w_block", "16a4w")
        cells.setdefault((r["dims"], r["layers"], r["config"]), set()).add(r["kind"])
    assert cells and all(kinds == {"qnnrules", "executorch"} for kinds in cells.values()), cells
    assert {c for (_, _, c) in cells} >= {"16a8w", "16a4w_block"}


def test_totals_are_the_phases_sum(data, script):
    for r in data["rows"]:
        assert r["total"] == pytest.approx(sum(r[p] for p in script.PHASES), abs=0.011), r
        assert r["peak_rss_mb"] >= r["peak_rss_quantization_mb"], r


def test_the_docs_table_shows_the_data(data, script):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    section = text.split(script.BEGIN)[1].split(script.END)[0]
    assert section.strip() == script.table(data).strip()


def test_issue_34_acceptance_at_qwen3_0_6b_dimensions(data, script):
    checked = 0
    for (dims, layers, config), q in script.ratios(data["rows"]).items():
        if dims != "qwen3-0.6b" or layers < 8:
            continue
        checked += 1
        where = f"{dims}:{layers} {config}"
        assert q["total"] <= 0.5, where
        assert all(q[p] <= 1.0 for p in script.PHASES), (where, q)
        assert q["rss"] <= 0.75 and q["rss_per_weights"] <= 3.0, (where, q)
        assert q["sqnr"] >= -0.5, (where, q)
    assert checked >= 2
