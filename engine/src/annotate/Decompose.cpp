#include "Decompose.h"

#include <string_view>
#include <utility>
#include <vector>

#include "GraphRebuild.h"

namespace qnnrules::annotator_detail {
namespace {

enum class Form : uint8_t { kNone, kSilu, kAddmm, kLeakyRelu };

constexpr std::string_view kSigmoid = "aten.sigmoid.default";
constexpr std::string_view kMul = "aten.mul.Tensor";
constexpr std::string_view kMm = "aten.mm.default";
constexpr std::string_view kAdd = "aten.add.Tensor";
constexpr std::string_view kPrelu = "aten.prelu.default";

Form formOf(std::string_view target) {
  if (target == "aten.silu.default" || target == "aten.silu_.default") return Form::kSilu;
  if (target == "aten.addmm.default") return Form::kAddmm;
  if (target == "aten.leaky_relu.default" || target == "aten.leaky_relu_.default") return Form::kLeakyRelu;
  return Form::kNone;
}

bool isTensor(const Node& n, size_t a) { return a < n.args.size() && n.args[a].kind == Argument::Kind::kTensor; }

bool annotated(const Node& n) {
  for (const Argument& a : n.args)
    if (a.qspec) return true;
  for (const TensorMeta& m : n.outputs)
    if (m.qspec) return true;
  return false;
}

// Whether the node has the form its decomposition takes: tensor operands where the pieces read
// them, one output, and (addmm) no beta or alpha; and no annotation yet (one the caller wrote is
// kept as written).
bool decomposable(const Node& n, Form f) {
  if (n.kind != NodeKind::kCall || n.outputs.size() != 1 || !n.kwargs.empty() || annotated(n)) return false;
  switch (f) {
    case Form::kSilu: return n.args.size() == 1 && isTensor(n, 0);
    case Form::kAddmm: return n.args.size() == 3 && isTensor(n, 0) && isTensor(n, 1) && isTensor(n, 2);
    case Form::kLeakyRelu:
      return isTensor(n, 0) && (n.args.size() == 1 || (n.args.size() == 2 && (n.args[1].kind == Argument::Kind::kFloat ||
                                                                                n.args[1].kind == Argument::Kind::kInt)));
    case Form::kNone: break;
  }
  return false;
}

Node piece(const Node& n, std::string_view target, Graph& out, std::vector<Argument> args) {
  Node p;
  p.kind = NodeKind::kCall;
  p.targetId = out.internTarget(target);
  p.moduleId = n.moduleId;
  p.args = std::move(args);
  TensorMeta m;
  m.dtype = n.outputs[0].dtype;
  m.shape = n.outputs[0].shape;
  p.outputs.push_back(std::move(m));
  return p;
}

}  // namespace

size_t decomposeForAnnotation(Graph& graph, const RuleSet& rules) {
  const auto hasRule = [&](std::string_view t) { return rules.findByTarget(t) != nullptr; };
  const bool silu = hasRule(kSigmoid) && hasRule(kMul);
  const bool addmm = hasRule(kMm) && hasRule(kAdd);
  const bool leakyRelu = hasRule(kPrelu);
  std::vector<Form> formOfTarget(graph.targets().size(), Form::kNone);
  bool any = false;
  for (size_t t = 0; t < graph.targets().size(); ++t) {
    const Form f = formOf(graph.targets()[t]);
    if ((f == Form::kSilu && silu) || (f == Form::kAddmm && addmm) || (f == Form::kLeakyRelu && leakyRelu)) {
      formOfTarget[t] = f;
      any = true;
    }
  }
  if (!any) return 0;
  // A node nothing reads is left alone: ExecuTorch's DecomposeSilu leaves an in-place silu_ behind,
  // its users moved to the new mul, and its dead-code elimination keeps it (an in-place op).
  std::vector<uint8_t> read(graph.nodes().size(), 0);
  const auto markRead = [&](const Argument& a, auto&& self) -> void {
    if (a.kind == Argument::Kind::kTensor) read[a.tensor.node] = 1;
    for (const Argument& e : a.list) self(e, self);
  };
  for (const Node& n : graph.nodes()) {
    for (const Argument& a : n.args) markRead(a, markRead);
    for (const auto& kv : n.kwargs) markRead(kv.second, markRead);
  }
  std::vector<Form> decompose(graph.nodes().size(), Form::kNone);
  size_t count = 0;
  for (uint32_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& n = graph.node(i);
    if (n.targetId == Node::kNoTarget || formOfTarget[n.targetId] == Form::kNone || !read[i]) continue;
    if (!decomposable(n, formOfTarget[n.targetId])) continue;
    decompose[i] = formOfTarget[n.targetId];
    ++count;
  }
  if (count == 0) return 0;
  rebuildGraph(graph, count, [&](uint32_t i, Node& n, Graph& out, const Graph& old) {
    switch (decompose[i]) {
      case Form::kNone: return;
      case Form::kSilu: {
        const uint32_t s = addFreshNode(out, old, piece(n, kSigmoid, out, {n.args[0]}), n.name + "_sigmoid");
        n.args = {n.args[0], Argument::tensorRef(s)};
        n.targetId = out.internTarget(kMul);
        break;
      }
      case Form::kAddmm: {
        const uint32_t mm = addFreshNode(out, old, piece(n, kMm, out, {n.args[1], n.args[2]}), n.name + "_mm");
        n.args = {Argument::tensorRef(mm), n.args[0]};
        n.targetId = out.internTarget(kAdd);
        break;
      }
      case Form::kLeakyRelu: {
        const double slope = n.args.size() < 2 ? 0.01 : numberValue(n.args[1]);  // aten's default 0.01
        const uint32_t at =
            addFreshNode(out, old, numberConstant(slope, n.outputs[0].dtype, n.moduleId), n.name + "_slope");
        n.args = {n.args[0], Argument::tensorRef(at)};
        n.targetId = out.internTarget(kPrelu);
        break;
      }
    }
  });
  return count;
}

}  // namespace qnnrules::annotator_detail
