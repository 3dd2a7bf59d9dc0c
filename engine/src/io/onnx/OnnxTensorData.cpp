#include "OnnxTensorData.h"

#include <bit>
#include <cmath>
#include <iterator>
#include <cstring>
#include <limits>

#include "io/CheckedArith.h"

namespace qnnrules::onnxio {
namespace {

// Reads a little-endian value of N bytes from raw_data (the ONNX wire order on any host).
template <typename T>
T loadLe(const std::string& raw, size_t i) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, raw.data() + i * sizeof(T), sizeof(T));
  if constexpr (std::endian::native == std::endian::big)
    for (size_t a = 0, b = sizeof(T) - 1; a < b; ++a, --b) std::swap(bytes[a], bytes[b]);
  T v;
  std::memcpy(&v, bytes, sizeof(T));
  return v;
}

double halfToDouble(uint16_t h) {
  const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(frac, -24);
  else if (exp == 31) v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(frac + 1024, exp - 25);
  return sign ? -v : v;
}

double bf16ToDouble(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

int bytesPer(int32_t t) {
  switch (t) {
    case kUInt8: case kInt8: case kBool: return 1;
    case kUInt16: case kInt16: case kFloat16: case kBFloat16: return 2;
    case kFloat: case kInt32: case kUInt32: return 4;
    case kDouble: case kInt64: case kUInt64: return 8;
    default: return 0;
  }
}

// The element count of `t`, checked: nullopt with `why` for external data, a negative
// dimension, a product of dims beyond 64 bits, or more elements than a scale or zero point
// is ever read with (kMaxQParamElements).
std::optional<uint64_t> precheck(const onnx::TensorProto& t, std::string& why) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    why = "its data is stored outside the model (external data)";
    return std::nullopt;
  }
  for (int64_t d : t.dims())
    if (d < 0) {
      why = "it has a negative dimension (" + std::to_string(d) + ")";
      return std::nullopt;
    }
  std::optional<uint64_t> n = checked::elementCount(std::span<const int64_t>(t.dims().data(), t.dims().size()));
  if (!n) {
    why = "its dims multiply to more than 2^64 elements";
    return std::nullopt;
  }
  if (*n > kMaxQParamElements) {
    why = "its dims say " + std::to_string(*n) + " elements, above the limit of " + std::to_string(kMaxQParamElements) +
          " for a scale or zero point";
    return std::nullopt;
  }
  return n;
}

// Bits per element of the packed sub-byte types (INT4/UINT4: two per byte, INT2/UINT2: four),
// else 0.
int subByteBits(int32_t type) {
  if (type == kInt4 || type == kUInt4) return 4;
  if (type == kInt2 || type == kUInt2) return 2;
  return 0;
}

// Raw data must hold `n` elements; sub-byte types are packed. `n` is at most
// kMaxQParamElements, so the byte count cannot wrap; it is still computed checked.
bool rawLongEnough(const onnx::TensorProto& t, uint64_t n, std::string& why) {
  const int bits = subByteBits(t.data_type());
  const uint64_t perByte = bits ? static_cast<uint64_t>(8 / bits) : 0;
  const std::optional<uint64_t> need =
      bits ? std::optional<uint64_t>(n / perByte + (n % perByte != 0))
           : checked::mul<uint64_t>(n, static_cast<uint64_t>(bytesPer(t.data_type())));
  if (need && t.raw_data().size() >= *need) return true;
  why = "its raw data holds " + std::to_string(t.raw_data().size()) + " bytes, fewer than its " + std::to_string(n) +
        " element(s) need";
  return false;
}

// Element i of a packed byte: the first element in the least significant bits.
int64_t unpack(uint8_t byte, int64_t i, int bits, bool isSigned) {
  const int perByte = 8 / bits;
  const int v = (byte >> ((i % perByte) * bits)) & ((1 << bits) - 1);
  return isSigned && v >= (1 << (bits - 1)) ? v - (1 << bits) : v;
}

}  // namespace

std::string onnxTypeName(int32_t t) {
  static const char* const kNames[] = {
      "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL", "FLOAT16",
      "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ",
      "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2"};
  if (t >= 0 && t < static_cast<int32_t>(std::size(kNames))) return kNames[t];
  return "type " + std::to_string(t);
}

ScalarType scalarTypeOf(int32_t t) {
  switch (t) {
    case kUInt8: case kUInt4: case kUInt2: return ScalarType::kUInt8;
    case kInt8: case kInt4: case kInt2: return ScalarType::kInt8;
    case kUInt16: return ScalarType::kUInt16;
    case kInt16: return ScalarType::kInt16;
    case kInt32: return ScalarType::kInt32;
    case kInt64: case kUInt64: return ScalarType::kInt64;
    case kUInt32: return ScalarType::kUInt32;
    case kBool: return ScalarType::kBool;
    case kFloat16: return ScalarType::kFloat16;
    case kBFloat16: return ScalarType::kBFloat16;
    case kDouble: return ScalarType::kFloat64;
    default: return ScalarType::kFloat32;
  }
}

std::optional<QuantStorage> quantStorageOf(int32_t t) {
  switch (t) {
    case kUInt8: return QuantStorage{ScalarType::kUInt8, 0, 255};
    case kInt8: return QuantStorage{ScalarType::kInt8, -128, 127};
    case kUInt16: return QuantStorage{ScalarType::kUInt16, 0, 65535};
    case kInt16: return QuantStorage{ScalarType::kInt16, -32768, 32767};
    case kInt32: return QuantStorage{ScalarType::kInt32, std::numeric_limits<int32_t>::min(),
                                     std::numeric_limits<int32_t>::max()};
    case kUInt4: return QuantStorage{ScalarType::kUInt8, 0, 15};
    case kInt4: return QuantStorage{ScalarType::kInt8, -8, 7};
    case kUInt2: return QuantStorage{ScalarType::kUInt8, 0, 3};
    case kInt2: return QuantStorage{ScalarType::kInt8, -2, 1};
    default: return std::nullopt;
  }
}

bool readFloats(const onnx::TensorProto& t, std::vector<double>& out, std::string& why) {
  const std::optional<uint64_t> count = precheck(t, why);
  if (!count) return false;
  const auto n = static_cast<int64_t>(*count);  // at most kMaxQParamElements
  const bool raw = t.has_raw_data();
  if (raw && !rawLongEnough(t, *count, why)) return false;
  out.clear();
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    switch (t.data_type()) {
      case kFloat:
        if (!raw && i >= t.float_data_size()) break;
        out.push_back(raw ? loadLe<float>(t.raw_data(), k) : t.float_data(static_cast<int>(i)));
        continue;
      case kDouble:
        if (!raw && i >= t.double_data_size()) break;
        out.push_back(raw ? loadLe<double>(t.raw_data(), k) : t.double_data(static_cast<int>(i)));
        continue;
      case kFloat16: case kBFloat16: {
        if (!raw && i >= t.int32_data_size()) break;  // 16-bit floats travel as their bits in int32_data
        const auto bits = raw ? loadLe<uint16_t>(t.raw_data(), k) : static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
        out.push_back(t.data_type() == kFloat16 ? halfToDouble(bits) : bf16ToDouble(bits));
        continue;
      }
      default:
        why = "its type " + onnxTypeName(t.data_type()) + " is not a float type";
        return false;
    }
    why = "it holds fewer values than its dims say";
    return false;
  }
  return true;
}

bool readInts(const onnx::TensorProto& t, std::vector<int64_t>& out, std::string& why) {
  const std::optional<uint64_t> count = precheck(t, why);
  if (!count) return false;
  const auto n = static_cast<int64_t>(*count);  // at most kMaxQParamElements
  const int32_t type = t.data_type();
  const bool raw = t.has_raw_data();
  if (raw && !rawLongEnough(t, *count, why)) return false;
  const int bits = subByteBits(type);
  if (!bits && bytesPer(type) == 0) {
    why = "its type " + onnxTypeName(type) + " is not an integer type";
    return false;
  }
  out.clear();
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    if (bits) {
      // Packed values, the first in the low bits (raw_data and int32_data alike).
      const int64_t byteIndex = i / (8 / bits);
      if (!raw && byteIndex >= t.int32_data_size()) break;
      const auto byte = raw ? static_cast<uint8_t>(t.raw_data()[static_cast<size_t>(byteIndex)])
                            : static_cast<uint8_t>(t.int32_data(static_cast<int>(byteIndex)));
      out.push_back(unpack(byte, i, bits, type == kInt4 || type == kInt2));
      continue;
    }
    if (type == kInt64) {
      if (!raw && i >= t.int64_data_size()) break;
      out.push_back(raw ? loadLe<int64_t>(t.raw_data(), k) : t.int64_data(static_cast<int>(i)));
      continue;
    }
    if (type == kUInt64 || type == kUInt32) {
      if (!raw && i >= t.uint64_data_size()) break;
      out.push_back(raw ? (type == kUInt32 ? static_cast<int64_t>(loadLe<uint32_t>(t.raw_data(), k))
                                           : static_cast<int64_t>(loadLe<uint64_t>(t.raw_data(), k)))
                        : static_cast<int64_t>(t.uint64_data(static_cast<int>(i))));
      continue;
    }
    if (!raw) {
      if (i >= t.int32_data_size()) break;
      out.push_back(t.int32_data(static_cast<int>(i)));
      continue;
    }
    switch (type) {
      case kUInt8: case kBool: out.push_back(loadLe<uint8_t>(t.raw_data(), k)); break;
      case kInt8: out.push_back(loadLe<int8_t>(t.raw_data(), k)); break;
      case kUInt16: out.push_back(loadLe<uint16_t>(t.raw_data(), k)); break;
      case kInt16: out.push_back(loadLe<int16_t>(t.raw_data(), k)); break;
      case kInt32: out.push_back(loadLe<int32_t>(t.raw_data(), k)); break;
      default:
        why = "its type " + onnxTypeName(type) + " is not an integer type";
        return false;
    }
  }
  if (static_cast<int64_t>(out.size()) != n) {
    why = "it holds fewer values than its dims say";
    return false;
  }
  return true;
}

}  // namespace qnnrules::onnxio
