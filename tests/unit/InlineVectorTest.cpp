// InlineVector (core/InlineVector.h): one value inline, more on the heap, std::vector's
// behaviour for what the engine uses; the sanitizer build checks the memory handling.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "qnnrules/core/InlineVector.h"

namespace qnnrules {
namespace {

using Values = InlineVector<int64_t>;

TEST(InlineVector, OneValueStaysInlineAndMoreGoToTheHeap) {
  Values v;
  EXPECT_TRUE(v.empty());
  v.push_back(7);
  EXPECT_EQ(v.capacity(), 1u);  // inline: nothing allocated
  EXPECT_EQ(v, (std::vector<int64_t>{7}));
  for (int64_t i = 0; i < 100; ++i) v.push_back(i);
  EXPECT_EQ(v.size(), 101u);
  EXPECT_GE(v.capacity(), 101u);
  EXPECT_EQ(v.front(), 7);
  EXPECT_EQ(v.back(), 99);
  EXPECT_EQ(v[50], 49);
  EXPECT_EQ(sizeof(Values), 16u);  // smaller than the std::vector it replaces
}

TEST(InlineVector, CopiesAreIndependentAndMovesLeaveTheSourceEmpty) {
  for (size_t n : {size_t{1}, size_t{5}}) {
    Values a(n, 3);
    Values copy = a;
    copy[0] = 4;
    EXPECT_EQ(a[0], 3);
    Values moved = std::move(a);
    EXPECT_EQ(moved.size(), n);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from vector is empty
    a.push_back(9);          // and usable
    EXPECT_EQ(a, (std::vector<int64_t>{9}));
    moved = copy;
    EXPECT_EQ(moved, copy);
    moved = std::move(copy);
    EXPECT_EQ(moved[0], 4);
    const Values& self = moved;
    moved = self;  // self-assignment keeps the values
    EXPECT_EQ(moved.size(), n);
  }
}

TEST(InlineVector, PushingAnOwnElementWhileGrowingCopiesItFirst) {
  Values v{5};
  v.push_back(v[0]);  // grows from inline storage: the argument lives there
  v.push_back(v[1]);  // grows on the heap
  EXPECT_EQ(v, (std::vector<int64_t>{5, 5, 5}));
}

TEST(InlineVector, AssignResizeClearAndComparisonsBehaveLikeVector) {
  Values v;
  v.assign(3, 2);
  EXPECT_EQ(v, (std::vector<int64_t>{2, 2, 2}));
  v.resize(5, 1);
  EXPECT_EQ(v, (std::vector<int64_t>{2, 2, 2, 1, 1}));
  v.resize(1);
  EXPECT_EQ(v, (std::vector<int64_t>{2}));
  const std::vector<int64_t> from{1, 2, 3};
  v = from;
  EXPECT_EQ(v.toVector(), from);
  EXPECT_TRUE(from == v);
  EXPECT_NE(v, (Values{1, 2}));
  EXPECT_EQ(v.at(2), 3);
  EXPECT_THROW((void)v.at(3), std::out_of_range);
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v, Values());
  InlineVector<double> d(from.begin(), from.end());
  EXPECT_EQ(d, (std::vector<double>{1.0, 2.0, 3.0}));
}

}  // namespace
}  // namespace qnnrules
