#include "qnnrules/passes/Prune.h"

#include <string_view>

namespace qnnrules {
namespace {

// Random factories depend on no input but are not constants: each run draws anew.
bool isRandom(std::string_view target) {
  for (std::string_view p : {"aten.rand", "aten.normal", "aten.bernoulli", "aten.uniform", "aten.multinomial"})
    if (target.substr(0, p.size()) == p) return true;
  return false;
}

}  // namespace

PruneResult pruneGraph(const Graph& graph, const UserIndex& users) {
  const uint32_t n = static_cast<uint32_t>(graph.nodes().size());
  bool hasInput = false, hasOutput = false;
  for (const Node& node : graph.nodes()) {
    hasInput = hasInput || node.kind == NodeKind::kInput;
    hasOutput = hasOutput || node.kind == NodeKind::kOutput;
  }
  // Live: an output node, or a node some live node uses. Nodes are in topological order, so
  // one backward sweep settles every node after its users.
  std::vector<bool> live(n, true);
  if (hasOutput) {
    for (uint32_t i = n; i-- > 0;) {
      if (graph.node(i).kind == NodeKind::kOutput) continue;
      bool l = false;
      for (uint32_t u : users.users(i)) l = l || live[u];
      live[i] = l;
    }
  }
  // Variable: an input node, or a node with a variable producer; one forward sweep.
  std::vector<bool> variable(n, true);
  if (hasInput) {
    std::vector<bool> randomTarget(graph.targets().size());
    for (size_t t = 0; t < randomTarget.size(); ++t) randomTarget[t] = isRandom(graph.targets()[t]);
    for (uint32_t i = 0; i < n; ++i) {
      const Node& node = graph.node(i);
      if (node.kind == NodeKind::kInput || (node.targetId != Node::kNoTarget && randomTarget[node.targetId])) continue;
      bool v = false;
      for (uint32_t p : users.producers(i)) v = v || variable[p];
      variable[i] = v;
    }
  }
  PruneResult r;
  for (uint32_t i = 0; i < n; ++i) {
    if (graph.node(i).kind != NodeKind::kCall) continue;
    if (!live[i]) r.dead.push_back(i);
    else if (!variable[i]) r.constant.push_back(i);
  }
  if (r.empty()) return r;
  r.kind.assign(n, PruneKind::kKept);
  for (uint32_t i : r.dead) r.kind[i] = PruneKind::kDead;
  for (uint32_t i : r.constant) r.kind[i] = PruneKind::kConstant;
  return r;
}

}  // namespace qnnrules
