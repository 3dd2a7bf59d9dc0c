// Which tensors of an ONNX graph ONNX Runtime cannot give a static shape when it creates a
// session: their shape depends on a value it computes only at run time. Internal to the ONNX
// reader module.
//
// ORT makes shapes static before an execution provider sees the graph: its shape inference (the
// ONNX inference functions) runs after its level-1 constant folding, which replaces Shape of a
// tensor whose shape is static, and any deterministic node whose inputs are all constants, by a
// constant (microsoft/onnxruntime onnxruntime/core/optimizer/constant_folding.cc). It never folds
// DequantizeLinear while QDQ handling is on (the default: skip_dequantize_linear), so shape
// arithmetic that a quantizer gave Q/DQ pairs (MobileViT's patch unfolding, whose Ceil and Mul on
// sizes are float ops) stays a run-time value, and so does every shape computed from it. The QNN
// EP refuses a node with such a tensor ("Cannot get shape"), and it runs on CPU.
//
// The reader's own shape inference (ONNX's, without data propagation) leaves more dimensions
// unknown than ORT does (shape arithmetic folded to constants), so a dimension it does not know is
// not taken as a run-time one: this analysis follows values instead. A tensor's shape is a
// run-time one when it is a graph input with a symbolic dimension, when its producer's output
// shape depends on the value of an input that ORT does not fold (the shape input of Reshape,
// Expand, Tile, Slice, ...), or on the shape of an input whose shape is a run-time one, or when
// the producer's output shape is data-dependent by nature (NonZero, Unique, ...). A shape the
// reader inferred in full is static whatever this says.
//
// The same folding rule decides which values ORT computes when the graph runs although they
// depend on constants only: a node reading a quantized constant (a DequantizeLinear ORT keeps) is
// not folded, so it reaches the execution provider (GPT-2's position-embedding Gather of a weight
// table, T5's relative-position buckets: Div, Log, Div of quantized constants; patterns
// static_gather, static_add, static_reshape, static_log; a DQ -> Transpose -> Q unit folds:
// static_transpose).
#pragma once

#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

namespace qnnrules::onnxio {

// `order`: the nodes, producers first (OnnxNodeOrder.h). `inferredStatic(name)`: the reader knows
// every dimension of the tensor. `isConstant(name)`: an initializer or a Constant node's output.
struct RuntimeTensors {
  std::unordered_set<std::string> shapes;  // tensors whose shape ORT knows only at run time
  std::unordered_set<std::string> values;  // outputs of nodes of constants only that ORT does not fold
};

RuntimeTensors runtimeTensors(const onnx::GraphProto& g, const std::vector<int>& order,
                              const std::function<bool(const std::string&)>& inferredStatic,
                              const std::function<bool(const std::string&)>& isConstant);

}  // namespace qnnrules::onnxio
