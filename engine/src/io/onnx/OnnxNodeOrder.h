// The order an ONNX graph's nodes are read in: producers before users (ONNX requires it, files do
// not always obey), ties in file order; and the names its errors give nodes. Internal to io/.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

namespace qnnrules {

// "node 'name' (OpType)": the node's name, else its first output's, else its op type.
std::string onnxNodeLabel(const onnx::NodeProto& n);

// Removes the nodes whose index is marked in `removed` (one flag per node), keeping the others' order.
void eraseOnnxNodes(onnx::GraphProto& g, const std::vector<bool>& removed);

// Fills `order` with node indices, producers first; or says why there is none (a tensor
// produced twice, an unknown input or graph output, a cycle).
std::optional<std::string> onnxNodeOrder(const onnx::GraphProto& g, std::vector<int>& order);

}  // namespace qnnrules
