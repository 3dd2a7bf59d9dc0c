// The checked arithmetic every reader uses for sizes, counts, offsets and strides from its
// input (engine/src/io/CheckedArith.h, issue 24): results that do not fit are nullopt, never
// wrapped; the bounds check cannot wrap either.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "io/CheckedArith.h"

namespace qnnrules {
namespace {

TEST(CheckedArith, MultiplicationAndAdditionSayWhenTheResultDoesNotFit) {
  EXPECT_EQ(checked::mul<uint64_t>(1ull << 32, 1ull << 31), 1ull << 63);
  EXPECT_EQ(checked::mul<uint64_t>(1ull << 62, 4), std::nullopt);  // issue 24's ONNX case: 2^62 floats
  EXPECT_EQ(checked::mul<int64_t>(INT64_MAX, 2), std::nullopt);
  EXPECT_EQ(checked::add<uint64_t>(UINT64_MAX, 1), std::nullopt);
  EXPECT_EQ(checked::add<int64_t>(INT64_MAX - 1, 1), INT64_MAX);
  EXPECT_EQ(checked::add<int64_t>(INT64_MAX, 1), std::nullopt);
}

TEST(CheckedArith, NarrowingRefusesWhatDoesNotFit) {
  EXPECT_EQ(checked::narrow<uint32_t>(int64_t{-1}), std::nullopt);
  EXPECT_EQ(checked::narrow<int32_t>(int64_t{1} << 31), std::nullopt);
  EXPECT_EQ(checked::narrow<int32_t>(int64_t{-5}), -5);
  EXPECT_EQ(checked::narrow<int64_t>(uint64_t{1} << 63), std::nullopt);
  EXPECT_EQ(checked::narrow<uint64_t>(int64_t{7}), 7u);
}

TEST(CheckedArith, ElementCountRefusesNegativeAndOverflowingDims) {
  EXPECT_EQ(checked::elementCount(std::vector<int64_t>{}), 1u);
  EXPECT_EQ(checked::elementCount(std::vector<int64_t>{2, 3, 4}), 24u);
  EXPECT_EQ(checked::elementCount(std::vector<int64_t>{0, INT64_MAX}), 0u);
  EXPECT_EQ(checked::elementCount(std::vector<int64_t>{1ll << 62}), 1ull << 62);
  EXPECT_EQ(checked::elementCount(std::vector<int64_t>{1ll << 40, 1ll << 40}), std::nullopt);
  EXPECT_EQ(checked::elementCount(std::vector<int64_t>{4, -1}), std::nullopt);
}

TEST(CheckedArith, BoundsCheckCannotWrap) {
  EXPECT_TRUE(checked::fitsIn(0, 4, 4, 16));
  EXPECT_FALSE(checked::fitsIn(1, 4, 4, 16));
  // (2^62 + 0) * 4 wraps to 0 in plain uint64 arithmetic, which is <= any size.
  EXPECT_FALSE(checked::fitsIn(1ull << 62, 0, 4, 16));
  EXPECT_FALSE(checked::fitsIn(UINT64_MAX, 1, 1, UINT64_MAX));
}

}  // namespace
}  // namespace qnnrules
