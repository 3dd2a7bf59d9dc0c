// What every pass after the graph stops changing needs to know about it, built once per run
// (after fold, ONNX binding, annotation and the lowering path's rewrites) and read by
// validation, the numeric checks, partitioning and encodings, so they agree: one rule per
// interned target, one user index, one resolver of shared encodings.
#pragma once

#include <vector>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/graph/SharedRoots.h"
#include "qnnrules/graph/UserIndex.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {

class GraphFacts {
 public:
  // `graph` and `rules` must outlive the facts and not change while they are in use.
  GraphFacts(const Graph& graph, const RuleSet& rules);
  GraphFacts(const GraphFacts&) = delete;
  GraphFacts& operator=(const GraphFacts&) = delete;

  const Graph& graph() const { return graph_; }
  const RuleSet& rules() const { return rules_; }
  // The rule of interned target `t` (Graph::targets), null when the rule set has none.
  const Rule* ruleOfTarget(uint32_t t) const { return ruleOfTarget_[t]; }
  // The rule of a call node, null for other nodes and for ops without a rule.
  const Rule* ruleOf(const Node& n) const {
    return n.targetId == Node::kNoTarget ? nullptr : ruleOfTarget_[n.targetId];
  }
  const UserIndex& users() const { return users_; }
  // Shared encodings resolved (memoized as they are asked for; not thread-safe).
  const SharedRoots& roots() const { return roots_; }

 private:
  const Graph& graph_;
  const RuleSet& rules_;
  std::vector<const Rule*> ruleOfTarget_;
  UserIndex users_;
  SharedRoots roots_;
};

}  // namespace qnnrules
