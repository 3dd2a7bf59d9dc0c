// The graph's name index: names are found by content, duplicates map to the first index, and
// growing the table (it rehashes from stored hashes only) loses no entry.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/graph/NameIndex.h"

namespace qnnrules {
namespace {

TEST(NameIndex, FindsEveryNameAfterGrowingAndKeepsTheFirstOfDuplicates) {
  std::vector<std::string> names;
  NameIndex index;
  auto nameOf = [&](uint32_t i) { return std::string_view(names[i]); };
  for (uint32_t i = 0; i < 5000; ++i) {
    names.push_back("node_" + std::to_string(i));
    EXPECT_EQ(index.insert(names.back(), i, nameOf), i);
  }
  EXPECT_EQ(index.size(), 5000u);
  for (uint32_t i = 0; i < 5000; ++i) EXPECT_EQ(index.find("node_" + std::to_string(i), nameOf), i);
  EXPECT_FALSE(index.find("node_5000", nameOf));
  EXPECT_FALSE(index.find("", nameOf));
  EXPECT_EQ(index.insert("node_17", 9999, nameOf), 17u);  // already there: the first index
  EXPECT_EQ(index.size(), 5000u);
}

TEST(NameIndex, EmptyIndexFindsNothing) {
  NameIndex index;
  EXPECT_FALSE(index.find("x", [](uint32_t) { return std::string_view(); }));
}

TEST(NameIndex, GraphRejectsADuplicateNodeNameAndInternsTargetsOnce) {
  Graph g;
  Node a;
  a.name = "a";
  a.kind = NodeKind::kInput;
  ASSERT_TRUE(g.addNode(a).isOk());
  Node dup = a;
  EXPECT_FALSE(g.addNode(dup).isOk());
  EXPECT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.findNode("a"), 0u);
  EXPECT_FALSE(g.findNode("b"));
  const uint32_t conv = g.internTarget("aten.conv2d.default");
  EXPECT_EQ(g.internTarget("aten.relu.default"), conv + 1);
  EXPECT_EQ(g.internTarget("aten.conv2d.default"), conv);
  EXPECT_EQ(g.targets().size(), 2u);
}

}  // namespace
}  // namespace qnnrules
