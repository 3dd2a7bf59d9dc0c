// ONNX Runtime's QDQ node units, as its QNN execution provider forms them: a node is handed to
// QNN quantized only when ORT groups it with its DequantizeLinear inputs and QuantizeLinear
// outputs. Its selectors (microsoft/onnxruntime onnxruntime/core/optimizer/qdq_transformer/
// selectors_actions/qdq_selectors.cc, NodeGroupSelector::CheckQDQNodes) group a node only when
// every data input comes from a DequantizeLinear and every output goes to QuantizeLinear nodes
// only. Otherwise the node is a unit of its own: QNN gets it with float32 tensors (the DQ and Q
// nodes around it become QNN Dequantize / Quantize ops), and HTP runs float32 in FP16
// (the EP's enable_htp_fp16_precision, on by default). torch.onnx writes such nodes: a float
// scalar initializer as Add/Mul's second input (RMSNorm's epsilon, attention's scale), and
// decompositions with no Q/DQ inside (rsqrt -> Sqrt -> Reciprocal, silu -> Sigmoid -> Mul).
// Oracle: the Quantizer suite's llama and efficientnet_b0 (tests/conformance/quantizer/), whose
// verbose EP log shows "Validation PASSED for 1 nodes in OrtNodeUnit (Add)" and "Validating Op
// node_add_3 with precision FP16" with FLOAT_32 tensors.
#pragma once

#include <cstddef>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {

// For every call node with a rule whose ports are partly quantized (an input read through a
// DequantizeLinear, an output only QuantizeLinear nodes read) and partly float (a floating-point
// input read without one, a floating-point output read without one or not quantized at all),
// marks its quantized ports float32, as the EP hands them to QNN. Integer and boolean tensors
// (indices, shapes, masks) take no part: ORT's selectors do not ask for their Q/DQ. Returns how
// many nodes it changed. For graphs read from ONNX: a torch graph's Q/DQ nodes are not the
// exporter's ONNX (scalars are literals there, silu one node, getitem between outputs).
size_t floatUngroupedQdqNodes(Graph& graph, const RuleSet& rules);

}  // namespace qnnrules
