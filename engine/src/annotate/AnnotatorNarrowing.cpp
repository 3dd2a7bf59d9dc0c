// Fitting the config's specs to what a rule takes: fixed output encodings, 8-bit activations
// for rules without the config's width, narrower weights, per-channel and block-wise weights.
#include "AnnotatorState.h"
#include "validate/constraints/ConstraintKind.h"

namespace qnnrules::annotator_detail {

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
  // A variant that takes the width only for tensors of a limited size (max_elements: prelu's
  // 16-bit slope of one value) does not count: the annotator decides per rule, not per shape, and
  // 8 bits are what every such node can take.
  static const int maxElements = kindIndex("max_elements");
  bool takesWidth = false, takesEight = false;
  for (const Variant& v : rule.variants) {
    bool sizeLimited = false;
    for (const PortConstraint& c : v.ports)
      sizeLimited = sizeLimited || (maxElements >= 0 && c.valueOf(static_cast<uint16_t>(maxElements)));
    for (const PortConstraint& c : v.ports) {
      takesWidth = takesWidth || (!sizeLimited && c.datatypes.contains(cs.actType.datatype));
      takesEight = takesEight || c.datatypes.contains(eight);
    }
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
      // Every constraint kind says whether the weight's type can meet its port (datatype,
      // encoding, bit width, and any kind an embedder registered).
      if (v.ports[in].datatypes.contains(cs.actType.datatype) && admitsType(c, t)) return true;
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
  const TensorMeta* wmeta = producerOut(n.args[warg].tensor);
  static const std::vector<int64_t> kUnknownShape;
  const std::vector<int64_t>& shape = wmeta ? wmeta->shape : kUnknownShape;
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

}  // namespace qnnrules::annotator_detail
