#include "OnnxShapeInference.h"

#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace qnnrules::onnxio {
namespace {

struct ConvLikeOp {
  std::string_view opType;
  int weightInput;  // -1: none
  bool transposed;
};
constexpr ConvLikeOp kConvLikeOps[] = {
    {"Conv", 1, false},         {"ConvInteger", 1, false}, {"QLinearConv", 3, false},
    {"ConvTranspose", 1, true}, {"MaxPool", -1, false},    {"AveragePool", -1, false},
    {"LpPool", -1, false},
};

const ConvLikeOp* convLikeOp(std::string_view opType) {
  for (const ConvLikeOp& op : kConvLikeOps)
    if (op.opType == opType) return &op;
  return nullptr;
}

// Attribute lengths (-1: absent), from a node or from an inference context.
template <typename GetAttribute>
std::string problemOf(const ConvLikeOp& op, ConvLikeRanks ranks, GetAttribute attribute) {
  if (ranks.input < 0) return {};
  if (ranks.input < 2) return fmt::format("input has rank {}; at least 2 is needed", ranks.input);
  const int spatial = ranks.input - 2;
  if (op.weightInput >= 0 && ranks.weight >= 0 && ranks.weight != ranks.input)
    return fmt::format("weight rank {} differs from input rank {}", ranks.weight, ranks.input);
  struct Expected {
    const char* name;
    int count;
    bool transposedOnly;
  };
  const Expected expected[] = {{"kernel_shape", spatial, false}, {"strides", spatial, false},
                               {"dilations", spatial, false},    {"pads", 2 * spatial, false},
                               {"output_padding", spatial, true}, {"output_shape", spatial, true}};
  for (const Expected& e : expected) {
    if (e.transposedOnly && !op.transposed) continue;
    const onnx::AttributeProto* a = attribute(e.name);
    if (a != nullptr && a->ints_size() != e.count)
      return fmt::format("attribute {} has {} values; an input of rank {} needs {}", e.name, a->ints_size(),
                         ranks.input, e.count);
  }
  return {};
}

const onnx::TypeProto* inputType(onnx::InferenceContext& ctx, int index) {
  if (index < 0 || static_cast<size_t>(index) >= ctx.getNumInputs()) return nullptr;
  return ctx.getInputType(static_cast<size_t>(index));
}

int rankOf(const onnx::TypeProto* t) {
  if (t == nullptr || !t->has_tensor_type() || !t->tensor_type().has_shape()) return -1;
  return t->tensor_type().shape().dim_size();
}

// The preconditions ONNX 1.12's convPoolShapeInference / convTransposeShapeInference rely on.
void checkConvLike(onnx::InferenceContext& ctx, const ConvLikeOp& op) {
  ConvLikeRanks ranks{rankOf(inputType(ctx, 0)), -1};
  if (ranks.input < 0) return;  // no input shape: ONNX infers nothing
  if (op.weightInput >= 0 && ctx.getAttribute("kernel_shape") == nullptr) {
    const onnx::TypeProto* w = inputType(ctx, op.weightInput);
    if (w == nullptr) fail_shape_inference("the weight's type is unknown");
    ranks.weight = rankOf(w);
  }
  std::string problem = problemOf(op, ranks, [&](const char* name) { return ctx.getAttribute(name); });
  if (!problem.empty()) fail_shape_inference(problem);
}

// Hands out the library's schemas, with the fragile ops' inference behind their checks. The
// guarded copies are made once per schema and kept for the process (schemas are immutable).
class GuardedRegistry final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int maxInclusiveVersion,
                                  const std::string& domain) const override {
    // ONNX Runtime's com.microsoft QuantizeLinear / DequantizeLinear (16-bit and 4-bit before
    // opset 21) are the default domain's with more types: the library does not know them, and
    // without them every shape after a 16-bit Q/DQ pair would stay unknown. Types are not checked.
    if (domain == "com.microsoft" && (key == "QuantizeLinear" || key == "DequantizeLinear"))
      return onnx::OpSchemaRegistry::Schema(key, 13, "");
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, maxInclusiveVersion, domain);
    const ConvLikeOp* op = (domain.empty() || domain == "ai.onnx") ? convLikeOp(key) : nullptr;
    if (schema == nullptr || op == nullptr || !schema->has_type_and_shape_inference_function()) return schema;
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<onnx::OpSchema>& guarded = guarded_[schema];
    if (!guarded) {
      guarded = std::make_unique<onnx::OpSchema>(*schema);
      guarded->TypeAndShapeInferenceFunction(
          [infer = schema->GetTypeAndShapeInferenceFunction(), op](onnx::InferenceContext& ctx) {
            checkConvLike(ctx, *op);
            infer(ctx);
          });
    }
    return guarded.get();
  }

 private:
  mutable std::mutex mu_;
  mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
};

}  // namespace

bool isConvLike(std::string_view opType) { return convLikeOp(opType) != nullptr; }

int convLikeWeightInput(std::string_view opType) {
  const ConvLikeOp* op = convLikeOp(opType);
  return op == nullptr ? -1 : op->weightInput;
}

std::string convLikeProblem(const onnx::NodeProto& node, ConvLikeRanks ranks) {
  const ConvLikeOp* op = convLikeOp(node.op_type());
  if (op == nullptr) return {};
  return problemOf(*op, ranks, [&](const char* name) -> const onnx::AttributeProto* {
    for (const onnx::AttributeProto& a : node.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  });
}

void inferShapesGuarded(onnx::ModelProto& model) {
  static GuardedRegistry* registry = new GuardedRegistry();  // never destroyed: used until exit
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/false);
    onnx::shape_inference::InferShapes(model, registry, options);
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): shapes stay unknown, see the header
  }
}

}  // namespace qnnrules::onnxio
