// Dtype and qscheme names as graphs spell them: every name reads back as its type, with and
// without torch's prefix, PyTorch's aliases too, and near misses are refused.
#include <gtest/gtest.h>

#include <string>

#include "qnnrules/graph/QuantSpec.h"

namespace qnnrules {
namespace {

TEST(ScalarTypeNames, EveryNameReadsBackAsItsType) {
  for (size_t i = 0; i < static_cast<size_t>(ScalarType::kCount); ++i) {
    const auto t = static_cast<ScalarType>(i);
    const std::string name(scalarTypeName(t));
    EXPECT_EQ(parseScalarType(name), t) << name;
    EXPECT_EQ(parseScalarType("torch." + name), t) << name;
  }
}

TEST(ScalarTypeNames, PyTorchAliases) {
  EXPECT_EQ(parseScalarType("float"), ScalarType::kFloat32);
  EXPECT_EQ(parseScalarType("torch.half"), ScalarType::kFloat16);
  EXPECT_EQ(parseScalarType("double"), ScalarType::kFloat64);
  EXPECT_EQ(parseScalarType("short"), ScalarType::kInt16);
  EXPECT_EQ(parseScalarType("int"), ScalarType::kInt32);
  EXPECT_EQ(parseScalarType("long"), ScalarType::kInt64);
}

TEST(ScalarTypeNames, NearMissesAreRefused) {
  for (const char* bad : {"", "uint", "int9", "uint17", "float31", "bfloat32", "Float32", "torch.", "torch.torch.int8",
                          "int8 ", "bool8", "uint64", "qint8"})
    EXPECT_EQ(parseScalarType(bad), std::nullopt) << bad;
}

TEST(QSchemeNames, EveryNameReadsBackAndNearMissesAreRefused) {
  for (QScheme q : {QScheme::kPerTensorAffine, QScheme::kPerTensorSymmetric, QScheme::kPerChannelAffine,
                    QScheme::kPerChannelSymmetric}) {
    const std::string name(qschemeName(q));
    EXPECT_EQ(parseQScheme(name), q) << name;
    EXPECT_EQ(parseQScheme("torch." + name), q) << name;
  }
  for (const char* bad : {"", "per_tensor", "per_channel_affine_float_qparams", "per_tensor_affinE"})
    EXPECT_EQ(parseQScheme(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace qnnrules
