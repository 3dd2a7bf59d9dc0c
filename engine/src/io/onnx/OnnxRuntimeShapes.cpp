#include "OnnxRuntimeShapes.h"

#include <array>
#include <string_view>
#include <unordered_map>

#include "OnnxConstants.h"

namespace qnnrules::onnxio {
namespace {

// The inputs whose value (not only shape) decides an op's output shape, by ONNX's definitions;
// a bit per input index.
struct ShapeDataInputs {
  std::string_view op;
  unsigned inputs;
};
constexpr unsigned bit(int i) { return 1U << i; }
constexpr ShapeDataInputs kShapeDataInputs[] = {
    {"Reshape", bit(1)},
    {"Expand", bit(1)},
    {"Tile", bit(1)},
    {"Slice", bit(1) | bit(2) | bit(3) | bit(4)},
    {"Pad", bit(1) | bit(3)},
    {"ConstantOfShape", bit(0)},
    {"Range", bit(0) | bit(1) | bit(2)},
    {"Resize", bit(2) | bit(3)},
    {"Upsample", bit(1)},
    {"Squeeze", bit(1)},
    {"Unsqueeze", bit(1)},
    {"ReduceSum", bit(1)},
    {"ReduceMean", bit(1)},
    {"ReduceMax", bit(1)},
    {"ReduceMin", bit(1)},
    {"ReduceProd", bit(1)},
    {"ReduceL1", bit(1)},
    {"ReduceL2", bit(1)},
    {"ReduceLogSum", bit(1)},
    {"ReduceLogSumExp", bit(1)},
    {"ReduceSumSquare", bit(1)},
    {"Split", bit(1)},
    {"TopK", bit(1)},
    {"OneHot", bit(1)},
    {"CenterCropPad", bit(1)},
    {"MaxUnpool", bit(2)},
    {"Col2Im", bit(1) | bit(2)},
    {"DFT", bit(1)},
    {"STFT", bit(2) | bit(3)},
};

// Ops whose output shape is data-dependent whatever is constant (short of folding them away).
constexpr std::array<std::string_view, 8> kDataDependentShape = {
    "NonZero", "Unique", "NonMaxSuppression", "Compress", "StringSplit", "Loop", "Scan", "If"};

// ORT's constant folding leaves non-deterministic ops alone (optimizer_utils::IsOperationDeterministic).
constexpr std::array<std::string_view, 5> kNonDeterministic = {"RandomUniform", "RandomNormal", "RandomUniformLike",
                                                                "RandomNormalLike", "Multinomial"};

template <size_t N>
bool among(const std::array<std::string_view, N>& ops, std::string_view op) {
  for (std::string_view o : ops)
    if (o == op) return true;
  return false;
}

unsigned shapeDataInputs(const onnx::NodeProto& n) {
  if (!isDefaultDomain(n.domain())) return 0;
  for (const ShapeDataInputs& s : kShapeDataInputs)
    if (s.op == n.op_type()) return s.inputs;
  return 0;
}

class Analysis {
 public:
  Analysis(const onnx::GraphProto& g, const std::function<bool(const std::string&)>& inferredStatic,
           const std::function<bool(const std::string&)>& isConstant)
      : g_(g), inferredStatic_(inferredStatic), isConstant_(isConstant) {
    for (int i = 0; i < g.node_size(); ++i)
      for (const std::string& in : g.node(i).input())
        if (!in.empty()) consumers_[in].push_back(i);
    for (const onnx::ValueInfoProto& o : g.output()) graphOutputs_.insert(o.name());
  }

  RuntimeTensors run(const std::vector<int>& order) {
    for (const onnx::ValueInfoProto& in : g_.input()) {
      if (isConstant_(in.name())) continue;
      bool symbolic = !in.type().has_tensor_type() || !in.type().tensor_type().has_shape();
      if (!symbolic)
        for (const auto& d : in.type().tensor_type().shape().dim()) symbolic = symbolic || !d.has_dim_value();
      if (symbolic) runtime_.insert(in.name());
    }
    for (int i : order) visit(g_.node(i));
    return {std::move(runtime_), std::move(values_)};
  }

 private:
  bool constant(const std::string& t) const { return t.empty() || isConstant_(t) || folded_.count(t); }
  bool runtimeShaped(const std::string& t) const { return !t.empty() && runtime_.count(t); }

  // The single consumer of `t` (graph outputs count as a consumer), or null.
  const onnx::NodeProto* onlyConsumer(const std::string& t) const {
    auto it = consumers_.find(t);
    if (it == consumers_.end() || it->second.size() != 1 || graphOutputs_.count(t)) return nullptr;
    return &g_.node(it->second.front());
  }

  bool deterministic(const onnx::NodeProto& n) const { return !among(kNonDeterministic, n.op_type()); }

  // ORT folds a DequantizeLinear of constants only with the whole unit DQ -> X -> Q it starts,
  // X deterministic with one input and one output (constant_folding.cc, skip_dequantize_linear).
  bool foldsDequantize(const onnx::NodeProto& dq) const {
    const onnx::NodeProto* x = dq.output_size() == 1 ? onlyConsumer(dq.output(0)) : nullptr;
    if (x == nullptr || x->input_size() != 1 || x->output_size() != 1 || !deterministic(*x)) return false;
    const onnx::NodeProto* q = onlyConsumer(x->output(0));
    return q != nullptr && q->op_type() == "QuantizeLinear";
  }

  bool folds(const onnx::NodeProto& n) const {
    if (n.op_type() == "Shape") return n.input_size() > 0 && !runtimeShaped(n.input(0)) && staticInput(n.input(0));
    if (!deterministic(n) || among(kDataDependentShape, n.op_type())) return false;
    for (const std::string& in : n.input())
      if (!constant(in)) return false;
    if (n.op_type() == "DequantizeLinear" && !foldsDequantize(n)) return false;
    return true;
  }

  // Shape folds only a shape ORT knows: a static one (the reader's or, where it has none, one this
  // analysis did not find to be a run-time one).
  bool staticInput(const std::string& t) const { return inferredStatic_(t) || !runtimeShaped(t); }

  bool outputRuntimeShaped(const onnx::NodeProto& n, const std::string& out) const {
    if (inferredStatic_(out)) return false;
    if (n.op_type() == "Shape" || n.op_type() == "Size") return false;  // [rank] and a scalar
    if (among(kDataDependentShape, n.op_type())) return true;
    const unsigned data = shapeDataInputs(n);
    for (int i = 0; i < n.input_size(); ++i) {
      if (runtimeShaped(n.input(i))) return true;
      if (i < 32 && (data & bit(i)) && !constant(n.input(i))) return true;
    }
    return false;
  }

  // Every input is a constant, folded or not (a DequantizeLinear of constants included).
  bool ofConstantsOnly(const onnx::NodeProto& n) const {
    if (!deterministic(n) || among(kDataDependentShape, n.op_type())) return false;
    bool any = false;
    for (const std::string& in : n.input()) {
      if (in.empty()) continue;
      if (!constant(in) && !values_.count(in)) return false;
      any = true;
    }
    return any;
  }

  void visit(const onnx::NodeProto& n) {
    if (n.op_type() == "Constant") return;
    const bool foldsAway = folds(n);
    const bool runtimeValue = !foldsAway && ofConstantsOnly(n);
    for (const std::string& out : n.output()) {
      if (out.empty()) continue;
      if (foldsAway) {
        folded_.insert(out);
        continue;  // a constant: its shape is its value's
      }
      if (runtimeValue) values_.insert(out);
      if (outputRuntimeShaped(n, out)) runtime_.insert(out);
    }
  }

  const onnx::GraphProto& g_;
  const std::function<bool(const std::string&)>& inferredStatic_;
  const std::function<bool(const std::string&)>& isConstant_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::unordered_set<std::string> graphOutputs_;
  std::unordered_set<std::string> folded_;
  std::unordered_set<std::string> runtime_;
  std::unordered_set<std::string> values_;
};

}  // namespace

RuntimeTensors runtimeTensors(const onnx::GraphProto& g, const std::vector<int>& order,
                              const std::function<bool(const std::string&)>& inferredStatic,
                              const std::function<bool(const std::string&)>& isConstant) {
  return Analysis(g, inferredStatic, isConstant).run(order);
}

}  // namespace qnnrules::onnxio
