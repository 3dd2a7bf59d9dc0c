"""Tests of the graph differential tester's generator and kinds (tools/conformance/differential/).

Needs the project's venv (onnx, numpy, onnxruntime): CTest runs it only where .venv exists
(conformance_differential_generate). No oracle: what minimization and the recorded seeds rely on —
a seed names one graph, byte for byte; every graph build() returns is valid ONNX that ONNX
Runtime's CPU session runs; the recorded specs still build the recorded files; leaving a step out
keeps every other step's draws; minimization reduces a graph to what a (fake) disagreement needs;
a disagreement's kind ignores node names and numbers but keeps the side, the op and the outcome pair.
"""
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402

from conformance.differential import check, generate, minimize  # noqa: E402

SEEDS = [generate.graph_seed(4242, i) for i in range(25)]


class Generator(unittest.TestCase):
    def test_a_seed_is_one_graph(self):
        for seed in SEEDS[:10]:
            a = generate.draw(seed).model().SerializeToString()
            b = generate.draw(seed).model().SerializeToString()
            self.assertEqual(a, b, seed)
        self.assertNotEqual(generate.draw(SEEDS[0]).model().SerializeToString(),
                            generate.draw(SEEDS[1]).model().SerializeToString())

    def test_built_graphs_are_valid_and_run(self):
        valid = 0
        with tempfile.TemporaryDirectory() as tmp:
            for seed in SEEDS:
                path = os.path.join(tmp, "g.onnx")
                try:
                    b = generate.build(path, seed)
                except generate.Invalid as e:
                    self.assertIn(e.reason, ("non-finite", "ort-cpu", "too-small"), f"{seed}: {e}")
                    continue
                valid += 1
                m = onnx.load(path)
                onnx.checker.check_model(m, full_check=True)  # independently of build's own checks
                self.assertEqual(m.opset_import[0].version, 17)
                self.assertTrue(generate.MIN_NODES <= len(m.graph.node) <= generate.MAX_NODES, seed)
                self.assertEqual(len(m.graph.node), b.emitted)
                ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        # Discards are the exception: a generator that mostly draws invalid graphs wastes the oracle.
        self.assertGreaterEqual(valid, len(SEEDS) * 0.8)

    def test_skipping_a_step_keeps_the_others(self):
        for seed in SEEDS[:10]:
            full = generate.draw(seed)
            if len(full.steps) < 3:
                continue
            cut = generate.draw(seed, skip=[1])
            self.assertEqual(cut.steps, full.steps, seed)  # same forms drawn in the same order
            self.assertLess(len(cut.nodes), len(full.nodes))
            skipped = [n for n, _, kind in cut.inputs if kind == "skipped"]
            self.assertTrue(skipped and all(n.startswith("/s1/") for n in skipped), skipped)

    def test_scale_makes_graphs_smaller(self):
        smaller = 0
        for seed in SEEDS[:10]:
            full, small = generate.draw(seed).model(), generate.draw(seed, scale=16).model()
            smaller += small.ByteSize() < full.ByteSize()
        self.assertGreaterEqual(smaller, 7)


class Recorded(unittest.TestCase):
    """The recorded reproducers and samples name their graph by spec (seed, scale, lower, skip): the
    generator and ORT's quantizer must still make those files, or the specs mean nothing."""

    def test_specs_rebuild_the_recorded_files(self):
        import json
        import logging
        from conformance.models.build import quantize
        logging.getLogger().setLevel(logging.ERROR)
        data = os.path.join(ROOT, "tests", "conformance", "differential")
        with open(os.path.join(data, "verdicts.json")) as f:
            cases = {c["model"]: c for c in json.load(f)["cases"]}
        with tempfile.TemporaryDirectory() as tmp:
            for c in sorted(cases.values(), key=lambda c: c["file"])[::20]:
                d, fp, qp = c["differential"], os.path.join(tmp, "f.onnx"), os.path.join(tmp, "q.onnx")
                generate.build(fp, d["seed"], **d["spec"])
                quantize(fp, qp, c["config"], d["seed"])
                with open(qp, "rb") as a, open(os.path.join(data, "onnx", c["file"]), "rb") as b:
                    self.assertEqual(a.read(), b.read(), c["file"])


class Minimize(unittest.TestCase):
    """ddmin over (scale, lower, skip) with the oracle replaced by a predicate on the graph."""

    def test_reduces_to_the_node_the_predicate_needs(self):
        seed = next(s for s in SEEDS if "Softmax" in generate.draw(s).steps and generate.draw(s).emitted >= 10)

        class Fake(minimize.Minimizer):
            def reproduces(self, spec):
                self.checks += 1
                b = generate.draw(self.seed, **spec)
                return any(n.op_type == "Softmax" for n in b.model().graph.node)

        m = Fake(seed, "8a8w", "SM8650", "FN Softmax: x [C/Q]", validate=None, cap_s=60)
        spec = m.run()
        small = generate.draw(seed, **spec).model()
        self.assertEqual([n.op_type for n in small.graph.node], ["Softmax"])
        self.assertGreater(spec["scale"], 1)
        self.assertLess(small.ByteSize(), generate.draw(seed).model().ByteSize())


def node(name, op, verdict, placement, message=None):
    return {"name": name, "op": op, "domain": "ai.onnx", "verdict": verdict, "placement": placement,
            "message": message}


def pred(outcome, refused=()):
    return {"outcome": outcome, "error": None, "session_failure": None,
            "refused": {n: {"reason": "invalid", "code": "rank", "message": "m"} for n in refused}}


class Kinds(unittest.TestCase):
    CASE = {"outcome": "cpu-fallback", "session_error": None, "finalize_errors": [], "nodes": [
        node("/s1/LayerNormalization.5", "LayerNormalization", "rejected", "CPU",
             "QNN.backendValidateOpConfig() failed for LayerNorm with error code 3110: [4294967295] has incorrect "
             "Rank 5. (Failed to add node.)"),
        node("/s2/Relu.6", "Relu", "accepted", "QNN")]}

    def test_a_false_negative_is_named_by_op_message_and_outcomes(self):
        k = check.kinds(self.CASE, {"strict": pred("all-qnn"), "warn": pred("all-qnn")})
        self.assertEqual(list(k), ["FN LayerNormalization: LayerNorm: has incorrect Rank N. [C/Q]"])
        self.assertEqual(k[list(k)[0]]["modes"], {"strict", "warn"})

    def test_a_false_positive_is_named_by_the_rule_code(self):
        k = check.kinds(self.CASE, {"strict": pred("cpu-fallback", ["/s1/LayerNormalization.5", "/s2/Relu.6"])})
        self.assertEqual(list(k), ["FP Relu: rank [C/C]"])

    def test_agreement_has_no_kind_and_a_graph_disagreement_has_one(self):
        self.assertEqual(check.kinds(self.CASE, {"strict": pred("cpu-fallback", ["/s1/LayerNormalization.5"])}), {})
        failed = dict(self.CASE, outcome="session-failure", session_error="Failed to finalize QNN graph. Code: 1002",
                      nodes=[node("/s2/Relu.6", "Relu", "accepted", None)])
        self.assertEqual(list(check.kinds(failed, {"strict": pred("all-qnn")})),
                         ["graph session-failure vs all-qnn: Failed to finalize QNN graph. Code: N"])


if __name__ == "__main__":
    unittest.main()
