#include "qnnrules/validate/Validator.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "qnnrules/validate/ConstraintText.h"
#include "qnnrules/core/Suggest.h"
#include "qnnrules/graph/PortType.h"

namespace qnnrules {
namespace {

std::string fmtDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string describeSpec(const QuantSpec& s) {
  std::string out = std::string(scalarTypeName(s.dtype));
  if (s.quantMin && s.quantMax)
    out += " " + std::to_string(*s.quantMin) + ".." + std::to_string(*s.quantMax);
  out += " " + std::string(qschemeName(s.qscheme));
  if (isPerChannel(s.qscheme)) out += " axis " + std::to_string(s.chAxis.value_or(0));
  if (!s.blockSize.empty()) {
    out += " block_size [";
    for (size_t i = 0; i < s.blockSize.size(); ++i) out += (i ? ", " : "") + std::to_string(s.blockSize[i]);
    out += "]";
  }
  return out;
}

// How a shared reference chain ended.
enum class Resolution : uint8_t { kConcrete, kUnannotated, kCycle, kUnresolved };

struct Resolved {
  Resolution how = Resolution::kUnannotated;
  const QuantSpec* root = nullptr;
};

// One tensor bound to one port of the rule.
struct Bound {
  int port = 0;         // index into Rule::ports
  int listIndex = -1;   // element of a list argument
  int position = -1;    // argument or output index (differs from the port's for variadic ports)
  const QuantSpec* spec = nullptr;  // as annotated (may be shared)
  Resolved resolved;
  PortType type;
};

struct Violation {
  DiagCode code;
  int bound;  // index into the node's Bound list
  const PortConstraint* constraint;
};

class NodeValidator {
 public:
  NodeValidator(const Graph& g, const SocInfo& soc, const ValidateOptions& opt, const std::string& backend,
                DiagnosticList& out)
      : g_(g), soc_(soc), opt_(opt), out_(out) {
    unsupportedPrefix_ = "not supported by QNN ";
    for (char c : backend) unsupportedPrefix_ += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    unsupportedPrefix_ += ": ";
    memo_.reserve(g.nodes().size() * 2);
  }

  void run(const Node& node, const Rule& rule);
  // `nearTarget`: a rule's target the op is likely a typo of ("" when none is close).
  void reportNoRule(const Node& node, std::string_view nearTarget);

 private:
  Resolved resolve(const QuantSpec* spec);
  const QuantSpec* edgeSpec(const SharedRef& ref) const;
  bool bind(const Node& node, const Rule& rule);
  bool matches(const Variant& v) const;
  int tieRank(const std::vector<Violation>& vs) const;
  void check(const Variant& v, std::vector<Violation>& out) const;
  bool sharesEncoding(const Bound& a, const Bound& b) const;
  Diagnostic base(const Node& node, const Rule& rule, DiagCode code, Severity sev) const;
  std::string label(const Rule& rule, const Bound& b) const {
    return portLabel(rule.ports[b.port], b.listIndex, b.position);
  }
  std::string actualOf(const Bound& b) const;
  void emitViolation(const Node& node, const Rule& rule, const Variant& v, const Violation& viol);
  void emitNoVariant(const Node& node, const Rule& rule);
  void emitGate(const Node& node, const Rule& rule, const Variant& gated);
  void emitUnverifiable(const Node& node, const Rule& rule, const Variant& v);
  bool reportQuantizedPorts(const Node& node, const Rule& rule);

  const Graph& g_;
  const SocInfo& soc_;
  const ValidateOptions& opt_;
  DiagnosticList& out_;
  std::string unsupportedPrefix_;  // "not supported by QNN HTP: ", built once
  // Scratch reused across nodes: the per-node path allocates only when a node has more
  // ports than any node before it.
  std::vector<Bound> bound_;
  std::vector<Violation> violations_, best_;
  std::vector<const QuantSpec*> path_;
  // Shared-reference roots, memoized so long reshape chains resolve in linear time.
  std::unordered_map<const QuantSpec*, Resolved> memo_;
};

const QuantSpec* NodeValidator::edgeSpec(const SharedRef& ref) const {
  const Node& consumer = g_.node(ref.consumer);
  const Argument* found = nullptr;
  auto visit = [&](const Argument& a) {
    if (!found && a.kind == Argument::Kind::kTensor && a.tensor.node == ref.node) found = &a;
  };
  for (const Argument& a : consumer.args) {
    visit(a);
    if (a.kind == Argument::Kind::kList)
      for (const Argument& e : a.list) visit(e);
  }
  if (found && found->qspec) return &*found->qspec;
  // No annotation on the edge: the producer's output encoding flows through.
  const Node& producer = g_.node(ref.node);
  uint32_t out = found ? found->tensor.output : ref.output;
  if (out < producer.outputs.size() && producer.outputs[out].qspec) return &*producer.outputs[out].qspec;
  return nullptr;
}

Resolved NodeValidator::resolve(const QuantSpec* spec) {
  if (!spec) return {Resolution::kUnannotated, nullptr};
  path_.clear();
  Resolved result;
  const QuantSpec* cur = spec;
  while (true) {
    if (auto it = memo_.find(cur); it != memo_.end()) {
      if (it->second.how == Resolution::kUnannotated && it->second.root == cur) {
        result = {Resolution::kCycle, nullptr};  // in-progress marker reached again
      } else {
        result = it->second;
      }
      break;
    }
    if (!cur->isShared()) {
      result = {Resolution::kConcrete, cur};
      break;
    }
    memo_[cur] = {Resolution::kUnannotated, cur};  // mark in progress
    path_.push_back(cur);
    const SharedRef& ref = *cur->sharedWith;
    const QuantSpec* next = nullptr;
    if (ref.kind == SharedRef::Kind::kNodeOutput) {
      const Node& n = g_.node(ref.node);
      if (ref.output < n.outputs.size() && n.outputs[ref.output].qspec) next = &*n.outputs[ref.output].qspec;
    } else {
      next = edgeSpec(ref);
    }
    if (!next) {
      result = {Resolution::kUnresolved, nullptr};
      break;
    }
    cur = next;
  }
  for (const QuantSpec* p : path_) memo_[p] = result;
  return result;
}

bool NodeValidator::bind(const Node& node, const Rule& rule) {
  bound_.clear();
  for (int p = 0; p < static_cast<int>(rule.ports.size()); ++p) {
    const PortDecl& decl = rule.ports[p];
    size_t before = bound_.size();
    if (decl.isInput) {
      for (size_t a = decl.index; a < node.args.size(); ++a) {
        const Argument& arg = node.args[a];
        auto add = [&](const Argument& t, int listIndex) {
          Bound b;
          b.port = p;
          b.listIndex = listIndex;
          b.position = static_cast<int>(a);
          b.spec = t.qspec ? &*t.qspec : nullptr;
          const Node& producer = g_.node(t.tensor.node);
          ScalarType dt = t.tensor.output < producer.outputs.size() ? producer.outputs[t.tensor.output].dtype
                                                                     : ScalarType::kFloat32;
          b.type = portTypeOf(dt);
          bound_.push_back(b);
        };
        if (arg.kind == Argument::Kind::kTensor) add(arg, -1);
        if (arg.kind == Argument::Kind::kList)
          for (size_t j = 0; j < arg.list.size(); ++j)
            if (arg.list[j].kind == Argument::Kind::kTensor) add(arg.list[j], static_cast<int>(j));
        if (!decl.variadic) break;
      }
    } else {
      for (size_t o = decl.index; o < node.outputs.size(); ++o) {
        Bound b;
        b.port = p;
        b.position = static_cast<int>(o);
        b.spec = node.outputs[o].qspec ? &*node.outputs[o].qspec : nullptr;
        b.type = portTypeOf(node.outputs[o].dtype);
        bound_.push_back(b);
        if (!decl.variadic) break;
      }
    }
    if (bound_.size() == before && !decl.optional) {
      Diagnostic d = base(node, rule, DiagCode::kMissingPort, Severity::kError);
      d.port = portLabel(decl);
      d.mark = decl.mark;
      d.message = decl.name + " is required by " + rule.id + " but the node has no tensor there.";
      d.expected = std::string("a tensor ") + (decl.isInput ? "argument" : "output") + " at position " +
                   std::to_string(decl.index);
      d.actual = decl.isInput ? std::to_string(node.args.size()) + " argument(s)"
                              : std::to_string(node.outputs.size()) + " output(s)";
      out_.push_back(std::move(d));
      return false;
    }
  }
  // Resolve shared references and derive what QNN will see on each port.
  bool ok = true;
  for (Bound& b : bound_) {
    b.resolved = resolve(b.spec);
    if (b.resolved.how == Resolution::kConcrete) {
      b.type = portTypeOf(*b.resolved.root);
    } else if (b.resolved.how == Resolution::kCycle || b.resolved.how == Resolution::kUnresolved) {
      bool cycle = b.resolved.how == Resolution::kCycle;
      Diagnostic d = base(node, rule, cycle ? DiagCode::kSharedCycle : DiagCode::kSharedUnresolved,
                          Severity::kError);
      d.port = label(rule, b);
      d.mark = rule.ports[b.port].mark;
      d.message = cycle ? "the shared_with references of this port form a cycle, so it has no encoding."
                        : "the shared_with reference of this port leads to a port with no annotation.";
      d.expected = "a chain of shared_with references ending at a concrete quantization spec";
      d.actual = cycle ? "a cycle" : "a reference to an unannotated port";
      d.hint = "point shared_with at the producer's output (or an annotated edge)";
      out_.push_back(std::move(d));
      ok = false;
    }
  }
  return ok;
}

bool NodeValidator::matches(const Variant& v) const {
  for (const Bound& b : bound_)
    if (!v.ports[b.port].datatypes.contains(b.type.datatype)) return false;
  return true;
}

bool NodeValidator::sharesEncoding(const Bound& a, const Bound& b) const {
  if (!a.type.quantized && !b.type.quantized) return true;  // both float: nothing to share
  if (a.resolved.root && a.resolved.root == b.resolved.root) return true;
  // Independent specs that happen to carry identical calibrated numbers also share.
  const QuantSpec* x = a.resolved.root;
  const QuantSpec* y = b.resolved.root;
  if (!x || !y || x->scales.empty() || y->scales.empty()) return false;
  if (a.type.datatype != b.type.datatype || x->scales.size() != y->scales.size()) return false;
  for (size_t i = 0; i < x->scales.size(); ++i)
    if (std::fabs(x->scales[i] - y->scales[i]) > opt_.scaleRelTolerance * std::fabs(y->scales[i])) return false;
  auto zp = [](const QuantSpec* s, size_t i) { return s->zeroPoints.empty() ? 0 : s->zeroPoints[std::min(i, s->zeroPoints.size() - 1)]; };
  for (size_t i = 0; i < x->scales.size(); ++i)
    if (zp(x, i) != zp(y, i)) return false;
  return true;
}

void NodeValidator::check(const Variant& v, std::vector<Violation>& out) const {
  out.clear();
  for (int i = 0; i < static_cast<int>(bound_.size()); ++i) {
    const Bound& b = bound_[i];
    const PortConstraint& c = v.ports[b.port];
    const QuantSpec* s = b.resolved.root;
    if (!c.encodings.empty() && b.type.encoding && !c.encodings.contains(*b.type.encoding))
      out.push_back({DiagCode::kEncoding, i, &c});
    if (c.bitwidths && b.type.quantized && !((c.bitwidths >> b.type.bitwidth) & 1))
      out.push_back({DiagCode::kBitwidth, i, &c});
    if (c.symmetric.value_or(false) && s) {
      bool sym = isSymmetric(s->qscheme);
      if (sym && !s->zeroPoints.empty()) {
        int64_t want = -symmetricOffset(b.type.datatype);  // as a zero point
        for (int64_t zp : s->zeroPoints) sym = sym && zp == want;
      }
      if (!sym) out.push_back({DiagCode::kSymmetric, i, &c});
    }
    if (c.axis && s && isPerChannel(s->qscheme) && s->chAxis.value_or(0) != *c.axis)
      out.push_back({DiagCode::kAxis, i, &c});
    if (s && c.scale && s->scales.size() == 1 &&
        std::fabs(s->scales[0] - *c.scale) > opt_.scaleRelTolerance * *c.scale)
      out.push_back({DiagCode::kFixedScale, i, &c});
    if (s && c.scale && s->scales.size() > 1) out.push_back({DiagCode::kFixedScale, i, &c});
    if (s && c.offset && !s->zeroPoints.empty() && -s->zeroPoints[0] != *c.offset)
      out.push_back({DiagCode::kFixedOffset, i, &c});
    if (c.sharedWith >= 0) {
      for (const Bound& other : bound_) {
        if (other.port != c.sharedWith) continue;
        if (!sharesEncoding(b, other)) {
          out.push_back({DiagCode::kShared, i, &c});
          break;
        }
      }
    }
  }
}

Diagnostic NodeValidator::base(const Node& node, const Rule& rule, DiagCode code, Severity sev) const {
  Diagnostic d;
  d.severity = sev;
  d.code = code;
  d.node = node.name;
  d.op = std::string(g_.target(node));
  d.ruleId = rule.id;
  d.mark = rule.mark;
  return d;
}

std::string NodeValidator::actualOf(const Bound& b) const {
  std::string s = std::string(datatypeName(b.type.datatype));
  if (b.type.encoding) s += " " + std::string(encodingName(*b.type.encoding));
  if (b.resolved.root) s += " (" + describeSpec(*b.resolved.root) + ")";
  else if (!b.type.quantized) s += " (not annotated)";
  return s;
}

void NodeValidator::emitViolation(const Node& node, const Rule& rule, const Variant& v, const Violation& viol) {
  const Bound& b = bound_[viol.bound];
  const PortConstraint& c = *viol.constraint;
  const QuantSpec* s = b.resolved.root;
  Diagnostic d = base(node, rule, viol.code, Severity::kError);
  d.port = label(rule, b);
  d.variant = v.name;
  d.mark = c.mark.known() ? c.mark : v.mark;
  switch (viol.code) {
    case DiagCode::kEncoding:
      d.message = encodingSentence(rule, b.port, c);
      d.expected = encodingSetText(c.encodings);
      d.actual = actualOf(b);
      d.hint = "annotate " + rule.ports[b.port].name + " with an encoding of variant " + v.name;
      break;
    case DiagCode::kBitwidth:
      d.message = bitwidthSentence(rule, b.port, c);
      d.expected = bitwidthSetText(c.bitwidths) + " bits";
      d.actual = std::to_string(b.type.bitwidth) + " bits (" + (s ? describeSpec(*s) : "") + ")";
      d.hint = "widen the quantization range of " + rule.ports[b.port].name;
      break;
    case DiagCode::kSymmetric:
      d.message = symmetricSentence(rule, b.port, c);
      d.expected = "per_tensor_symmetric or per_channel_symmetric, QNN offset " +
                   std::to_string(symmetricOffset(b.type.datatype));
      d.actual = s ? describeSpec(*s) : "";
      if (s && !s->zeroPoints.empty()) d.actual += ", zero_point " + std::to_string(s->zeroPoints[0]);
      d.hint = "quantize " + rule.ports[b.port].name + " with a symmetric qscheme";
      break;
    case DiagCode::kAxis:
      d.message = axisSentence(rule, b.port, c);
      d.expected = "ch_axis " + std::to_string(*c.axis);
      d.actual = "ch_axis " + std::to_string(s->chAxis.value_or(0));
      d.hint = "set ch_axis to " + std::to_string(*c.axis) + " for " + rule.ports[b.port].name;
      break;
    case DiagCode::kFixedScale:
    case DiagCode::kFixedOffset: {
      d.message = fixedQParamsSentence(rule, b.port, c);
      if (viol.code == DiagCode::kFixedScale) {
        d.expected = "scale " + scaleText(c);
        if (s->scales.size() == 1) {
          d.actual = "scale " + fmtDouble(s->scales[0]);
          if (s->scales[0] > 0) d.actual += " (= 1/" + fmtDouble(1.0 / s->scales[0]) + ")";
        } else {
          d.actual = std::to_string(s->scales.size()) + " per-channel scales";
        }
      } else {
        d.expected = "offset " + std::to_string(*c.offset) + " (zero_point " + std::to_string(-*c.offset) + ")";
        d.actual = "offset " + std::to_string(-s->zeroPoints[0]) + " (zero_point " + std::to_string(s->zeroPoints[0]) + ")";
      }
      d.hint = "use fixed quantization parameters for " + rule.ports[b.port].name +
               " (a FixedQParams observer), not a calibrated range";
      break;
    }
    case DiagCode::kShared: {
      const PortDecl& other = rule.ports[c.sharedWith];
      d.message = sharedSentence(rule, b.port, c);
      d.expected = "the same encoding as " + portLabel(other) + " (a shared_with reference or identical scale/offset)";
      d.actual = b.spec && b.spec->isShared() ? "shared with a different encoding" : "its own encoding";
      if (s) d.actual += " (" + describeSpec(*s) + ")";
      d.hint = "annotate " + rule.ports[b.port].name + " with shared_with the " + other.name +
               " edge (SharedQuantizationSpec)";
      break;
    }
    default:
      break;
  }
  out_.push_back(std::move(d));
}

void NodeValidator::emitNoVariant(const Node& node, const Rule& rule) {
  // Nearest variant: fewest tensors whose datatype it does not accept.
  const Variant* nearest = nullptr;
  size_t bestMiss = std::numeric_limits<size_t>::max();
  for (const Variant& v : rule.variants) {
    size_t miss = 0;
    for (const Bound& b : bound_) miss += !v.ports[b.port].datatypes.contains(b.type.datatype);
    if (miss < bestMiss) {
      bestMiss = miss;
      nearest = &v;
    }
  }
  Diagnostic d = base(node, rule, DiagCode::kNoMatchingVariant, Severity::kError);
  d.message = "no variant of " + rule.id + " (" + rule.qnnOp + ") accepts these port datatypes.";
  std::string actual;
  for (const Bound& b : bound_) {
    if (!actual.empty()) actual += ", ";
    actual += label(rule, b) + " " + std::string(datatypeName(b.type.datatype));
  }
  d.actual = actual;
  if (nearest) {
    d.variant = nearest->name;
    d.mark = nearest->mark;
    for (const Bound& b : bound_) {
      const PortConstraint& c = nearest->ports[b.port];
      if (c.datatypes.contains(b.type.datatype)) continue;
      d.port = label(rule, b);
      d.expected = "nearest variant " + nearest->name + ": " + label(rule, b) + " " + datatypeSetText(c.datatypes);
      d.actual = label(rule, b) + " is " + actualOf(b) + "; all ports: " + actual;
      break;
    }
  }
  std::string names;
  for (const Variant& v : rule.variants) {
    if (!names.empty()) names += ", ";
    names += v.name;
    if (v.minArch != HtpArch::kNone) names += " (" + std::string(htpArchName(v.minArch)) + "+)";
  }
  d.hint = "variants of " + rule.id + ": " + names;
  out_.push_back(std::move(d));
}

void NodeValidator::emitGate(const Node& node, const Rule& rule, const Variant& gated) {
  Diagnostic d = base(node, rule, DiagCode::kArchGate, Severity::kError);
  d.variant = gated.name;
  d.mark = gated.mark;
  d.message = gateSentence(rule, gated);
  d.expected = "HTP " + std::string(htpArchName(gated.minArch)) + " or newer";
  d.actual = soc_.name + " is " + std::string(htpArchName(soc_.htpArch));
  d.hint = gated.hint;
  // Name the port that needs the gated variant: the first one whose datatype no
  // available variant accepts, else the first one the nearest available variant rejects.
  for (const Bound& b : bound_) {
    bool accepted = false;
    for (const Variant& v : rule.variants)
      if (v.minArch <= soc_.htpArch && v.ports[b.port].datatypes.contains(b.type.datatype)) accepted = true;
    if (!accepted) {
      d.port = label(rule, b);
      break;
    }
  }
  if (d.port.empty()) {
    for (const Variant& v : rule.variants) {
      if (v.minArch > soc_.htpArch || !matches(v)) continue;
      std::vector<Violation> tmp;
      check(v, tmp);
      if (!tmp.empty()) {
        d.port = label(rule, bound_[tmp.front().bound]);
        break;
      }
    }
  }
  out_.push_back(std::move(d));
}

void NodeValidator::emitUnverifiable(const Node& node, const Rule& rule, const Variant& v) {
  for (const Bound& b : bound_) {
    const PortConstraint& c = v.ports[b.port];
    const QuantSpec* s = b.resolved.root;
    if (!s || !(c.scale || c.offset)) continue;
    bool scaleUnknown = c.scale && s->scales.empty();
    bool offsetUnknown = c.offset && s->zeroPoints.empty();
    if (!scaleUnknown && !offsetUnknown) continue;
    Diagnostic d = base(node, rule, DiagCode::kUnverifiable, Severity::kWarning);
    d.port = label(rule, b);
    d.variant = v.name;
    d.mark = c.mark.known() ? c.mark : v.mark;
    d.message = fixedQParamsSentence(rule, b.port, c) + " This cannot be checked: the annotation has no " +
                (scaleUnknown ? "scale" : "zero_point") + " yet.";
    d.expected = c.scale ? "scale " + scaleText(c) : "offset " + std::to_string(*c.offset);
    d.actual = "no " + std::string(scaleUnknown ? "scale" : "zero_point") + " in the annotation";
    d.hint = "validate after calibration, or annotate the fixed scale and zero_point";
    out_.push_back(std::move(d));
  }
}

// On a backend that takes no quantized types (GPU), a quantized port is the problem itself,
// not "no matching variant": say so per port. Returns true when it reported any.
bool NodeValidator::reportQuantizedPorts(const Node& node, const Rule& rule) {
  bool any = false;
  for (const Bound& b : bound_) {
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

void NodeValidator::reportNoRule(const Node& node, std::string_view nearTarget) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.code = DiagCode::kNoRule;
  d.node = node.name;
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

void NodeValidator::run(const Node& node, const Rule& rule) {
  if (rule.kind == RuleKind::kStructural) return;
  if (rule.kind == RuleKind::kUnsupported) {
    Diagnostic d = base(node, rule, DiagCode::kUnsupportedOp, Severity::kError);
    d.message = unsupportedPrefix_ + rule.reason;
    d.expected = "an op the backend supports";
    d.actual = d.op;
    d.hint = rule.description;
    out_.push_back(std::move(d));
    return;
  }
  if (!bind(node, rule)) return;
  if (!rule.noQuantizedTypes.empty() && reportQuantizedPorts(node, rule)) return;

  // Every variant whose datatypes match is evaluated; the node is valid when an available
  // one passes. A gated variant that passes means the only problem is the SoC.
  const Variant* bestVariant = nullptr;
  const Variant* passingGated = nullptr;
  const Variant* passing = nullptr;
  bool bestAvailable = false;
  int bestRank = 0;
  bool anyMatch = false;
  for (const Variant& v : rule.variants) {
    if (!matches(v)) continue;
    anyMatch = true;
    check(v, violations_);
    bool available = v.minArch <= soc_.htpArch;
    if (violations_.empty()) {
      if (available) {
        passing = &v;
        break;
      }
      if (!passingGated) passingGated = &v;
      continue;
    }
    const int rank = tieRank(violations_);
    bool better = !bestVariant || (available && !bestAvailable) ||
                  (available == bestAvailable &&
                   (violations_.size() < best_.size() || (violations_.size() == best_.size() && rank < bestRank)));
    if (better) {
      bestVariant = &v;
      bestAvailable = available;
      bestRank = rank;
      best_.swap(violations_);
    }
  }
  if (passing) {
    emitUnverifiable(node, rule, *passing);
  } else if (passingGated) {
    emitGate(node, rule, *passingGated);
  } else if (bestVariant) {
    if (!bestAvailable) emitGate(node, rule, *bestVariant);
    for (const Violation& viol : best_) emitViolation(node, rule, *bestVariant, viol);
  } else if (!anyMatch) {
    emitNoVariant(node, rule);
  }
}

// Among variants with as many violations, the nearest is the one whose violations are the
// smallest fix: a per-tensor vs per-channel encoding (1) before a bit width (2) before an
// encoding of another family (3: plain vs BW_* vs block-wise), so a per-tensor 2-bit weight
// is told to go per-channel rather than to use 8 bits.
int NodeValidator::tieRank(const std::vector<Violation>& vs) const {
  auto family = [](Encoding e) {
    return e == Encoding::kBlockwiseExpansion ? 2 : (e == Encoding::kBwScaleOffset || e == Encoding::kBwAxisScaleOffset) ? 1 : 0;
  };
  int rank = 0;
  for (const Violation& v : vs) {
    if (v.code == DiagCode::kBitwidth) {
      rank += 2;
    } else if (v.code == DiagCode::kEncoding && bound_[v.bound].type.encoding) {
      const int f = family(*bound_[v.bound].type.encoding);
      bool sameFamily = false;
      for (int e = 0; e < static_cast<int>(Encoding::kCount); ++e)
        sameFamily |= v.constraint->encodings.contains(static_cast<Encoding>(e)) && family(static_cast<Encoding>(e)) == f;
      rank += sameFamily ? 1 : 3;
    } else {
      rank += 1;
    }
  }
  return rank;
}

}  // namespace

ValidationResult validateGraph(const Graph& graph, const RuleSet& rules, const SocInfo& soc,
                               const ValidateOptions& options) {
  ValidationResult result;
  // Map each distinct target to its rule once, not once per node.
  std::vector<const Rule*> ruleOfTarget(graph.targets().size(), nullptr);
  for (size_t t = 0; t < graph.targets().size(); ++t) ruleOfTarget[t] = rules.findByTarget(graph.targets()[t]);
  // For ops without a rule, the rule target they are likely a typo of: once per distinct op.
  std::vector<std::string_view> nearTarget(graph.targets().size());
  std::vector<std::string_view> allTargets;
  for (size_t t = 0; t < graph.targets().size(); ++t) {
    if (ruleOfTarget[t]) continue;
    if (allTargets.empty())
      for (const Rule& r : rules.rules()) allTargets.insert(allTargets.end(), r.targets.begin(), r.targets.end());
    // At most two edits (a swapped or missing letter): ops share "aten." and ".default", so
    // the usual third-of-the-length limit would offer aten.sum for aten.cumsum.
    std::string_view near = nearestName(graph.targets()[t], allTargets);
    if (!near.empty() && editDistanceIgnoringCase(graph.targets()[t], near) <= 2) nearTarget[t] = near;
  }

  NodeValidator nv(graph, soc, options, rules.backend(), result.diagnostics);
  const std::vector<uint8_t>& skip = options.skipNodes;
  for (uint32_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& node = graph.node(i);
    if (node.kind != NodeKind::kCall || (i < skip.size() && skip[i])) continue;
    ++result.nodesChecked;
    const Rule* rule = node.targetId == Node::kNoTarget ? nullptr : ruleOfTarget[node.targetId];
    if (!rule) {
      nv.reportNoRule(node, node.targetId == Node::kNoTarget ? std::string_view() : nearTarget[node.targetId]);
      continue;
    }
    ++result.nodesWithRule;
    nv.run(node, *rule);
  }
  return result;
}

void applyMode(ValidationResult& result, Mode mode) {
  if (mode != Mode::kWarn) return;
  for (Diagnostic& d : result.diagnostics)
    if (d.severity == Severity::kError) d.severity = Severity::kWarning;
}

}  // namespace qnnrules
