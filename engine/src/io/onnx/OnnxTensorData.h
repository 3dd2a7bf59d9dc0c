// ONNX element types and the few initializer values the reader needs (quantization scales
// and zero points). ONNX 1.12's enum stops at BFLOAT16 + FLOAT8, but `elem_type`/`data_type`
// are int32 fields, so newer types (UINT4 = 21, INT4 = 22, ...) are handled by number here.
// Internal to the engine.
#pragma once

#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qnnrules/graph/QuantSpec.h"

namespace qnnrules::onnxio {

// ONNX TensorProto.DataType values, including those newer than the linked ONNX 1.12.
enum OnnxType : int32_t {
  kUndefined = 0, kFloat = 1, kUInt8 = 2, kInt8 = 3, kUInt16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7,
  kString = 8, kBool = 9, kFloat16 = 10, kDouble = 11, kUInt32 = 12, kUInt64 = 13, kComplex64 = 14,
  kComplex128 = 15, kBFloat16 = 16, kFloat8E4M3FN = 17, kFloat8E4M3FNUZ = 18, kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20, kUInt4 = 21, kInt4 = 22, kFloat4E2M1 = 23, kFloat8E8M0 = 24, kUInt2 = 25, kInt2 = 26,
};

std::string onnxTypeName(int32_t t);  // "INT4", or "type 99"

// The storage of a tensor of this type as the graph records it. Types QNN has no tensor type
// for (strings, complex, 8-bit floats) are read as float32: they only ever reach a no-rule or
// CPU verdict, never a quantization check.
ScalarType scalarTypeOf(int32_t t);

// A quantized type: the container dtype and the range, with 4-bit types in an 8-bit container
// (int4 = int8 -8..7, uint4 = uint8 0..15), as the graph format writes 4-bit annotations.
struct QuantStorage {
  ScalarType dtype = ScalarType::kUInt8;
  int64_t quantMin = 0;
  int64_t quantMax = 0;
};
std::optional<QuantStorage> quantStorageOf(int32_t t);

// The most elements a scale or zero point is read with (docs/inputs.md, "Reader limits"):
// a per-channel or block-wise tensor has one per channel or block, far below this.
inline constexpr uint64_t kMaxQParamElements = 1ull << 24;

// Values of an initializer (float_data/double_data/int32_data/int64_data or little-endian
// raw_data). Fails with a reason for external data, a type that is not numeric, dims that are
// negative, overflow 64 bits or exceed kMaxQParamElements, or data shorter than the dims say.
bool readFloats(const onnx::TensorProto& t, std::vector<double>& out, std::string& why);
bool readInts(const onnx::TensorProto& t, std::vector<int64_t>& out, std::string& why);

}  // namespace qnnrules::onnxio
