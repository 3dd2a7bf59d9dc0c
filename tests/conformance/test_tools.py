"""Unit tests of the conformance tools that need no venv: the QNN EP log parser (on an excerpt of
a real oracle log, tests/conformance/qnn_ep_log_excerpt.txt) and the graph-format writer.
Run: python3 tests/conformance/test_tools.py"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from conformance import graph_build, logparse  # noqa: E402


class LogParse(unittest.TestCase):
    def setUp(self):
        with open(os.path.join(HERE, "qnn_ep_log_excerpt.txt")) as f:
            self.nodes, self.finalize = logparse.parse(f.read())

    def test_rejected_node_carries_qnn_message(self):
        v = logparse.verdict_of(self.nodes, "log_softmax.8a_signed.SM8350")
        self.assertEqual(v["verdict"], "rejected")
        self.assertEqual(v["qnn_message"],
                         "QNN.backendValidateOpConfig() failed for LogSoftmax with error code 3110: "
                         "Unsupported input/output datatypes requested for the HTP Op 'LogSoftmax'. "
                         "There is a mismatch for the combination of inputs and outputs.")
        self.assertEqual(v["reason"], "Failed to add node.")

    def test_accepted_node(self):
        v = logparse.verdict_of(self.nodes, "relu.8a.SM8350")
        self.assertEqual(v["verdict"], "accepted")
        self.assertIsNone(v["qnn_message"])

    def test_io_dq_is_not_the_case_node(self):
        # The graph-output DQ is refused by EP configuration; it must not count for the case.
        self.assertEqual(self.nodes["relu.8a.SM8350.out0_DQ"]["verdict"], "rejected")
        self.assertEqual(logparse.verdict_of(self.nodes, "relu.8a.SM8350")["verdict"], "accepted")

    def test_unknown_node(self):
        self.assertIsNone(logparse.verdict_of(self.nodes, "relu.8a.SM8450"))

    def test_finalize_failure_names_the_op(self):
        self.assertEqual(self.finalize, {"elu.fp32.SM8350": "graph finalize: could not create op "
                                                            "(could not create op: q::QNN_Elu)"})


class GraphBuild(unittest.TestCase):
    def test_blockwise_weight_qspec(self):
        enc = {"q": "int4", "scale": [0.02, 0.022], "zp": [0, 0], "axis": 0, "block": 32}
        self.assertEqual(graph_build.qspec(enc, 2), {
            "dtype": "int8", "quant_min": -8, "quant_max": 7, "qscheme": "per_channel_symmetric", "ch_axis": 0,
            "scale": [0.02, 0.022], "zero_point": [0, 0], "block_size": [1, 32]})

    def test_scalar_operand_is_a_literal(self):
        case = {"id": "add_scalar/8a/SM8650", "aten": "aten.add.Scalar", "aten_args": ["$0", 2],
                "inputs": [{"role": "act", "shape": [1, 2], "enc": {"q": "uint8", "scale": 0.05, "zp": 128}},
                           {"role": "scalar", "shape": [], "enc": {"q": "uint8", "scale": 0.05, "zp": 128}}],
                "outputs": [{"shape": [1, 2], "enc": {"float": "float16"}}]}
        nodes, call = graph_build.case_nodes(case)
        self.assertEqual(call, "add_scalar.8a.SM8650")
        self.assertEqual([n["name"] for n in nodes], ["add_scalar.8a.SM8650.in0", "add_scalar.8a.SM8650"])
        self.assertEqual(nodes[1]["args"][1], 2)
        self.assertEqual(nodes[1]["outputs"], [{"dtype": "float16", "shape": [1, 2]}])


if __name__ == "__main__":
    unittest.main()
