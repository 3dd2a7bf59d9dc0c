// What each annotation pattern writes on a node's ports (docs/annotation.md, Patterns): the
// activation, weight, bias, shared and fixed roles. One unit per pattern, found through a table
// indexed by the pattern (as constraint kinds are), so a new pattern is one function and one row.
#include "AnnotatorState.h"

#include <algorithm>
#include <array>

namespace qnnrules::annotator_detail {

void Annotator::patternSingleInSingleOut(const PatternSite& s) {
  Node& n = s.n;
  const CompiledSelection& cs = s.cs;
  if (firstFloat(n, 0)) setIn(n, 0, -1, cs.act, "activation role");
  if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
}

void Annotator::patternBinary(const PatternSite& s) {
  Node& n = s.n;
  const CompiledSelection& cs = s.cs;
  for (size_t i = 0; i < 2; ++i)
    if (firstFloat(n, i)) setIn(n, i, -1, cs.act, "activation role");
  if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
}

void Annotator::patternSingleIn(const PatternSite& s) {
  Node& n = s.n;
  const CompiledSelection& cs = s.cs;
  if (firstFloat(n, 0)) setIn(n, 0, -1, cs.act, "activation role");
}

void Annotator::patternConstant(const PatternSite& s) {
  Node& n = s.n;
  const CompiledSelection& cs = s.cs;
  if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
}

void Annotator::patternCustom(const PatternSite& s) {
  Node& n = s.n;
  const uint32_t idx = s.idx;
  const Rule& rule = s.rule;
  const CompiledSelection& cs = s.cs;
  const RuleFacts& f = s.f;
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (firstFloat(n, i)) setIn(n, i, -1, cs.act, "activation role (every float input)");
    if (n.args[i].kind == Argument::Kind::kList)
      for (size_t j = 0; j < n.args[i].list.size(); ++j)
        if (isFloatArg(n.args[i].list[j])) setIn(n, i, static_cast<int>(j), cs.act, "activation role (every float input)");
  }
  activationOutputs(n, cs);
  // Ports the rule declares math-invariant share the input they name instead of taking an
  // independent activation spec (slice_scatter's src and output share its input).
  for (const auto& [p, q] : f.sharedPorts) {
    const size_t qa = static_cast<size_t>(rule.ports[q].index);
    if (!firstFloat(n, qa)) continue;
    const PortDecl& d = rule.ports[p];
    const size_t at = static_cast<size_t>(d.index);
    if (d.isInput && firstFloat(n, at))
      setIn(n, at, -1, sharedEdge(n.args[qa].tensor.node, idx), "math-invariant: the rule shares it with an input");
    else if (!d.isInput && isFloatOut(n, at))
      setOut(n, at, sharedEdge(n.args[qa].tensor.node, idx), "math-invariant: the rule shares it with an input");
  }
}

void Annotator::patternConv(const PatternSite& s) {
  Node& n = s.n;
  const Rule& rule = s.rule;
  const Choice& ch = s.ch;
  const CompiledSelection& cs = s.cs;
  const size_t warg = static_cast<size_t>(convWeightArg(rule));
  const size_t barg = static_cast<size_t>(convBiasArg(rule));
  if (firstFloat(n, 0)) setIn(n, 0, -1, cs.act, "activation role");
  bool perChannel = false;
  if (firstFloat(n, warg)) {
    QuantSpec w = narrowWeight(rule, cs, weightSpec(n, rule, cs, ch.winner, warg, perChannel));
    setIn(n, warg, -1, std::move(w), "weight role");
  }
  if (firstFloat(n, barg)) {
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
}

void Annotator::patternShared(const PatternSite& s) {
  Node& n = s.n;
  const uint32_t idx = s.idx;
  const CompiledSelection& cs = s.cs;
  if (!firstFloat(n, 0)) return;
  const TensorRef t = n.args[0].tensor;
  const TensorMeta* p = producerOut(t);
  if (p && p->qspec) {
    setIn(n, 0, -1, sharedNode(t.node, t.output), "math-invariant: the producer's encoding flows through");
    if (isFloatOut(n, 0)) setOut(n, 0, sharedNode(t.node, t.output), "math-invariant: shares the input encoding");
  } else {
    setIn(n, 0, -1, cs.act, "activation role (the producer has no output encoding)");
    if (isFloatOut(n, 0)) setOut(n, 0, sharedEdge(t.node, idx), "math-invariant: shares the input edge");
  }
}

void Annotator::patternFixedQParams(const PatternSite& s) {
  Node& n = s.n;
  const Rule& rule = s.rule;
  const CompiledSelection& cs = s.cs;
  if (firstFloat(n, 0)) setIn(n, 0, -1, cs.act, "activation role");
  if (!isFloatOut(n, 0)) return;
  if (auto fixed = fixedOutput(rule, cs)) {
    if (expl_) contextText_ += ", fixed scale/offset from the rule's variant for " +
                               std::string(datatypeName(cs.actType.datatype));
    setOut(n, 0, *fixed, "fixed qparams");
  } else {
    setOut(n, 0, cs.act, "activation role (the rule fixes no encoding at this width)");
  }
}

void Annotator::patternMultiOutput(const PatternSite& s) {
  Node& n = s.n;
  const uint32_t idx = s.idx;
  const CompiledSelection& cs = s.cs;
  if (!firstFloat(n, 0)) return;
  setIn(n, 0, -1, cs.act, "activation role");
  for (size_t o = 0; o < n.outputs.size(); ++o)
    if (isFloatOut(n, o)) setOut(n, o, sharedEdge(n.args[0].tensor.node, idx), "multi-output: shares the input edge");
}

void Annotator::patternGetItem(const PatternSite& s) {
  Node& n = s.n;
  const CompiledSelection& cs = s.cs;
  if (n.args.empty() || !isTensor(n.args[0]) || !isFloatOut(n, 0)) return;
  const TensorRef t = n.args[0].tensor;
  if (const TensorMeta* p = producerOut(t); p && p->qspec)
    setOut(n, 0, sharedNode(t.node, t.output), "tuple element: shares its producer's output");
  else
    setOut(n, 0, cs.act, "activation role (the producer output has no encoding)");
}

void Annotator::patternConcat(const PatternSite& s) {
  Node& n = s.n;
  const uint32_t idx = s.idx;
  const CompiledSelection& cs = s.cs;
  // One range for all inputs and the output: the first float input carries the spec,
  // everything else shares that edge, so no input is requantized against another.
  if (!isFloatOut(n, 0) || n.args.empty()) return;
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
}

void Annotator::patternMatMul(const PatternSite& s) {
  Node& n = s.n;
  const CompiledSelection& cs = s.cs;
  const RuleFacts& f = s.f;
  // Second MatMul operands by port name (other, weight, key, value: addmm keeps its weight
  // at argument 2, attention has two); without such ports, argument 1. Any other float
  // input, such as addmm's bias, is an activation.
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (!firstFloat(n, i)) continue;
    const bool in1 = f.secondOperandArgs.empty() ? i == 1
                                                 : std::find(f.secondOperandArgs.begin(), f.secondOperandArgs.end(),
                                                             static_cast<int>(i)) != f.secondOperandArgs.end();
    if (in1) setIn(n, i, -1, cs.matmulIn1, "matmul_in1 role");
    else setIn(n, i, -1, cs.act, "activation role");
  }
  if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
}

void Annotator::patternNorm(const PatternSite& s) {
  Node& n = s.n;
  const CompiledSelection& cs = s.cs;
  const RuleFacts& f = s.f;
  if (firstFloat(n, 0)) setIn(n, 0, -1, cs.act, "activation role");
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
  if (warg >= 0 && firstFloat(n, static_cast<size_t>(warg)))
    setIn(n, static_cast<size_t>(warg), -1, cs.normWeight, "norm_weight role");
  if (barg >= 0 && firstFloat(n, static_cast<size_t>(barg)))
    setIn(n, static_cast<size_t>(barg), -1, cs.normBias, "norm_bias role");
  if (isFloatOut(n, 0)) setOut(n, 0, cs.act, "activation role");
}

void Annotator::patternEmbedding(const PatternSite& s) {
  Node& n = s.n;
  const uint32_t idx = s.idx;
  const Rule& rule = s.rule;
  const CompiledSelection& cs = s.cs;
  const RuleFacts& f = s.f;
  const size_t table = f.weightArg >= 0 ? static_cast<size_t>(f.weightArg) : 0;
  if (!firstFloat(n, table)) return;
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
}

// The unit of each pattern, indexed by AnnotationPattern (kNone: nothing is annotated).
void Annotator::activationOutputs(Node& n, const CompiledSelection& cs) {
  for (size_t o = 0; o < n.outputs.size(); ++o)
    if (isFloatOut(n, o)) setOut(n, o, cs.act, "activation role");
}

constexpr std::array<Annotator::PatternUnit, static_cast<size_t>(AnnotationPattern::kCount)> Annotator::patternUnits() {
  std::array<PatternUnit, static_cast<size_t>(AnnotationPattern::kCount)> t{};
  auto at = [&t](AnnotationPattern p) -> PatternUnit& { return t[static_cast<size_t>(p)]; };
  at(AnnotationPattern::kSingleInSingleOut) = &Annotator::patternSingleInSingleOut;
  at(AnnotationPattern::kBinary) = &Annotator::patternBinary;
  at(AnnotationPattern::kSingleIn) = &Annotator::patternSingleIn;
  at(AnnotationPattern::kConstant) = &Annotator::patternConstant;
  at(AnnotationPattern::kCustom) = &Annotator::patternCustom;
  at(AnnotationPattern::kConv) = &Annotator::patternConv;
  at(AnnotationPattern::kShared) = &Annotator::patternShared;
  at(AnnotationPattern::kFixedQParams) = &Annotator::patternFixedQParams;
  at(AnnotationPattern::kMultiOutput) = &Annotator::patternMultiOutput;
  at(AnnotationPattern::kGetItem) = &Annotator::patternGetItem;
  at(AnnotationPattern::kConcat) = &Annotator::patternConcat;
  at(AnnotationPattern::kMatMul) = &Annotator::patternMatMul;
  at(AnnotationPattern::kNorm) = &Annotator::patternNorm;
  at(AnnotationPattern::kEmbedding) = &Annotator::patternEmbedding;
  return t;
}

void Annotator::annotate(uint32_t idx, const Rule& rule, const Choice& ch) {
  static constexpr auto kUnits = patternUnits();
  static_assert(std::count(kUnits.begin(), kUnits.end(), nullptr) == 1, "every pattern but kNone has a unit");
  const size_t p = static_cast<size_t>(rule.pattern);
  if (p >= kUnits.size() || !kUnits[p]) return;
  const CompiledSelection& cs = narrowFor(rule, *ch.cs);
  (this->*kUnits[p])(PatternSite{g_.mutableNodes()[idx], idx, rule, ch, cs, facts(rule)});
}

}  // namespace qnnrules::annotator_detail
