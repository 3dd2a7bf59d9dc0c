#include "qnnrules/passes/DynamicShapes.h"

#include "PathRefusal.h"
#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {
namespace {

// "[1, ?, 64]": an unknown dimension as a question mark.
std::string shapeWithUnknowns(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + (shape[i] < 0 ? "?" : std::to_string(shape[i]));
  return s + "]";
}

}  // namespace

DiagnosticList checkDynamicShapes(const GraphFacts& facts, const PruneResult& pruned, const LoweringPath& path) {
  DiagnosticList out;
  if (path.dynamicShapesMessage.empty()) return out;
  const Graph& g = facts.graph();
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& node = g.nodes()[i];
    const Rule* rule = facts.ruleOf(node);
    if (!rule || rule->kind != RuleKind::kOp || pruned.of(i) != PruneKind::kKept) continue;
    auto report = [&](const std::string& port, const std::vector<int64_t>& shape) {
      Diagnostic d = pathRefusal(g, i, *rule, DiagCode::kDynamicShape, path.dynamicShapesMark, path.dynamicShapesMessage);
      d.port = port;
      d.expected = "a shape known before the graph runs";
      d.actual = shape.empty() ? std::string("a shape computed at run time")
                               : "shape " + shapeWithUnknowns(shape) + ", computed at run time";
      d.hint = "export with static shapes (fixed input sizes; shape arithmetic folded to constants before "
               "quantizing, so that no Q/DQ pair sits on a size)";
      out.push_back(std::move(d));
    };
    // Inputs in argument order (list elements included), then outputs: the first unknown one
    // of each side is enough to refuse the node, and one diagnostic per side says where.
    bool reported = false;
    for (size_t a = 0; a < node.args.size() && !reported; ++a) {
      auto visit = [&](const Argument& t, int listIndex) {
        if (reported || t.kind != Argument::Kind::kTensor) return;
        const Node& producer = g.node(t.tensor.node);
        if (t.tensor.output >= producer.outputs.size() || !producer.outputs[t.tensor.output].runtimeShape) return;
        std::string label = "in[" + std::to_string(a) + "]";
        if (listIndex >= 0) label += "[" + std::to_string(listIndex) + "]";
        report(label, producer.outputs[t.tensor.output].shape);
        reported = true;
      };
      const Argument& arg = node.args[a];
      visit(arg, -1);
      if (arg.kind == Argument::Kind::kList)
        for (size_t j = 0; j < arg.list.size(); ++j) visit(arg.list[j], static_cast<int>(j));
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (!node.outputs[o].runtimeShape) continue;
      report("out[" + std::to_string(o) + "]", node.outputs[o].shape);
      break;
    }
  }
  return out;
}

}  // namespace qnnrules
