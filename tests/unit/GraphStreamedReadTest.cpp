// Node-by-node reading (engine/src/io/json/GraphStreamedRead.h) against reading the whole document:
// the same status, errors and graph for every JSON file of the tree and for the layouts the
// first pass must get right (keys in any order, brackets and quotes inside strings, escapes,
// whitespace, empty and malformed node lists, text after the root).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/json/GraphStreamedRead.h"
#include "qnnrules/io/GraphReader.h"
#include "TestUtil.h"
#include "qnnrules/io/GraphWriter.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;

// Everything a reading produces, as text: status, every error with its JSON pointer, and the
// graph written back when it was read.
std::string outcome(const GraphReadResult& r) {
  std::string s = r.status.toString() + "\n";
  for (const Diagnostic& d : r.errors) s += d.port + ": " + d.message + " / " + d.expected + " / " + d.actual + "\n";
  if (r.ok()) s += writeGraphText(r.graph);
  return s;
}

GraphReadOptions wholeDocument() {
  GraphReadOptions o;
  o.nodeByNode = false;
  return o;
}

TEST(GraphStreamedRead, EveryJsonFileOfTheTreeReadsAsTheWholeDocumentDoes) {
  size_t files = 0, graphs = 0;
  for (const char* dir : {"tests", "examples"}) {
    for (const auto& e : fs::recursive_directory_iterator(fs::path(QNNRULES_SOURCE_DIR) / dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".json") continue;
      const GraphReadResult byNode = readGraphFile(e.path());
      EXPECT_EQ(outcome(byNode), outcome(readGraphFile(e.path(), wholeDocument()))) << e.path();
      ++files;
      graphs += byNode.ok();
    }
  }
  // The tree holds over a hundred JSON files, valid graphs among them (goldens, examples).
  EXPECT_GT(files, 100u);
  EXPECT_GT(graphs, 50u) << graphs;
}

const std::string kNode =
    R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4],
        "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "scale": 0.5, "zero_point": 3}}]})";
const std::string kRelu =
    R"({"name": "r", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x"}],
        "outputs": [{"dtype": "float32", "shape": [1, 4], "qspec": {"shared_with": {"node": "x"}}}]})";

class Layouts : public ::testing::TestWithParam<std::pair<const char*, std::string>> {};

TEST_P(Layouts, ReadAsTheWholeDocumentDoes) {
  const std::string& text = GetParam().second;
  const GraphReadResult byNode = readGraphText(text, "g.json");
  EXPECT_EQ(outcome(byNode), outcome(readGraphText(text, "g.json", wholeDocument())));
}

std::string head(const std::string& rest) { return R"({"format": "qnnrules-graph", "version": 1, )" + rest; }
// A list nested `levels` deep around one number.
std::string nested(size_t levels) { return std::string(levels, '[') + "1" + std::string(levels, ']'); }
// A call reading x with one more argument `extra` (root, nodes, node and args are 4 levels).
std::string callWith(const std::string& extra) {
  return R"({"name": "c", "kind": "call", "target": "aten.add.Tensor", "args": [{"ref": "x"}, )" + extra + "]}";
}
// Module paths (interned, the same path on consecutive and on distant nodes) and shared_with
// references of every kind: to an earlier node, edges whose consumer is the node being read
// or a later node, and names that are not nodes (resolved only once every node is known).
const std::string kModulesAndShared = R"({"name": "x", "kind": "input", "module": "model.layers.0.self_attn",
    "outputs": [{"dtype": "float32", "shape": [1, 4], "qspec": {"dtype": "uint8", "scale": 0.5, "zero_point": 3}}]},
  {"name": "r", "kind": "call", "target": "aten.relu.default", "module": "model.layers.0.self_attn",
    "args": [{"ref": "x", "qspec": {"shared_with": {"edge": ["x", "s"]}}}],
    "outputs": [{"dtype": "float32", "shape": [1, 4], "qspec": {"shared_with": {"edge": ["x", "r"]}}}]},
  {"name": "s", "kind": "call", "target": "aten.sigmoid.default", "module": "model.layers.0.mlp",
    "args": [{"ref": "x", "qspec": {"shared_with": {"node": "x", "output": 0}}}],
    "outputs": [{"dtype": "float32", "shape": [1, 4], "qspec": {"shared_with": {"node": "r"}}}]},
  {"name": "t", "kind": "call", "target": "aten.relu.default", "module": "model.layers.0.self_attn",
    "args": [{"ref": "s"}], "outputs": [{"dtype": "float32", "shape": [1, 4]}]})";

INSTANTIATE_TEST_SUITE_P(
    Cases, Layouts,
    ::testing::Values(
        std::pair{"plain", head(R"("name": "g", "nodes": [)" + kNode + "," + kRelu + "]}")},
        std::pair{"nodes_first", R"({"nodes": [)" + kNode + R"(], "version": 1, "format": "qnnrules-graph"})"},
        std::pair{"empty_nodes", head(R"("nodes": []})")},
        std::pair{"whitespace", "\t\r\n" + head("\n\"nodes\"\t:\r\n[ " + kNode + " ,\n" + kRelu + "\n]\n}\n\t")},
        std::pair{"brackets_and_quotes_in_strings",
                  head(R"("name": "g]}\"[{", "meta": {"a": ["]", "}", "\\", {"b": "\"}"}]}, "nodes": [)" + kNode + "]}")},
        std::pair{"escaped_name_in_a_node",
                  head(R"("nodes": [{"name": "x\"]}", "kind": "input", "outputs": [{"dtype": "float32"}]}]})")},
        std::pair{"escaped_root_key", head(R"("n\u006fdes": [)" + kNode + "]}")},
        std::pair{"duplicate_nodes_key", head(R"("nodes": [], "nodes": [)" + kNode + "]}")},
        std::pair{"unknown_root_key", head(R"("extra": [1, {"x": null}], "nodes": [)" + kNode + "]}")},
        std::pair{"node_not_an_object", head(R"("nodes": [)" + kNode + ", 7]}")},
        std::pair{"trailing_comma", head(R"("nodes": [)" + kNode + ",]}")},
        std::pair{"missing_comma", head(R"("nodes": [)" + kNode + kRelu + "]}")},
        std::pair{"unbalanced_node", head(R"("nodes": [{"name": "x", "kind": "input"]})")},
        std::pair{"text_after_the_root", head(R"("nodes": [)" + kNode + "]} x")},
        std::pair{"second_root", head(R"("nodes": []} {})")},
        std::pair{"truncated", head(R"("nodes": [)" + kNode.substr(0, 40))},
        std::pair{"nodes_not_a_list", head(R"("nodes": {"a": 1}})")},
        std::pair{"number_beyond_double_in_a_node",
                  head(R"("nodes": [{"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1e400]}]}]})")},
        std::pair{"forward_shared_reference", head(R"("nodes": [)" + kRelu + "," + kNode + "]}")},
        std::pair{"duplicate_key_in_a_node",
                  head(R"("nodes": [{"name": "x", "name": "y", "kind": "input"}]})")},
        std::pair{"bom", "\xEF\xBB\xBF" + head(R"("nodes": []})")},
        std::pair{"invalid_utf8_in_a_node",
                  head("\"nodes\": [{\"name\": \"\xC3\x28\", \"kind\": \"input\"}]}")},
        std::pair{"scalar_root", std::string("17")},
        std::pair{"nesting_at_the_limit_in_a_node", head(R"("nodes": [)" + kNode + "," + callWith(nested(60)) + "]}")},
        std::pair{"nesting_beyond_the_limit_in_a_node",
                  head(R"("nodes": [)" + kNode + "," + callWith(nested(61)) + "]}")},
        std::pair{"nesting_beyond_the_limit_outside_the_nodes",
                  head(R"("meta": )" + nested(70) + R"(, "nodes": [)" + kNode + "]}")},
        std::pair{"modules_and_shared_references", head(R"("nodes": [)" + kModulesAndShared + "]}")},
        std::pair{"shared_edge_to_an_unknown_consumer",
                  head(R"("nodes": [)" + kNode + R"(, {"name": "r", "kind": "call", "target": "aten.relu.default",
                       "args": [{"ref": "x"}], "outputs": [{"dtype": "float32",
                       "qspec": {"shared_with": {"edge": ["x", "nowhere"]}}}]}]})")},
        std::pair{"shared_edge_with_an_empty_consumer",
                  head(R"("nodes": [)" + kNode + R"(, {"name": "r", "kind": "call", "target": "aten.relu.default",
                       "args": [{"ref": "x"}], "outputs": [{"dtype": "float32",
                       "qspec": {"shared_with": {"edge": ["x", ""]}}}]}]})")},
        std::pair{"shared_edge_that_is_not_an_edge",
                  head(R"("nodes": [)" + kNode + "," + kRelu + R"(, {"name": "s", "kind": "call", "target": "aten.relu.default",
                       "args": [{"ref": "r"}], "outputs": [{"dtype": "float32",
                       "qspec": {"shared_with": {"edge": ["x", "s"]}}}]}]})")},
        std::pair{"output_of_a_node_without_outputs",
                  head(R"("nodes": [{"name": "x", "kind": "input"}, {"name": "r", "kind": "call", "target": "aten.relu.default",
                       "args": [{"ref": "x", "output": 2}]}]})")},
        std::pair{"escaped_backslash_before_a_quote",
                  head(R"("nodes": [{"name": "x\\", "kind": "input", "module": "a\\]", "outputs": [{"dtype": "float32"}]}]})")},
        std::pair{"brackets_in_strings_across_16_byte_blocks",
                  head(R"("nodes": [{"name": "x]]]]]]]]]]]]]]]]]]]]}}}}}}}}}}}}}}}}}}}}[[[[[[[[[[{{{{{{{{\"]", "kind": "input",
                       "module": "\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\", "outputs": [{"dtype": "float32"}]}]})")}),
    [](const auto& param) { return std::string(param.param.first); });

// The scan reads 64 bytes at a time inside a node while they hold no backslash: strings full
// of brackets, opening and closing at every offset of such a block, and a node ending at every
// offset, read as the whole document does, with every node.
TEST(GraphStreamedRead, BracketsInStringsAtEveryOffsetOfA64ByteBlock) {
  std::string nodes;
  size_t count = 0;
  for (size_t pad = 0; pad < 130; ++pad, ++count) {
    const std::string name = "n" + std::to_string(pad) + std::string(pad, '_');
    nodes += (count ? ", " : "") + std::string(R"({"name": ")") + name + R"(", "kind": "input", "module": ")" +
             std::string(pad % 70, '}') + "][{" + std::string(pad % 3, ']') + R"(", "outputs": [{"dtype": "float32", "shape": [)" +
             std::to_string(pad) + "]}]}";
  }
  const std::string text = head(R"("nodes": [)" + nodes + "]}");
  // Read node by node, not through the fallback to the whole document (which a wrong scan
  // would take, with the same outcome).
  std::string padded = text + std::string(256, ' ');
  GraphReadResult streamed;
  ASSERT_TRUE(readGraphStreamed(padded.data(), text.size(), 64, "g.json", streamed)) << outcome(streamed);
  const GraphReadResult byNode = readGraphText(text, "g.json");
  ASSERT_TRUE(byNode.ok()) << outcome(byNode);
  EXPECT_EQ(outcome(streamed), outcome(byNode));
  EXPECT_EQ(byNode.graph.nodes().size(), count);
  EXPECT_EQ(byNode.graph.modulePath(byNode.graph.node(69)), std::string(69, '}') + "][{");
  EXPECT_EQ(outcome(byNode), outcome(readGraphText(text, "g.json", wholeDocument())));
  // One bracket too many in the last node's shape: the scan must not end a node early.
  const std::string bad = text.substr(0, text.size() - 4) + "]]}]}";
  EXPECT_EQ(outcome(readGraphText(bad, "g.json")), outcome(readGraphText(bad, "g.json", wholeDocument())));
}

// Brackets found 64 bytes at a time, '[' and '{' (and ']' and '}') by one comparison: lists
// nested at every depth up to the limit, holding runs of references long enough to fill
// blocks, ending at every offset of a block; and levels past the limit opened in blocks that
// start deep and close nothing.
TEST(GraphStreamedRead, DeepListsAcrossBlocksEndNodesWhereTheyEndAndKeepTheLimit) {
  constexpr int kLimit = 64;  // root, node list, node and args are 4 of its levels
  std::string nodes = R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32"}]})";
  size_t count = 1;
  for (size_t depth = 1; depth + 5 <= kLimit; depth += 3)  // + 1 for the references
    for (size_t refs = 0; refs < 12; refs += 5)
      for (size_t pad = 0; pad < 64; pad += 9, ++count) {
        std::string body;
        for (size_t r = 0; r < refs; ++r) body += R"({"ref": "x"}, )";
        body += std::string(pad, ' ') + "1";
        nodes += R"(, {"name": "c)" + std::to_string(count) + R"(", "kind": "call", "target": "aten.cat.default", "args": [)" +
                 std::string(depth, '[') + body + std::string(depth, ']') + R"(], "outputs": [{"dtype": "float32"}]})";
      }
  const std::string text = head(R"("nodes": [)" + nodes + "]}");
  std::string padded = text + std::string(256, ' ');
  GraphReadResult streamed;
  ASSERT_TRUE(readGraphStreamed(padded.data(), text.size(), kLimit, "g.json", streamed)) << outcome(streamed);
  EXPECT_EQ(streamed.graph.nodes().size(), count);
  EXPECT_EQ(outcome(streamed), outcome(readGraphText(text, "g.json", wholeDocument())));

  // 40 levels opened over blocks of references, then 21 more at once, closed a block later:
  // the blocks holding them start 44 deep or more and close nothing, yet take the node past the
  // limit.
  std::string deep = R"({"name": "d", "kind": "call", "target": "aten.cat.default", "args": [)";
  for (int level = 0; level < 40; ++level) deep += R"([{"ref": "x"}, {"ref": "x"}, )";
  deep += std::string(21, '[') + std::string(64, ' ') + "1" + std::string(61, ']') + R"(], "outputs": [{"dtype": "float32"}]})";
  const std::string tooDeep = head(R"("nodes": [{"name": "x", "kind": "input", "outputs": [{"dtype": "float32"}]}, )" + deep + "]}");
  std::string paddedDeep = tooDeep + std::string(256, ' ');
  GraphReadResult refused;
  EXPECT_FALSE(readGraphStreamed(paddedDeep.data(), tooDeep.size(), kLimit, "g.json", refused));
  EXPECT_NE(outcome(readGraphText(tooDeep, "g.json")).find("nested deeper than 64 levels"), std::string::npos);
}

// The references node-by-node reading resolves as it reads (PendingShared) point where the
// whole document's do, and the module paths are interned once each.
TEST(GraphStreamedRead, ResolvesSharedReferencesAndInternsModulesAsItReads) {
  const GraphReadResult r = readGraphText(head(R"("nodes": [)" + kModulesAndShared + "]}"), "g.json");
  ASSERT_TRUE(r.ok()) << r.status.message();
  const Graph& g = r.graph;
  EXPECT_EQ(g.modules(), (std::vector<std::string>{"model.layers.0.self_attn", "model.layers.0.mlp"}));
  EXPECT_EQ(g.modulePath(g.node(3)), "model.layers.0.self_attn");
  const SharedRef& edgeToLater = *g.node(1).args[0].qspec->sharedWith;  // ["x", "s"]
  EXPECT_EQ(edgeToLater.kind, SharedRef::Kind::kEdge);
  EXPECT_EQ(edgeToLater.node, 0u);
  EXPECT_EQ(edgeToLater.consumer, 2u);
  EXPECT_EQ(edgeToLater.arg, 0u);
  const SharedRef& edgeToSelf = *g.node(1).outputs[0].qspec->sharedWith;  // ["x", "r"]
  EXPECT_EQ(edgeToSelf.kind, SharedRef::Kind::kEdge);
  EXPECT_EQ(edgeToSelf.consumer, 1u);
  const SharedRef& output = *g.node(2).args[0].qspec->sharedWith;  // {"node": "x", "output": 0}
  EXPECT_EQ(output.kind, SharedRef::Kind::kNodeOutput);
  EXPECT_EQ(output.node, 0u);
  EXPECT_EQ(g.node(2).outputs[0].qspec->sharedWith->node, 1u);  // {"node": "r"}
}

// A long list of references keeps its order, and its errors name the element they are in,
// node by node and whole. The graph has 2^17 more nodes than the list, the size from which the
// reader looks producers up ahead (kLargeGraph in GraphSchemaArgs.h).
std::string longCat(const std::vector<std::pair<size_t, std::string>>& replaced) {
  constexpr size_t kInputs = 200, kOthers = size_t{1} << 17;
  std::string nodes, refs;
  nodes.reserve(kOthers * 80);
  for (size_t i = 0; i < kOthers; ++i)
    nodes += R"({"name": "o)" + std::to_string(i) + R"(", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1]}]}, )";
  for (size_t i = 0; i < kInputs; ++i) {
    nodes += R"({"name": "x)" + std::to_string(i) + R"(", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4]}]}, )";
    std::string ref = R"({"ref": "x)" + std::to_string(i) + R"("})";
    for (const auto& [at, text] : replaced)
      if (at == i) ref = text;
    refs += (i ? ", " : "") + ref;
  }
  return head(R"("nodes": [)" + nodes + R"({"name": "cat", "kind": "call", "target": "aten.cat.default", "args": [[)" +
              refs + R"(], 0], "outputs": [{"dtype": "float32", "shape": [200, 4]}]}, {"name": "out", "kind": "output", "args": [[{"ref": "cat"}]]}]})");
}

TEST(GraphStreamedRead, LongListsOfReferencesKeepTheirOrderAndNameTheirErrors) {
  const GraphReadResult ok = readGraphText(longCat({{7, "3"}, {120, R"([{"ref": "x1"}, null])"}}), "g.json");
  ASSERT_TRUE(ok.ok()) << ok.status.message();
  EXPECT_EQ(outcome(ok), outcome(readGraphText(longCat({{7, "3"}, {120, R"([{"ref": "x1"}, null])"}}), "g.json",
                                               wholeDocument())));
  const auto first = static_cast<uint32_t>(ok.graph.nodes().size() - 202);  // x0
  const std::vector<Argument>& list = ok.graph.node(first + 200).args[0].list;
  ASSERT_EQ(list.size(), 200u);
  for (size_t i = 0; i < list.size(); ++i) {
    SCOPED_TRACE(i);
    if (i == 7) {
      EXPECT_EQ(list[i].kind, Argument::Kind::kInt);
    } else if (i == 120) {
      ASSERT_EQ(list[i].kind, Argument::Kind::kList);
      EXPECT_EQ(list[i].list[0].tensor.node, first + 1);
    } else {
      ASSERT_EQ(list[i].kind, Argument::Kind::kTensor);
      EXPECT_EQ(list[i].tensor.node, first + i);
    }
  }
  const std::string bad = longCat({{70, R"({"ref": "nope"})"}, {150, R"({"ref": "out"})"}, {199, R"({"ref": "x0", "output": 2})"}});
  const GraphReadResult r = readGraphText(bad, "g.json");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 3u) << outcome(r);
  const std::string cat = "/nodes/" + std::to_string((size_t{1} << 17) + 200);
  EXPECT_EQ(r.errors[0].port, cat + "/args/0/70/ref");
  EXPECT_NE(r.errors[0].message.find("unknown node 'nope'"), std::string::npos);
  EXPECT_EQ(r.errors[1].port, cat + "/args/0/150/ref");
  EXPECT_NE(r.errors[1].message.find("comes after it"), std::string::npos);
  EXPECT_EQ(r.errors[2].port, cat + "/args/0/199/output");
  EXPECT_EQ(outcome(r), outcome(readGraphText(bad, "g.json", wholeDocument())));
}

// A graph file of more than 16 MB: node-by-node reading gives back the text it has read, and
// when an error turns up after that, reads the file again for the whole-document reading.
std::string largeGraph(const std::string& lastNode) {
  std::string text = head(R"("nodes": [)" + kNode);
  for (int i = 0; text.size() < (size_t{17} << 20); ++i)
    text += R"(, {"name": "r)" + std::to_string(i) + R"(", "kind": "call", "target": "aten.relu.default", "args": [{"ref": ")" +
            (i == 0 ? std::string("x") : "r" + std::to_string(i - 1)) +
            R"(", "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "scale": 0.5, "zero_point": 3}}],
            "outputs": [{"dtype": "float32", "shape": [1, 4], "qspec": {"shared_with": {"node": "x"}}}]})";
  return text + lastNode + "]}";
}

class LargeFiles : public ::testing::TestWithParam<std::pair<const char*, std::string>> {};

TEST_P(LargeFiles, ReadAsTheWholeDocumentDoesAfterTheTextWasGivenBack) {
  testing::TempDir dir;
  const fs::path file = dir.write("large.json", largeGraph(GetParam().second));
  const GraphReadResult byNode = readGraphFile(file);
  EXPECT_EQ(outcome(byNode), outcome(readGraphFile(file, wholeDocument())));
  EXPECT_EQ(byNode.ok(), std::string(GetParam().first) == "valid") << byNode.status.toString();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LargeFiles,
    ::testing::Values(std::pair{"valid", std::string()},
                      std::pair{"unknown_reference_at_the_end",
                                std::string(R"(, {"name": "z", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "nowhere"}]})")},
                      std::pair{"malformed_at_the_end", std::string(R"(, {"name": "z", "kind": })")}),
    [](const auto& param) { return std::string(param.param.first); });

}  // namespace
}  // namespace qnnrules
