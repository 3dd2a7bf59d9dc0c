#include "qnnrules/passes/QdqFold.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>
#include <string_view>

#include "qnnrules/graph/PortType.h"

namespace qnnrules {
namespace {

enum class QdqKind : uint8_t { kNone, kQuantize, kDequantize };

// How a Q/DQ op lays out its arguments (and so what granularity it has).
enum class QdqLayout : uint8_t {
  kPerTensor,   // quantized_decomposed *_per_tensor (and per_token): input, scale, zero_point, qmin, qmax, dtype
  kPerChannel,  // quantized_decomposed *_per_channel: input, scales, zero_points, axis, qmin, qmax, dtype
  kPerGroup,    // quantized_decomposed *_per_channel_group: input, scales, zero_points, qmin, qmax, dtype, group_size
  kAffine,      // torchao *_affine: input, block_size, scale, zero_point, dtype, qmin, qmax
};

struct QdqTarget {
  QdqKind kind = QdqKind::kNone;
  QdqLayout layout = QdqLayout::kPerTensor;
};

QdqTarget classify(std::string_view t) {
  constexpr std::string_view kPrefix = "quantized_decomposed.";
  constexpr std::string_view kTorchao = "torchao.";
  QdqTarget r;
  if (t.substr(0, kTorchao.size()) == kTorchao) {
    // convert_pt2e writes these for torchao's affine (e.g. block-wise) observers.
    t.remove_prefix(kTorchao.size());
    if (t.substr(0, 16) == "quantize_affine.") r.kind = QdqKind::kQuantize;
    else if (t.substr(0, 18) == "dequantize_affine.") r.kind = QdqKind::kDequantize;
    else return {};
    r.layout = QdqLayout::kAffine;
    return r;
  }
  if (t.substr(0, kPrefix.size()) != kPrefix) return {};
  t.remove_prefix(kPrefix.size());
  if (t.substr(0, 9) == "quantize_") r.kind = QdqKind::kQuantize;
  else if (t.substr(0, 11) == "dequantize_") r.kind = QdqKind::kDequantize;
  else return {};
  if (t.find("per_channel_group") != std::string_view::npos) r.layout = QdqLayout::kPerGroup;
  else if (t.find("per_channel") != std::string_view::npos) r.layout = QdqLayout::kPerChannel;
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

// A literal as an integer in [lo, hi], or nothing: casting a double outside the target's range
// (1e400 read as inf, 1e30) to an integer is undefined behaviour, so the range is checked first.
// The bounds are what the graph reader accepts, so whatever folding writes reads back.
std::optional<int64_t> integerIn(double v, int64_t lo, int64_t hi) {
  if (!std::isfinite(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi)) return std::nullopt;
  return static_cast<int64_t>(v);
}
constexpr int64_t kQuantLo = INT32_MIN, kQuantHi = static_cast<int64_t>(UINT32_MAX);
constexpr int64_t kMaxAxis = 64;

// Argument positions of one layout.
struct Positions {
  size_t scale, zeroPoint, quantMin, quantMax, dtype;
  const char* scaleKw;
  const char* zeroPointKw;
};
Positions positionsOf(QdqLayout l) {
  switch (l) {
    case QdqLayout::kPerChannel: return {1, 2, 4, 5, 6, "scales", "zero_points"};
    case QdqLayout::kPerGroup: return {1, 2, 3, 4, 5, "scales", "zero_points"};
    case QdqLayout::kAffine: return {2, 3, 5, 6, 4, "scale", "zero_point"};
    case QdqLayout::kPerTensor: break;
  }
  return {1, 2, 3, 4, 5, "scale", "zero_point"};
}

// torchao's block_size against the input's shape: a block spanning the whole tensor is
// per-tensor, blocks of 1 along one axis and whole elsewhere are per-channel on that axis,
// anything else is block-wise (the engine's LPBQ form: per-channel on the axis whose block is
// 1, with the block sizes kept).
void applyBlockSize(QuantSpec& s, const std::vector<int64_t>& block, const std::vector<int64_t>& shape) {
  if (block.size() != shape.size()) {
    if (s.scales.size() > 1) s.qscheme = isSymmetric(s.qscheme) ? QScheme::kPerChannelSymmetric : QScheme::kPerChannelAffine;
    return;
  }
  std::vector<size_t> partial;
  for (size_t d = 0; d < block.size(); ++d)
    if (shape[d] < 0 || block[d] != shape[d]) partial.push_back(d);
  if (partial.empty()) return;  // per-tensor
  const bool sym = isSymmetric(s.qscheme);
  s.qscheme = sym ? QScheme::kPerChannelSymmetric : QScheme::kPerChannelAffine;
  std::optional<size_t> axis;
  for (size_t d : partial)
    if (block[d] == 1) {
      axis = d;
      break;
    }
  s.chAxis = static_cast<int32_t>(axis.value_or(0));
  if (partial.size() == 1 && axis) return;  // per-channel
  s.blockSize = block;
}

// The spec a Q/DQ node's arguments describe (layouts above). Scales given as tensors (not
// literals) stay unknown; torchao's optional quant_min/quant_max default to the dtype's range.
// specOf's reason for a scale that is inf or NaN (a calibration that met inf).
constexpr std::string_view kNonFiniteScale = "a scale is not a finite number";

// The storage dtype and quant_min/quant_max of `n` into `s`; false with `why` when they are
// missing or not values of the dtype.
bool readStorage(const Node& n, const Positions& at, QdqLayout layout, QuantSpec& s, std::string& why) {
  const Argument* dt = argAt(n, at.dtype, layout == QdqLayout::kAffine ? "output_dtype" : "dtype");
  if (layout == QdqLayout::kAffine && !dt) dt = argAt(n, at.dtype, "input_dtype");
  std::optional<ScalarType> t = dt && dt->kind == Argument::Kind::kString ? parseScalarType(dt->s) : std::nullopt;
  if (!t) {
    why = "the dtype argument is missing or not a dtype name";
    return false;
  }
  s.dtype = *t;
  auto qmin = number(argAt(n, at.quantMin, "quant_min"));
  auto qmax = number(argAt(n, at.quantMax, "quant_max"));
  if (layout == QdqLayout::kAffine && !qmin && !qmax) {
    s.quantMin = fullQuantRange(s.dtype).min;
    s.quantMax = fullQuantRange(s.dtype).max;
  } else if (!qmin || !qmax || *qmin >= *qmax) {
    why = "quant_min/quant_max are missing or empty";
    return false;
  } else {
    s.quantMin = integerIn(*qmin, kQuantLo, kQuantHi);
    s.quantMax = integerIn(*qmax, kQuantLo, kQuantHi);
    if (!s.quantMin || !s.quantMax) {
      why = "quant_min/quant_max are not integers between " + std::to_string(kQuantLo) + " and " + std::to_string(kQuantHi);
      return false;
    }
  }
  // The graph reader's rule (io/json/GraphSchemaQuant.h): quant_min and quant_max are values of the
  // storage dtype, so the folded graph, written out, reads back.
  if (const QuantRange full = fullQuantRange(s.dtype);
      full.min != full.max && (*s.quantMin < full.min || *s.quantMax > full.max)) {
    why = "quant_min/quant_max " + std::to_string(*s.quantMin) + ".." + std::to_string(*s.quantMax) +
          " are not values of its dtype " + std::string(scalarTypeName(s.dtype)) + " (" + std::to_string(full.min) +
          ".." + std::to_string(full.max) + ")";
    return false;
  }
  return true;
}

// The numbers of a scale or zero-point argument: a literal, a list, or packed numbers.
template <typename Out>  // a std::vector or the InlineVector of a QuantSpec
void collectNumbers(const Argument* a, Out& out) {
  if (!a) return;
  if (a->kind == Argument::Kind::kList) {
    for (const Argument& e : a->list)
      if (auto v = number(&e)) out.push_back(*v);
  } else if (a->kind == Argument::Kind::kNumbers) {
    out.reserve(out.size() + a->numberCount());
    for (size_t i = 0; i < a->numberCount(); ++i) out.push_back(a->numberAt(i));
  } else if (auto v = number(a)) {
    out.push_back(*v);
  }
}

// The scales and zero points of `n` into `s`; false with `why` when one is not a positive finite
// number or an integer in range.
bool readScalesAndZeroPoints(const Node& n, const Positions& at, QuantSpec& s, std::string& why) {
  collectNumbers(argAt(n, at.scale, at.scaleKw), s.scales);
  std::vector<double> zeroPoints;
  collectNumbers(argAt(n, at.zeroPoint, at.zeroPointKw), zeroPoints);
  for (double v : s.scales) {
    if (!std::isfinite(v)) {
      why = kNonFiniteScale;
      return false;
    }
    if (!(v > 0)) {
      why = "a scale is not a positive number";
      return false;
    }
  }
  for (double v : zeroPoints) {
    std::optional<int64_t> z = integerIn(v, kQuantLo, kQuantHi);
    if (!z) {
      why = "a zero point is not an integer between " + std::to_string(kQuantLo) + " and " + std::to_string(kQuantHi);
      return false;
    }
    s.zeroPoints.push_back(*z);
  }
  return true;
}

// The shape of the tensor `n` quantizes, when its producer declares it (empty otherwise).
const std::vector<int64_t>* inputShape(const Graph& g, const Node& n) {
  if (n.args.empty() || n.args[0].kind != Argument::Kind::kTensor) return nullptr;
  const Node& in = g.node(n.args[0].tensor.node);
  return n.args[0].tensor.output < in.outputs.size() ? &in.outputs[n.args[0].tensor.output].shape : nullptr;
}

// A block_size list into `out`; false with `why` when a size is outside 1..INT32_MAX.
template <typename Out>
bool readBlockSizes(const Argument* list, Out& out, std::string& why) {
  if (!list || list->kind != Argument::Kind::kList) return true;
  for (const Argument& e : list->list) {
    if (e.kind != Argument::Kind::kInt) continue;
    if (e.i < 1 || e.i > INT32_MAX) {
      why = "a block size " + std::to_string(e.i) + " is not between 1 and " + std::to_string(INT32_MAX);
      return false;
    }
    out.push_back(e.i);
  }
  return true;
}

// The granularity of `s` (qscheme, axis, block size) by the op's layout; false with `why` when an
// axis, group or block size is out of range.
bool readGranularity(const Graph& g, const Node& n, QdqLayout layout, QuantSpec& s, std::string& why) {
  const std::vector<int64_t>* shape = inputShape(g, n);
  // The rank of the quantized tensor, when its producer declares it: axes must lie inside it.
  std::optional<int64_t> rank;
  if (shape && !shape->empty()) rank = static_cast<int64_t>(shape->size());
  // Symmetric when every zero point is the symmetric one of the container.
  recordZeroPointRange(s);
  const int64_t symZp = -symmetricOffset(portTypeOf(s).datatype);
  const ZeroPointRange zpRange = zeroPointRange(s);
  const bool sym = !s.zeroPoints.empty() && zpRange.min == symZp && zpRange.max == symZp;
  switch (layout) {
    case QdqLayout::kPerChannel: {
      // Block-wise (LPBQ) weights: the per-channel form with a block_size keyword (ONNX
      // DequantizeLinear with opset 21's block_size is read into this form).
      if (!readBlockSizes(argAt(n, SIZE_MAX, "block_size"), s.blockSize, why)) return false;
      const double axis = number(argAt(n, 3, "axis")).value_or(0);
      const int64_t hi = rank.value_or(kMaxAxis);
      std::optional<int64_t> a = integerIn(axis, -hi, hi - 1);
      if (!a) {
        why = rank ? fmt::format("the axis {} is outside the input's rank {}", axis, *rank)
                   : fmt::format("the axis {} is not between {} and {}", axis, -kMaxAxis, kMaxAxis - 1);
        return false;
      }
      s.chAxis = static_cast<int32_t>(*a);
      s.qscheme = sym || s.zeroPoints.empty() ? QScheme::kPerChannelSymmetric : QScheme::kPerChannelAffine;
      break;
    }
    case QdqLayout::kPerGroup: {
      // Groups along the last axis of a 2-D weight, one scale per (row, group).
      auto group = number(argAt(n, 6, "group_size"));
      s.chAxis = 0;
      s.qscheme = sym || s.zeroPoints.empty() ? QScheme::kPerChannelSymmetric : QScheme::kPerChannelAffine;
      if (group) {
        std::optional<int64_t> size = integerIn(*group, 1, INT32_MAX);
        if (!size) {
          why = fmt::format("the group size {} is not between 1 and {}", *group, INT32_MAX);
          return false;
        }
        s.blockSize = {1, *size};
      }
      break;
    }
    case QdqLayout::kAffine: {
      s.qscheme = sym ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine;
      std::vector<int64_t> blockSize;
      if (!readBlockSizes(argAt(n, 1, "block_size"), blockSize, why)) return false;
      static const std::vector<int64_t> kUnknownShape;
      applyBlockSize(s, blockSize, shape ? *shape : kUnknownShape);
      break;
    }
    case QdqLayout::kPerTensor:
      s.qscheme = sym ? QScheme::kPerTensorSymmetric : QScheme::kPerTensorAffine;
      break;
  }
  return true;
}

std::optional<QuantSpec> specOf(const Graph& g, const Node& n, QdqLayout layout, std::string& why) {
  const Positions at = positionsOf(layout);
  QuantSpec s;
  if (!readStorage(n, at, layout, s, why) || !readScalesAndZeroPoints(n, at, s, why) ||
      !readGranularity(g, n, layout, s, why))
    return std::nullopt;
  return s;
}

}  // namespace

bool isQdqGraph(const Graph& graph) {
  for (const std::string& t : graph.targets())
    if (classify(t).kind != QdqKind::kNone) return true;
  return false;
}

namespace {

// A Q/DQ node without an input tensor stands for nothing: a node reading it cannot be folded (it
// used to be pointed at node 0, which could be itself).
constexpr uint32_t kNothing = UINT32_MAX;

// One fold of `in`: the walk that copies every other node with its Q/DQ inputs turned into edge
// encodings, then the shared-encoding renumbering, the order check and the output encodings.
class Fold {
 public:
  explicit Fold(const Graph& in)
      : in_(in), count_(in.nodes().size()), kind_(count_), spec_(count_), nonFinite_(count_, 0), alias_(count_),
        newIndex_(count_, UINT32_MAX) {
    r_.graph.name = in.name;
    r_.graph.formatVersion = in.formatVersion;
    r_.graph.source = in.source;
    r_.graph.qdqFolded = true;
  }

  QdqFoldResult run() {
    for (uint32_t i = 0; i < count_; ++i) {
      const Node& n = in_.node(i);
      kind_[i] = n.kind == NodeKind::kCall ? classify(in_.target(n)) : QdqTarget{};
      if (kind_[i].kind != QdqKind::kNone) {
        readQdqNode(i);
        continue;
      }
      if (!copyNode(i)) return std::move(r_);
    }
    if (!renumberSharedRefs() || !checkOrder()) return std::move(r_);
    noteNonFiniteProducers();
    encodeOutputs();
    return std::move(r_);
  }

 private:
  const Graph& in_;
  const size_t count_;
  QdqFoldResult r_;
  std::vector<QdqTarget> kind_;
  std::vector<std::optional<QuantSpec>> spec_;
  std::vector<uint8_t> nonFinite_;  // a quantize node whose scale is inf or NaN
  std::vector<TensorRef> alias_;    // what a Q/DQ node stands for, in the new graph
  std::vector<uint32_t> newIndex_;
  const Node* unreadable_ = nullptr;  // the Q/DQ node without input a reference went through

  void mismatch(const Node& n, std::string message) {
    Diagnostic d;
    d.code = DiagCode::kQdqMismatch;
    d.node = n.name;
    d.op = std::string(in_.target(n));
    d.sourceOp = std::string(in_.sourceOp(n));
    d.message = std::move(message);
    r_.diagnostics.push_back(std::move(d));
  }

  bool refuse(const std::string& node, const std::string& why) {
    r_.status = Status(StatusCode::kInvalidArgument, "cannot fold the Q/DQ nodes: node '" + node + "' " + why, node);
    return false;
  }

  // Maps an old tensor reference through Q/DQ nodes; sets `edge` to the spec of the dequantize
  // (or quantize) node it passed, if any.
  TensorRef remap(const TensorRef& t, std::optional<QuantSpec>* edge) const {
    if (kind_[t.node].kind != QdqKind::kNone) {
      if (edge && spec_[t.node] && (!*edge)) *edge = spec_[t.node];
      return alias_[t.node];
    }
    return TensorRef{newIndex_[t.node], t.output};
  }

  void fix(Argument& a) {
    if (a.kind == Argument::Kind::kList)
      for (Argument& e : a.list) fix(e);
    if (a.kind != Argument::Kind::kTensor) return;
    std::optional<QuantSpec> edge;
    const uint32_t old = a.tensor.node;
    a.tensor = remap(a.tensor, &edge);
    if (a.tensor.node == kNothing && !unreadable_) unreadable_ = &in_.node(old);
    if (edge && !a.qspec) a.qspec = edge;
  }

  void readQdqNode(uint32_t i) {
    const Node& n = in_.node(i);
    (kind_[i].kind == QdqKind::kQuantize ? r_.quantizeNodes : r_.dequantizeNodes)++;
    std::string why;
    spec_[i] = specOf(in_, n, kind_[i].layout, why);
    if (!spec_[i]) mismatch(n, "cannot read the quantization arguments: " + why + ".");
    nonFinite_[i] = !spec_[i] && why == kNonFiniteScale && kind_[i].kind == QdqKind::kQuantize;
    if (n.args.empty() || n.args[0].kind != Argument::Kind::kTensor) {
      mismatch(n, "the node has no input tensor.");
      alias_[i] = TensorRef{kNothing, 0};
      return;
    }
    alias_[i] = remap(n.args[0].tensor, nullptr);
  }

  bool copyNode(uint32_t i) {
    const Node& n = in_.node(i);
    Node copy = n;
    copy.targetId = n.kind == NodeKind::kCall ? r_.graph.internTarget(in_.target(n)) : Node::kNoTarget;
    copy.moduleId = r_.graph.internModule(in_.modulePath(n));
    if (n.sourceId != Node::kNoTarget) copy.sourceId = r_.graph.internTarget(in_.sourceOp(n));
    for (Argument& a : copy.args) fix(a);
    for (auto& kv : copy.kwargs) fix(kv.second);
    if (unreadable_) return refuse(n.name, "reads '" + unreadable_->name + "', a Q/DQ node without an input tensor");
    StatusOr<uint32_t> idx = r_.graph.addNode(std::move(copy));
    if (!idx.isOk()) {
      r_.status = idx.status();
      return false;
    }
    newIndex_[i] = *idx;
    return true;
  }

  // Shared-encoding references name nodes by index: renumbered for the folded graph (stale
  // indices would name other nodes, or none). A reference to a folded Q/DQ node follows it to
  // the tensor it stands for; an edge into one becomes that tensor's output encoding.
  void renumber(OptionalBox<QuantSpec>& box) {
    if (!box || !box->sharedWith) return;
    SharedRef& ref = *box->sharedWith;
    if (ref.node >= count_ || (ref.kind == SharedRef::Kind::kEdge && ref.consumer >= count_)) return;
    if (ref.kind == SharedRef::Kind::kEdge && kind_[ref.consumer].kind != QdqKind::kNone)
      ref.kind = SharedRef::Kind::kNodeOutput;
    if (ref.kind == SharedRef::Kind::kEdge) ref.consumer = newIndex_[ref.consumer];
    if (kind_[ref.node].kind != QdqKind::kNone) {
      const uint32_t old = ref.node;
      ref.output = alias_[old].output;
      ref.node = alias_[old].node;
      if (ref.node == kNothing && !unreadable_) unreadable_ = &in_.node(old);
    } else {
      ref.node = newIndex_[ref.node];
    }
  }

  void renumberArg(Argument& a) {
    for (Argument& e : a.list) renumberArg(e);
    renumber(a.qspec);
  }

  bool renumberSharedRefs() {
    for (Node& n : r_.graph.mutableNodes()) {
      for (Argument& a : n.args) renumberArg(a);
      for (auto& kv : n.kwargs) renumberArg(kv.second);
      for (TensorMeta& t : n.outputs) renumber(t.qspec);
      if (unreadable_)
        return refuse(n.name, "shares the encoding of '" + unreadable_->name + "', a Q/DQ node without an input tensor");
    }
    return true;
  }

  static bool readsEarlier(const Argument& a, uint32_t i) {
    if (a.kind == Argument::Kind::kTensor && a.tensor.node >= i) return false;
    for (const Argument& e : a.list)
      if (!readsEarlier(e, i)) return false;
    return true;
  }

  // What folding writes must read back: every tensor a node reads comes before it.
  bool checkOrder() {
    for (uint32_t i = 0; i < r_.graph.nodes().size(); ++i) {
      const Node& n = r_.graph.node(i);
      bool ok = true;
      for (const Argument& a : n.args) ok = ok && readsEarlier(a, i);
      for (const auto& kv : n.kwargs) ok = ok && readsEarlier(kv.second, i);
      if (!ok) return refuse(n.name, "would read itself or a later node once its Q/DQ nodes are folded");
    }
    return true;
  }

  // A compute node's output quantized with a non-finite scale.
  void noteNonFiniteProducers() {
    for (uint32_t i = 0; i < count_; ++i) {
      const Node& q = in_.node(i);
      if (!nonFinite_[i] || q.args.empty() || q.args[0].kind != Argument::Kind::kTensor) continue;
      const TensorRef src = q.args[0].tensor;
      if (kind_[src.node].kind == QdqKind::kNone && newIndex_[src.node] != UINT32_MAX)
        r_.nonFiniteScaleProducers.push_back(in_.node(src.node).name);
    }
  }

  // Outputs take the encoding of the quantize node that consumes them.
  void encodeOutputs() {
    for (uint32_t i = 0; i < count_; ++i) {
      if (kind_[i].kind != QdqKind::kQuantize || !spec_[i]) continue;
      const Node& q = in_.node(i);
      if (q.args.empty() || q.args[0].kind != Argument::Kind::kTensor) continue;
      TensorRef src = q.args[0].tensor;
      if (kind_[src.node].kind != QdqKind::kNone || newIndex_[src.node] == UINT32_MAX) continue;
      Node& producer = r_.graph.mutableNodes()[newIndex_[src.node]];
      if (src.output >= producer.outputs.size()) continue;
      auto& out = producer.outputs[src.output].qspec;
      if (out && (out->scales != spec_[i]->scales || out->zeroPoints != spec_[i]->zeroPoints))
        mismatch(q, "quantizes output " + std::to_string(src.output) + " of '" + producer.name +
                        "' with a different encoding than another quantize node of the same tensor.");
      if (!out) out = spec_[i];
    }
  }
};

}  // namespace

QdqFoldResult foldQdq(const Graph& in) { return Fold(in).run(); }

}  // namespace qnnrules
