#include "OnnxTransposeFold.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "OnnxConstants.h"
#include "OnnxNodeOrder.h"

namespace qnnrules::onnxio {
namespace {

bool isOp(const onnx::NodeProto& n, std::string_view op) { return n.op_type() == op && isDefaultDomain(n.domain()); }

}  // namespace

size_t foldTransposesOfDequantizedConstants(onnx::ModelProto& model) {
  onnx::GraphProto& g = *model.mutable_graph();
  std::unordered_map<std::string, int> readers;  // tensor -> how many node inputs and graph outputs read it
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string& in : g.node(i).input()) ++readers[in];
    for (const std::string& out : g.node(i).output()) producer[out] = i;
  }
  for (const auto& o : g.output()) ++readers[o.name()];
  std::unordered_map<std::string, onnx::TensorProto*> initializers;
  for (onnx::TensorProto& t : *g.mutable_initializer()) initializers[t.name()] = &t;

  std::vector<bool> removed(static_cast<size_t>(g.node_size()), false);
  size_t folded = 0;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& t = g.node(i);
    if (!isOp(t, "Transpose") || t.input_size() != 1 || t.output_size() != 1) continue;
    auto p = producer.find(t.input(0));
    if (p == producer.end()) continue;
    onnx::NodeProto& dq = *g.mutable_node(p->second);
    if (!isOp(dq, "DequantizeLinear") || dq.input_size() < 1 || readers[t.input(0)] != 1) continue;
    auto w = initializers.find(dq.input(0));
    if (w == initializers.end() || readers[dq.input(0)] != 1) continue;
    onnx::TensorProto& init = *w->second;
    const int rank = init.dims_size();
    std::vector<int64_t> perm;
    if (const onnx::AttributeProto* a = onnxAttribute(t, "perm")) perm.assign(a->ints().begin(), a->ints().end());
    if (perm.empty())
      for (int d = rank - 1; d >= 0; --d) perm.push_back(d);  // ONNX's default: reverse the axes
    if (static_cast<int>(perm.size()) != rank) continue;
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    bool valid = true;
    for (int64_t d : perm) {
      valid = valid && d >= 0 && d < rank && !seen[static_cast<size_t>(d)];
      if (valid) seen[static_cast<size_t>(d)] = true;
    }
    if (!valid) continue;
    // Only the dims move: the engine reads a weight's shape and its DequantizeLinear's scales
    // and zero points, never the weight's own elements, so their order is left as stored.
    std::vector<int64_t> dims(init.dims().begin(), init.dims().end());
    for (int d = 0; d < rank; ++d) init.set_dims(d, dims[static_cast<size_t>(perm[static_cast<size_t>(d)])]);
    // The per-channel (or block) axis moves to where the permutation puts it; per-tensor
    // DequantizeLinear ignores it.
    onnx::AttributeProto* axis = nullptr;
    for (onnx::AttributeProto& a : *dq.mutable_attribute())
      if (a.name() == "axis") axis = &a;
    int64_t old = axis ? axis->i() : 1;
    if (old < 0) old += rank;
    for (int d = 0; d < rank; ++d)
      if (perm[static_cast<size_t>(d)] == old) {
        if (!axis) {
          axis = dq.add_attribute();
          axis->set_name("axis");
          axis->set_type(onnx::AttributeProto::INT);
        }
        axis->set_i(d);
      }
    dq.set_output(0, t.output(0));
    removed[static_cast<size_t>(i)] = true;
    ++folded;
  }
  if (folded) eraseOnnxNodes(g, removed);
  return folded;
}

}  // namespace qnnrules::onnxio
