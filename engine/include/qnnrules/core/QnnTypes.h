// QNN vocabulary: datatypes and quantization encodings. Hardware versions are data
// (model/Hardware.h, rules/socs.yaml).
// Names are the QNN SDK's (Qnn_DataType_t, Qnn_QuantizationEncoding_t) without prefixes,
// so rule files read like the SDK documentation.
#pragma once

#include <string>

#include <cstdint>
#include <optional>
#include <string_view>

namespace qnnrules {

enum class QnnDatatype : uint8_t {
  kUFixed8, kUFixed16, kUFixed32,
  kSFixed8, kSFixed16, kSFixed32,
  kFloat16, kFloat32, kBFloat16,
  kInt8, kInt16, kInt32, kInt64,
  kUInt8, kUInt16, kUInt32, kUInt64,
  kBool8,
  kCount
};
static_assert(static_cast<int>(QnnDatatype::kCount) <= 32, "datatype sets are 32-bit masks");

enum class Encoding : uint8_t {
  kScaleOffset,           // per-tensor
  kAxisScaleOffset,       // per-channel
  kBwScaleOffset,         // per-tensor, bit width below the container (4-bit, 2-bit)
  kBwAxisScaleOffset,     // per-channel, bit width below the container
  kBlockwiseExpansion,    // LPBQ: per-channel scale plus per-block integer scales
  kCount
};

std::string_view datatypeName(QnnDatatype t);   // "UFIXED_POINT_8"
std::optional<QnnDatatype> parseDatatype(std::string_view name);
std::string_view encodingName(Encoding e);      // "SCALE_OFFSET"
std::optional<Encoding> parseEncoding(std::string_view name);

bool isFixedPoint(QnnDatatype t);
bool isSignedFixedPoint(QnnDatatype t);
int containerBits(QnnDatatype t);  // 8/16/32/64 for fixed point and integer types, 16/32 for float

// Small bit sets over the enums above, so that "is this datatype allowed" is one AND.
template <typename E>
class EnumSet {
 public:
  constexpr EnumSet() = default;
  constexpr void insert(E e) { bits_ |= bit(e); }
  constexpr bool contains(E e) const { return (bits_ & bit(e)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint32_t bits() const { return bits_; }
  template <typename F>
  void forEach(F&& f) const {
    for (uint32_t i = 0; i < static_cast<uint32_t>(E::kCount); ++i)
      if (bits_ & (1u << i)) f(static_cast<E>(i));
  }
  friend constexpr bool operator==(EnumSet a, EnumSet b) { return a.bits_ == b.bits_; }

 private:
  static constexpr uint32_t bit(E e) { return 1u << static_cast<uint32_t>(e); }
  uint32_t bits_ = 0;
};

using DatatypeSet = EnumSet<QnnDatatype>;
using EncodingSet = EnumSet<Encoding>;

// The members of a set in words, for diagnostics and docs.
std::string datatypeSetText(DatatypeSet s);   // "UFIXED_POINT_8 or UFIXED_POINT_16"
std::string encodingSetText(EncodingSet s);   // "SCALE_OFFSET or AXIS_SCALE_OFFSET"

}  // namespace qnnrules
