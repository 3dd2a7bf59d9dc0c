#include "qnnrules/annotate/Annotator.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "qnnrules/graph/PortType.h"

namespace qnnrules {

std::string describeQuantSpec(const QuantSpec& s) {
  if (s.sharedWith) {
    const SharedRef& r = *s.sharedWith;
    return r.kind == SharedRef::Kind::kEdge ? "shared with an input edge" : "shared with a node output";
  }
  std::string out(scalarTypeName(s.dtype));
  if (isFloatType(s.dtype)) return out;
  if (s.quantMin && s.quantMax) out += " " + std::to_string(*s.quantMin) + ".." + std::to_string(*s.quantMax);
  out += " " + std::string(qschemeName(s.qscheme));
  if (isPerChannel(s.qscheme)) out += " axis " + std::to_string(s.chAxis.value_or(0));
  if (!s.blockSize.empty()) {
    out += " block [";
    for (size_t i = 0; i < s.blockSize.size(); ++i) out += (i ? ", " : "") + std::to_string(s.blockSize[i]);
    out += "]";
  }
  if (s.scales.size() == 1) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " scale %.9g zero_point %lld", s.scales[0],
                  static_cast<long long>(s.zeroPoints.empty() ? 0 : s.zeroPoints[0]));
    out += buf;
  }
  return out;
}

int namedInputArg(const Rule& rule, std::string_view name) {
  for (const PortDecl& d : rule.ports)
    if (d.isInput && d.name == name) return d.index;
  return -1;
}

int convWeightArg(const Rule& rule) {
  int a = namedInputArg(rule, "weight");
  return a >= 0 ? a : 1;
}

int convBiasArg(const Rule& rule) {
  int a = namedInputArg(rule, "bias");
  return a >= 0 ? a : 2;
}

namespace {

// The specs of one selection, built once per distinct selection rather than per node.
struct CompiledSelection {
  ConfigSelection sel;
  QuantSpec act;
  QuantSpec weightPerTensor;
  QuantSpec matmulIn1;
  QuantSpec normWeight;
  QuantSpec normBias;
  QuantSpec convBias;  // per-tensor form; per-channel weights get the per-channel form
  PortType actType;
};

QuantSpec makeSpec(const TensorQuant& t, bool symmetric) {
  QuantSpec q;
  q.dtype = t.dtype;
  if (t.isFloat()) return q;
  q.quantMin = t.quantMin;
  q.quantMax = t.quantMax;
  q.qscheme = symmetric ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine;
  return q;
}

CompiledSelection compile(const ConfigSelection& sel) {
  const QuantConfig& c = *sel.config;
  CompiledSelection cs;
  cs.sel = sel;
  // Signed roles are symmetric by construction (offset 0); unsigned activation-like roles are
  // affine unless ":sym" asks for symmetric activations.
  auto role = [&](const TensorQuant& t) { return makeSpec(t, t.quantMin < 0 || sel.actSymmetric); };
  cs.act = role(c.activation);
  cs.weightPerTensor = makeSpec(c.weight, true);
  cs.matmulIn1 = role(c.matmulIn1);
  cs.normWeight = role(c.normWeight);
  cs.normBias = c.activation.isFloat() ? cs.act : makeSpec(c.normBias, true);
  TensorQuant i32{ScalarType::kInt32, INT32_MIN, INT32_MAX};
  cs.convBias = c.activation.isFloat() ? cs.act : makeSpec(i32, true);
  cs.actType = portTypeOf(cs.act);
  return cs;
}

bool isTensor(const Argument& a) { return a.kind == Argument::Kind::kTensor; }

// Per-rule facts the patterns need, computed once per rule.
struct RuleFacts {
  int weightArg = -1;
  int biasArg = -1;
  std::vector<int> secondOperandArgs;  // matmul pattern: args of ports other/weight/key/value
  int weightPort = -1;
  int firstOutputPort = -1;
  std::optional<int> ruleAxis;  // per-channel axis the rule fixes on the weight port
  bool weightPerChannelAllowed = false;  // some variant takes AXIS_SCALE_OFFSET on the weight port
  // custom pattern: (port, input port it shares) for every `shared_with` some variant declares
  // towards a non-variadic input, so scatters annotate what their rule checks.
  std::vector<std::pair<int, int>> sharedPorts;
};

class Annotator {
 public:
  Annotator(Graph& g, const RuleSet& rules, const QuantConfigTable& configs, const Recipe* recipe,
            const AnnotateOptions& opt, AnnotateResult& result)
      : g_(g), rules_(rules), configs_(configs), recipe_(recipe), opt_(opt), r_(result) {}

  void run(const ConfigSelection& defaultSel);

 private:
  struct Choice {
    const CompiledSelection* cs = nullptr;
    const Override* winner = nullptr;
    bool discard = false;
    std::string discardWhy;
  };

  const CompiledSelection* compiled(const ConfigSelection& s);
  const RuleFacts& facts(const Rule& rule);
  Choice choose(const Node& n);
  void annotate(uint32_t idx, const Rule& rule, const Choice& ch);
  bool isFloatArg(const Argument& a) const;
  bool isFloatOut(const Node& n, size_t o) const { return o < n.outputs.size() && isFloatType(n.outputs[o].dtype); }
  void setIn(Node& n, size_t arg, int listIndex, QuantSpec spec, const char* why);
  void setOut(Node& n, size_t out, QuantSpec spec, const char* why);
  QuantSpec sharedNode(uint32_t node, uint32_t output) const;
  QuantSpec sharedEdge(uint32_t producer, uint32_t consumer) const;
  std::optional<QuantSpec> fixedOutput(const Rule& rule, const CompiledSelection& cs);
  const CompiledSelection& narrowFor(const Rule& rule, const CompiledSelection& cs);
  QuantSpec narrowWeight(const Rule& rule, const CompiledSelection& cs, QuantSpec w);
  QuantSpec weightSpec(const Node& n, const Rule& rule, const CompiledSelection& cs, const Override* ov,
                       size_t warg, bool& perChannel);
  std::string explainSpec(const Node& n, const QuantSpec& spec) const;
  void note(const Node& n, DiagCode code, Severity sev, std::string message, std::string hint = {});

  Graph& g_;
  const RuleSet& rules_;
  const QuantConfigTable& configs_;
  const Recipe* recipe_;
  const AnnotateOptions& opt_;
  AnnotateResult& r_;

  std::vector<std::unique_ptr<CompiledSelection>> selections_;
  const CompiledSelection* default_ = nullptr;
  std::vector<const Rule*> ruleOfTarget_;
  std::unordered_map<const Rule*, RuleFacts> facts_;
  std::map<std::pair<const Rule*, QnnDatatype>, std::optional<QuantSpec>> fixed_;
  std::map<std::pair<const Rule*, const CompiledSelection*>, const CompiledSelection*> narrowed_;
  std::vector<std::unique_ptr<CompiledSelection>> narrowedSelections_;
  // Overrides: target overrides by target id (once per distinct target), module regex
  // results memoized per distinct module path, node-name regexes run per node.
  std::vector<std::vector<uint32_t>> targetOverrides_;
  std::unordered_map<std::string, std::vector<uint32_t>> moduleMemo_;
  std::vector<const CompiledSelection*> overrideSel_;
  std::vector<size_t> overrideHits_;
  std::map<std::pair<uint32_t, uint32_t>, std::pair<size_t, std::string>> ties_;  // (loser, winner) -> count, node
  std::unordered_set<std::string_view> discardNodes_;
  std::unordered_set<uint32_t> discardTargets_;
  std::vector<bool> discardNodeSeen_;

  uint32_t explainIdx_ = UINT32_MAX;
  NodeExplanation* expl_ = nullptr;  // set only while annotating the explained node
  const char* context_ = "";         // "pattern conv of rule htp.conv2d" for explanations
  std::string contextText_;
};

const CompiledSelection* Annotator::compiled(const ConfigSelection& s) {
  for (const auto& c : selections_)
    if (c->sel.config == s.config && c->sel.granularity == s.granularity && c->sel.actSymmetric == s.actSymmetric &&
        c->sel.qat == s.qat)
      return c.get();
  selections_.push_back(std::make_unique<CompiledSelection>(compile(s)));
  return selections_.back().get();
}

const RuleFacts& Annotator::facts(const Rule& rule) {
  auto [it, fresh] = facts_.try_emplace(&rule);
  if (!fresh) return it->second;
  RuleFacts& f = it->second;
  f.weightArg = namedInputArg(rule, "weight");
  f.biasArg = namedInputArg(rule, "bias");
  for (const char* name : {"other", "weight", "key", "value"})
    if (int a = namedInputArg(rule, name); a >= 0) f.secondOperandArgs.push_back(a);
  for (int p = 0; p < static_cast<int>(rule.ports.size()); ++p) {
    const PortDecl& d = rule.ports[p];
    if (!d.isInput && f.firstOutputPort < 0) f.firstOutputPort = p;
    if (d.isInput && d.name == "weight") f.weightPort = p;
  }
  for (const Variant& v : rule.variants)
    for (int p = 0; p < static_cast<int>(v.ports.size()); ++p) {
      const int q = v.ports[p].sharedWith;
      if (q < 0 || !rule.ports[q].isInput || rule.ports[q].variadic) continue;
      if (std::none_of(f.sharedPorts.begin(), f.sharedPorts.end(), [&](const auto& e) { return e.first == p; }))
        f.sharedPorts.emplace_back(p, q);
    }
  if (f.weightPort >= 0)
    for (const Variant& v : rule.variants) {
      if (v.ports[f.weightPort].axis && !f.ruleAxis) f.ruleAxis = v.ports[f.weightPort].axis;
      const EncodingSet& enc = v.ports[f.weightPort].encodings;  // empty: not constrained
      f.weightPerChannelAllowed |= enc.empty() || enc.contains(Encoding::kAxisScaleOffset);
    }
  return f;
}

bool Annotator::isFloatArg(const Argument& a) const {
  if (!isTensor(a)) return false;
  const Node& p = g_.node(a.tensor.node);
  return a.tensor.output < p.outputs.size() ? isFloatType(p.outputs[a.tensor.output].dtype) : false;
}

std::string Annotator::explainSpec(const Node& n, const QuantSpec& spec) const {
  if (!spec.sharedWith) return describeQuantSpec(spec);
  const SharedRef& r = *spec.sharedWith;
  return r.kind == SharedRef::Kind::kEdge
             ? "shared with the edge " + g_.node(r.node).name + " -> " + n.name
             : "shared with output " + std::to_string(r.output) + " of " + g_.node(r.node).name;
}

void Annotator::setIn(Node& n, size_t arg, int listIndex, QuantSpec spec, const char* why) {
  Argument& a = listIndex < 0 ? n.args[arg] : n.args[arg].list[static_cast<size_t>(listIndex)];
  if (expl_) {
    std::string port = "in[" + std::to_string(arg) + "]" + (listIndex < 0 ? "" : "[" + std::to_string(listIndex) + "]");
    expl_->ports.push_back({port, explainSpec(n, spec), std::string(why) + "; " + contextText_});
  }
  a.qspec = std::move(spec);
}

void Annotator::setOut(Node& n, size_t out, QuantSpec spec, const char* why) {
  if (expl_) {
    expl_->ports.push_back({"out[" + std::to_string(out) + "]", explainSpec(n, spec), std::string(why) + "; " + contextText_});
  }
  n.outputs[out].qspec = std::move(spec);
}

QuantSpec Annotator::sharedNode(uint32_t node, uint32_t output) const {
  QuantSpec q;
  q.sharedWith = SharedRef{SharedRef::Kind::kNodeOutput, node, output, 0};
  return q;
}

QuantSpec Annotator::sharedEdge(uint32_t producer, uint32_t consumer) const {
  QuantSpec q;
  q.sharedWith = SharedRef{SharedRef::Kind::kEdge, producer, 0, consumer};
  return q;
}

// The fixed output encoding a rule demands for this activation datatype (sigmoid 1/256 at
// 8 bits, tanh 1/32768 offset -32768 at 16 bits), read from the rule's variants: the rule is
// the one place that states these numbers.
std::optional<QuantSpec> Annotator::fixedOutput(const Rule& rule, const CompiledSelection& cs) {
  auto key = std::make_pair(&rule, cs.actType.datatype);
  if (auto it = fixed_.find(key); it != fixed_.end()) return it->second;
  std::optional<QuantSpec> spec;
  int out = facts(rule).firstOutputPort;
  if (out >= 0 && cs.actType.quantized) {
    for (const Variant& v : rule.variants) {
      const PortConstraint& c = v.ports[out];
      if (!c.scale || !c.datatypes.contains(cs.actType.datatype)) continue;
      QuantSpec q = cs.act;
      q.qscheme = QScheme::kPerTensorAffine;
      q.scales = {*c.scale};
      q.zeroPoints = {-c.offset.value_or(0)};
      spec = q;
      break;
    }
  }
  fixed_[key] = spec;
  return spec;
}

// A rule that takes the config's activation type on no port at all, but takes 8 bits (the
// comparisons: 8-bit inputs, a bool output; asin), gets 8-bit activations instead, so the annotator
// never writes what the rule rejects; the lowering requantizes on the edge, as QNN would have
// to anyway. Decided once per (rule, selection).
const CompiledSelection& Annotator::narrowFor(const Rule& rule, const CompiledSelection& cs) {
  if (cs.actType.quantized && cs.actType.bitwidth <= 8) return cs;
  auto [it, fresh] = narrowed_.try_emplace({&rule, &cs}, &cs);
  if (!fresh) return *it->second;
  // Float activations (fp16a8w) narrow to unsigned 8 bits, like the 8-bit configs.
  const bool isSigned = cs.actType.quantized && isSignedFixedPoint(cs.actType.datatype);
  const QnnDatatype eight = isSigned ? QnnDatatype::kSFixed8 : QnnDatatype::kUFixed8;
  bool takesWidth = false, takesEight = false;
  for (const Variant& v : rule.variants)
    for (const PortConstraint& c : v.ports) {
      takesWidth = takesWidth || c.datatypes.contains(cs.actType.datatype);
      takesEight = takesEight || c.datatypes.contains(eight);
    }
  if (takesWidth || !takesEight) return cs;
  auto n = std::make_unique<CompiledSelection>(cs);
  if (!cs.actType.quantized) n->act.qscheme = QScheme::kPerTensorAffine;
  n->act.dtype = isSigned ? ScalarType::kInt8 : ScalarType::kUInt8;
  n->act.quantMin = isSigned ? -128 : 0;
  n->act.quantMax = isSigned ? 127 : 255;
  n->actType = portTypeOf(n->act);
  it->second = n.get();
  narrowedSelections_.push_back(std::move(n));
  return *it->second;
}

// A weight width the config asks for but no variant of the rule takes with these activations
// (16-bit or 2-bit weights on conv3d, int8 weights under fp16 activations) is narrowed to one
// the rule takes: 4 or 8 bits (the nearer first), else float like the activations. A variant
// that takes the width behind an arch gate keeps it, so the gate is what gets reported.
QuantSpec Annotator::narrowWeight(const Rule& rule, const CompiledSelection& cs, QuantSpec w) {
  const RuleFacts& f = facts(rule);
  int in = -1;
  for (int p = 0; p < static_cast<int>(rule.ports.size()) && in < 0; ++p)
    if (rule.ports[p].isInput && rule.ports[p].index == 0) in = p;
  if (f.weightPort < 0 || in < 0) return w;
  auto takes = [&](const QuantSpec& q) {
    const PortType t = portTypeOf(q);
    for (const Variant& v : rule.variants) {
      const PortConstraint& c = v.ports[f.weightPort];
      if (!v.ports[in].datatypes.contains(cs.actType.datatype) || !c.datatypes.contains(t.datatype)) continue;
      if (t.quantized && c.bitwidths && !((c.bitwidths >> t.bitwidth) & 1)) continue;
      if (t.encoding && !c.encodings.empty() && !c.encodings.contains(*t.encoding)) continue;
      return true;
    }
    return false;
  };
  if (takes(w)) return w;
  QuantSpec q8 = w;
  q8.dtype = ScalarType::kInt8;
  q8.quantMin = -127;
  q8.quantMax = 127;
  q8.blockSize.clear();
  QuantSpec q4 = q8;
  q4.quantMin = -7;
  q4.quantMax = 7;
  const bool narrow = portTypeOf(w).bitwidth < 8;
  for (const QuantSpec* q : {narrow ? &q4 : &q8, narrow ? &q8 : &q4})
    if (takes(*q)) return *q;
  if (cs.actType.quantized) return w;
  return takes(cs.act) ? cs.act : w;
}

QuantSpec Annotator::weightSpec(const Node& n, const Rule& rule, const CompiledSelection& cs, const Override* ov,
                                size_t warg, bool& perChannel) {
  QuantSpec w = cs.weightPerTensor;
  perChannel = false;
  Granularity gran = cs.sel.granularity;
  if (gran == Granularity::kPerTensor) return w;
  const RuleFacts& f = facts(rule);
  int axis = f.ruleAxis ? *f.ruleAxis : configs_.weightAxis(g_.target(n));
  w.qscheme = QScheme::kPerChannelSymmetric;
  w.chAxis = axis;
  perChannel = true;
  if (gran != Granularity::kPerBlock || rule.pattern != AnnotationPattern::kConv) return w;
  // LPBQ: blocks along the input channels of an output-channel-major weight.
  const Argument& a = n.args[warg];
  const Node& p = g_.node(a.tensor.node);
  const std::vector<int64_t>& shape = p.outputs[a.tensor.output].shape;
  if (ov && !ov->blockSize.empty()) {
    if (ov->blockSize.size() == shape.size() || shape.empty()) {
      w.blockSize = ov->blockSize;
      return w;
    }
    note(n, DiagCode::kNotAnnotated, Severity::kWarning,
         "the recipe's block_size has " + std::to_string(ov->blockSize.size()) + " entries but the weight has rank " +
             std::to_string(shape.size()) + "; per-channel weights are used instead",
         "give block_size one entry per weight dimension");
    return w;
  }
  const int64_t b = cs.sel.config->blockSize;
  if (axis != 0 || shape.size() < 2 || shape[1] <= b || shape[1] % b != 0) {
    note(n, DiagCode::kNotAnnotated, Severity::kNote,
         "block-wise weights need axis 0 and input channels that are a multiple of the block size " +
             std::to_string(b) + "; per-channel weights are used for this node",
         "set block_size for this node in a recipe");
    return w;
  }
  w.blockSize.assign(shape.size(), 1);
  w.blockSize[1] = b;
  return w;
}

void Annotator::note(const Node& n, DiagCode code, Severity sev, std::string message, std::string hint) {
  Diagnostic d;
  d.severity = sev;
  d.code = code;
  d.node = n.name;
  d.op = std::string(g_.target(n));
  d.message = std::move(message);
  d.hint = std::move(hint);
  r_.diagnostics.push_back(std::move(d));
}

Annotator::Choice Annotator::choose(const Node& n) {
  Choice ch;
  ch.cs = default_;
  if (!recipe_) return ch;
  if (!discardNodes_.empty() && discardNodes_.count(n.name)) {
    for (size_t i = 0; i < recipe_->discardNodes.size(); ++i)
      if (recipe_->discardNodes[i] == n.name) discardNodeSeen_[i] = true;
    ch.discard = true;
    ch.discardWhy = "listed in discard_nodes";
    return ch;
  }
  if (n.targetId != Node::kNoTarget && discardTargets_.count(n.targetId)) {
    ch.discard = true;
    ch.discardWhy = "its op is listed in discard_ops";
    return ch;
  }
  const auto& ovs = recipe_->overrides;
  int best = -1;
  int tieWith = -1;
  auto consider = [&](uint32_t i) {
    ++overrideHits_[i];
    if (best < 0 || ovs[i].priority > ovs[static_cast<size_t>(best)].priority) {
      best = static_cast<int>(i);
      tieWith = -1;
    } else if (ovs[i].priority == ovs[static_cast<size_t>(best)].priority) {
      // Equal priority: the later override wins, and the tie is reported.
      if (static_cast<int>(i) > best) {
        tieWith = best;
        best = static_cast<int>(i);
      } else {
        tieWith = static_cast<int>(i);
      }
    }
  };
  if (n.targetId != Node::kNoTarget)
    for (uint32_t i : targetOverrides_[n.targetId]) consider(i);
  if (!n.modulePath.empty()) {
    auto [it, fresh] = moduleMemo_.try_emplace(n.modulePath);
    if (fresh)
      for (uint32_t i = 0; i < ovs.size(); ++i)
        if (ovs[i].by == Override::By::kModule && RE2::PartialMatch(n.modulePath, *ovs[i].regex))
          it->second.push_back(i);
    for (uint32_t i : it->second) consider(i);
  }
  for (uint32_t i = 0; i < ovs.size(); ++i)
    if (ovs[i].by == Override::By::kNodeName && RE2::PartialMatch(n.name, *ovs[i].regex)) consider(i);
  if (best < 0) return ch;
  if (tieWith >= 0) {
    auto& t = ties_[{static_cast<uint32_t>(tieWith), static_cast<uint32_t>(best)}];
    if (t.first++ == 0) t.second = n.name;
  }
  const Override& o = ovs[static_cast<size_t>(best)];
  ch.winner = &o;
  if (o.discard) {
    ch.discard = true;
    ch.discardWhy = "discarded by override " + o.describe();
    return ch;
  }
  ch.cs = overrideSel_[static_cast<size_t>(best)];
  return ch;
}

void Annotator::annotate(uint32_t idx, const Rule& rule, const Choice& ch) {
  Node& n = g_.mutableNodes()[idx];
  const CompiledSelection& cs = narrowFor(rule, *ch.cs);
  const RuleFacts& f = facts(rule);
  auto firstFloat = [&](size_t i) { return i < n.args.size() && isFloatArg(n.args[i]); };
  auto actOut = [&] {
    for (size_t o = 0; o < n.outputs.size(); ++o)
      if (isFloatOut(n, o)) setOut(n, o, cs.act, "activation role");
  };
  switch (rule.pattern) {
    case AnnotationPattern::kNone:
      break;
    case AnnotationPattern::kSingleInSingleOut:
      if (firstFloat(0)) setIn(n, 0, -1, cs.act, "activation role");
      if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
      break;
    case AnnotationPattern::kBinary:
      for (size_t i = 0; i < 2; ++i)
        if (firstFloat(i)) setIn(n, i, -1, cs.act, "activation role");
      if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
      break;
    case AnnotationPattern::kSingleIn:
      if (firstFloat(0)) setIn(n, 0, -1, cs.act, "activation role");
      break;
    case AnnotationPattern::kConstant:
      if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
      break;
    case AnnotationPattern::kCustom:
      for (size_t i = 0; i < n.args.size(); ++i) {
        if (firstFloat(i)) setIn(n, i, -1, cs.act, "activation role (every float input)");
        if (n.args[i].kind == Argument::Kind::kList)
          for (size_t j = 0; j < n.args[i].list.size(); ++j)
            if (isFloatArg(n.args[i].list[j])) setIn(n, i, static_cast<int>(j), cs.act, "activation role (every float input)");
      }
      actOut();
      // Ports the rule declares math-invariant share the input they name instead of taking an
      // independent activation spec (slice_scatter's src and output share its input).
      for (const auto& [p, q] : f.sharedPorts) {
        const size_t qa = static_cast<size_t>(rule.ports[q].index);
        if (!firstFloat(qa)) continue;
        const PortDecl& d = rule.ports[p];
        const size_t at = static_cast<size_t>(d.index);
        if (d.isInput && firstFloat(at))
          setIn(n, at, -1, sharedEdge(n.args[qa].tensor.node, idx), "math-invariant: the rule shares it with an input");
        else if (!d.isInput && isFloatOut(n, at))
          setOut(n, at, sharedEdge(n.args[qa].tensor.node, idx), "math-invariant: the rule shares it with an input");
      }
      break;
    case AnnotationPattern::kConv: {
      const size_t warg = static_cast<size_t>(convWeightArg(rule));
      const size_t barg = static_cast<size_t>(convBiasArg(rule));
      if (firstFloat(0)) setIn(n, 0, -1, cs.act, "activation role");
      bool perChannel = false;
      if (firstFloat(warg)) {
        QuantSpec w = narrowWeight(rule, cs, weightSpec(n, rule, cs, ch.winner, warg, perChannel));
        setIn(n, warg, -1, std::move(w), "weight role");
      }
      if (firstFloat(barg)) {
        QuantSpec b = cs.convBias;
        if (perChannel && cs.actType.quantized) {
          b.qscheme = QScheme::kPerChannelSymmetric;
          b.chAxis = 0;
        }
        setIn(n, barg, -1, std::move(b),
              cs.actType.quantized ? "derived bias: int32, scale = input scale x weight scale, offset 0"
                                   : "bias follows the float activations");
      }
      if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
      break;
    }
    case AnnotationPattern::kShared: {
      if (!firstFloat(0)) break;
      const TensorRef t = n.args[0].tensor;
      const Node& p = g_.node(t.node);
      if (p.outputs[t.output].qspec) {
        setIn(n, 0, -1, sharedNode(t.node, t.output), "math-invariant: the producer's encoding flows through");
        if (isFloatOut(n, 0)) setOut(n, 0, sharedNode(t.node, t.output), "math-invariant: shares the input encoding");
      } else {
        setIn(n, 0, -1, cs.act, "activation role (the producer has no output encoding)");
        if (isFloatOut(n, 0)) setOut(n, 0, sharedEdge(t.node, idx), "math-invariant: shares the input edge");
      }
      break;
    }
    case AnnotationPattern::kFixedQParams: {
      if (firstFloat(0)) setIn(n, 0, -1, cs.act, "activation role");
      if (!isFloatOut(n, 0)) break;
      if (auto fixed = fixedOutput(rule, cs)) {
        if (expl_) contextText_ += ", fixed scale/offset from the rule's variant for " +
                                   std::string(datatypeName(cs.actType.datatype));
        setOut(n, 0, *fixed, "fixed qparams");
      } else {
        setOut(n, 0, cs.act, "activation role (the rule fixes no encoding at this width)");
      }
      break;
    }
    case AnnotationPattern::kMultiOutput: {
      if (!firstFloat(0)) break;
      setIn(n, 0, -1, cs.act, "activation role");
      for (size_t o = 0; o < n.outputs.size(); ++o)
        if (isFloatOut(n, o)) setOut(n, o, sharedEdge(n.args[0].tensor.node, idx), "multi-output: shares the input edge");
      break;
    }
    case AnnotationPattern::kGetItem: {
      if (n.args.empty() || !isTensor(n.args[0]) || !isFloatOut(n, 0)) break;
      const TensorRef t = n.args[0].tensor;
      if (g_.node(t.node).outputs[t.output].qspec)
        setOut(n, 0, sharedNode(t.node, t.output), "tuple element: shares its producer's output");
      else
        setOut(n, 0, cs.act, "activation role (the producer output has no encoding)");
      break;
    }
    case AnnotationPattern::kConcat: {
      // One range for all inputs and the output: the first float input carries the spec,
      // everything else shares that edge, so no input is requantized against another.
      if (!isFloatOut(n, 0) || n.args.empty()) break;
      Argument& list = n.args[0];
      bool first = true;
      auto each = [&](auto&& fn) {
        if (list.kind == Argument::Kind::kList) {
          for (size_t j = 0; j < list.list.size(); ++j)
            if (isFloatArg(list.list[j])) fn(static_cast<int>(j), list.list[j]);
        } else if (isFloatArg(list)) {
          fn(-1, list);
        }
      };
      uint32_t firstProducer = 0;
      each([&](int j, const Argument& a) {
        if (first) {
          first = false;
          firstProducer = a.tensor.node;
          setIn(n, 0, j, cs.act, "activation role (first concat input)");
        } else {
          setIn(n, 0, j, sharedEdge(firstProducer, idx), "concat: shares the first input's range");
        }
      });
      if (!first) setOut(n, 0, sharedEdge(firstProducer, idx), "concat: shares the inputs' range");
      break;
    }
    case AnnotationPattern::kMatMul: {
      // Second MatMul operands by port name (other, weight, key, value: addmm keeps its weight
      // at argument 2, attention has two); without such ports, argument 1. Any other float
      // input, such as addmm's bias, is an activation.
      for (size_t i = 0; i < n.args.size(); ++i) {
        if (!firstFloat(i)) continue;
        const bool in1 = f.secondOperandArgs.empty() ? i == 1
                                                     : std::find(f.secondOperandArgs.begin(), f.secondOperandArgs.end(),
                                                                 static_cast<int>(i)) != f.secondOperandArgs.end();
        if (in1) setIn(n, i, -1, cs.matmulIn1, "matmul_in1 role");
        else setIn(n, i, -1, cs.act, "activation role");
      }
      if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
      break;
    }
    case AnnotationPattern::kNorm: {
      if (firstFloat(0)) setIn(n, 0, -1, cs.act, "activation role");
      // Weight and bias by port name; else the first two tensor-or-None slots after the
      // input (batch_norm 1,2; layer_norm/group_norm/rms_norm 2,3).
      int warg = f.weightArg, barg = f.biasArg;
      if (warg < 0) {
        std::vector<int> slots;
        for (size_t i = 1; i < n.args.size() && slots.size() < 2; ++i)
          if (isTensor(n.args[i]) || n.args[i].kind == Argument::Kind::kNone) slots.push_back(static_cast<int>(i));
        if (!slots.empty()) warg = slots[0];
        if (slots.size() > 1 && barg < 0) barg = slots[1];
      }
      if (warg >= 0 && firstFloat(static_cast<size_t>(warg)))
        setIn(n, static_cast<size_t>(warg), -1, cs.normWeight, "norm_weight role");
      if (barg >= 0 && firstFloat(static_cast<size_t>(barg)))
        setIn(n, static_cast<size_t>(barg), -1, cs.normBias, "norm_bias role");
      if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
      break;
    }
    case AnnotationPattern::kEmbedding: {
      const size_t table = f.weightArg >= 0 ? static_cast<size_t>(f.weightArg) : 0;
      if (!firstFloat(table)) break;
      // A per-channel table only where the backend's rule takes one (LPAI's Gather does not).
      if (cs.sel.granularity != Granularity::kPerTensor && cs.actType.quantized && f.weightPerChannelAllowed) {
        bool perChannel = false;
        QuantSpec w = weightSpec(n, rule, cs, nullptr, table, perChannel);
        setIn(n, table, -1, std::move(w), "weight role (per-channel embedding table)");
        if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
      } else {
        setIn(n, table, -1, cs.act, "activation role (embedding table)");
        if (isFloatOut(n, 0)) setOut(n, 0, sharedEdge(n.args[table].tensor.node, idx), "gather: shares the table edge");
      }
      break;
    }
    case AnnotationPattern::kCount:
      break;
  }
}

void Annotator::run(const ConfigSelection& defaultSel) {
  default_ = compiled(defaultSel);
  ruleOfTarget_.assign(g_.targets().size(), nullptr);
  for (size_t t = 0; t < g_.targets().size(); ++t) ruleOfTarget_[t] = rules_.findByTarget(g_.targets()[t]);
  if (recipe_) {
    const auto& ovs = recipe_->overrides;
    targetOverrides_.assign(g_.targets().size(), {});
    overrideHits_.assign(ovs.size(), 0);
    for (uint32_t i = 0; i < ovs.size(); ++i) {
      overrideSel_.push_back(ovs[i].selection ? compiled(*ovs[i].selection) : nullptr);
      if (ovs[i].by != Override::By::kTarget) continue;
      for (const std::string& t : ovs[i].targets)
        for (size_t k = 0; k < g_.targets().size(); ++k)
          if (g_.targets()[k] == t) targetOverrides_[k].push_back(i);
    }
    for (const std::string& s : recipe_->discardNodes) discardNodes_.insert(s);
    discardNodeSeen_.assign(recipe_->discardNodes.size(), false);
    for (const std::string& op : recipe_->discardOps)
      for (size_t k = 0; k < g_.targets().size(); ++k)
        if (g_.targets()[k] == op) discardTargets_.insert(static_cast<uint32_t>(k));
  }
  if (!opt_.explainNode.empty()) {
    if (auto i = g_.findNode(opt_.explainNode)) explainIdx_ = *i;
    else
      note(Node{}, DiagCode::kNotAnnotated, Severity::kWarning,
           "--explain-node: no node named '" + opt_.explainNode + "' in the graph");
  }

  for (uint32_t idx = 0; idx < g_.nodes().size(); ++idx) {
    const Node& n = g_.node(idx);
    if (n.kind != NodeKind::kCall) continue;
    const Rule* rule = n.targetId == Node::kNoTarget ? nullptr : ruleOfTarget_[n.targetId];
    const bool explain = idx == explainIdx_;
    if (explain) {
      r_.explanation.emplace();
      expl_ = &*r_.explanation;
      expl_->node = n.name;
      expl_->op = std::string(g_.target(n));
      expl_->rule = rule ? rule->id + " (" + rule->mark.toString() + ")" : "no rule covers this op";
      expl_->pattern = rule ? std::string(patternName(rule->pattern)) : "none";
    }
    bool annotatedBefore = false;
    for (const Argument& a : n.args) {
      annotatedBefore |= a.qspec.has_value();
      for (const Argument& e : a.list) annotatedBefore |= e.qspec.has_value();
    }
    for (const TensorMeta& o : n.outputs) annotatedBefore |= o.qspec.has_value();
    Choice ch = choose(n);
    if (explain) {
      expl_->config = ch.discard ? "none (discarded)" : ch.cs->sel.text();
      expl_->decidedBy = ch.discard ? ch.discardWhy
                         : ch.winner ? "override " + ch.winner->describe()
                                     : "the default config";
    }
    if (annotatedBefore) {
      ++r_.nodesKept;
      if (explain) expl_->ports.push_back({"*", "unchanged", "the node was annotated before; annotations are kept"});
    } else if (ch.discard) {
      ++r_.nodesDiscarded;
      note(n, DiagCode::kDiscarded, Severity::kNote, "node left unannotated: " + ch.discardWhy + "; it stays float (on CPU unless the backend has a float variant)");
    } else if (rule && rule->kind != RuleKind::kUnsupported) {
      contextText_ = expl_ ? "config " + ch.cs->sel.text() + ", pattern " + std::string(patternName(rule->pattern)) +
                                 " of rule " + rule->id
                           : std::string();
      annotate(idx, *rule, ch);
      ++r_.nodesAnnotated;
    } else if (explain) {
      expl_->ports.push_back({"*", "unannotated", rule ? "the rule declares the op unsupported" : "no rule: the op runs on CPU"});
    }
    expl_ = nullptr;
  }

  if (!recipe_) return;
  const Severity unmatched = opt_.strict ? Severity::kError : Severity::kWarning;
  auto report = [&](std::string what, SourceMark mark) {
    Diagnostic d;
    d.severity = unmatched;
    d.code = DiagCode::kOverrideUnmatched;
    d.message = what + " matches no node of the graph.";
    d.mark = std::move(mark);
    d.expected = "at least one matching node";
    d.actual = "none";
    d.hint = "fix the pattern or remove it from the recipe";
    r_.diagnostics.push_back(std::move(d));
  };
  for (size_t i = 0; i < recipe_->overrides.size(); ++i)
    if (overrideHits_[i] == 0) report("override " + recipe_->overrides[i].describe(), recipe_->overrides[i].mark);
  for (size_t i = 0; i < recipe_->discardNodes.size(); ++i)
    if (!discardNodeSeen_[i]) report("discard_nodes entry '" + recipe_->discardNodes[i] + "'", recipe_->mark);
  for (const std::string& op : recipe_->discardOps)
    if (std::find(g_.targets().begin(), g_.targets().end(), op) == g_.targets().end())
      report("discard_ops entry '" + op + "'", recipe_->mark);
  for (const auto& [pair, info] : ties_) {
    const Override& loser = recipe_->overrides[pair.first];
    const Override& winner = recipe_->overrides[pair.second];
    Diagnostic d;
    d.severity = Severity::kWarning;
    d.code = DiagCode::kOverrideTie;
    d.node = info.second;
    d.message = "overrides of equal priority " + std::to_string(winner.priority) + " both match " +
                std::to_string(info.first) + " node(s); the later one wins.";
    d.mark = winner.mark;
    d.expected = "winner: " + winner.describe();
    d.actual = "also matched: " + loser.describe();
    d.hint = "give one of them a higher priority";
    r_.diagnostics.push_back(std::move(d));
  }
}

}  // namespace

AnnotateResult annotateGraph(Graph& graph, const RuleSet& rules, const QuantConfigTable& configs,
                             const ConfigSelection& selection, const Recipe* recipe, const AnnotateOptions& options) {
  AnnotateResult result;
  ConfigSelection sel = recipe && recipe->defaultSelection ? *recipe->defaultSelection : selection;
  result.status = checkSelection(sel);
  if (!result.status.isOk()) return result;
  if (recipe)
    for (const Override& o : recipe->overrides)
      if (o.by != Override::By::kTarget && !o.regex) {
        result.status = Status(StatusCode::kInvalidArgument,
                               "override " + o.describe() + " is not compiled; call compileOverride first");
        return result;
      }
  result.config = sel.text();
  result.qat = sel.qat;
  Annotator a(graph, rules, configs, recipe, options, result);
  a.run(sel);
  return result;
}

}  // namespace qnnrules
