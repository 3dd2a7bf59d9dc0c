#include "qnnrules/facts/GraphFacts.h"

namespace qnnrules {

GraphFacts::GraphFacts(const Graph& graph, const RuleSet& rules)
    : graph_(graph), rules_(rules), ruleOfTarget_(graph.targets().size()), users_(graph), roots_(graph) {
  // Once per distinct target, not once per node (a 28-layer decoder has ~40 distinct ops).
  for (size_t t = 0; t < ruleOfTarget_.size(); ++t) ruleOfTarget_[t] = rules.findByTarget(graph.targets()[t]);
}

}  // namespace qnnrules
