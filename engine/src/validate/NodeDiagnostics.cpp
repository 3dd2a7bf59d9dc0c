// The diagnostics of one node: what NodeValidator reports for each outcome. Strings are built
// here only, after a check failed.
#include <algorithm>
#include <limits>

#include "NodeValidator.h"
#include "validate/constraints/ArchGate.h"
#include "qnnrules/validate/ConstraintText.h"

namespace qnnrules {

namespace {

// The shape of a QNN datatype, for telling how far one is from another.
struct DatatypeShape {
  char family;  // 'q' fixed point (quantized), 'f' float, 'i' integer, 'b' bool
  bool isSigned;
  int bits;
};

DatatypeShape shapeOf(QnnDatatype t) {
  switch (t) {
    case QnnDatatype::kUFixed8: return {'q', false, 8};
    case QnnDatatype::kUFixed16: return {'q', false, 16};
    case QnnDatatype::kUFixed32: return {'q', false, 32};
    case QnnDatatype::kSFixed8: return {'q', true, 8};
    case QnnDatatype::kSFixed16: return {'q', true, 16};
    case QnnDatatype::kSFixed32: return {'q', true, 32};
    case QnnDatatype::kFloat16: return {'f', true, 16};
    case QnnDatatype::kFloat32: return {'f', true, 32};
    case QnnDatatype::kBFloat16: return {'f', true, 16};
    case QnnDatatype::kInt8: return {'i', true, 8};
    case QnnDatatype::kInt16: return {'i', true, 16};
    case QnnDatatype::kInt32: return {'i', true, 32};
    case QnnDatatype::kInt64: return {'i', true, 64};
    case QnnDatatype::kUInt8: return {'i', false, 8};
    case QnnDatatype::kUInt16: return {'i', false, 16};
    case QnnDatatype::kUInt32: return {'i', false, 32};
    case QnnDatatype::kUInt64: return {'i', false, 64};
    case QnnDatatype::kBool8:
    case QnnDatatype::kCount: break;
  }
  return {'b', false, 8};
}

// How far `t` is from the nearest member of `set`: 0 a member; 1 another signedness of the
// same kind and width (UFIXED_POINT_16 for SFIXED_POINT_16); 2 the same kind, another width;
// 3 the same width, another kind; 4 anything else.
int datatypeDistance(QnnDatatype t, DatatypeSet set) {
  if (set.contains(t)) return 0;
  const DatatypeShape a = shapeOf(t);
  int best = 4;
  for (int i = 0; i < static_cast<int>(QnnDatatype::kCount); ++i) {
    const auto m = static_cast<QnnDatatype>(i);
    if (!set.contains(m)) continue;
    const DatatypeShape b = shapeOf(m);
    const int d = a.family == b.family ? (a.bits == b.bits ? 1 : 2) : a.bits == b.bits ? 3 : 4;
    best = std::min(best, d);
  }
  return best;
}

// "signed symmetric 16-bit", "unsigned 8-bit or 16-bit", "float": what a port constraint's
// datatypes (and symmetry) ask for, in words.
std::string datatypeSetWords(const PortConstraint& c) {
  std::string kind;
  std::string widths;
  bool mixedKinds = false;
  for (int i = 0; i < static_cast<int>(QnnDatatype::kCount); ++i) {
    const auto m = static_cast<QnnDatatype>(i);
    if (!c.datatypes.contains(m)) continue;
    const DatatypeShape s = shapeOf(m);
    std::string k = s.family == 'q'   ? (s.isSigned ? "signed" : "unsigned")
                    : s.family == 'f' ? "float"
                    : s.family == 'i' ? (s.isSigned ? "integer" : "unsigned integer")
                                      : "bool";
    if (!kind.empty() && k != kind) mixedKinds = true;
    if (kind.empty()) kind = k;
    const std::string w = std::to_string(s.bits) + "-bit";
    if (widths.find(w) == std::string::npos) widths += (widths.empty() ? "" : " or ") + w;
  }
  if (mixedKinds) return datatypeSetText(c.datatypes);
  if (c.symmetric) kind += *c.symmetric ? " symmetric" : " asymmetric";
  return kind + " " + widths;
}

}  // namespace

Diagnostic NodeValidator::base(const Node& node, const Rule& rule, DiagCode code, Severity sev) const {
  Diagnostic d;
  d.severity = sev;
  d.code = code;
  d.node = node.name;
  d.nodeIndex = static_cast<uint32_t>(&node - g_.nodes().data());
  d.op = std::string(g_.target(node));
  d.ruleId = rule.id;
  d.mark = rule.mark;
  return d;
}

std::string NodeValidator::label(const Rule& rule, const BoundTensor& b) const {
  return portLabel(rule.ports[b.port], b.listIndex, b.position);
}

void NodeValidator::emitUnsupported(const Node& node, const Rule& rule) {
  Diagnostic d = base(node, rule, DiagCode::kUnsupportedOp, Severity::kError);
  d.message = unsupportedPrefix_ + rule.reason;
  d.expected = "an op the backend supports";
  d.actual = d.op;
  d.hint = rule.description;
  out_.push_back(std::move(d));
}

void NodeValidator::emitMissingPort(const Node& node, const Rule& rule, const PortDecl& decl) {
  Diagnostic d = base(node, rule, DiagCode::kMissingPort, Severity::kError);
  d.port = portLabel(decl);
  d.mark = decl.mark;
  d.message = decl.name + " is required by " + rule.id + " but the node has no tensor there.";
  d.expected = std::string("a tensor ") + (decl.isInput ? "argument" : "output") + " at position " +
               std::to_string(decl.index);
  d.actual = decl.isInput ? std::to_string(node.args.size()) + " argument(s)"
                          : std::to_string(node.outputs.size()) + " output(s)";
  out_.push_back(std::move(d));
}

void NodeValidator::emitUnresolved(const Node& node, const Rule& rule, const BoundTensor& b) {
  const bool cycle = b.resolved.how == Resolution::kCycle;
  Diagnostic d = base(node, rule, cycle ? DiagCode::kSharedCycle : DiagCode::kSharedUnresolved, Severity::kError);
  d.port = label(rule, b);
  d.mark = rule.ports[b.port].mark;
  d.message = cycle ? "the shared_with references of this port form a cycle, so it has no encoding."
                    : "the shared_with reference of this port leads to a port with no annotation.";
  d.expected = "a chain of shared_with references ending at a concrete quantization spec";
  d.actual = cycle ? "a cycle" : "a reference to an unannotated port";
  d.hint = "point shared_with at the producer's output (or an annotated edge)";
  out_.push_back(std::move(d));
}

void NodeValidator::emitViolation(const Node& node, const Rule& rule, const Variant& v, const Violation& viol,
                                  Severity severity) {
  const BoundTensor& b = bound_[viol.bound];
  const PortConstraint& c = *viol.constraint;
  Diagnostic d = base(node, rule, viol.kind->code, severity);
  d.port = label(rule, b);
  d.variant = v.name;
  d.mark = c.mark.known() ? c.mark : v.mark;
  viol.kind->explain(rule, v, c, b, d);
  if (severity == Severity::kWarning) {
    // The same sentence, said as what it is: the backend runs the node without it.
    d.message = "recommended: " + d.message + " The backend accepts the node without it.";
  }
  out_.push_back(std::move(d));
}

void NodeValidator::emitNoVariant(const Node& node, const Rule& rule) {
  // Nearest variant: fewest tensors whose datatype it does not accept, then the smallest change
  // of those datatypes (datatypeDistance: signedness before bit width), so asymmetric uint16
  // weights are pointed at the 16-bit variant, not at an 8-bit one.
  const Variant* nearest = nullptr;
  std::pair<size_t, int> best{std::numeric_limits<size_t>::max(), 0};
  for (const Variant& v : rule.variants) {
    std::pair<size_t, int> cost{0, 0};
    for (const BoundTensor& b : bound_) {
      const int distance = datatypeDistance(b.type.datatype, v.ports[b.port].datatypes);
      cost.first += distance > 0;
      cost.second += distance;
    }
    if (cost < best) {
      best = cost;
      nearest = &v;
    }
  }
  Diagnostic d = base(node, rule, DiagCode::kNoMatchingVariant, Severity::kError);
  d.message = "no variant of " + rule.id + " (" + rule.qnnOp + ") accepts these port datatypes.";
  std::string actual;
  for (const BoundTensor& b : bound_) {
    if (!actual.empty()) actual += ", ";
    actual += label(rule, b) + " " + std::string(datatypeName(b.type.datatype));
  }
  d.actual = actual;
  if (nearest) {
    d.variant = nearest->name;
    d.mark = nearest->mark;
    for (const BoundTensor& b : bound_) {
      const PortConstraint& c = nearest->ports[b.port];
      if (c.datatypes.contains(b.type.datatype)) continue;
      d.port = label(rule, b);
      d.expected = "nearest variant " + nearest->name + ": " + label(rule, b) + " " + datatypeSetText(c.datatypes) +
                   " (" + rule.ports[b.port].name + " must be " + datatypeSetWords(c) + ")";
      d.actual = label(rule, b) + " is " + actualOf(b) + "; all ports: " + actual;
      break;
    }
  }
  std::string names;
  for (const Variant& v : rule.variants) {
    if (!names.empty()) names += ", ";
    names += v.name;
    if (v.gate.gated()) names += " (" + v.gate.version + "+)";
  }
  d.hint = "variants of " + rule.id + ": " + names;
  out_.push_back(std::move(d));
}

void NodeValidator::emitGate(const Node& node, const Rule& rule, const Variant& gated) {
  Diagnostic d = base(node, rule, DiagCode::kArchGate, Severity::kError);
  d.variant = gated.name;
  d.mark = gated.mark;
  explainGate(rule, gated, soc_, d);
  // Name the port that needs the gated variant: the first one whose datatype no
  // available variant accepts, else the first one the nearest available variant rejects.
  for (const BoundTensor& b : bound_) {
    bool accepted = false;
    for (const Variant& v : rule.variants)
      if (soc_.meets(v.gate) && v.ports[b.port].datatypes.contains(b.type.datatype)) accepted = true;
    if (!accepted) {
      d.port = label(rule, b);
      break;
    }
  }
  if (d.port.empty()) {
    for (const Variant& v : rule.variants) {
      if (!soc_.meets(v.gate) || !matches(v)) continue;
      std::vector<Violation> tmp, advice;
      check(v, tmp, advice);
      if (!tmp.empty()) {
        d.port = label(rule, bound_[tmp.front().bound]);
        break;
      }
    }
  }
  out_.push_back(std::move(d));
}

// Runs for every node that passes: the kinds that can be unverifiable are listed once, and a
// port whose constraint uses no kind at all is skipped without a call.
void NodeValidator::emitUnverifiable(const Node& node, const Rule& rule, const Variant& v) {
  static const std::vector<const ConstraintKind*> withUnverifiable = [] {
    std::vector<const ConstraintKind*> ks;
    for (const ConstraintKind* k : constraintKinds())
      if (k->unverifiable) ks.push_back(k);
    return ks;
  }();
  const KindMask* masks = masksOf(v);
  for (const BoundTensor& b : bound_) {
    if (masks[b.port] == 0) continue;
    const PortConstraint& c = v.ports[b.port];
    for (const ConstraintKind* k : withUnverifiable) {
      if (!k->unverifiable(c, b)) continue;
      Diagnostic d = base(node, rule, DiagCode::kUnverifiable, Severity::kWarning);
      k->explainUnverifiable(rule, c, b, d);
      d.port = label(rule, b);
      d.variant = v.name;
      d.mark = c.mark.known() ? c.mark : v.mark;
      out_.push_back(std::move(d));
    }
  }
}

// On a backend that takes no quantized types (GPU), a quantized port is the problem itself,
// not "no matching variant": say so per port. Returns true when it reported any.
bool NodeValidator::reportQuantizedPorts(const Node& node, const Rule& rule) {
  bool any = false;
  for (const BoundTensor& b : bound_) {
    if (!b.type.quantized) continue;
    any = true;
    Diagnostic d = base(node, rule, DiagCode::kNoMatchingVariant, Severity::kError);
    d.port = label(rule, b);
    d.mark = rule.ports[b.port].mark.known() ? rule.ports[b.port].mark : rule.mark;
    d.message = rule.noQuantizedTypes;
    DatatypeSet accepted;
    for (const Variant& v : rule.variants) v.ports[b.port].datatypes.forEach([&](QnnDatatype t) { accepted.insert(t); });
    d.expected = "an unquantized tensor (" + datatypeSetText(accepted) + ")";
    d.actual = actualOf(b);
    d.hint = "leave " + rule.ports[b.port].name + " unannotated (float) for this backend";
    out_.push_back(std::move(d));
  }
  return any;
}

namespace {

const std::vector<int64_t>* shapeOf(const Graph& g, const Node& node, const Rule& rule, const BoundTensor& b) {
  if (!rule.ports[b.port].isInput) return &node.outputs[static_cast<size_t>(b.position)].shape;
  const Argument& arg = node.args[static_cast<size_t>(b.position)];
  const Argument& t = b.listIndex < 0 ? arg : arg.list[static_cast<size_t>(b.listIndex)];
  const Node& producer = g.node(t.tensor.node);
  return t.tensor.output < producer.outputs.size() ? &producer.outputs[t.tensor.output].shape : nullptr;
}

}  // namespace

// Shapes come from the graph; an unknown shape has rank 0 here and passes.
int NodeValidator::highestRank(const Node& node, const Rule& rule, int& rank) const {
  int at = -1;
  rank = 0;
  for (size_t i = 0; i < bound_.size(); ++i) {
    const std::vector<int64_t>* shape = shapeOf(g_, node, rule, bound_[i]);
    if (shape && static_cast<int>(shape->size()) > rank) {
      rank = static_cast<int>(shape->size());
      at = static_cast<int>(i);
    }
  }
  return at;
}

void NodeValidator::emitRank(const Node& node, const Rule& rule, int limit, const SourceMark& mark, int at, int rank) {
  const BoundTensor& b = bound_[static_cast<size_t>(at)];
  Diagnostic d = base(node, rule, DiagCode::kRank, Severity::kError);
  d.port = label(rule, b);
  d.mark = mark.known() ? mark : rule.mark;
  d.message = rankLimitSentence(rule, limit);
  d.expected = "rank " + std::to_string(limit) + " or less";
  d.actual = "rank " + std::to_string(rank) + " " + shapeText(*shapeOf(g_, node, rule, b));
  d.hint = "keep this op's tensors at rank " + std::to_string(limit) +
           " or less (merge adjacent dimensions before it), or leave it on CPU";
  out_.push_back(std::move(d));
}

int NodeValidator::emptyTensorAt(const Node& node, const Rule& rule) const {
  for (size_t i = 0; i < bound_.size(); ++i) {
    const std::vector<int64_t>* shape = shapeOf(g_, node, rule, bound_[i]);
    if (shape && std::find(shape->begin(), shape->end(), 0) != shape->end()) return static_cast<int>(i);
  }
  return -1;
}

void NodeValidator::emitEmptyTensor(const Node& node, const Rule& rule, int at) {
  const BoundTensor& b = bound_[static_cast<size_t>(at)];
  Diagnostic d = base(node, rule, DiagCode::kEmptyTensor, Severity::kError);
  d.port = label(rule, b);
  d.mark = rule.emptyTensorsMark.known() ? rule.emptyTensorsMark : rule.mark;
  d.message = emptyTensorSentence(rule);
  d.expected = "no dimension of 0";
  d.actual = "shape " + shapeText(*shapeOf(g_, node, rule, b));
  d.hint = "drop the empty tensor before lowering (a slice or split that selects nothing), or leave the op on CPU";
  out_.push_back(std::move(d));
}

void NodeValidator::reportNoRule(const Node& node, std::string_view nearTarget) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.code = DiagCode::kNoRule;
  d.node = node.name;
  d.nodeIndex = static_cast<uint32_t>(&node - g_.nodes().data());
  d.op = std::string(g_.target(node));
  d.message = "no rule covers " + d.op + ", so the node would fall back to CPU.";
  d.actual = "no rule";
  // An ONNX op (io/OnnxBinding.h) reaches a rule through the rule's `onnx` entries, not targets.
  if (d.op.starts_with("onnx::")) {
    d.expected = "a rule whose onnx entries match this " + d.op.substr(6) + " node";
    d.hint = "add an onnx entry to the rule of the QNN op it lowers to, or a rule in an overlay directory "
             "(QNNRULES_PATH or --rules DIR)";
  } else {
    d.expected = "a rule whose targets include " + d.op;
    d.hint = nearTarget.empty()
                 ? "add a rule for it in an overlay directory (QNNRULES_PATH or --rules DIR)"
                 : "did you mean '" + std::string(nearTarget) +
                       "'? (fix the op name in the graph), else add a rule for it in an overlay directory";
  }
  out_.push_back(std::move(d));
}

}  // namespace qnnrules
