// Internal to the ONNX reader: ONNX shape inference, guarded against the inference functions of
// the ONNX library Debian 12 ships (1.12) that read past what they check. Its convolution and
// pooling inference indexes the weight's shape and the kernel/stride/pad/dilation attributes
// by the input's rank without checking that they agree (a rank-4 input with a rank-5 weight
// dereferences null: found by fuzz_graph_onnx), and dereferences the weight's type when the
// weight has none. Newer ONNX releases check these; until Debian's library does, each such
// op's inference runs behind a check of those preconditions, and a model that breaks them
// keeps those shapes unknown, and the reader then refuses the node with convLikeProblem's
// sentence (a model whose convolution ranks disagree cannot run anywhere).
#pragma once

#include <string>
#include <string_view>

namespace onnx {
class ModelProto;
class NodeProto;
}

namespace qnnrules::onnxio {

// The ranks of a convolution or pooling node's operands (-1: unknown).
struct ConvLikeRanks {
  int input = -1;
  int weight = -1;
};

// Whether `opType` (default domain) is a convolution or pooling op, and the index of its
// weight input (-1: none, kernel_shape is required instead).
bool isConvLike(std::string_view opType);
int convLikeWeightInput(std::string_view opType);

// The first way a convolution or pooling node's input rank, weight rank and kernel_shape /
// strides / dilations / pads / output_padding / output_shape attributes disagree; empty when
// they agree (or when too little is known to tell).
std::string convLikeProblem(const onnx::NodeProto& node, ConvLikeRanks ranks);

// Infers the value shapes the model does not declare. Node-level failures are ignored, and
// nothing is thrown: shapes that cannot be inferred stay unknown, which only matters to rules
// that split on rank.
void inferShapesGuarded(onnx::ModelProto& model);

}  // namespace qnnrules::onnxio
