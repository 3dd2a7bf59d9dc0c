// The graph walk: each call node's target is mapped to its rule once per distinct target,
// and NodeValidator checks the node against it.
#include "qnnrules/validate/Validator.h"

#include <unordered_map>

#include "NodeValidator.h"
#include "qnnrules/core/Suggest.h"
#include "qnnrules/facts/GraphFacts.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/model/Soc.h"

namespace qnnrules {
namespace {

// A node's arguments, outputs and boxed specs live in separate heap blocks: on a large graph
// the validator waits on memory, not on its checks. Fetch them a node or two ahead, in two
// steps (the arrays first, the specs they point to once the arrays have arrived).
void prefetchArrays(const Node& n) {
  __builtin_prefetch(n.args.data());
  __builtin_prefetch(n.outputs.data());
}

void prefetchSpecs(const Node& n) {
  for (const Argument& a : n.args)
    if (a.qspec) __builtin_prefetch(&*a.qspec);
  for (const TensorMeta& o : n.outputs)
    if (o.qspec) __builtin_prefetch(&*o.qspec);
}

}  // namespace

ValidationResult validateGraph(const Graph& graph, const RuleSet& rules, const SocInfo& soc,
                               const ValidateOptions& options) {
  const GraphFacts facts(graph, rules);
  return validateGraph(facts, soc, options);
}

ValidationResult validateGraph(const GraphFacts& facts, const SocInfo& soc, const ValidateOptions& options) {
  ValidationResult result;
  const Graph& graph = facts.graph();
  const RuleSet& rules = facts.rules();
  // Map each rule to the constraint kinds its variants use, once per graph, not once per node.
  std::unordered_map<const Rule*, std::vector<KindMask>> kindsOfRule;
  std::vector<const std::vector<KindMask>*> kindsOfTarget(graph.targets().size(), nullptr);
  for (uint32_t t = 0; t < graph.targets().size(); ++t) {
    const Rule* rule = facts.ruleOfTarget(t);
    if (!rule) continue;
    auto it = kindsOfRule.find(rule);
    if (it == kindsOfRule.end()) it = kindsOfRule.emplace(rule, activeKinds(*rule)).first;
    kindsOfTarget[t] = &it->second;
  }
  // For ops without a rule, the rule target they are likely a typo of: once per distinct op.
  std::vector<std::string_view> nearTarget(graph.targets().size());
  std::vector<std::string_view> allTargets;
  for (uint32_t t = 0; t < graph.targets().size(); ++t) {
    if (facts.ruleOfTarget(t)) continue;
    if (allTargets.empty())
      for (const Rule& r : rules.rules()) allTargets.insert(allTargets.end(), r.targets.begin(), r.targets.end());
    // At most two edits (a swapped or missing letter): ops share "aten." and ".default", so
    // the usual third-of-the-length limit would offer aten.sum for aten.cumsum.
    std::string_view near = nearestName(graph.targets()[t], allTargets);
    if (!near.empty() && editDistanceIgnoringCase(graph.targets()[t], near) <= 2) nearTarget[t] = near;
  }

  NodeValidator nv(graph, facts.roots(), soc, options, rules.backend(), result.diagnostics);
  const std::vector<uint8_t>& skip = options.skipNodes;
  const size_t count = graph.nodes().size();
  for (uint32_t i = 0; i < count; ++i) {
    if (i + 2 < count) prefetchArrays(graph.node(i + 2));
    if (i + 1 < count) prefetchSpecs(graph.node(i + 1));
    const Node& node = graph.node(i);
    if (node.kind != NodeKind::kCall || (i < skip.size() && skip[i])) continue;
    ++result.nodesChecked;
    const Rule* rule = facts.ruleOf(node);
    if (!rule) {
      nv.reportNoRule(node, node.targetId == Node::kNoTarget ? std::string_view() : nearTarget[node.targetId]);
      continue;
    }
    ++result.nodesWithRule;
    nv.run(node, *rule, *kindsOfTarget[node.targetId]);
  }
  return result;
}

void applyMode(ValidationResult& result, Mode mode) {
  if (mode != Mode::kWarn) return;
  for (Diagnostic& d : result.diagnostics)
    if (d.severity == Severity::kError) d.severity = Severity::kWarning;
}

}  // namespace qnnrules
