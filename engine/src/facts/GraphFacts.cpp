#include "qnnrules/facts/GraphFacts.h"

namespace qnnrules {

// The rule lookup runs once per distinct target, not once per node (a 28-layer decoder has ~40
// distinct ops).
GraphFacts::GraphFacts(const Graph& graph, const RuleSet& rules)
    : graph_(graph), rules_(rules), ruleOfTarget_(rules.rulesOfTargets(graph.targets())), users_(graph), roots_(graph) {}

}  // namespace qnnrules
