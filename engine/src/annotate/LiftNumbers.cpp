#include "LiftNumbers.h"

#include "GraphRebuild.h"
#include "graph/NumberOperand.h"

#include <string>
#include <utility>
#include <vector>

namespace qnnrules::annotator_detail {
namespace {

bool isNumber(const Argument& a) { return a.kind == Argument::Kind::kInt || a.kind == Argument::Kind::kFloat; }

// The input port a rule declares at argument `arg`, or nullptr.
const PortDecl* inputPortAt(const Rule& rule, size_t arg) {
  for (const PortDecl& d : rule.ports)
    if (d.isInput && (d.index == static_cast<int>(arg) || (d.variadic && d.index < static_cast<int>(arg)))) return &d;
  return nullptr;
}

// Per node, the argument positions whose numbers are lifted (at most args[0] and args[1]).
std::vector<std::vector<size_t>> numbersToLift(const Graph& g, const RuleSet& rules, size_t& count) {
  std::vector<const Rule*> ruleOfTarget(g.targets().size(), nullptr);
  for (size_t t = 0; t < g.targets().size(); ++t) {
    const Rule* r = rules.findByTarget(g.targets()[t]);
    if (r && r->kind == RuleKind::kOp && r->pattern == AnnotationPattern::kBinary) ruleOfTarget[t] = r;
  }
  std::vector<std::vector<size_t>> lift;
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.node(i);
    if (n.kind != NodeKind::kCall || n.targetId == Node::kNoTarget || !ruleOfTarget[n.targetId]) continue;
    // Only a float op's number gets an encoding; an integer op's (a position id + 1, BatchNorm's
    // num_batches_tracked.add_(1) in a training export, which torchao's QAT conv + batch_norm
    // patterns must find as traced) is left as it is.
    if (n.outputs.empty() || !isFloatType(n.outputs[0].dtype)) continue;
    for (size_t a = 0; a < 2 && a < n.args.size(); ++a) {
      if (!isNumber(n.args[a]) || !inputPortAt(*ruleOfTarget[n.targetId], a)) continue;
      if (lift.empty()) lift.resize(g.nodes().size());
      lift[i].push_back(a);
      ++count;
    }
  }
  return lift;
}

}  // namespace

size_t liftNumberOperands(Graph& graph, const RuleSet& rules) {
  size_t count = 0;
  const std::vector<std::vector<size_t>> lift = numbersToLift(graph, rules, count);
  if (count == 0) return 0;
  rebuildGraph(graph, count, [&](uint32_t i, Node& n, Graph& out, const Graph& old) {
    for (size_t a : lift[i]) {
      const Rule* rule = rules.findByTarget(old.target(n));
      Node c = numberConstant(numberValue(n.args[a]), numberOperandType(out, n), n.moduleId);
      n.args[a] = Argument::tensorRef(addFreshNode(out, old, std::move(c), n.name + "_" + inputPortAt(*rule, a)->name));
    }
  });
  return count;
}

}  // namespace qnnrules::annotator_detail
