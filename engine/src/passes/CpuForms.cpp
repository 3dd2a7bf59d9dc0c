#include "qnnrules/passes/CpuForms.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/CpuFormTests.h"
#include "PathRefusal.h"

namespace qnnrules {
namespace {

// An attribute's value as a test reads it: a number, a string, a list of numbers (ONNX INTS and
// FLOATS: dilations, pads), or nothing (absent, another kind).
struct Value {
  bool isNumber = false;
  double number = 0.0;
  bool isText = false;
  std::string_view text;
  const std::vector<Argument>* list = nullptr;
};

Value attributeValue(const Node& n, const AttributeTest& t) {
  Value v;
  for (const auto& [name, a] : n.kwargs) {
    if (name != t.attribute) continue;
    if (a.kind == Argument::Kind::kInt) v = {true, static_cast<double>(a.i), false, {}, nullptr};
    else if (a.kind == Argument::Kind::kFloat) v = {true, a.f, false, {}, nullptr};
    else if (a.kind == Argument::Kind::kString) v = {false, 0.0, true, a.s, nullptr};
    else if (a.kind == Argument::Kind::kList) v.list = &a.list;
    return v;
  }
  if (t.fallbackNumber) v = {true, *t.fallbackNumber, false, {}, nullptr};
  else if (t.fallbackString) v = {false, 0.0, true, *t.fallbackString, nullptr};
  return v;
}

// The rank of the node's first input (else its first output); -1 when unknown.
int rankOfInput0(const Graph& g, const Node& n) {
  if (!n.args.empty() && n.args[0].kind == Argument::Kind::kTensor) {
    const Node& p = g.node(n.args[0].tensor.node);
    if (n.args[0].tensor.output < p.outputs.size()) return static_cast<int>(p.outputs[n.args[0].tensor.output].shape.size());
  }
  return n.outputs.empty() ? -1 : static_cast<int>(n.outputs[0].shape.size());
}

// Whether an input edge or an output of the node carries a quantized encoding (a spec shared with
// another port counts: it names a quantized one).
bool hasQuantizedPort(const Node& n) {
  auto quantized = [](const OptionalBox<QuantSpec>& q) { return q && (q->isShared() || !isFloatType(q->dtype)); };
  for (const Argument& a : n.args) {
    if (quantized(a.qspec)) return true;
    for (const Argument& e : a.list)
      if (quantized(e.qspec)) return true;
  }
  for (const TensorMeta& m : n.outputs)
    if (quantized(m.qspec)) return true;
  return false;
}

bool contains(const std::vector<double>& xs, double x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }
bool contains(const std::vector<std::string>& xs, std::string_view x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

// Whether the node meets the test; `seen`, when given, gets "axis = 1 of rank 3" for the
// diagnostic (only for a node that meets the whole form: no string work on the others).
bool meets(const Graph& g, const Node& n, const AttributeTest& t, std::string* seen) {
  const Value v = attributeValue(n, t);
  if (v.list) {
    // A list meets `in` / `not_in` when one of its numbers does (dilations {not_in: [1]}: some
    // dilation is not 1); the other tests take single values.
    if (t.lastAxis || !t.form.empty()) return false;
    const bool any = std::any_of(v.list->begin(), v.list->end(), [&](const Argument& e) {
      const double x = e.kind == Argument::Kind::kInt ? static_cast<double>(e.i) : e.f;
      if (e.kind != Argument::Kind::kInt && e.kind != Argument::Kind::kFloat) return false;
      return (t.inNumbers.empty() || contains(t.inNumbers, x)) && !contains(t.notInNumbers, x);
    });
    if (!any) return false;
    if (seen) {
      std::string items;
      for (const Argument& e : *v.list)
        items += (items.empty() ? "" : ", ") + (e.kind == Argument::Kind::kInt ? std::to_string(e.i) : fmt::format("{}", e.f));
      *seen += (seen->empty() ? "" : ", ") + t.attribute + " = [" + items + "]";
    }
    return true;
  }
  if (!v.isNumber && !v.isText) return false;
  if (!t.inNumbers.empty() || !t.inStrings.empty()) {
    if (v.isNumber ? !contains(t.inNumbers, v.number) : !contains(t.inStrings, v.text)) return false;
  }
  if (v.isNumber ? contains(t.notInNumbers, v.number) : contains(t.notInStrings, v.text)) return false;
  int rank = -1;
  if (t.lastAxis) {
    const int r = rankOfInput0(g, n);
    // An axis beyond any rank (a hostile `default: 1e300` too) names no axis: no cast of it.
    if (!v.isNumber || r <= 0 || !(v.number > -1e6 && v.number < 1e6)) return false;
    const auto axis = static_cast<int64_t>(v.number);
    const int64_t normalized = axis < 0 ? axis + r : axis;
    if ((normalized == r - 1) != *t.lastAxis) return false;
    rank = r;
  }
  if (!t.form.empty() && (!v.isText || passesCpuFormTest(t.form, v.text) == t.formNegated)) return false;
  if (seen) {
    if (!seen->empty()) *seen += ", ";
    *seen += t.attribute + " = " + (v.isNumber ? fmt::format("{}", v.number) : std::string(v.text));
    if (rank >= 0) *seen += fmt::format(" of rank {}", rank);
  }
  return true;
}

}  // namespace

DiagnosticList checkCpuForms(const GraphFacts& facts, const PruneResult& pruned, const LoweringPath& path) {
  DiagnosticList out;
  if (path.cpuForms.empty()) return out;
  const Graph& g = facts.graph();
  // The forms of each op type, by the graph's interned target ids: a node costs one index.
  std::vector<std::vector<const CpuForm*>> formsOf(g.targets().size());
  bool any = false;
  for (size_t t = 0; t < g.targets().size(); ++t)
    for (const CpuForm& f : path.cpuForms)
      if (g.targets()[t] == f.op) formsOf[t].push_back(&f), any = true;
  if (!any) return out;
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& node = g.nodes()[i];
    // The op the user's file names: an ONNX node's source op, a .pt2 node's own target.
    const uint32_t op = node.sourceId != Node::kNoTarget ? node.sourceId : node.targetId;
    if (op == Node::kNoTarget || formsOf[op].empty()) continue;
    const Rule* rule = facts.ruleOf(node);
    if (!rule || rule->kind != RuleKind::kOp || pruned.of(i) != PruneKind::kKept) continue;
    for (const CpuForm* f : formsOf[op]) {
      const int r = f->ranks.empty() ? -1 : rankOfInput0(g, node);
      if (!f->ranks.empty() && std::find(f->ranks.begin(), f->ranks.end(), r) == f->ranks.end()) continue;
      if (f->quantized && hasQuantizedPort(node) != *f->quantized) continue;
      if (f->argumentsBelow > 0 && node.args.size() >= static_cast<size_t>(f->argumentsBelow)) continue;
      if (!std::all_of(f->when.begin(), f->when.end(), [&](const AttributeTest& t) { return meets(g, node, t, nullptr); }))
        continue;
      std::string seen = r >= 0 ? fmt::format("input 0 of rank {}", r) : std::string();
      auto add = [&](const std::string& s) { seen += (seen.empty() ? "" : ", ") + s; };
      if (f->quantized) add(*f->quantized ? "quantized" : "not quantized");
      if (f->argumentsBelow > 0) add(fmt::format("{} positional argument(s)", node.args.size()));
      for (const AttributeTest& t : f->when) meets(g, node, t, &seen);
      Diagnostic d = pathRefusal(g, i, *rule, f->failsLowering ? DiagCode::kLoweringFails : DiagCode::kLoweringCheck,
                                 f->mark, f->message);
      d.expected = f->expected;
      d.actual = seen;
      d.hint = f->hint;
      out.push_back(std::move(d));
      break;  // one refusal says it
    }
  }
  return out;
}

}  // namespace qnnrules
