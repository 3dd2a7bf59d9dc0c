#include "qnnrules/graph/PortType.h"

#include <bit>
#include <limits>

namespace qnnrules {
namespace {


// Bits needed to hold `levels` distinct codes (runs per bound tensor in validation: no loop).
int bitsFor(uint64_t levels) { return levels <= 1 ? 0 : std::bit_width(levels - 1); }

int roundedBitwidth(int bits) {
  for (int w : {2, 4, 8, 16, 32})
    if (bits <= w) return w;
  return bits;
}

}  // namespace

QuantRange fullQuantRange(ScalarType t) {
  switch (t) {
    case ScalarType::kInt8: return {-128, 127};
    case ScalarType::kUInt8: return {0, 255};
    case ScalarType::kInt16: return {-32768, 32767};
    case ScalarType::kUInt16: return {0, 65535};
    case ScalarType::kInt32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case ScalarType::kUInt32: return {0, std::numeric_limits<uint32_t>::max()};
    default: return {0, 0};
  }
}

PortType portTypeOf(ScalarType dtype) {
  PortType p;
  switch (dtype) {
    case ScalarType::kFloat32: p.datatype = QnnDatatype::kFloat32; break;
    case ScalarType::kFloat64: p.datatype = QnnDatatype::kFloat32; break;  // QNN has no FLOAT_64
    case ScalarType::kFloat16: p.datatype = QnnDatatype::kFloat16; break;
    case ScalarType::kBFloat16: p.datatype = QnnDatatype::kBFloat16; break;
    case ScalarType::kInt8: p.datatype = QnnDatatype::kInt8; break;
    case ScalarType::kInt16: p.datatype = QnnDatatype::kInt16; break;
    case ScalarType::kInt32: p.datatype = QnnDatatype::kInt32; break;
    case ScalarType::kInt64: p.datatype = QnnDatatype::kInt64; break;
    case ScalarType::kUInt8: p.datatype = QnnDatatype::kUInt8; break;
    case ScalarType::kUInt16: p.datatype = QnnDatatype::kUInt16; break;
    case ScalarType::kUInt32: p.datatype = QnnDatatype::kUInt32; break;
    case ScalarType::kBool: p.datatype = QnnDatatype::kBool8; break;
    case ScalarType::kCount: break;
  }
  p.bitwidth = containerBits(p.datatype);
  return p;
}

PortType portTypeOf(const QuantSpec& spec) {
  if (isFloatType(spec.dtype)) return portTypeOf(spec.dtype);  // e.g. fp16 "annotation"
  QuantRange full = fullQuantRange(spec.dtype);
  int64_t qmin = spec.quantMin.value_or(full.min);
  int64_t qmax = spec.quantMax.value_or(full.max);
  PortType p;
  p.quantized = true;
  bool isSigned = qmin < 0;
  uint64_t levels = qmax >= qmin ? static_cast<uint64_t>(qmax - qmin) + 1 : 1;
  // QNN has bit widths 2, 4 (BW encodings), 8, 16 and 32: a range narrower than one of them
  // is that width with a restricted range (PyTorch's x86 reduce_range writes uint8 0..127,
  // symmetric int8 writes -127..127), never a 7- or 3-bit encoding.
  p.bitwidth = roundedBitwidth(bitsFor(levels));
  int container = p.bitwidth <= 8 ? 8 : p.bitwidth <= 16 ? 16 : 32;
  switch (container) {
    case 8: p.datatype = isSigned ? QnnDatatype::kSFixed8 : QnnDatatype::kUFixed8; break;
    case 16: p.datatype = isSigned ? QnnDatatype::kSFixed16 : QnnDatatype::kUFixed16; break;
    default: p.datatype = isSigned ? QnnDatatype::kSFixed32 : QnnDatatype::kUFixed32; break;
  }
  bool perChannel = isPerChannel(spec.qscheme);
  if (!spec.blockSize.empty()) {
    p.encoding = Encoding::kBlockwiseExpansion;
  } else if (p.bitwidth < container) {
    p.encoding = perChannel ? Encoding::kBwAxisScaleOffset : Encoding::kBwScaleOffset;
  } else {
    p.encoding = perChannel ? Encoding::kAxisScaleOffset : Encoding::kScaleOffset;
  }
  return p;
}

int64_t symmetricOffset(QnnDatatype t) {
  if (!isFixedPoint(t) || isSignedFixedPoint(t)) return 0;
  return -(int64_t{1} << (containerBits(t) - 1));
}

}  // namespace qnnrules
