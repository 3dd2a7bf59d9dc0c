// The zero point range a spec records when it is filled, and the pass over the zero points
// that stands in for it when the record is missing or no longer matches the list.
#include <gtest/gtest.h>

#include "qnnrules/graph/QuantSpec.h"

namespace qnnrules {
namespace {

QuantSpec withZeroPoints(std::vector<int64_t> zps) {
  QuantSpec s;
  s.zeroPoints = std::move(zps);
  return s;
}

TEST(ZeroPointRange, UnrecordedSpecsAreWalked) {
  const ZeroPointRange r = zeroPointRange(withZeroPoints({4, -3, 9, 0}));
  EXPECT_EQ(r.min, -3);
  EXPECT_EQ(r.max, 9);
  const ZeroPointRange none = zeroPointRange(withZeroPoints({}));
  EXPECT_GT(none.min, none.max);
}

TEST(ZeroPointRange, ARecordedListIsReadFromTheRecord) {
  QuantSpec s = withZeroPoints({2, 2, 7});
  recordZeroPointRange(s);
  EXPECT_EQ(s.recordedZeroPointCount, 3u);
  EXPECT_EQ(s.recordedZeroPointMin, 2);
  EXPECT_EQ(s.recordedZeroPointMax, 7);
  // The record is what is read (proved by a record that disagrees with the list).
  s.recordedZeroPointMax = 100;
  EXPECT_EQ(zeroPointRange(s).max, 100);
}

TEST(ZeroPointRange, AListThatChangedSizeIsWalkedAgain) {
  QuantSpec s = withZeroPoints({0, 0});
  recordZeroPointRange(s);
  s.zeroPoints.push_back(-5);
  EXPECT_EQ(zeroPointRange(s).min, -5);
  s.zeroPoints = {12};
  EXPECT_EQ(zeroPointRange(s).min, 12);
  EXPECT_EQ(zeroPointRange(s).max, 12);
}

TEST(ZeroPointRange, ASingleZeroPointIsNeverRecorded) {
  // Narrowing and tests rewrite a lone zero point in place: it must never be read stale.
  QuantSpec s = withZeroPoints({1});
  recordZeroPointRange(s);
  EXPECT_EQ(s.recordedZeroPointCount, QuantSpec::kNotRecorded);
  s.zeroPoints[0] = 300;
  EXPECT_EQ(zeroPointRange(s).max, 300);
}

}  // namespace
}  // namespace qnnrules
