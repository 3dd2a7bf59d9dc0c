#include "qnnrules/passes/LoweringRewrites.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "qnnrules/graph/SharedRoots.h"
#include "qnnrules/graph/PortType.h"

namespace qnnrules {
namespace {

// The storage dtype and full range a QNN fixed-point datatype is written with in a QuantSpec.
struct Storage {
  ScalarType dtype;
  int64_t min, max;
};
std::optional<Storage> storageOf(QnnDatatype t) {
  switch (t) {
    case QnnDatatype::kUFixed8: return Storage{ScalarType::kUInt8, 0, 255};
    case QnnDatatype::kSFixed8: return Storage{ScalarType::kInt8, -128, 127};
    case QnnDatatype::kUFixed16: return Storage{ScalarType::kUInt16, 0, 65535};
    case QnnDatatype::kSFixed16: return Storage{ScalarType::kInt16, -32768, 32767};
    default: return std::nullopt;
  }
}

QScheme symmetricOf(QScheme q) { return isPerChannel(q) ? QScheme::kPerChannelSymmetric : QScheme::kPerTensorSymmetric; }

// The spec `rw` makes of `s`: the same real range in another container, symmetric, or fixed.
QuantSpec rewritten(const QuantSpec& from, const LoweringRewrite& rw) {
  QuantSpec s = from;
  s.sharedWith.reset();
  const QuantRange full = fullQuantRange(s.dtype);
  const int64_t oldMin = s.quantMin.value_or(full.min), oldMax = s.quantMax.value_or(full.max);
  std::optional<Storage> to = rw.setDatatype ? storageOf(*rw.setDatatype) : std::nullopt;
  if (to || rw.setSymmetric) {
    const Storage target = to ? *to : Storage{s.dtype, oldMin, oldMax};
    const bool symmetric = rw.setSymmetric;
    // Symmetric: the scale stays (the path requantizes the codes around zero in the same step,
    // so a bias derived from it stays consistent). Otherwise the same real range, new container.
    if (!symmetric)
      for (double& scale : s.scales)
        scale *= static_cast<double>(oldMax - oldMin) / static_cast<double>(target.max - target.min);
    for (int64_t& zp : s.zeroPoints) {
      if (symmetric) {
        zp = target.min < 0 ? 0 : (target.max + 1) / 2;
      } else {
        const double f = static_cast<double>(zp - oldMin) / static_cast<double>(oldMax - oldMin);
        zp = target.min + static_cast<int64_t>(std::llround(f * static_cast<double>(target.max - target.min)));
      }
    }
    s.dtype = target.dtype;
    s.quantMin = target.min;
    s.quantMax = target.max;
    if (symmetric) s.qscheme = symmetricOf(s.qscheme);
  }
  if (rw.setScale) {
    s.scales.clear();
    s.scales.push_back(*rw.setScale);
  }
  if (rw.setOffset) {
    s.zeroPoints.clear();
    s.zeroPoints.push_back(-*rw.setOffset);
  }
  if (rw.setScale || rw.setOffset) s.qscheme = isSymmetric(s.qscheme) ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine;
  recordZeroPointRange(s);
  return s;
}

// A float32 "annotation": the port is handed to QNN unquantized (between a Dequantize and a
// Quantize the path inserts), whatever the tensor is stored as.
QuantSpec floatSpec() {
  QuantSpec s;
  s.dtype = ScalarType::kFloat32;
  return s;
}

// The spec slot of port `decl` on `node`: a plain tensor argument or an output (list
// arguments are not rewritten).
OptionalBox<QuantSpec>* slotOf(Node& node, const PortDecl& decl) {
  if (decl.isInput) {
    if (static_cast<size_t>(decl.index) >= node.args.size()) return nullptr;
    Argument& a = node.args[static_cast<size_t>(decl.index)];
    return a.kind == Argument::Kind::kTensor ? &a.qspec : nullptr;
  }
  if (static_cast<size_t>(decl.index) >= node.outputs.size()) return nullptr;
  return &node.outputs[static_cast<size_t>(decl.index)].qspec;
}

// The encoding a node's tensor argument carries: the edge's own, else its producer's output's.
const QuantSpec* encodingOf(const Graph& graph, const Argument& a) {
  if (a.qspec) return &*a.qspec;
  const Node& p = graph.node(a.tensor.node);
  return a.tensor.output < p.outputs.size() && p.outputs[a.tensor.output].qspec ? &*p.outputs[a.tensor.output].qspec
                                                                               : nullptr;
}

bool sameEncoding(const QuantSpec* x, const QuantSpec* y) {
  if (!x || !y) return x == y;
  return x->dtype == y->dtype && x->scales == y->scales && x->zeroPoints == y->zeroPoints;
}

// Whether input port `decl` of `node` reads a parameter or constant tensor, directly or through
// structural nodes that keep its encoding: no lowering path computes those (an ONNX Identity,
// which ORT removes, and the Q/DQ pair after it cancels when it repeats the weight's encoding).
// ALBERT's shared layer weights reach their second MatMul through an Identity: at 16a16w its
// Q/DQ pair is the weight's and QNN sees a static weight (FullyConnected, albert/16a16w/SM8350
// refused on V68); at 16a8w the pair re-quantizes the 8-bit weight to 16 bits, the input stays
// dynamic and the MatMul runs (albert/16a8w/SM8350). A static tensor behind a computation is not
// known here, and a path that folds it says so itself. `structuralTarget`: per interned target,
// its rule is structural.
bool readsStatic(const Graph& graph, const std::vector<uint8_t>& structuralTarget, const Node& node,
                 const PortDecl& decl) {
  if (!decl.isInput || static_cast<size_t>(decl.index) >= node.args.size()) return false;
  const Argument* a = &node.args[static_cast<size_t>(decl.index)];
  for (int depth = 0; a && a->kind == Argument::Kind::kTensor && depth < 16; ++depth) {
    const Node& p = graph.node(a->tensor.node);
    if (p.kind == NodeKind::kParameter || p.kind == NodeKind::kConstant) return true;
    if (p.kind != NodeKind::kCall || p.targetId == Node::kNoTarget || !structuralTarget[p.targetId] || p.args.empty() ||
        p.args[0].kind != Argument::Kind::kTensor || !sameEncoding(encodingOf(graph, *a), encodingOf(graph, p.args[0])))
      return false;
    a = &p.args[0];
  }
  return false;
}

}  // namespace

BoundLowering bindLowering(const LoweringPath& path, const RuleSet& rules, DiagnosticList& errors) {
  BoundLowering out;
  out.path = &path;
  const std::vector<Rule>& all = rules.rules();
  out.sessionFailureRule.assign(all.size(), 0);
  for (size_t i = 0; i < all.size(); ++i)
    for (const OnnxMapping& m : all[i].onnx)
      if (std::find(path.sessionFailureOnnxOps.begin(), path.sessionFailureOnnxOps.end(), m.opType) !=
          path.sessionFailureOnnxOps.end())
        out.sessionFailureRule[i] = 1;
  for (const std::string& id : path.numberOperandFloatRules)
    for (const Rule& r : all)
      if (r.id == id) out.numberOperandFloatRules.push_back(&r);
  auto portError = [&](const LoweringRewrite& rw, const Rule& rule, const std::string& port) {
    Diagnostic d;
    d.code = DiagCode::kUnknownPort;
    d.mark = rw.mark;
    d.ruleId = rule.id;
    d.message = "rewrite '" + rw.id + "' of lowering path '" + path.name + "' names port '" + port + "', which rule " +
                rule.id + " does not declare";
    for (const PortDecl& p : rule.ports) d.expected += (d.expected.empty() ? "one of: " : ", ") + p.name;
    d.actual = port;
    errors.push_back(std::move(d));
  };
  for (const LoweringRewrite& rw : path.rewrites) {
    // A target none of the named rules has could never match (a typo): an error of the rewrite,
    // unless the backend has none of those rules (paths are shared by backends).
    std::vector<const Rule*> named;
    for (const std::string& id : rw.rules)
      for (const Rule& r : all)
        if (r.id == id) named.push_back(&r);
    for (const std::string& t : rw.targets) {
      if (named.empty() || std::any_of(named.begin(), named.end(), [&](const Rule* r) {
            return std::find(r->targets.begin(), r->targets.end(), t) != r->targets.end();
          }))
        continue;
      Diagnostic d;
      d.code = DiagCode::kInvalidValue;
      d.mark = rw.mark;
      d.message = "rewrite '" + rw.id + "' of lowering path '" + path.name + "' names target '" + t +
                  "', which none of its rules has";
      for (const Rule* r : named)
        for (const std::string& own : r->targets) d.expected += (d.expected.empty() ? "one of: " : ", ") + own;
      d.actual = t;
      errors.push_back(std::move(d));
    }
    for (const std::string& id : rw.rules) {
      auto it = std::find_if(all.begin(), all.end(), [&](const Rule& r) { return r.id == id; });
      if (it == all.end()) continue;
      BoundRewrite b;
      b.rewrite = &rw;
      b.rule = static_cast<uint32_t>(it - all.begin());
      // Each named port bound to its index; an unknown one is an error of the rewrite.
      bool ok = true;
      auto portOf = [&](const std::string& name) {
        const int p = it->findPort(name);
        if (p < 0) {
          portError(rw, *it, name);
          ok = false;
        }
        return p;
      };
      b.port = portOf(rw.port);
      for (const auto& [name, type] : rw.when) b.when.emplace_back(portOf(name), type);
      for (const auto& [name, isStatic] : rw.readsStatic) b.readsStatic.emplace_back(portOf(name), isStatic);
      for (const std::string& name : rw.scalesDiffer) b.scalesDiffer.push_back(portOf(name));
      if (!rw.setEncodingOf.empty()) b.encodingOf = portOf(rw.setEncodingOf);
      // Targets narrow the rewrite to those of each named rule's ATen targets that it lists.
      for (const std::string& t : rw.targets)
        if (std::find(it->targets.begin(), it->targets.end(), t) != it->targets.end()) b.targets.push_back(t);
      if (!rw.targets.empty() && b.targets.empty()) continue;
      if (ok) out.rewrites.push_back(std::move(b));
    }
  }
  return out;
}

std::vector<AppliedRewrite> applyLoweringRewrites(Graph& graph, const RuleSet& rules, const BoundLowering& lowering) {
  std::vector<AppliedRewrite> applied;
  if (lowering.rewrites.empty()) return applied;
  const std::vector<Rule>& all = rules.rules();
  // Per rule: its rewrites; per interned target: its rule. Both once, not per node.
  std::vector<std::vector<const BoundRewrite*>> byRule(all.size());
  for (const BoundRewrite& b : lowering.rewrites) byRule[b.rule].push_back(&b);
  // Per rewrite with targets: which of the graph's interned targets it applies to.
  std::vector<std::vector<uint8_t>> targetAllowed(lowering.rewrites.size());
  for (size_t k = 0; k < lowering.rewrites.size(); ++k) {
    const BoundRewrite& b = lowering.rewrites[k];
    if (b.targets.empty()) continue;
    targetAllowed[k].assign(graph.targets().size(), 0);
    for (size_t t = 0; t < graph.targets().size(); ++t)
      targetAllowed[k][t] = std::find(b.targets.begin(), b.targets.end(), graph.targets()[t]) != b.targets.end();
  }
  std::vector<int32_t> ruleOfTarget(graph.targets().size(), -1);
  std::vector<uint8_t> structuralTarget(graph.targets().size(), 0);
  for (size_t t = 0; t < ruleOfTarget.size(); ++t) {
    const Rule* r = rules.findByTarget(graph.targets()[t]);
    if (!r) continue;
    structuralTarget[t] = r->kind == RuleKind::kStructural;
    if (!byRule[static_cast<size_t>(r - all.data())].empty()) ruleOfTarget[t] = static_cast<int32_t>(r - all.data());
  }

  // Decide on the graph as read (shared chains resolve against unchanged specs), then change.
  struct Change {
    uint32_t node;
    const PortDecl* decl;
    const BoundRewrite* by;
    QuantSpec spec;
  };
  std::vector<Change> changes;
  {
    SharedRoots roots(graph);
    for (uint32_t i = 0; i < graph.nodes().size(); ++i) {
      Node& node = graph.mutableNodes()[i];
      if (node.kind != NodeKind::kCall || node.targetId == Node::kNoTarget || ruleOfTarget[node.targetId] < 0) continue;
      const Rule& rule = all[static_cast<size_t>(ruleOfTarget[node.targetId])];
      auto rootOf = [&](int port) -> const QuantSpec* {
        OptionalBox<QuantSpec>* slot = slotOf(node, rule.ports[static_cast<size_t>(port)]);
        if (!slot || !*slot) return nullptr;
        Resolved r = roots.resolve(&**slot);
        return r.how == Resolution::kConcrete ? r.root : nullptr;
      };
      for (const BoundRewrite* b : byRule[static_cast<size_t>(ruleOfTarget[node.targetId])]) {
        const std::vector<uint8_t>& allowed = targetAllowed[static_cast<size_t>(b - lowering.rewrites.data())];
        bool match = allowed.empty() || allowed[node.targetId];
        for (const auto& [port, type] : b->when) {
          const QuantSpec* s = rootOf(port);
          match = match && s && portTypeOf(*s).datatype == type;
        }
        for (const auto& [port, isStatic] : b->readsStatic)
          match = match && readsStatic(graph, structuralTarget, node, rule.ports[static_cast<size_t>(port)]) == isStatic;
        if (match && !b->scalesDiffer.empty()) {
          // Concrete per-tensor encodings on every named port, the first's scale (as float32,
          // as ORT compares them) unequal to another's.
          const QuantSpec* first = rootOf(b->scalesDiffer.front());
          bool differs = false;
          for (int port : b->scalesDiffer) {
            const QuantSpec* s = rootOf(port);
            if (!s || s->scales.size() != 1 || !first || first->scales.size() != 1) {
              match = false;
              break;
            }
            differs = differs || toFloat32(s->scales[0]) != toFloat32(first->scales[0]);
          }
          match = match && differs;
        }
        const QuantSpec* target = match ? rootOf(b->port) : nullptr;
        const QuantSpec* source = target && b->encodingOf >= 0 ? rootOf(b->encodingOf) : nullptr;
        if (target && b->encodingOf >= 0) {
          if (source) {
            QuantSpec copy = *source;
            copy.sharedWith.reset();
            changes.push_back({i, &rule.ports[static_cast<size_t>(b->port)], b, std::move(copy)});
          }
        } else if (target) {
          changes.push_back({i, &rule.ports[static_cast<size_t>(b->port)], b,
                             b->rewrite->setFloat ? floatSpec() : rewritten(*target, *b->rewrite)});
        }
      }
    }
  }
  for (Change& c : changes) {
    *slotOf(graph.mutableNodes()[c.node], *c.decl) = std::move(c.spec);
    auto it = std::find_if(applied.begin(), applied.end(), [&](const AppliedRewrite& a) { return a.rewrite == c.by->rewrite; });
    if (it == applied.end()) applied.push_back({c.by->rewrite, 1});
    else ++it->ports;
  }
  std::stable_sort(applied.begin(), applied.end(), [&](const AppliedRewrite& a, const AppliedRewrite& b) {
    return a.rewrite < b.rewrite;  // the path's order: rewrites live in one vector
  });
  return applied;
}

}  // namespace qnnrules
