"""The graph differential tester (issue 32): random small float ONNX graphs, quantized with ONNX
Runtime's QNN workflow, run on the real HTP backend and through qnn-validate; every disagreement is
minimized to a small reproducer and kept as a regression case (tests/conformance/differential/).

Why: the unit cases and the model zoo show the backend what someone chose to show it; random
graphs combine ops, ranks, shapes and exporter forms nobody chose, which is where the rules were
found to generalize badly (issue 32's five mechanisms).

Modules: graph (the builder a graph is drawn into, replayable), ops (the op forms drawn), generate
(seeded drawing and validity checks), check (oracle + qnn-validate on one quantized graph and the
disagreement kinds), minimize (delta debugging), run (the time-boxed loop), data (the files in
tests/conformance/differential/), mechanisms (one-line guesses), doc (docs/conformance-differential.md).
They run in the project's venv (onnx, numpy, onnxruntime-qnn); the recorded data is compared by
tools/conformance/models/compare.py with the standard library only.
"""
