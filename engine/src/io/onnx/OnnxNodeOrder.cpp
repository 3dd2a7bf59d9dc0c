#include "OnnxNodeOrder.h"

#include <functional>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace qnnrules {

std::string onnxNodeLabel(const onnx::NodeProto& n) {
  std::string name = n.name();
  for (int i = 0; name.empty() && i < n.output_size(); ++i) name = n.output(i);
  if (name.empty()) name = n.op_type();
  return "node '" + name + "' (" + n.op_type() + ")";
}

std::optional<std::string> onnxNodeOrder(const onnx::GraphProto& g, std::vector<int>& order) {
  std::unordered_map<std::string_view, int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string& o : g.node(i).output()) {
      if (o.empty()) continue;
      if (!producer.emplace(o, i).second)
        return ("tensor '" + o + "' is produced twice (by " + onnxNodeLabel(g.node(producer[o])) + " and " +
                    onnxNodeLabel(g.node(i)) + ")");
    }
  std::unordered_set<std::string_view> outside;  // graph inputs and initializers
  for (const auto& v : g.input()) outside.insert(v.name());
  for (const auto& t : g.initializer()) outside.insert(t.name());
  std::vector<std::vector<int>> users(static_cast<size_t>(g.node_size()));
  std::vector<int> pending(static_cast<size_t>(g.node_size()), 0);
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    for (int k = 0; k < n.input_size(); ++k) {
      const std::string& in = n.input(k);
      if (in.empty() || outside.count(in)) continue;
      auto p = producer.find(in);
      if (p == producer.end()) {
        const bool qdqParam = (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") && k > 0;
        return (onnxNodeLabel(n) + " input " + std::to_string(k) + " '" + in + "' " +
                    (qdqParam ? "is a missing initializer: no initializer, Constant node or graph input has that name"
                              : "is unknown: no node, graph input or initializer produces it"));
      }
      users[static_cast<size_t>(p->second)].push_back(i);
      ++pending[static_cast<size_t>(i)];
    }
  }
  for (const auto& o : g.output())
    if (!o.name().empty() && !outside.count(o.name()) && !producer.count(o.name()))
      return ("graph output '" + o.name() + "' is unknown: no node, graph input or initializer produces it");
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < g.node_size(); ++i)
    if (pending[static_cast<size_t>(i)] == 0) ready.push(i);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[static_cast<size_t>(i)])
      if (--pending[static_cast<size_t>(u)] == 0) ready.push(u);
  }
  if (order.size() == static_cast<size_t>(g.node_size())) return std::nullopt;
  for (int i = 0; i < g.node_size(); ++i)
    if (pending[static_cast<size_t>(i)] > 0)
      return ("the graph has a cycle: " + onnxNodeLabel(g.node(i)) + " depends on its own output");
  return ("the graph has a cycle");
}

void eraseOnnxNodes(onnx::GraphProto& g, const std::vector<bool>& removed) {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < g.node_size(); ++i)
    if (!removed[static_cast<size_t>(i)]) kept.Add()->Swap(g.mutable_node(i));
  g.mutable_node()->Swap(&kept);
}

}  // namespace qnnrules
