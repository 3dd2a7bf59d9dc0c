"""benchmarks/data/quantizer_sqnr.json, the accuracy of qnnrules.torch.Quantizer against
ExecuTorch's QnnQuantizer (benchmarks/quantizer_sqnr.py, a run of minutes): every model x config
is measured, the differences are the columns' differences, docs/embedding.md's table shows
these figures, and per config we are within 0.5 dB of ExecuTorch or better (issue 22)."""

import importlib.util
import json
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "benchmarks", "data", "quantizer_sqnr.json")
DOC = os.path.join(ROOT, "docs", "embedding.md")
TOLERANCE_DB = 0.5


@pytest.fixture(scope="module")
def data():
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)


def script():
    spec = importlib.util.spec_from_file_location("quantizer_sqnr", os.path.join(ROOT, "benchmarks", "quantizer_sqnr.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_model_and_config_is_measured(data):
    s = script()
    cells = [(r["model"], r["config"]) for r in data["results"]]
    assert sorted(cells) == sorted((m, c) for m in s.MODELS for c in s.CONFIGS)


def test_differences_are_the_columns_differences(data):
    for r in data["results"]:
        assert r["difference"] == pytest.approx(r["qnnrules"] - r["executorch"], abs=0.011), r


def test_within_half_a_decibel_of_executorch_or_better_per_config(data):
    worst = {}
    for r in data["results"]:
        worst[r["config"]] = min(worst.get(r["config"], float("inf")), r["difference"])
    assert worst and all(d >= -TOLERANCE_DB for d in worst.values()), worst


def test_the_docs_table_shows_the_data(data):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\| `?([\w.]+)`? \| `?(\w+)`? \| ([-\d.]+) \| ([-\d.]+) \| ([-+\d.]+) \| ([-\d.]+) \|$", line)
        if m:
            rows[(m[1], m[2])] = tuple(float(x) for x in m.groups()[2:])
    expected = {(r["model"], r["config"]): (r["qnnrules"], r["executorch"], r["difference"], r["qnnrules_min_max"])
                for r in data["results"]}
    assert rows == expected
    assert data["meta"]["command"] in text
