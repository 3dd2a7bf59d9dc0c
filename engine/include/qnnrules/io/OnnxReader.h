// ONNX models (ModelProto, any opset up to 23 that the op types allow) -> Graph.
//
// Every ONNX node becomes a call node named after the node (or its first output) with the
// target "onnx::<OpType>" ("<domain>::<OpType>" outside the default domain), its inputs as
// positional tensor arguments and its attributes as keyword arguments. QuantizeLinear and
// DequantizeLinear become the graph's quantize/dequantize nodes, so foldQdq (QdqFold.h)
// folds them as it folds converted pt2e graphs; bindOnnxOps (OnnxBinding.h) then maps the
// onnx:: nodes onto the rules. Initializers are parameters; weights are never read (external
// data is fine), only the scales and zero points of Q/DQ nodes. Shapes come from value_info,
// or from ONNX shape inference where it is missing.
#pragma once

#include <string>
#include <string_view>

#include "qnnrules/io/GraphReader.h"

namespace qnnrules {

// `bytes` is the serialized ModelProto. Errors (not protobuf, no graph, an input that no node,
// graph input or initializer provides, a cycle, a Q/DQ scale or zero point that is not an
// initializer or a Constant) are a failed status naming the model and the node.
GraphReadResult readOnnxModel(std::string_view bytes, const std::string& displayName);

}  // namespace qnnrules
