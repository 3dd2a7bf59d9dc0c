// What QNN will see on a port: the datatype and encoding derived from an annotation.
#pragma once

#include <optional>

#include "qnnrules/core/QnnTypes.h"
#include "qnnrules/graph/QuantSpec.h"

namespace qnnrules {

struct PortType {
  QnnDatatype datatype = QnnDatatype::kFloat32;
  std::optional<Encoding> encoding;  // set for quantized ports
  int bitwidth = 0;                  // meaningful bits (4 for int8 -7..7); container bits otherwise
  bool quantized = false;
};

// The quant range decides the width, rounded up to one QNN has (2, 4, 8, 16, 32: uint8 0..127
// is 8 bits with a restricted range) and signedness (quant_min < 0); a 2- or 4-bit width in
// an 8-bit container gives a BW_* encoding;
// a block size gives BLOCKWISE_EXPANSION. Without quant_min/quant_max the dtype's full range
// is used (torch.int32 with 0..65535 is how PyTorch spells uint16).
PortType portTypeOf(const QuantSpec& spec);
// The full quant range of an integer storage dtype ({0, 0} for float and bool).
struct QuantRange {
  int64_t min;
  int64_t max;
};
QuantRange fullQuantRange(ScalarType t);

// An unannotated port: its tensor dtype maps to a QNN float/integer/bool type.
PortType portTypeOf(ScalarType tensorDtype);

// The QNN offset (-zero_point) a symmetric encoding of this datatype must have:
// 0 for signed containers, -2^(bits-1) for unsigned ones.
int64_t symmetricOffset(QnnDatatype t);

}  // namespace qnnrules
