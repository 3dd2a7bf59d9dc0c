// What QNN sees on a port, derived from an annotation.
#include <gtest/gtest.h>

#include "qnnrules/graph/PortType.h"

namespace qnnrules {
namespace {

QuantSpec spec(ScalarType dt, std::optional<int64_t> qmin, std::optional<int64_t> qmax,
               QScheme q = QScheme::kPerTensorAffine) {
  QuantSpec s;
  s.dtype = dt;
  s.quantMin = qmin;
  s.quantMax = qmax;
  s.qscheme = q;
  return s;
}

TEST(PortType, EightBitActivationIsUfixed8ScaleOffset) {
  PortType p = portTypeOf(spec(ScalarType::kUInt8, 0, 255));
  EXPECT_EQ(p.datatype, QnnDatatype::kUFixed8);
  EXPECT_EQ(p.encoding, Encoding::kScaleOffset);
  EXPECT_EQ(p.bitwidth, 8);
  EXPECT_TRUE(p.quantized);
}

TEST(PortType, Int32WithSixteenBitRangeIsUfixed16) {
  // PyTorch has no uint16 observer dtype, so 16-bit activations are int32 0..65535.
  PortType p = portTypeOf(spec(ScalarType::kInt32, 0, 65535));
  EXPECT_EQ(p.datatype, QnnDatatype::kUFixed16);
  EXPECT_EQ(p.bitwidth, 16);
}

// PyTorch's x86 default observes activations with reduce_range: uint8 0..127. That is an
// 8-bit encoding with a restricted range, not a 7-bit one (which would put every node on CPU);
// a narrower signed range rounds up to the next width QNN has in the same way.
TEST(PortType, ReducedRangeIsTheContainerWidthWithARestrictedRange) {
  PortType reduced = portTypeOf(spec(ScalarType::kUInt8, 0, 127));
  EXPECT_EQ(reduced.datatype, QnnDatatype::kUFixed8);
  EXPECT_EQ(reduced.encoding, Encoding::kScaleOffset);
  EXPECT_EQ(reduced.bitwidth, 8);
  PortType int16Half = portTypeOf(spec(ScalarType::kInt32, 0, 32767));
  EXPECT_EQ(int16Half.datatype, QnnDatatype::kUFixed16);
  EXPECT_EQ(int16Half.bitwidth, 16);
  PortType threeBit = portTypeOf(spec(ScalarType::kInt8, -4, 3, QScheme::kPerChannelSymmetric));
  EXPECT_EQ(threeBit.encoding, Encoding::kBwAxisScaleOffset);
  EXPECT_EQ(threeBit.bitwidth, 4);
}

TEST(PortType, SymmetricInt8WeightPerChannel) {
  PortType p = portTypeOf(spec(ScalarType::kInt8, -127, 127, QScheme::kPerChannelSymmetric));
  EXPECT_EQ(p.datatype, QnnDatatype::kSFixed8);
  EXPECT_EQ(p.encoding, Encoding::kAxisScaleOffset);
  EXPECT_EQ(p.bitwidth, 8);
}

TEST(PortType, FourAndTwoBitWeightsUseBitWidthEncodings) {
  PortType w4 = portTypeOf(spec(ScalarType::kInt8, -7, 7, QScheme::kPerTensorSymmetric));
  EXPECT_EQ(w4.datatype, QnnDatatype::kSFixed8);
  EXPECT_EQ(w4.encoding, Encoding::kBwScaleOffset);
  EXPECT_EQ(w4.bitwidth, 4);
  PortType w4full = portTypeOf(spec(ScalarType::kInt8, -8, 7, QScheme::kPerChannelSymmetric));
  EXPECT_EQ(w4full.encoding, Encoding::kBwAxisScaleOffset);
  EXPECT_EQ(w4full.bitwidth, 4);
  PortType w2 = portTypeOf(spec(ScalarType::kInt8, -2, 1, QScheme::kPerChannelSymmetric));
  EXPECT_EQ(w2.encoding, Encoding::kBwAxisScaleOffset);
  EXPECT_EQ(w2.bitwidth, 2);
}

TEST(PortType, BlockSizeMeansBlockwiseExpansion) {
  QuantSpec s = spec(ScalarType::kInt8, -7, 7, QScheme::kPerChannelSymmetric);
  s.blockSize = {1, 64};
  EXPECT_EQ(portTypeOf(s).encoding, Encoding::kBlockwiseExpansion);
}

TEST(PortType, MissingRangeUsesTheDtypesFullRange) {
  PortType w = portTypeOf(spec(ScalarType::kUInt8, std::nullopt, std::nullopt, QScheme::kPerTensorSymmetric));
  EXPECT_EQ(w.datatype, QnnDatatype::kUFixed8);
  PortType bias = portTypeOf(spec(ScalarType::kInt32, std::nullopt, std::nullopt, QScheme::kPerChannelSymmetric));
  EXPECT_EQ(bias.datatype, QnnDatatype::kSFixed32);
  EXPECT_EQ(bias.encoding, Encoding::kAxisScaleOffset);
  PortType w16 = portTypeOf(spec(ScalarType::kInt16, -32767, 32767, QScheme::kPerTensorSymmetric));
  EXPECT_EQ(w16.datatype, QnnDatatype::kSFixed16);
}

TEST(PortType, UnannotatedPortsMapTheTensorDtype) {
  EXPECT_EQ(portTypeOf(ScalarType::kFloat32).datatype, QnnDatatype::kFloat32);
  EXPECT_EQ(portTypeOf(ScalarType::kFloat16).datatype, QnnDatatype::kFloat16);
  EXPECT_EQ(portTypeOf(ScalarType::kInt64).datatype, QnnDatatype::kInt64);
  EXPECT_EQ(portTypeOf(ScalarType::kBool).datatype, QnnDatatype::kBool8);
  EXPECT_FALSE(portTypeOf(ScalarType::kFloat32).quantized);
  EXPECT_FALSE(portTypeOf(ScalarType::kFloat32).encoding.has_value());
}

TEST(PortType, SymmetricOffsetDependsOnTheContainer) {
  EXPECT_EQ(symmetricOffset(QnnDatatype::kSFixed8), 0);
  EXPECT_EQ(symmetricOffset(QnnDatatype::kUFixed8), -128);
  EXPECT_EQ(symmetricOffset(QnnDatatype::kUFixed16), -32768);
}

}  // namespace
}  // namespace qnnrules
