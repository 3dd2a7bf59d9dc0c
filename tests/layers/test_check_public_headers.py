"""The public-header check passes on the repository and fails on a planted difference: a header an
embedder needs but the list does not install, one installed that no embedder needs, and a list
over the limit. Runs under pytest or as a plain script (CTest engine_public_headers:
/usr/bin/python3, standard library only)."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(HERE, "check_public_headers.py")
sys.path.insert(0, HERE)
import check_public_headers  # noqa: E402  (beside this file)

LIST = os.path.join("engine", "PublicHeaders.cmake")


def run(root, *args):
    return subprocess.run([sys.executable, CHECK, "--root", str(root), *args], capture_output=True, text=True,
                          check=False)


def copy_tree(tmp_path):
    """What the check reads: the engine's headers, the list, and the embedders."""
    shutil.copytree(os.path.join(ROOT, "engine", "include"), tmp_path / "engine" / "include")
    shutil.copy(os.path.join(ROOT, LIST), tmp_path / LIST)
    for embedder in check_public_headers.EMBEDDERS:
        shutil.copytree(os.path.join(ROOT, embedder), tmp_path / embedder)
    return tmp_path


def write_list(root, headers):
    (root / LIST).write_text("set(QNNRULES_PUBLIC_HEADERS\n" + "".join(f"  {h}\n" for h in headers) + ")\n")


def test_the_repository_installs_what_an_embedder_needs():
    r = run(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_header_an_embedder_starts_to_need_is_named(tmp_path):
    root = copy_tree(tmp_path)
    consumer = root / "tests" / "package" / "consumer.cpp"
    consumer.write_text('#include "qnnrules/report/DotWriter.h"\n' + consumer.read_text())
    r = run(root)
    assert r.returncode == 1
    assert "qnnrules/report/DotWriter.h is included by an embedder (or a public header) but not installed" in r.stdout


def test_a_header_no_embedder_needs_is_named(tmp_path):
    root = copy_tree(tmp_path)
    listed = sorted(check_public_headers.listed(str(root)))
    write_list(root, listed + ["qnnrules/passes/Prune.h"])
    r = run(root)
    assert r.returncode == 1
    assert "qnnrules/passes/Prune.h is installed but no embedder needs it: keep it internal" in r.stdout


def test_more_than_the_limit_fails_even_when_the_list_is_the_closure(tmp_path):
    root = copy_tree(tmp_path)
    consumer = root / "tests" / "package" / "consumer.cpp"
    consumer.write_text('#include "qnnrules/load/RuleRegistry.h"\n' + consumer.read_text())
    write_list(root, run(root, "--print").stdout.split())
    r = run(root)
    assert r.returncode == 1
    assert f"more than {check_public_headers.MAX_INSTALLED}" in r.stdout, r.stdout


if __name__ == "__main__":
    test_the_repository_installs_what_an_embedder_needs()
    for test in (test_a_header_an_embedder_starts_to_need_is_named, test_a_header_no_embedder_needs_is_named,
                 test_more_than_the_limit_fails_even_when_the_list_is_the_closure):
        with tempfile.TemporaryDirectory() as d:
            test(Path(d))
    print("public headers: the list is what an embedder needs; planted differences are named")
