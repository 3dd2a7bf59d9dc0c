// The constant values of an ONNX graph its reader needs: initializers, Constant nodes' values,
// and the values of the small ops ONNX Runtime's constant folding removes before an execution
// provider sees the graph (Identity, Cast, ConstantOfShape, Reshape/Unsqueeze/Squeeze of
// constants), so a Q/DQ node can read its scale or zero point through them. Internal to the
// ONNX reader module.
#pragma once

#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "OnnxTensorData.h"

namespace qnnrules::onnxio {

inline bool isDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

// Ops whose output is a constant when every input is one: what torch.onnx puts between a
// constant and a Q/DQ parameter, and what ONNX Runtime's constant folding removes.
bool isFoldableOp(const onnx::NodeProto& n);

// The node's attribute `name`, or null.
const onnx::AttributeProto* onnxAttribute(const onnx::NodeProto& n, std::string_view name);

// Holds pointers into the model: the model must outlive it.
class OnnxConstants {
 public:
  void addInitializer(const onnx::TensorProto& t);
  const onnx::TensorProto* initializer(const std::string& name) const;
  // The value of a constant tensor (an initializer, a Constant node's, a folded one), or null.
  const onnx::TensorProto* value(const std::string& name) const;
  bool isConstant(const std::string& name) const;
  // A foldable op whose inputs are all constant: its output is a constant too.
  bool foldable(const onnx::NodeProto& on) const;

  // A Constant node's value (value, value_float or value_int), or null.
  const onnx::TensorProto* constantNodeValue(const onnx::NodeProto& on);
  // The value of a foldable node when it is small (Q/DQ parameters are) and every value it
  // needs is known; null otherwise (its output is still a constant, without values).
  const onnx::TensorProto* foldValue(const onnx::NodeProto& on);
  // `output` is a constant, with `value` when it is known.
  void record(const std::string& output, const onnx::TensorProto* value);

 private:
  std::optional<std::vector<int64_t>> constantInts(const onnx::NodeProto& on, int k) const;
  std::optional<std::vector<int64_t>> reshapedDims(const onnx::NodeProto& on, std::vector<int64_t> d,
                                                   int64_t count) const;

  std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
  std::unordered_map<std::string, const onnx::TensorProto*> values_;  // Constant and folded values
  std::unordered_set<std::string> constantNames_;  // Constant and folded outputs, with or without values
  std::deque<onnx::TensorProto> owned_;  // scalar Constant attributes, folded values (stable addresses)
};

}  // namespace qnnrules::onnxio
