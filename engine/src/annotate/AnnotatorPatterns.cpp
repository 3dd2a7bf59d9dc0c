// What each annotation pattern writes on a node's ports (docs/annotation.md, Patterns): the
// activation, weight, bias, shared and fixed roles, per pattern.
#include "AnnotatorState.h"

#include <algorithm>

namespace qnnrules::annotator_detail {

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
      const TensorMeta* p = producerOut(t);
      if (p && p->qspec) {
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
      if (const TensorMeta* p = producerOut(t); p && p->qspec)
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

}  // namespace qnnrules::annotator_detail
