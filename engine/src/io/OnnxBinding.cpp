#include "qnnrules/io/OnnxBinding.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace qnnrules {
namespace {

constexpr std::string_view kOnnxPrefix = "onnx::";

// The candidates of each interned target, looked up once per distinct target.
std::vector<const std::vector<OnnxCandidate>*> candidatesByTarget(const Graph& g, const RuleSet& rules) {
  std::vector<const std::vector<OnnxCandidate>*> out(g.targets().size(), nullptr);
  for (size_t t = 0; t < g.targets().size(); ++t) {
    std::string_view s = g.targets()[t];
    if (s.substr(0, kOnnxPrefix.size()) == kOnnxPrefix) out[t] = rules.onnxCandidates(s.substr(kOnnxPrefix.size()));
  }
  return out;
}

bool isConstantArg(const Graph& g, const Node& n, size_t i) {
  if (i >= n.args.size() || n.args[i].kind != Argument::Kind::kTensor) return false;
  NodeKind k = g.node(n.args[i].tensor.node).kind;
  return k == NodeKind::kParameter || k == NodeKind::kConstant;
}

bool isActivationArg(const Graph& g, const Node& n, size_t i) {
  return i < n.args.size() && n.args[i].kind == Argument::Kind::kTensor && !isConstantArg(g, n, i);
}

bool matches(const Graph& g, const Node& n, const OnnxMapping& m) {
  if (!m.ranks.empty()) {
    if (n.args.empty() || n.args[0].kind != Argument::Kind::kTensor) return false;
    const TensorRef& t = n.args[0].tensor;
    const Node& p = g.node(t.node);
    if (t.output >= p.outputs.size()) return false;
    const int rank = static_cast<int>(p.outputs[t.output].shape.size());
    if (std::find(m.ranks.begin(), m.ranks.end(), rank) == m.ranks.end()) return false;
  }
  for (int i : m.constantInputs)
    if (!isConstantArg(g, n, static_cast<size_t>(i))) return false;
  for (int i : m.activationInputs)
    if (!isActivationArg(g, n, static_cast<size_t>(i))) return false;
  return true;
}

// ONNX inputs -> the argument positions of the rule's ports.
void rebind(Node& n, const Rule& rule, const OnnxCandidate& c) {
  size_t width = 0;
  for (int p : c.portOf)
    if (p >= 0) width = std::max(width, static_cast<size_t>(rule.ports[static_cast<size_t>(p)].index) + 1);
  std::vector<Argument> onnxArgs = std::move(n.args);
  n.args.assign(width, Argument{});
  std::vector<Argument> unbound;
  for (size_t i = 0; i < onnxArgs.size(); ++i) {
    const bool rest = c.lastTakesRest && i + 1 >= c.portOf.size();
    int p = i < c.portOf.size() ? c.portOf[i] : (rest ? c.portOf.back() : -1);
    if (p < 0) {
      unbound.push_back(std::move(onnxArgs[i]));
      continue;
    }
    const PortDecl& port = rule.ports[static_cast<size_t>(p)];
    Argument& slot = n.args[static_cast<size_t>(port.index)];
    if (rest) {
      slot.kind = Argument::Kind::kList;  // like aten.cat's tensor list
      slot.list.push_back(std::move(onnxArgs[i]));
    } else {
      slot = std::move(onnxArgs[i]);
    }
  }
  // Inputs no port names (Reshape's shape, Clip's bounds) follow the ports: not checked, but
  // still edges of the graph, so partitions stay connected through them.
  for (Argument& a : unbound) n.args.push_back(std::move(a));
}

}  // namespace

bool needsOnnxBinding(const Graph& graph, const RuleSet& rules) {
  for (const auto* c : candidatesByTarget(graph, rules))
    if (c) return true;
  return false;
}

size_t bindOnnxOps(Graph& graph, const RuleSet& rules) {
  const auto candidates = candidatesByTarget(graph, rules);
  std::unordered_map<const OnnxCandidate*, uint32_t> targetOf;
  size_t bound = 0;
  for (Node& n : graph.mutableNodes()) {
    if (n.kind != NodeKind::kCall || n.targetId >= candidates.size() || !candidates[n.targetId]) continue;
    for (const OnnxCandidate& c : *candidates[n.targetId]) {
      const Rule& rule = rules.rules()[c.rule];
      if (!matches(graph, n, rule.onnx[c.mapping])) continue;
      auto [slot, fresh] = targetOf.try_emplace(&c, Node::kNoTarget);
      if (fresh) slot->second = graph.internTarget(c.target);  // once per entry, not per node
      n.targetId = slot->second;
      rebind(n, rule, c);
      ++bound;
      break;
    }
  }
  return bound;
}

}  // namespace qnnrules
