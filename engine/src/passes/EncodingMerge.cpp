#include "qnnrules/passes/EncodingMerge.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "qnnrules/graph/PortType.h"
#include "qnnrules/graph/UserIndex.h"
#include "qnnrules/passes/Prune.h"

namespace qnnrules {
namespace {

// A concrete per-tensor encoding: one scale and one zero point, its own (not shared).
bool perTensor(const OptionalBox<QuantSpec>& s) {
  return s && !s->sharedWith && s->scales.size() == 1 && s->zeroPoints.size() <= 1;
}

int64_t zeroPointOf(const QuantSpec& s) { return s.zeroPoints.empty() ? 0 : s.zeroPoints[0]; }

bool sameEncoding(const QuantSpec& a, const QuantSpec& b) {
  return toFloat32(a.scales[0]) == toFloat32(b.scales[0]) && zeroPointOf(a) == zeroPointOf(b);
}

// DoubleQDQPairsRemover's merged encoding, in float32 as ORT computes it: the intersection of
// the two real ranges over the type's full integer range.
std::optional<QuantSpec> merged(const QuantSpec& first, const QuantSpec& second) {
  const QuantRange full = fullQuantRange(first.dtype);
  const float qmin = static_cast<float>(full.min), qmax = static_cast<float>(full.max);
  const float s1 = toFloat32(first.scales[0]), s2 = toFloat32(second.scales[0]);
  const float z1 = static_cast<float>(zeroPointOf(first)), z2 = static_cast<float>(zeroPointOf(second));
  const float lo = std::max((qmin - z1) * s1, (qmin - z2) * s2);
  const float hi = std::min((qmax - z1) * s1, (qmax - z2) * s2);
  const float scale = (hi - lo) / (qmax - qmin);
  if (!(scale > 0) || !std::isfinite(scale)) return std::nullopt;  // disjoint ranges: ORT keeps both
  const float zp = std::round(qmin - lo / scale);
  QuantSpec out = first;
  out.scales.assign(1, scale);
  out.zeroPoints.assign(1, static_cast<int64_t>(std::clamp(zp, qmin, qmax)));
  recordZeroPointRange(out);
  return out;
}

}  // namespace

size_t mergeEncodingsAcrossNoOpConversions(Graph& graph) {
  std::vector<uint8_t> conversionTarget(graph.targets().size());
  for (size_t t = 0; t < conversionTarget.size(); ++t) conversionTarget[t] = isConversionTarget(graph.targets()[t]);
  const UserIndex users(graph);
  // A user no graph output depends on (torch.export's _assert_tensor_metadata checks) is not in
  // the model ORT runs: the ONNX exporter drops it, so it does not keep Q1 -> DQ1 from merging
  // (quantizer suite llama/<config>/SM8350: the embedding's second dequantize feeds one).
  const PruneResult pruned = pruneGraph(graph, users);
  auto liveUsers = [&](uint32_t node) {
    const auto& us = users.users(node);
    return std::count_if(us.begin(), us.end(), [&](uint32_t u) { return pruned.of(u) != PruneKind::kDead; });
  };
  std::vector<Node>& nodes = graph.mutableNodes();
  size_t count = 0;
  for (uint32_t c = 0; c < nodes.size(); ++c) {
    Node& conv = nodes[c];
    if (conv.kind != NodeKind::kCall || conv.targetId == Node::kNoTarget || !conversionTarget[conv.targetId] ||
        !isNoOpConversion(graph, conv))
      continue;
    auto in = std::find_if(conv.args.begin(), conv.args.end(),
                           [](const Argument& a) { return a.kind == Argument::Kind::kTensor; });
    if (in == conv.args.end() || !perTensor(in->qspec) || !perTensor(conv.outputs[0].qspec)) continue;
    const TensorRef from = in->tensor;
    Node& producer = nodes[from.node];
    if (producer.kind != NodeKind::kCall || from.output >= producer.outputs.size()) continue;
    OptionalBox<QuantSpec>& produced = producer.outputs[from.output].qspec;
    // Only the conversion reads the producer (Q1 -> DQ1 has one consumer), in the encoding the
    // producer writes, of one integer type on both sides.
    if (liveUsers(from.node) != 1 || !perTensor(produced) || !sameEncoding(*produced, *in->qspec)) continue;
    const QuantSpec& second = *conv.outputs[0].qspec;
    if (produced->dtype != second.dtype || isFloatType(second.dtype) || sameEncoding(*produced, second)) continue;
    std::optional<QuantSpec> m = merged(*produced, second);
    if (!m) continue;
    produced = *m;
    in->qspec = *m;
    conv.outputs[0].qspec = *m;
    for (uint32_t u : users.users(c))
      for (Argument& a : nodes[u].args)
        if (a.kind == Argument::Kind::kTensor && a.tensor.node == c && perTensor(a.qspec)) a.qspec = *m;
    ++count;
  }
  // Q1 -> DQ1 -> Q2 -> DQ2 with nothing in between (torch.onnx already dropped the no-op cast:
  // the folded graph shows a producer every live user of which reads it in one other encoding
  // of its type). DoubleQDQPairsRemover merges these too; a user reading the first encoding
  // means DQ1 has two consumers, which it leaves apart. Bisected on the backend
  // (tests/conformance/quantizer/bisect_gather.json: requant/SM8350 fails, requant_fanout runs).
  for (uint32_t p = 0; p < nodes.size(); ++p) {
    Node& producer = nodes[p];
    if (producer.kind != NodeKind::kCall || producer.outputs.size() != 1) continue;
    OptionalBox<QuantSpec>& produced = producer.outputs[0].qspec;
    if (!perTensor(produced) || isFloatType(produced->dtype)) continue;
    std::vector<Argument*> reads;
    bool mergeable = true;
    std::function<void(Argument&)> collect = [&](Argument& a) {
      for (Argument& e : a.list) collect(e);
      if (a.kind != Argument::Kind::kTensor || a.tensor.node != p) return;
      mergeable = mergeable && perTensor(a.qspec) && a.qspec->dtype == produced->dtype &&
                  (reads.empty() || sameEncoding(*reads.front()->qspec, *a.qspec));
      reads.push_back(&a);
    };
    for (uint32_t u : users.users(p))
      if (pruned.of(u) != PruneKind::kDead)
        for (Argument& a : nodes[u].args) collect(a);
    if (!mergeable || reads.empty() || sameEncoding(*produced, *reads.front()->qspec)) continue;
    std::optional<QuantSpec> m = merged(*produced, *reads.front()->qspec);
    if (!m) continue;
    produced = *m;
    for (Argument* a : reads) a->qspec = *m;
    ++count;
  }
  return count;
}

}  // namespace qnnrules
