#include "qnnrules/QdqReader.h"

#include <functional>
#include <string_view>

#include "qnnrules/PortType.h"

namespace qnnrules {
namespace {

enum class QdqKind : uint8_t { kNone, kQuantize, kDequantize };

struct QdqTarget {
  QdqKind kind = QdqKind::kNone;
  bool perChannel = false;
};

QdqTarget classify(std::string_view t) {
  constexpr std::string_view kPrefix = "quantized_decomposed.";
  if (t.substr(0, kPrefix.size()) != kPrefix) return {};
  t.remove_prefix(kPrefix.size());
  QdqTarget r;
  if (t.substr(0, 9) == "quantize_") r.kind = QdqKind::kQuantize;
  else if (t.substr(0, 11) == "dequantize_") r.kind = QdqKind::kDequantize;
  else return {};
  r.perChannel = t.find("per_channel") != std::string_view::npos;
  return r;
}

const Argument* argAt(const Node& n, size_t pos, std::string_view kw) {
  if (pos < n.args.size()) return &n.args[pos];
  for (const auto& [k, v] : n.kwargs)
    if (k == kw) return &v;
  return nullptr;
}

std::optional<double> number(const Argument* a) {
  if (!a) return std::nullopt;
  if (a->kind == Argument::Kind::kFloat) return a->f;
  if (a->kind == Argument::Kind::kInt) return static_cast<double>(a->i);
  return std::nullopt;
}

// The spec a Q/DQ node's arguments describe: per-tensor (input, scale, zero_point, quant_min,
// quant_max, dtype) or per-channel (input, scales, zero_points, axis, quant_min, quant_max, dtype).
// Scales given as tensors (not literals) stay unknown.
std::optional<QuantSpec> specOf(const Node& n, bool perChannel, std::string& why) {
  const size_t base = perChannel ? 4 : 3;
  QuantSpec s;
  const Argument* dt = argAt(n, base + 2, "dtype");
  std::optional<ScalarType> t = dt && dt->kind == Argument::Kind::kString ? parseScalarType(dt->s) : std::nullopt;
  if (!t) {
    why = "the dtype argument is missing or not a dtype name";
    return std::nullopt;
  }
  s.dtype = *t;
  auto qmin = number(argAt(n, base, "quant_min"));
  auto qmax = number(argAt(n, base + 1, "quant_max"));
  if (!qmin || !qmax || *qmin >= *qmax) {
    why = "quant_min/quant_max are missing or empty";
    return std::nullopt;
  }
  s.quantMin = static_cast<int64_t>(*qmin);
  s.quantMax = static_cast<int64_t>(*qmax);
  const Argument* scale = argAt(n, 1, perChannel ? "scales" : "scale");
  const Argument* zp = argAt(n, 2, perChannel ? "zero_points" : "zero_point");
  auto collect = [](const Argument* a, auto& out, auto conv) {
    if (!a) return;
    if (a->kind == Argument::Kind::kList) {
      for (const Argument& e : a->list)
        if (auto v = number(&e)) out.push_back(conv(*v));
    } else if (auto v = number(a)) {
      out.push_back(conv(*v));
    }
  };
  collect(scale, s.scales, [](double v) { return v; });
  collect(zp, s.zeroPoints, [](double v) { return static_cast<int64_t>(v); });
  for (double v : s.scales)
    if (!(v > 0)) {
      why = "a scale is not positive";
      return std::nullopt;
    }
  // Symmetric when every zero point is the symmetric one of the container.
  const int64_t symZp = -symmetricOffset(portTypeOf(s).datatype);
  bool sym = !s.zeroPoints.empty();
  for (int64_t z : s.zeroPoints) sym = sym && z == symZp;
  if (perChannel) {
    auto axis = number(argAt(n, 3, "axis"));
    s.chAxis = axis ? static_cast<int32_t>(*axis) : 0;
    s.qscheme = sym || s.zeroPoints.empty() ? QScheme::kPerChannelSymmetric : QScheme::kPerChannelAffine;
  } else {
    s.qscheme = sym ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine;
  }
  return s;
}

}  // namespace

bool isQdqGraph(const Graph& graph) {
  for (const std::string& t : graph.targets())
    if (classify(t).kind != QdqKind::kNone) return true;
  return false;
}

QdqFoldResult foldQdq(const Graph& in) {
  QdqFoldResult r;
  r.graph.name = in.name;
  r.graph.formatVersion = in.formatVersion;
  const size_t count = in.nodes().size();
  std::vector<QdqTarget> kind(count);
  std::vector<std::optional<QuantSpec>> spec(count);
  std::vector<TensorRef> alias(count);   // what a Q/DQ node stands for, in the new graph
  std::vector<uint32_t> newIndex(count, UINT32_MAX);

  auto mismatch = [&](const Node& n, std::string message) {
    Diagnostic d;
    d.code = DiagCode::kQdqMismatch;
    d.node = n.name;
    d.op = std::string(in.target(n));
    d.message = std::move(message);
    r.diagnostics.push_back(std::move(d));
  };
  // Maps an old tensor reference through Q/DQ nodes; sets `edge` to the spec of the
  // dequantize (or quantize) node it passed, if any.
  auto remap = [&](const TensorRef& t, std::optional<QuantSpec>* edge) {
    if (kind[t.node].kind != QdqKind::kNone) {
      if (edge && spec[t.node] && (!*edge)) *edge = spec[t.node];
      return alias[t.node];
    }
    return TensorRef{newIndex[t.node], t.output};
  };
  std::function<void(Argument&)> fix = [&](Argument& a) {
    if (a.kind == Argument::Kind::kList)
      for (Argument& e : a.list) fix(e);
    if (a.kind != Argument::Kind::kTensor) return;
    std::optional<QuantSpec> edge;
    a.tensor = remap(a.tensor, &edge);
    if (edge && !a.qspec) a.qspec = edge;
  };

  for (uint32_t i = 0; i < count; ++i) {
    const Node& n = in.node(i);
    kind[i] = n.kind == NodeKind::kCall ? classify(in.target(n)) : QdqTarget{};
    if (kind[i].kind != QdqKind::kNone) {
      (kind[i].kind == QdqKind::kQuantize ? r.quantizeNodes : r.dequantizeNodes)++;
      std::string why;
      spec[i] = specOf(n, kind[i].perChannel, why);
      if (!spec[i]) mismatch(n, "cannot read the quantization arguments: " + why + ".");
      if (n.args.empty() || n.args[0].kind != Argument::Kind::kTensor) {
        mismatch(n, "the node has no input tensor.");
        alias[i] = TensorRef{0, 0};
        continue;
      }
      alias[i] = remap(n.args[0].tensor, nullptr);
      continue;
    }
    Node copy = n;
    copy.targetId = n.kind == NodeKind::kCall ? r.graph.internTarget(in.target(n)) : Node::kNoTarget;
    for (Argument& a : copy.args) fix(a);
    for (auto& kv : copy.kwargs) fix(kv.second);
    StatusOr<uint32_t> idx = r.graph.addNode(std::move(copy));
    if (!idx.isOk()) {
      r.status = idx.status();
      return r;
    }
    newIndex[i] = *idx;
  }
  // Shared-encoding references name nodes by index: renumber them for the folded graph (stale
  // indices would name other nodes, or none). A reference to a folded Q/DQ node follows it to
  // the tensor it stands for; an edge into one becomes that tensor's output encoding.
  auto renumber = [&](OptionalBox<QuantSpec>& box) {
    if (!box || !box->sharedWith) return;
    SharedRef& ref = *box->sharedWith;
    if (ref.node >= count || (ref.kind == SharedRef::Kind::kEdge && ref.consumer >= count)) return;
    if (ref.kind == SharedRef::Kind::kEdge && kind[ref.consumer].kind != QdqKind::kNone)
      ref.kind = SharedRef::Kind::kNodeOutput;
    if (ref.kind == SharedRef::Kind::kEdge) ref.consumer = newIndex[ref.consumer];
    if (kind[ref.node].kind != QdqKind::kNone) {
      ref.output = alias[ref.node].output;
      ref.node = alias[ref.node].node;
    } else {
      ref.node = newIndex[ref.node];
    }
  };
  std::function<void(Argument&)> renumberArg = [&](Argument& a) {
    for (Argument& e : a.list) renumberArg(e);
    renumber(a.qspec);
  };
  for (Node& n : r.graph.mutableNodes()) {
    for (Argument& a : n.args) renumberArg(a);
    for (auto& kv : n.kwargs) renumberArg(kv.second);
    for (TensorMeta& t : n.outputs) renumber(t.qspec);
  }
  // Outputs take the encoding of the quantize node that consumes them.
  for (uint32_t i = 0; i < count; ++i) {
    if (kind[i].kind != QdqKind::kQuantize || !spec[i]) continue;
    const Node& q = in.node(i);
    if (q.args.empty() || q.args[0].kind != Argument::Kind::kTensor) continue;
    TensorRef src = q.args[0].tensor;
    if (kind[src.node].kind != QdqKind::kNone || newIndex[src.node] == UINT32_MAX) continue;
    Node& producer = r.graph.mutableNodes()[newIndex[src.node]];
    if (src.output >= producer.outputs.size()) continue;
    auto& out = producer.outputs[src.output].qspec;
    if (out && (out->scales != spec[i]->scales || out->zeroPoints != spec[i]->zeroPoints))
      mismatch(q, "quantizes output " + std::to_string(src.output) + " of '" + producer.name +
                      "' with a different encoding than another quantize node of the same tensor.");
    if (!out) out = spec[i];
  }
  return r;
}

}  // namespace qnnrules
