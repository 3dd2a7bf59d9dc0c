#include "BoundaryConversionPolicy.h"

#include <cctype>

namespace qnnrules::backends {
namespace {

enum class QdqKind : uint8_t { kOther, kQuantize, kDequantize };

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// quantized_decomposed.{quantize,dequantize}_per_{tensor,channel}.* and the aten forms.
QdqKind classify(std::string_view target) {
  if (startsWith(target, "quantized_decomposed.quantize_") || startsWith(target, "aten.quantize_per_"))
    return QdqKind::kQuantize;
  if (startsWith(target, "quantized_decomposed.dequantize_") || startsWith(target, "aten.dequantize"))
    return QdqKind::kDequantize;
  return QdqKind::kOther;
}

}  // namespace

BoundaryConversionPolicy::BoundaryConversionPolicy(std::string backend, DelegationFacts facts)
    : backend_(std::move(backend)), facts_(std::move(facts)) {
  for (char c : backend_) displayName_ += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}

std::vector<PolicyPlacement> BoundaryConversionPolicy::cpuNodes(const Graph& graph, const UserIndex& users) const {
  std::vector<QdqKind> kindOf(graph.targets().size());
  for (size_t t = 0; t < kindOf.size(); ++t) kindOf[t] = classify(graph.targets()[t]);
  std::vector<PolicyPlacement> out;
  for (uint32_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& n = graph.node(i);
    if (n.kind != NodeKind::kCall || n.targetId == Node::kNoTarget) continue;
    QdqKind k = kindOf[n.targetId];
    if (k == QdqKind::kQuantize && !facts_.inputQuantizeOnCpu.empty()) {
      for (uint32_t p : users.producers(i)) {
        if (graph.node(p).kind != NodeKind::kInput) continue;
        out.push_back({i, displayName_ + " keeps the quantize of graph input '" + graph.node(p).name + "' on CPU (" +
                              facts_.inputQuantizeOnCpu + ")"});
        break;
      }
    } else if (k == QdqKind::kDequantize && !facts_.outputDequantizeOnCpu.empty() && users.isGraphOutput(i)) {
      out.push_back({i, displayName_ + " keeps the dequantize of a graph output on CPU (" +
                            facts_.outputDequantizeOnCpu + ")"});
    }
  }
  return out;
}

std::vector<PolicyPlacement> BoundaryConversionPolicy::cpuConversions(const Graph& graph, const UserIndex& users) const {
  std::vector<PolicyPlacement> out;
  auto quantized = [](const Node& n) {
    for (const TensorMeta& t : n.outputs)
      if (t.qspec) return true;
    return false;
  };
  // The annotator puts an input's spec on its consumers' edges, not on the input itself.
  auto readQuantized = [&](uint32_t input) {
    for (uint32_t u : users.users(input))
      for (const Argument& a : graph.node(u).args) {
        if (a.kind == Argument::Kind::kTensor && a.tensor.node == input && a.qspec) return true;
        for (const Argument& e : a.list)
          if (e.kind == Argument::Kind::kTensor && e.tensor.node == input && e.qspec) return true;
      }
    return false;
  };
  for (uint32_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& n = graph.node(i);
    if (n.kind == NodeKind::kInput && !facts_.inputQuantizeOnCpu.empty() && (quantized(n) || readQuantized(i)))
      out.push_back({i, "quantize of graph input '" + n.name + "' runs on CPU"});
    else if (n.kind != NodeKind::kInput && !facts_.outputDequantizeOnCpu.empty() && users.isGraphOutput(i) &&
             quantized(n))
      out.push_back({i, "dequantize of graph output '" + n.name + "' runs on CPU"});
  }
  return out;
}

}  // namespace qnnrules::backends
