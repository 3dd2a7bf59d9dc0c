"""Python threads sharing one Engine (the engine releases the GIL while it works): every
thread gets what one thread gets. The C++ side of the same property runs under
ThreadSanitizer (tests/concurrency/, scripts/test.sh); the uninstrumented interpreter cannot."""

import os
from concurrent.futures import ThreadPoolExecutor

import qnnrules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = [os.path.join(ROOT, "examples", n) for n in ("tiny_cnn_8a8w.json", "violations.json", "lpbq_linear.json")]


def outcome(engine, path):
    graph = qnnrules.Graph.from_file(path)
    report = engine.check(graph)
    annotated = engine.annotate(qnnrules.Graph.from_file(path), config="16a8w")
    return ([str(d) for d in report.diagnostics], str(engine.delegation(graph)), annotated.to_json())


def test_eight_threads_on_one_engine_agree_with_one_thread(engine):
    expected = {p: outcome(engine, p) for p in EXAMPLES}
    jobs = [EXAMPLES[i % len(EXAMPLES)] for i in range(32)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda p: (p, outcome(engine, p)), jobs))
    for path, got in results:
        assert got == expected[path], f"{os.path.basename(path)} differs in a thread"


def test_graph_errors_from_threads_are_graph_errors(engine, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "qnnrules-graph", "version": 1, "nodes": [{"name": "x", "kind": "inp')

    def read(_):
        try:
            qnnrules.Graph.from_file(bad)
        except qnnrules.GraphError as e:
            return type(e).__name__
        return "accepted"

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(read, range(16))) == {"GraphError"}
