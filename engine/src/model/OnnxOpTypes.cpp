#include "OnnxOpTypes.h"

#include <algorithm>
#include <array>

namespace qnnrules {
namespace {

// ONNX 1.12's default-domain schemas (OpSchemaRegistry::get_all_schemas, domain "" or "ai.onnx").
constexpr std::array<std::string_view, 178> kLinked = {
    "Abs", "Acos", "Acosh", "Add", "And", "ArgMax", "ArgMin", "Asin", "Asinh", "Atan", "Atanh", "AveragePool",
    "BatchNormalization", "Bernoulli", "BitShift", "BlackmanWindow", "Cast", "CastLike", "Ceil", "Celu", "Clip",
    "Compress", "Concat", "ConcatFromSequence", "Constant", "ConstantOfShape", "Conv", "ConvInteger",
    "ConvTranspose", "Cos", "Cosh", "CumSum", "DFT", "DepthToSpace", "DequantizeLinear", "Det", "Div",
    "Dropout", "DynamicQuantizeLinear", "Einsum", "Elu", "Equal", "Erf", "Exp", "Expand", "EyeLike", "Flatten",
    "Floor", "GRU", "Gather", "GatherElements", "GatherND", "Gemm", "GlobalAveragePool", "GlobalLpPool",
    "GlobalMaxPool", "Greater", "GreaterOrEqual", "GridSample", "HammingWindow", "HannWindow", "HardSigmoid",
    "HardSwish", "Hardmax", "Identity", "If", "InstanceNormalization", "IsInf", "IsNaN", "LRN", "LSTM",
    "LayerNormalization", "LeakyRelu", "Less", "LessOrEqual", "Log", "LogSoftmax", "Loop", "LpNormalization",
    "LpPool", "MatMul", "MatMulInteger", "Max", "MaxPool", "MaxRoiPool", "MaxUnpool", "Mean",
    "MeanVarianceNormalization", "MelWeightMatrix", "Min", "Mod", "Mul", "Multinomial", "Neg",
    "NegativeLogLikelihoodLoss", "NonMaxSuppression", "NonZero", "Not", "OneHot", "Optional",
    "OptionalGetElement", "OptionalHasElement", "Or", "PRelu", "Pad", "Pow", "QLinearConv", "QLinearMatMul",
    "QuantizeLinear", "RNN", "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Range",
    "Reciprocal", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
    "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "Relu", "Reshape", "Resize", "ReverseSequence",
    "RoiAlign", "Round", "STFT", "Scan", "Scatter", "ScatterElements", "ScatterND", "Selu", "SequenceAt",
    "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength", "SequenceMap",
    "Shape", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Size", "Slice", "Softmax", "SoftmaxCrossEntropyLoss",
    "Softplus", "Softsign", "SpaceToDepth", "Split", "SplitToSequence", "Sqrt", "Squeeze", "StringNormalizer",
    "Sub", "Sum", "Tan", "Tanh", "TfIdfVectorizer", "ThresholdedRelu", "Tile", "TopK", "Transpose", "Trilu",
    "Unique", "Unsqueeze", "Upsample", "Where", "Xor",
};

// Default-domain ops of opsets 18-23, newer than the linked library: known by name so rules can
// name them.
constexpr std::array<std::string_view, 20> kNewer = {
    "AffineGrid", "Attention", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "CenterCropPad",
    "Col2Im", "DeformConv", "Gelu", "GroupNormalization", "ImageDecoder", "Mish", "RMSNormalization",
    "RegexFullMatch", "RotaryEmbedding", "StringConcat", "StringSplit", "Swish", "TensorScatter"};

constexpr auto kAll = [] {
  std::array<std::string_view, kLinked.size() + kNewer.size()> all{};
  std::copy(kLinked.begin(), kLinked.end(), all.begin());
  std::copy(kNewer.begin(), kNewer.end(), all.begin() + kLinked.size());
  std::sort(all.begin(), all.end());
  return all;
}();
static_assert(std::adjacent_find(kAll.begin(), kAll.end()) == kAll.end(), "an op type is listed twice");

// ONNX Runtime contrib ops (domain com.microsoft) that its QNN EP has op builders for
// (onnxruntime/onnxruntime-qnn onnxruntime/core/providers/qnn/builder/op_builder_factory.cc registers
// builders by op type, so a contrib op reaches the builder of the same name) or that ORT's QNN
// preprocessing writes (qnn_preprocess_model fuses Erf-based GELU into com.microsoft::Gelu).
constexpr std::array<std::string_view, 7> kContrib = {
    "FusedMatMul", "Gelu", "GroupQueryAttention", "MatMulNBits", "QuickGelu", "RotaryEmbedding",
    "SkipSimplifiedLayerNormalization"};
static_assert(std::is_sorted(kContrib.begin(), kContrib.end()), "kContrib must be sorted");

}  // namespace

std::span<const std::string_view> onnxContribOpTypes() { return kContrib; }
std::span<const std::string_view> onnxDefaultDomainOpTypes() { return kAll; }
std::span<const std::string_view> onnxOpTypesNewerThanLinked() { return kNewer; }

}  // namespace qnnrules
