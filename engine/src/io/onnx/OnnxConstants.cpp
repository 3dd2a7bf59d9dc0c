#include "OnnxConstants.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "io/CheckedArith.h"

namespace qnnrules::onnxio {
namespace {

// Elements of a constant the reader may fold: negative or overflowing dims read as more than
// any fold takes (checked arithmetic, CheckedArith.h).
int64_t foldedCount(const onnx::TensorProto& t) {
  const std::optional<uint64_t> n = checked::elementCount(std::span<const int64_t>(t.dims().data(), t.dims().size()));
  return n && *n <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? static_cast<int64_t>(*n)
                                                                                : std::numeric_limits<int64_t>::max();
}

// A folded tensor's values are kept only up to this many elements (Q/DQ parameters are small);
// a larger folded tensor is still a constant, without values.
constexpr int64_t kMaxFoldedElements = 1 << 16;

// The values of a numeric tensor as doubles (integers exactly up to 2^53).
bool readNumbers(const onnx::TensorProto& t, std::vector<double>& out, std::string& why) {
  if (readFloats(t, out, why)) return true;
  std::vector<int64_t> ints;
  if (!readInts(t, ints, why)) return false;
  out.assign(ints.begin(), ints.end());
  return true;
}

// Writes `values` into `t` as ONNX type `type` (float types as float32/double data, 16-bit
// floats as float32: only their values are read back). False for a type it cannot hold.
bool writeNumbers(onnx::TensorProto& t, int32_t type, const std::vector<double>& values) {
  switch (type) {
    case kFloat: case kFloat16: case kBFloat16:
      t.set_data_type(kFloat);
      for (double v : values) t.add_float_data(static_cast<float>(v));
      return true;
    case kDouble:
      t.set_data_type(kDouble);
      for (double v : values) t.add_double_data(v);
      return true;
    case kInt64:
      t.set_data_type(kInt64);
      for (double v : values)
        t.add_int64_data(std::isfinite(v) ? static_cast<int64_t>(std::clamp(v, -9.2e18, 9.2e18)) : 0);
      return true;
    case kInt32: case kInt16: case kUInt16: case kInt8: case kUInt8: case kBool: {
      const std::optional<QuantStorage> range = type == kBool ? QuantStorage{ScalarType::kBool, 0, 1} : quantStorageOf(type);
      t.set_data_type(type);
      for (double v : values) {
        const double c = std::isfinite(v) ? std::clamp(std::trunc(v), static_cast<double>(range->quantMin),
                                                       static_cast<double>(range->quantMax))
                                          : 0.0;
        t.add_int32_data(type == kBool ? (v != 0.0 ? 1 : 0) : static_cast<int32_t>(c));
      }
      return true;
    }
    default: return false;
  }
}

}  // namespace

bool isFoldableOp(const onnx::NodeProto& n) {
  if (!isDefaultDomain(n.domain()) || n.output_size() < 1) return false;
  const std::string& t = n.op_type();
  return t == "Identity" || t == "Cast" || t == "ConstantOfShape" || t == "Reshape" || t == "Unsqueeze" ||
         t == "Squeeze";
}

const onnx::AttributeProto* onnxAttribute(const onnx::NodeProto& n, std::string_view name) {
  for (const onnx::AttributeProto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void OnnxConstants::addInitializer(const onnx::TensorProto& t) { initializers_.emplace(t.name(), &t); }

const onnx::TensorProto* OnnxConstants::initializer(const std::string& name) const {
  auto it = initializers_.find(name);
  return it == initializers_.end() ? nullptr : it->second;
}

const onnx::TensorProto* OnnxConstants::value(const std::string& name) const {
  if (auto it = initializers_.find(name); it != initializers_.end()) return it->second;
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  return nullptr;
}

bool OnnxConstants::isConstant(const std::string& name) const {
  return initializers_.count(name) || constantNames_.count(name);
}

bool OnnxConstants::foldable(const onnx::NodeProto& on) const {
  if (!isFoldableOp(on)) return false;
  for (const std::string& in : on.input())
    if (!in.empty() && !isConstant(in)) return false;
  return true;
}

void OnnxConstants::record(const std::string& output, const onnx::TensorProto* value) {
  if (output.empty()) return;
  constantNames_.insert(output);
  if (value) values_[output] = value;
}

const onnx::TensorProto* OnnxConstants::constantNodeValue(const onnx::NodeProto& on) {
  const onnx::TensorProto* value = nullptr;
  for (const onnx::AttributeProto& a : on.attribute()) {
    if (a.name() == "value" && a.has_t()) {
      value = &a.t();
    } else if (a.name() == "value_float" || a.name() == "value_int") {
      onnx::TensorProto& t = owned_.emplace_back();
      if (a.name() == "value_float") {
        t.set_data_type(kFloat);
        t.add_float_data(a.f());
      } else {
        t.set_data_type(kInt64);
        t.add_int64_data(a.i());
      }
      value = &t;
    }
  }
  return value;
}

// The integer values of a small constant input (a shape or axes), or nullopt.
std::optional<std::vector<int64_t>> OnnxConstants::constantInts(const onnx::NodeProto& on, int k) const {
  if (k >= on.input_size() || on.input(k).empty()) return std::nullopt;
  const onnx::TensorProto* t = value(on.input(k));
  std::vector<int64_t> v;
  std::string why;
  if (!t || foldedCount(*t) > kMaxFoldedElements || !readInts(*t, v, why)) return std::nullopt;
  return v;
}

// The output dims of a Reshape/Unsqueeze/Squeeze of `in` (dims `d`), or nullopt when they
// cannot be worked out from constants.
std::optional<std::vector<int64_t>> OnnxConstants::reshapedDims(const onnx::NodeProto& on, std::vector<int64_t> d,
                                                                int64_t count) const {
  const std::string& op = on.op_type();
  std::optional<std::vector<int64_t>> axes = constantInts(on, 1);
  if (!axes && op != "Reshape")
    if (const onnx::AttributeProto* a = onnxAttribute(on, "axes")) axes.emplace(a->ints().begin(), a->ints().end());
  if (op == "Reshape") {
    if (!axes) return std::nullopt;
    std::vector<int64_t> out = *axes;
    const onnx::AttributeProto* allowZero = onnxAttribute(on, "allowzero");
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] == 0 && !(allowZero && allowZero->i() != 0)) {
        if (i >= d.size()) return std::nullopt;
        out[i] = d[i];
      }
      if (out[i] == -1) {
        if (inferred >= 0) return std::nullopt;
        inferred = static_cast<int>(i);
      } else if (out[i] < 0) {
        return std::nullopt;
      } else {
        known *= out[i];
      }
    }
    if (inferred >= 0) out[static_cast<size_t>(inferred)] = known > 0 ? count / known : 0;
    return out;
  }
  if (op == "Unsqueeze") {
    if (!axes) return std::nullopt;
    const auto rank = static_cast<int64_t>(d.size() + axes->size());
    std::vector<int64_t> sorted;
    for (int64_t a : *axes) sorted.push_back(a < 0 ? a + rank : a);
    std::sort(sorted.begin(), sorted.end());
    for (int64_t a : sorted) {
      if (a < 0 || a > static_cast<int64_t>(d.size())) return std::nullopt;
      d.insert(d.begin() + a, 1);
    }
    return d;
  }
  // Squeeze: the given axes, or every dimension of size 1.
  std::vector<int64_t> out;
  const auto rank = static_cast<int64_t>(d.size());
  for (int64_t i = 0; i < rank; ++i) {
    bool drop = !axes && d[static_cast<size_t>(i)] == 1;
    if (axes)
      for (int64_t a : *axes) drop = drop || (a < 0 ? a + rank : a) == i;
    if (!drop) out.push_back(d[static_cast<size_t>(i)]);
  }
  return out;
}

// The value of a foldable node whose inputs are all constant, when it is small and every
// value it needs is known; nullptr otherwise (it stays a constant without values).
const onnx::TensorProto* OnnxConstants::foldValue(const onnx::NodeProto& on) {
  const std::string& op = on.op_type();
  if (op == "ConstantOfShape") {
    std::optional<std::vector<int64_t>> shape = constantInts(on, 0);
    if (!shape) return nullptr;
    int64_t count = 1;
    for (int64_t d : *shape) {
      if (d < 0 || (d > 0 && count > kMaxFoldedElements / d)) return nullptr;
      count *= d;
    }
    if (count > kMaxFoldedElements) return nullptr;
    int32_t type = kFloat;
    std::vector<double> fill{0.0};
    std::string why;
    if (const onnx::AttributeProto* a = onnxAttribute(on, "value"); a && a->has_t()) {
      type = a->t().data_type();
      if (!readNumbers(a->t(), fill, why) || fill.size() != 1) return nullptr;
    }
    onnx::TensorProto& t = owned_.emplace_back();
    for (int64_t d : *shape) t.add_dims(d);
    if (!writeNumbers(t, type, std::vector<double>(static_cast<size_t>(count), fill[0]))) return nullptr;
    return &t;
  }
  const onnx::TensorProto* in = on.input_size() > 0 ? value(on.input(0)) : nullptr;
  if (!in) return nullptr;
  if (op == "Identity") return in;
  const int64_t count = foldedCount(*in);
  if (count > kMaxFoldedElements) return nullptr;
  std::vector<double> values;
  std::string why;
  if (!readNumbers(*in, values, why)) return nullptr;
  onnx::TensorProto& t = owned_.emplace_back();
  int32_t type = in->data_type();
  if (op == "Cast") {
    const onnx::AttributeProto* to = onnxAttribute(on, "to");
    if (!to) return nullptr;
    type = static_cast<int32_t>(to->i());
    t.mutable_dims()->CopyFrom(in->dims());
  } else {
    std::optional<std::vector<int64_t>> dims = reshapedDims(on, {in->dims().begin(), in->dims().end()}, count);
    if (!dims) return nullptr;
    for (int64_t d : *dims) t.add_dims(d);
    if (foldedCount(t) != count) return nullptr;
  }
  if (!writeNumbers(t, type, values)) return nullptr;
  return &t;
}

}  // namespace qnnrules::onnxio
