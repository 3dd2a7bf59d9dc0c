// What a diagnostic tells its reader to do, in the words of the tool that made the graph, and
// where the node sits in the model. Run once over a run's diagnostics, after validation
// (EnginePipeline.cpp); only diagnostics are touched, never the per-node path.
//
// - Hints by input kind: the checks write pt2e remedies (a FixedQParams observer, a
//   SharedQuantizationSpec); for an ONNX model they become ONNX Runtime's
//   (microsoft/onnxruntime onnxruntime/python/tools/quantization/execution_providers/qnn/
//   quant_config.py: get_qnn_qdq_config's activation_type / weight_type / per_channel /
//   *_symmetric and init_overrides, its tensor overrides), for a torch graph ExecuTorch's
//   QnnQuantizer options are named beside them (pytorch/executorch
//   backends/qualcomm/quantizer/quantizer.py: QuantDtype, set_default_quant_config).
// - The `no-rule` hint carries an overlay rule to start from.
// - Source ops: Diagnostic::sourceOp, the op type the user's file names for the node (an ONNX
//   node's "onnx::Gemm" beside the rule's aten.linear.default).
// - Module paths: Diagnostic::module, from the graph's module path (nn_module_stack of a .pt2)
//   or an ONNX node name's namespace ("/layer1/layer1.0/conv1/Conv" -> "/layer1/layer1.0/conv1").
#pragma once

#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {

enum class InputKind : uint8_t {
  kTorch,  // a torch.export archive, or a JSON graph of ATen ops (pt2e remedies)
  kOnnx,   // an ONNX model (ONNX Runtime remedies)
};

void adaptDiagnostics(DiagnosticList& diagnostics, const Graph& graph, const RuleSet& rules, const std::string& backend,
                      InputKind kind);

}  // namespace qnnrules
