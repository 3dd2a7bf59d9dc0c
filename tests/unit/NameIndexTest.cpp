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

// Module paths are interned like targets; the last path is answered without the index, which
// must not change which id a path gets.
TEST(NameIndex, GraphInternsModulePathsOnceAndVerifiesTheirIds) {
  Graph g;
  EXPECT_EQ(g.internModule(""), Node::kNoModule);
  const uint32_t attn = g.internModule("model.layers.0.self_attn");
  EXPECT_EQ(g.internModule("model.layers.0.self_attn"), attn);  // the last one
  const uint32_t mlp = g.internModule("model.layers.0.mlp");
  EXPECT_NE(mlp, attn);
  EXPECT_EQ(g.internModule("model.layers.0.self_attn"), attn);  // through the index
  EXPECT_EQ(g.internModule("model.layers.0.mlp"), mlp);
  EXPECT_EQ(g.modules().size(), 2u);

  Node x;
  x.name = "x";
  x.kind = NodeKind::kInput;
  x.moduleId = mlp;
  ASSERT_TRUE(g.addNode(x).isOk());
  EXPECT_EQ(g.modulePath(g.node(0)), "model.layers.0.mlp");
  EXPECT_TRUE(g.verify().isOk());
  Node none;
  none.name = "none";
  none.kind = NodeKind::kInput;
  ASSERT_TRUE(g.addNode(none).isOk());
  EXPECT_EQ(g.modulePath(g.node(1)), "");
  Node bad = none;
  bad.name = "bad";
  bad.moduleId = 7;
  ASSERT_TRUE(g.addNode(bad).isOk());
  const Status st = g.verify();
  EXPECT_FALSE(st.isOk());
  EXPECT_EQ(st.message(), "node 'bad' names a module path the graph does not have");
}

}  // namespace
}  // namespace qnnrules
