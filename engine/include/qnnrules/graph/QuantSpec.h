// The quantization annotation of one port (an input edge or an output), as a quantizer
// writes it: dtype, range, scheme, axis, block size, and scale/zero point when known.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "qnnrules/core/InlineVector.h"

namespace qnnrules {

// Storage dtypes as PyTorch names them (torch.uint8 -> kUInt8 ...).
enum class ScalarType : uint8_t {
  kFloat32, kFloat16, kBFloat16, kFloat64,
  kInt8, kInt16, kInt32, kInt64,
  kUInt8, kUInt16, kUInt32,
  kBool,
  kCount
};
std::string_view scalarTypeName(ScalarType t);   // "float32"
std::optional<ScalarType> parseScalarType(std::string_view s);  // accepts "float32" and "torch.float32"
bool isFloatType(ScalarType t);

enum class QScheme : uint8_t { kPerTensorAffine, kPerTensorSymmetric, kPerChannelAffine, kPerChannelSymmetric };
std::string_view qschemeName(QScheme q);  // "per_tensor_affine"
std::optional<QScheme> parseQScheme(std::string_view s);
inline bool isPerChannel(QScheme q) { return q == QScheme::kPerChannelAffine || q == QScheme::kPerChannelSymmetric; }
inline bool isSymmetric(QScheme q) { return q == QScheme::kPerTensorSymmetric || q == QScheme::kPerChannelSymmetric; }

// "This port uses the encoding of ..." (PyTorch's SharedQuantizationSpec).
struct SharedRef {
  enum class Kind : uint8_t {
    kNodeOutput,  // output `output` of node `node`
    kEdge,        // the input edge from `node` (producer) into `consumer`
  };
  Kind kind = Kind::kNodeOutput;
  uint32_t node = 0;
  uint32_t output = 0;
  uint32_t consumer = 0;
  // kEdge: where the edge is among the consumer's arguments (argument index, then list element
  // or kWhole), so looking it up costs O(1) rather than a scan of a 100k-input cat. Filled by
  // the graph reader; left at kUnknown (graphs built in memory) the lookup scans.
  static constexpr uint32_t kUnknown = UINT32_MAX;
  static constexpr uint32_t kWhole = UINT32_MAX - 1;
  uint32_t arg = kUnknown;
  uint32_t element = kWhole;
};

struct QuantSpec {
  // When set, the port shares another port's encoding and the fields below are unused.
  std::optional<SharedRef> sharedWith;

  // Fields ordered so that the struct packs (144 bytes): a million-node graph has two
  // million of them.
  ScalarType dtype = ScalarType::kUInt8;
  QScheme qscheme = QScheme::kPerTensorAffine;
  std::optional<int32_t> chAxis;
  std::optional<int64_t> quantMin;
  std::optional<int64_t> quantMax;
  InlineVector<int64_t> blockSize;   // non-empty => block-wise (LPBQ)
  // One value inline (InlineVector.h): a per-tensor spec allocates nothing for them.
  InlineVector<double> scales;       // empty until calibrated; one per channel when per-channel
  InlineVector<int64_t> zeroPoints;  // PyTorch convention (QNN offset = -zero_point)

  // The smallest and largest zero point, recorded by whoever fills zeroPoints while it touches
  // them anyway (graph reader, QDQ fold: recordZeroPointRange), so that validating a block-wise
  // weight with thousands of zero points costs O(1) instead of a pass over them. Only lists of
  // two or more are recorded, and trusted only while zeroPoints has the size it had then;
  // code that rewrites such a list in place records again. Read it through zeroPointRange().
  int64_t recordedZeroPointMin = 0;
  int64_t recordedZeroPointMax = 0;
  static constexpr uint32_t kNotRecorded = UINT32_MAX;
  uint32_t recordedZeroPointCount = kNotRecorded;

  bool isShared() const { return sharedWith.has_value(); }
};

struct ZeroPointRange {
  int64_t min = 0;
  int64_t max = 0;  // min > max when there are no zero points
};
// Records the range of s.zeroPoints (call after filling them).
void recordZeroPointRange(QuantSpec& s);
// The recorded range when it is current, else computed by a pass over the zero points.
ZeroPointRange zeroPointRange(const QuantSpec& s);

// `v` rounded to float32, as ONNX and QNN store a scale; beyond float32's range it is +-infinity
// (a plain cast of such a double is undefined behaviour), and NaN stays NaN.
float toFloat32(double v);

// The one description of an encoding, as explanations and diagnostics print it:
// "uint8 0..255 per_tensor_affine", "int8 -7..7 per_channel_symmetric axis 0 block_size [1, 32]"
// (block_size as the graph format names it); a float type alone. With `withScale`, a per-tensor
// encoding's scale and zero point too, and a shared encoding says what it is shared with.
std::string describeQuantSpec(const QuantSpec& s, bool withScale = false);

}  // namespace qnnrules
