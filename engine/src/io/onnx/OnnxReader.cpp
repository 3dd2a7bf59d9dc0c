#include "qnnrules/io/OnnxReader.h"

#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "OnnxConstants.h"
#include "OnnxModule.h"
#include "OnnxNodeOrder.h"
#include "OnnxReshapeFusion.h"
#include "OnnxRuntimeShapes.h"
#include "OnnxShapeInference.h"
#include "io/CheckedArith.h"
#include "OnnxTensorData.h"
#include "OnnxTransposeFold.h"

namespace qnnrules {
namespace {


using namespace onnxio;  // NOLINT(google-build-using-namespace): the reader's own helpers

struct TensorInfo {
  int32_t type = kUndefined;
  std::vector<int64_t> shape;
  bool hasShape = false;
};

// Q/DQ in the default domain, or ORT's contrib versions (16-bit before opset 21).
bool isQdqDomain(const std::string& d) { return isDefaultDomain(d) || d == "com.microsoft"; }

class Builder {
 public:
  Builder(onnx::ModelProto& model, std::string displayName) : model_(model), name_(std::move(displayName)) {}

  GraphReadResult build() {
    GraphReadResult r;
    r.status = run();
    if (r.status.isOk()) r.status = graph_.verify();
    graph_.source = GraphSource::kOnnx;
    if (r.status.isOk()) r.graph = std::move(graph_);
    return r;
  }

 private:
  Status fail(std::string message) { return Status(StatusCode::kSchemaError, name_ + ": " + message, name_); }

  static std::string nodeLabel(const onnx::NodeProto& n) { return onnxNodeLabel(n); }
  static std::string displayName(const onnx::NodeProto& n) {
    if (!n.name().empty()) return n.name();
    for (const std::string& o : n.output())
      if (!o.empty()) return o;
    return n.op_type();
  }

  Status run() {
    const onnx::GraphProto& g = model_.graph();
    graph_.name = g.name();
    fuseReshapeShapes(model_);
    inferShapesIfNeeded();
    foldTransposesOfDequantizedConstants(model_);
    if (Status st = collectTypes(); !st.isOk()) return st;
    for (const onnx::TensorProto& t : g.initializer()) constants_.addInitializer(t);
    std::vector<int> order;
    if (std::optional<std::string> why = onnxNodeOrder(g, order)) return fail(*why);
    findRuntimeShapes(order);
    graph_.reserve(static_cast<size_t>(g.node_size() + g.input_size() + g.initializer_size() + 1));
    for (const onnx::ValueInfoProto& in : g.input()) {
      if (constants_.initializer(in.name())) continue;  // an initializer with a default: a constant
      Node n;
      n.name = uniqueName(in.name());
      n.kind = NodeKind::kInput;
      n.outputs.push_back(metaOf(in.name()));
      if (Status st = add(std::move(n), {in.name()}); !st.isOk()) return st;
    }
    for (int i : order) {
      const onnx::NodeProto& n = g.node(i);
      if (Status st = refuseRepeatedAttributes(n); !st.isOk()) return st;
      Status st = n.op_type() == "Constant" && isDefaultDomain(n.domain()) ? addConstant(n)
                  : (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") && isQdqDomain(n.domain())
                      ? addQdq(n, n.op_type() == "QuantizeLinear")
                  : constants_.foldable(n) ? addFolded(n)
                                                            : addCall(n);
      if (!st.isOk()) return st;
    }
    Node out;
    out.name = uniqueName("output");
    out.kind = NodeKind::kOutput;
    Argument list;
    list.kind = Argument::Kind::kList;
    for (const onnx::ValueInfoProto& o : g.output()) {
      StatusOr<Argument> a = ref(o.name(), "graph output '" + o.name() + "'");
      if (!a.isOk()) return a.status();
      list.list.push_back(std::move(*a));
    }
    out.args.push_back(std::move(list));
    return add(std::move(out), {});
  }

  // An attribute named twice ("axis" = 1 and "axis" = 0): which one counts is undefined, so
  // the node is refused rather than read with the first.
  // Linear: pairs for the usual handful, a hash set past 16.
  Status refuseRepeatedAttributes(const onnx::NodeProto& n) {
    auto repeated = [&](const std::string& name) {
      return fail(nodeLabel(n) + " has attribute '" + name + "' more than once");
    };
    if (n.attribute_size() <= 16) {
      for (int a = 1; a < n.attribute_size(); ++a)
        for (int b = 0; b < a; ++b)
          if (n.attribute(a).name() == n.attribute(b).name()) return repeated(n.attribute(a).name());
      return Status::ok();
    }
    std::unordered_set<std::string_view> seen;
    for (const onnx::AttributeProto& a : n.attribute())
      if (!seen.insert(a.name()).second) return repeated(a.name());
    return Status::ok();
  }

  // Shapes for tensors without value_info (io/onnx/OnnxShapeInference.h). ONNX 1.12's inference may
  // not know newer opsets or types; what it cannot infer stays unknown, which only matters to
  // rules that split on rank.
  void inferShapesIfNeeded() {
    std::unordered_set<std::string> known;
    const onnx::GraphProto& g = model_.graph();
    for (const auto& v : g.value_info()) known.insert(v.name());
    for (const auto& v : g.output()) known.insert(v.name());
    bool missing = false;
    for (const onnx::NodeProto& n : g.node())
      for (const std::string& o : n.output()) missing = missing || (!o.empty() && !known.count(o));
    if (missing) inferShapesGuarded(model_);
  }

  // A declared dimension: -1 is unknown (as in the JSON graph format); below -1 is refused, as
  // the JSON reader would refuse the graph written from it.
  Status checkDims(const std::string& what, const std::string& tensor, const std::vector<int64_t>& shape) {
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] < -1)
        return fail(what + " '" + tensor + "' has dimension " + std::to_string(i) + " = " + std::to_string(shape[i]) +
                    ": a dimension is >= 0 (an unknown one is a dim_param)");
    return Status::ok();
  }

  Status noteType(const onnx::ValueInfoProto& v) {
    if (!v.has_type() || !v.type().has_tensor_type()) return Status::ok();
    const auto& tt = v.type().tensor_type();
    TensorInfo& info = types_[v.name()];
    info.type = tt.elem_type();
    if (tt.has_shape()) {
      info.hasShape = true;
      info.shape.clear();
      for (const auto& d : tt.shape().dim()) info.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
      return checkDims("tensor", v.name(), info.shape);
    }
    return Status::ok();
  }

  Status collectTypes() {
    const onnx::GraphProto& g = model_.graph();
    for (const auto* list : {&g.value_info(), &g.input(), &g.output()})
      for (const auto& v : *list)
        if (Status st = noteType(v); !st.isOk()) return st;
    for (const onnx::TensorProto& t : g.initializer()) {
      TensorInfo& info = types_[t.name()];
      info.type = t.data_type();
      info.hasShape = true;
      info.shape.assign(t.dims().begin(), t.dims().end());
      for (int64_t d : info.shape)
        if (d < 0) return fail("initializer '" + t.name() + "' has a negative dimension (" + std::to_string(d) + ")");
    }
    return Status::ok();
  }

  // The tensors whose shape or value ONNX Runtime knows only at run time (OnnxRuntimeShapes.h).
  void findRuntimeShapes(const std::vector<int>& order) {
    const onnx::GraphProto& g = model_.graph();
    std::unordered_set<std::string> constants;
    for (const onnx::NodeProto& n : g.node())
      if (n.op_type() == "Constant" && isDefaultDomain(n.domain()))
        for (const std::string& o : n.output()) constants.insert(o);
    runtime_ = runtimeTensors(
        g, order,
        [&](const std::string& t) {
          auto it = types_.find(t);
          return it != types_.end() && it->second.hasShape &&
                 std::all_of(it->second.shape.begin(), it->second.shape.end(), [](int64_t d) { return d >= 0; });
        },
        [&](const std::string& t) { return constants.count(t) > 0 || constants_.initializer(t) != nullptr; });
  }

  TensorMeta metaOf(const std::string& tensor) const {
    TensorMeta m;
    m.runtimeShape = runtime_.shapes.count(tensor) > 0;
    m.runtimeValue = runtime_.values.count(tensor) > 0;
    auto it = types_.find(tensor);
    if (it == types_.end()) return m;
    m.dtype = scalarTypeOf(it->second.type);
    m.shape = it->second.shape;
    return m;
  }

  // Kahn's algorithm, lowest node index first, so a model already in order keeps its order.
  std::string uniqueName(const std::string& base) {
    std::string n = base.empty() ? "node" : base;
    for (int k = 2; graph_.findNode(n) || reserved_.count(n); ++k) n = base + "#" + std::to_string(k);
    reserved_.insert(n);
    return n;
  }

  // Adds a node whose outputs are the ONNX tensors `outputs` (by position).
  Status add(Node n, const std::vector<std::string>& outputs) {
    StatusOr<uint32_t> idx = graph_.addNode(std::move(n));
    if (!idx.isOk()) return fail(idx.status().message());
    for (size_t o = 0; o < outputs.size(); ++o)
      if (!outputs[o].empty()) producers_[outputs[o]] = TensorRef{*idx, static_cast<uint32_t>(o)};
    return Status::ok();
  }

  // A tensor argument; an initializer becomes a parameter node when first used as one.
  StatusOr<Argument> ref(const std::string& tensor, const std::string& user) {
    if (tensor.empty()) return Argument{};
    if (auto p = producers_.find(tensor); p != producers_.end())
      return Argument::tensorRef(p->second.node, p->second.output);
    if (constants_.initializer(tensor)) {
      Node n;
      n.name = uniqueName(tensor);
      n.kind = NodeKind::kParameter;
      n.outputs.push_back(metaOf(tensor));
      if (Status st = add(std::move(n), {tensor}); !st.isOk()) return st;
      return Argument::tensorRef(producers_[tensor].node, 0);
    }
    return fail(user + " refers to unknown tensor '" + tensor + "'");
  }

  static Argument attributeValue(const onnx::AttributeProto& a) {
    Argument v;
    switch (a.type()) {
      case onnx::AttributeProto::INT: v.kind = Argument::Kind::kInt; v.i = a.i(); break;
      case onnx::AttributeProto::FLOAT: v.kind = Argument::Kind::kFloat; v.f = a.f(); break;
      case onnx::AttributeProto::STRING: v.kind = Argument::Kind::kString; v.s = a.s(); break;
      case onnx::AttributeProto::INTS:
        v.kind = Argument::Kind::kList;
        for (int64_t x : a.ints()) v.list.push_back(Argument::integer(x));
        break;
      case onnx::AttributeProto::FLOATS:
        v.kind = Argument::Kind::kList;
        for (float x : a.floats()) {
          Argument f;
          f.kind = Argument::Kind::kFloat;
          f.f = x;
          v.list.push_back(f);
        }
        break;
      default: break;  // tensors, graphs, strings lists: not needed by any rule
    }
    return v;
  }

  // The rank of a value, from its (declared or inferred) type or its initializer; -1 unknown.
  int rankOf(const std::string& tensor) const {
    if (auto it = types_.find(tensor); it != types_.end() && it->second.hasShape)
      return static_cast<int>(it->second.shape.size());
    if (const onnx::TensorProto* t = constants_.initializer(tensor)) return t->dims_size();
    return -1;
  }

  Status addCall(const onnx::NodeProto& on) {
    if (isDefaultDomain(on.domain()) && isConvLike(on.op_type())) {
      const int w = convLikeWeightInput(on.op_type());
      ConvLikeRanks ranks{on.input_size() > 0 ? rankOf(on.input(0)) : -1,
                          w >= 0 && w < on.input_size() ? rankOf(on.input(w)) : -1};
      if (std::string problem = convLikeProblem(on, ranks); !problem.empty()) return fail(nodeLabel(on) + ": " + problem);
    }
    Node n;
    n.name = uniqueName(displayName(on));
    n.kind = NodeKind::kCall;
    const std::string domain = isDefaultDomain(on.domain()) ? "onnx" : on.domain();
    n.targetId = graph_.internTarget(domain + "::" + on.op_type());
    for (int k = 0; k < on.input_size(); ++k) {
      StatusOr<Argument> a = ref(on.input(k), nodeLabel(on));
      if (!a.isOk()) return a.status();
      n.args.push_back(std::move(*a));
    }
    for (const onnx::AttributeProto& a : on.attribute()) n.kwargs.emplace_back(a.name(), attributeValue(a));
    std::vector<std::string> outs(on.output().begin(), on.output().end());
    for (const std::string& o : outs) n.outputs.push_back(metaOf(o));
    return add(std::move(n), outs);
  }

  // A constant tensor a Q/DQ node may take its scale or zero point from.
  Status addConstant(const onnx::NodeProto& on) {
    const onnx::TensorProto* value = constants_.constantNodeValue(on);
    Node n;
    n.name = uniqueName(displayName(on));
    n.kind = NodeKind::kConstant;
    const std::string out = on.output_size() ? on.output(0) : std::string();
    TensorMeta m = metaOf(out);
    if (value) {
      m.dtype = scalarTypeOf(value->data_type());
      m.shape.assign(value->dims().begin(), value->dims().end());
      for (int64_t d : m.shape)
        if (d < 0) return fail(nodeLabel(on) + " value has a negative dimension (" + std::to_string(d) + ")");
    }
    constants_.record(out, value);
    n.outputs.push_back(std::move(m));
    return add(std::move(n), {out});
  }

  // A foldable node whose inputs are all constant becomes a constant, as ONNX Runtime's
  // constant folding makes it: a Q/DQ node can read its scale or zero point through it.
  Status addFolded(const onnx::NodeProto& on) {
    const onnx::TensorProto* value = constants_.foldValue(on);
    Node n;
    n.name = uniqueName(displayName(on));
    n.kind = NodeKind::kConstant;
    const std::string& out = on.output(0);
    TensorMeta m = metaOf(out);
    if (on.op_type() == "Cast") {
      if (const onnx::AttributeProto* to = onnxAttribute(on, "to")) m.dtype = scalarTypeOf(static_cast<int32_t>(to->i()));
    } else if (value && !types_.count(out)) {
      m.dtype = scalarTypeOf(value->data_type());
    }
    if (value && m.shape.empty()) m.shape.assign(value->dims().begin(), value->dims().end());
    constants_.record(out, value);
    n.outputs.push_back(std::move(m));
    return add(std::move(n), {out});
  }

  // QuantizeLinear(x, y_scale, y_zero_point?) / DequantizeLinear(x, x_scale, x_zero_point?) ->
  // quantized_decomposed.{quantize,dequantize}_per_{tensor,channel} with literal scales and zero
  // points, the form foldQdq reads. Block-wise (opset 21 block_size) is the per-channel form plus
  // a block_size keyword.
  Status addQdq(const onnx::NodeProto& on, bool quantize) {
    const std::string label = nodeLabel(on);
    if (on.input_size() < 2 || on.input(1).empty()) return fail(label + " has no scale input");
    if (on.output_size() < 1) return fail(label + " has no output");
    const onnx::TensorProto* scale = constants_.value(on.input(1));
    if (!scale)
      return fail(label + " scale '" + on.input(1) +
                  "' is a missing initializer: the scale must be an initializer, a Constant node's output or a "
                  "constant folded through Identity, Cast, ConstantOfShape, Reshape, Unsqueeze or Squeeze");
    const onnx::TensorProto* zp = nullptr;
    if (on.input_size() > 2 && !on.input(2).empty()) {
      zp = constants_.value(on.input(2));
      if (!zp)
        return fail(label + " zero point '" + on.input(2) +
                    "' is a missing initializer: the zero point must be an initializer, a Constant node's output or a "
                    "constant folded through Identity, Cast, ConstantOfShape, Reshape, Unsqueeze or Squeeze");
    }
    std::string why;
    std::vector<double> scales;
    if (!readFloats(*scale, scales, why)) return fail(label + " cannot read scale '" + on.input(1) + "': " + why);
    std::vector<int64_t> zps;
    if (zp && !readInts(*zp, zps, why)) return fail(label + " cannot read zero point '" + on.input(2) + "': " + why);

    // The quantized type: the zero point's, else output_dtype (Q, opset 21), else the input's
    // (DQ), else uint8 (the ONNX default).
    int32_t qtype = kUInt8;
    if (zp) {
      qtype = zp->data_type();
    } else if (const onnx::AttributeProto* a = onnxAttribute(on, "output_dtype"); quantize && a && a->i() != 0) {
      qtype = static_cast<int32_t>(a->i());
    } else if (!quantize) {
      if (auto it = types_.find(on.input(0)); it != types_.end() && it->second.type != kUndefined) qtype = it->second.type;
    }
    std::optional<QuantStorage> storage = quantStorageOf(qtype);
    if (!storage) return fail(label + " quantizes to " + onnxTypeName(qtype) + ", which qnnrules does not read (8, 16 and 32-bit integers and int4/uint4 are)");
    if (zps.empty()) zps.assign(std::max<size_t>(scales.size(), 1), 0);
    if (zps.size() != scales.size())
      return fail(label + " has " + std::to_string(scales.size()) + " scale(s) but " + std::to_string(zps.size()) +
                  " zero point(s)");

    const std::string& x = on.input(0);
    const TensorInfo* xInfo = nullptr;
    if (auto it = types_.find(x); it != types_.end() && it->second.hasShape) xInfo = &it->second;
    const int64_t rank = xInfo ? static_cast<int64_t>(xInfo->shape.size()) : -1;
    int64_t blockSize = 0;
    if (const onnx::AttributeProto* a = onnxAttribute(on, "block_size")) blockSize = a->i();
    int64_t axis = 1;
    if (const onnx::AttributeProto* a = onnxAttribute(on, "axis")) axis = a->i();
    if (axis < 0 && rank > 0) axis += rank;
    const bool perTensor = scales.size() == 1 && scale->dims_size() <= 1 && blockSize == 0;
    if (!perTensor && (axis < 0 || (rank >= 0 && axis >= rank)))
      return fail(label + " axis " + std::to_string(axis) + " is outside the input's rank " + std::to_string(rank));

    if (!perTensor && blockSize == 0 && xInfo && xInfo->shape[static_cast<size_t>(axis)] > 0 &&
        static_cast<int64_t>(scales.size()) != xInfo->shape[static_cast<size_t>(axis)])
      return fail(label + " has " + std::to_string(scales.size()) + " scales for the " +
                  std::to_string(xInfo->shape[static_cast<size_t>(axis)]) + " channels of axis " + std::to_string(axis));
    Node n;
    n.name = uniqueName(displayName(on));
    n.kind = NodeKind::kCall;
    const std::string op = std::string(quantize ? "quantize" : "dequantize") + (perTensor ? "_per_tensor" : "_per_channel");
    n.targetId = graph_.internTarget("quantized_decomposed." + op + ".default");
    n.sourceId = graph_.internTarget((isDefaultDomain(on.domain()) ? std::string("onnx") : on.domain()) + "::" + on.op_type());
    StatusOr<Argument> xa = ref(x, label);
    if (!xa.isOk()) return xa.status();
    n.args.push_back(std::move(*xa));
    auto real = [](double v) { Argument a; a.kind = Argument::Kind::kFloat; a.f = v; return a; };
    if (perTensor) {
      n.args.push_back(real(scales[0]));
      n.args.push_back(Argument::integer(zps[0]));
    } else {
      Argument s, z;
      s.kind = z.kind = Argument::Kind::kList;
      for (double v : scales) s.list.push_back(real(v));
      for (int64_t v : zps) z.list.push_back(Argument::integer(v));
      n.args.push_back(std::move(s));
      n.args.push_back(std::move(z));
      // Block-wise: the blocks run along `axis` (the input channels); the channels they
      // belong to are the other weight axis (output channels), as LPBQ specs write them.
      n.args.push_back(Argument::integer(blockSize > 0 ? (axis == 0 ? 1 : 0) : axis));
    }
    n.args.push_back(Argument::integer(storage->quantMin));
    n.args.push_back(Argument::integer(storage->quantMax));
    Argument dtype;
    dtype.kind = Argument::Kind::kString;
    dtype.s = "torch." + std::string(scalarTypeName(storage->dtype));
    n.args.push_back(std::move(dtype));
    if (blockSize > 0) {
      if (rank < 2) return fail(label + " is block-wise but its input's rank is unknown or below 2");
      Argument bs;
      bs.kind = Argument::Kind::kList;
      for (int64_t d = 0; d < rank; ++d) bs.list.push_back(Argument::integer(d == axis ? blockSize : 1));
      n.kwargs.emplace_back("block_size", std::move(bs));
    }
    TensorMeta out = metaOf(on.output(0));
    if (!xInfo && out.shape.empty()) out.shape = metaOf(x).shape;
    if (quantize) out.dtype = storage->dtype;
    n.outputs.push_back(std::move(out));
    return add(std::move(n), {on.output(0)});
  }

  onnx::ModelProto& model_;
  std::string name_;
  Graph graph_;
  std::unordered_map<std::string, TensorInfo> types_;
  OnnxConstants constants_;
  RuntimeTensors runtime_;  // tensors whose shape or value ORT knows only at run time
  std::unordered_map<std::string, TensorRef> producers_;
  std::unordered_set<std::string> reserved_;
};

}  // namespace

GraphReadResult parseOnnxModel(std::string_view bytes, const std::string& displayName) {
  GraphReadResult r;
  auto model = std::make_unique<onnx::ModelProto>();
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    r.status = Status(StatusCode::kLimitExceeded, displayName + ": an ONNX model above 2 GiB must keep its weights as external data", displayName);
    return r;
  }
  if (!model->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    r.status = Status(StatusCode::kParseError,
                      displayName + ": not a JSON graph, and not a readable ONNX model (the protobuf does not parse: "
                                    "the file is truncated or corrupt, or not a model at all)",
                      displayName);
    return r;
  }
  if (!model->has_graph() || model->ir_version() <= 0) {
    r.status = Status(StatusCode::kParseError,
                      displayName + ": not a JSON graph, and not an ONNX model (no " +
                          (model->has_graph() ? "IR version" : "graph") + " in the protobuf)",
                      displayName);
    return r;
  }
  // Versions no ONNX release wrote: a corrupt or hand-made header, refused rather than read
  // with guessed semantics.
  auto refuse = [&](const std::string& why) {
    r.status = Status(StatusCode::kSchemaError, displayName + ": " + why, displayName);
    return r;
  };
  constexpr int64_t kMaxVersion = 1000;
  if (model->ir_version() > kMaxVersion)
    return refuse("IR version " + std::to_string(model->ir_version()) + " is not one an ONNX release writes (1 to " +
                  std::to_string(kMaxVersion) + ")");
  if (model->opset_import_size() == 0)
    return refuse("the model has no opset_import: which operator set its nodes follow is unknown");
  // A domain listed twice leaves its operator set ambiguous (the ONNX checker refuses it too).
  std::unordered_set<std::string_view> domains;
  for (const onnx::OperatorSetIdProto& o : model->opset_import()) {
    const std::string domain = o.domain().empty() || o.domain() == "ai.onnx" ? std::string("ai.onnx") : o.domain();
    if (o.version() < 1 || o.version() > kMaxVersion)
      return refuse("opset_import of domain '" + domain + "' has version " + std::to_string(o.version()) +
                    ", not one an ONNX release writes (1 to " + std::to_string(kMaxVersion) + ")");
    if (!domains.insert(o.domain().empty() ? std::string_view("ai.onnx") : std::string_view(o.domain())).second)
      return refuse("opset_import lists domain '" + domain +
                    "' more than once: which version of its operator set the nodes follow is ambiguous");
  }
  return Builder(*model, displayName).build();
}

}  // namespace qnnrules
