"""Engine(backend=None) and Quantizer() open the backend whose manifest says `default: true`
(htp in the bundled rules): the default is data, as in the CLI (tests/unit/DefaultBackendTest.cpp)."""

import shutil
from pathlib import Path

import pytest

import qnnrules
from conftest import SOC

# The toy backend's rule and a SoC for it (shared with tests/unit/DefaultBackendTest.cpp).
TOY_DATA = Path(__file__).resolve().parents[1] / "data" / "default_backend"


def toy_rules(tmp_path, default):
    """A rules directory holding only the toy backend, with or without `default: true`."""
    rules = tmp_path / "rules"
    shutil.copytree(TOY_DATA / "rules", rules)
    (rules / "toy" / "backend.yaml").write_text(
        "version: 1\nbackend: toy\ndescription: A toy backend.\n" + ("default: true\n" if default else ""))
    return rules


def test_no_backend_is_the_bundled_default_htp():
    implicit = qnnrules.Engine(soc=SOC)
    explicit = qnnrules.Engine(backend="htp", soc=SOC)
    assert implicit.backend == "htp"
    assert repr(implicit) == repr(explicit)
    assert implicit.rules == explicit.rules
    assert qnnrules.Engine(backend=None, soc=SOC).backend == "htp"


def test_a_toy_rules_directory_chooses_its_own_default(tmp_path):
    engine = qnnrules.Engine(builtin_rules_dir=toy_rules(tmp_path, default=True), use_environment=False)
    assert engine.backend == "toy"
    assert [r["id"] for r in engine.rules] == ["toy.relu"]


def test_no_default_and_no_backend_is_a_config_error(tmp_path):
    rules = toy_rules(tmp_path, default=False)
    with pytest.raises(qnnrules.ConfigError, match="no manifest says `default: true`; name one with --backend"):
        qnnrules.Engine(builtin_rules_dir=rules, use_environment=False)
    assert qnnrules.Engine(backend="toy", builtin_rules_dir=rules, use_environment=False).backend == "toy"


def test_the_quantizer_opens_the_default_backend():
    pytest.importorskip("torchao")
    import qnnrules.torch as qt

    assert qt.Quantizer(soc=SOC).engine.backend == "htp"
    assert qt.Quantizer(backend="htp", soc=SOC).engine.backend == "htp"
