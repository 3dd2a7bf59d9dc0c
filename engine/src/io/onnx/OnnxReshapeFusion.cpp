#include "OnnxReshapeFusion.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "OnnxConstants.h"
#include "OnnxNodeOrder.h"
#include "OnnxTensorData.h"

namespace qnnrules::onnxio {
namespace {

bool isOp(const onnx::NodeProto& n, std::string_view op) { return n.op_type() == op && isDefaultDomain(n.domain()); }

class Fusion {
 public:
  explicit Fusion(onnx::GraphProto& g) : g_(g) {
    for (int i = 0; i < g.node_size(); ++i) {
      for (const std::string& in : g.node(i).input()) ++readers_[in];
      for (const std::string& out : g.node(i).output()) producer_[out] = i;
      if (isOp(g.node(i), "Constant") && g.node(i).output_size() == 1)
        if (const onnx::AttributeProto* v = onnxAttribute(g.node(i), "value"); v && v->has_t())
          constants_[g.node(i).output(0)] = &v->t();
    }
    for (const auto& o : g.output()) ++readers_[o.name()];
    for (const onnx::TensorProto& t : g.initializer()) constants_[t.name()] = &t;
  }

  size_t run() {
    removed_.assign(static_cast<size_t>(g_.node_size()), false);
    size_t fused = 0;
    const int count = g_.node_size();
    for (int i = 0; i < count; ++i) fused += fuse(i) ? 1 : 0;
    if (fused) eraseOnnxNodes(g_, removed_);
    return fused;
  }

 private:
  const onnx::NodeProto* producerOf(const std::string& t, int* index = nullptr) const {
    auto it = producer_.find(t);
    if (it == producer_.end()) return nullptr;
    if (index) *index = it->second;
    return &g_.node(it->second);
  }

  std::optional<std::vector<int64_t>> ints(const std::string& t) const {
    auto it = constants_.find(t);
    std::vector<int64_t> v;
    std::string why;
    if (it == constants_.end() || it->second->data_type() != kInt64 || !readInts(*it->second, v, why)) return std::nullopt;
    return v;
  }

  static int64_t intAttribute(const onnx::NodeProto& n, std::string_view name, int64_t fallback) {
    const onnx::AttributeProto* a = onnxAttribute(n, name);
    return a ? a->i() : fallback;
  }

  // Unsqueeze(axes 0) <- Gather(axis 0, index `position`) <- Shape(root): the chain's nodes, or
  // empty when `t` is not one.
  std::vector<int> dimensionChain(const std::string& t, const std::string& root, int64_t position) const {
    int u = -1, ga = -1, s = -1;
    const onnx::NodeProto* unsqueeze = producerOf(t, &u);
    if (!unsqueeze || !isOp(*unsqueeze, "Unsqueeze") || unsqueeze->input_size() < 1) return {};
    std::vector<int64_t> axes;
    if (const onnx::AttributeProto* a = onnxAttribute(*unsqueeze, "axes")) axes.assign(a->ints().begin(), a->ints().end());
    else if (unsqueeze->input_size() > 1) axes = ints(unsqueeze->input(1)).value_or(std::vector<int64_t>{});
    if (axes != std::vector<int64_t>{0}) return {};
    const onnx::NodeProto* gather = producerOf(unsqueeze->input(0), &ga);
    if (!gather || !isOp(*gather, "Gather") || gather->input_size() != 2 || intAttribute(*gather, "axis", 0) != 0) return {};
    std::optional<std::vector<int64_t>> index = ints(gather->input(1));
    if (!index || index->size() != 1 || (*index)[0] != position) return {};
    const onnx::NodeProto* shape = producerOf(gather->input(0), &s);
    if (!shape || !isOp(*shape, "Shape") || shape->input_size() != 1 || shape->input(0) != root) return {};
    if (onnxAttribute(*shape, "start") || onnxAttribute(*shape, "end")) return {};
    return {u, ga, s};
  }

  bool fuse(int r) {
    const onnx::NodeProto& reshape = g_.node(r);
    // allowzero = 1 reads a 0 as a dimension of 0, not as a copy.
    if (!isOp(reshape, "Reshape") || reshape.input_size() != 2 || intAttribute(reshape, "allowzero", 0) != 0) return false;
    int c = -1;
    const onnx::NodeProto* concat = producerOf(reshape.input(1), &c);
    if (!concat || !isOp(*concat, "Concat") || concat->output_size() != 1 || readers_[concat->output(0)] != 1) return false;
    std::vector<int64_t> shape;
    std::vector<int> chains;
    for (int i = 0; i < concat->input_size(); ++i) {
      if (std::optional<std::vector<int64_t>> v = ints(concat->input(i))) {
        shape.insert(shape.end(), v->begin(), v->end());
        continue;
      }
      std::vector<int> chain = dimensionChain(concat->input(i), reshape.input(0), static_cast<int64_t>(shape.size()));
      if (chain.empty()) return false;
      shape.push_back(0);
      chains.insert(chains.end(), chain.begin(), chain.end());
    }
    if (chains.empty() || std::count(shape.begin(), shape.end(), -1) > 1) return false;

    onnx::TensorProto& t = *g_.add_initializer();
    t.set_name(uniqueName(reshape.output(0) + "_fused_shape"));
    t.set_data_type(kInt64);
    t.add_dims(static_cast<int64_t>(shape.size()));
    for (int64_t d : shape) t.add_int64_data(d);
    constants_[t.name()] = &t;
    --readers_[reshape.input(1)];
    g_.mutable_node(r)->set_input(1, t.name());
    ++readers_[t.name()];
    // The Concat, then each chain from its end: a node goes once nothing reads its outputs (a Shape
    // that two chains read goes with the second).
    release(c);
    for (int n : chains) release(n);
    return true;
  }

  void release(int n) {
    if (removed_[static_cast<size_t>(n)]) return;
    const onnx::NodeProto& node = g_.node(n);
    for (const std::string& o : node.output())
      if (readers_[o] > 0) return;
    removed_[static_cast<size_t>(n)] = true;
    for (const std::string& in : node.input()) --readers_[in];
  }

  std::string uniqueName(const std::string& base) {
    std::string name = base;
    for (int k = 1; producer_.count(name) || constants_.count(name) || readers_.count(name); ++k)
      name = base + "_" + std::to_string(k);
    return name;
  }

  onnx::GraphProto& g_;
  std::unordered_map<std::string, int> readers_;  // node inputs and graph outputs reading a tensor
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, const onnx::TensorProto*> constants_;  // int64 constants by name
  std::vector<bool> removed_;
};

}  // namespace

size_t fuseReshapeShapes(onnx::ModelProto& model) { return Fusion(*model.mutable_graph()).run(); }

}  // namespace qnnrules::onnxio
