// Regression tests for the graphs issue 14 found crashing, hanging or writing what the tool
// cannot read back: annotation and encodings over producers without outputs, a conv bias
// sharing its input edge, block statistics that do not match, a long shared chain, Q/DQ
// folding that would refer to itself or write axis 99, and parameter checks with their own
// codes. The inputs are the hostile-input table's (tests/hostile/inputs/).
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "AnnotationTestUtil.h"
#include "BuiltinEngine.h"
#include "qnnrules/annotate/Encodings.h"
#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/passes/NumericChecks.h"
#include "qnnrules/passes/QdqFold.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

Graph hostile(const std::string& name) {
  GraphReadResult r = readGraphFile(std::string(QNNRULES_SOURCE_DIR) + "/tests/hostile/inputs/" + name);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status.message();
  return std::move(r.graph);
}

bool mentions(const DiagnosticList& ds, const std::string& fragment) {
  for (const Diagnostic& d : ds)
    if (formatText(d).find(fragment) != std::string::npos) return true;
  return false;
}

std::string codes(const DiagnosticList& ds) {
  std::string s;
  for (const Diagnostic& d : ds) s += std::string(diagCodeName(d.code)) + " ";
  return s;
}

void readsBack(const Graph& g) {
  GraphReadResult back = readGraphText(writeGraphText(g), "written.json");
  EXPECT_TRUE(back.ok()) << back.status.message() << (back.errors.empty() ? "" : formatText(back.errors[0]));
}

TEST(HostileGraph, GetItemOfAProducerWithoutOutputsIsAnnotatedAsAnActivation) {
  Graph g = hostile("getitem_no_outputs.json");
  Engine e = builtinEngine("htp", "SM8650");
  AnnotateOptions o;
  AnnotateResult r = e.annotate(g, o);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const Node& part = g.node(*g.findNode("part"));
  ASSERT_TRUE(part.outputs[0].qspec.has_value());
  EXPECT_FALSE(part.outputs[0].qspec->sharedWith) << "no producer output to share";
  readsBack(g);
}

TEST(HostileGraph, EncodingsOfAnEdgeFromAProducerWithoutOutputs) {
  Graph g = hostile("getitem_no_outputs_stats.json");
  EncodingsResult r = computeEncodings(g, builtinEngine("htp", "SM8650").rules());
  // The edge into `part` reads output 0 of `split`, which declares none: no statistics there.
  EXPECT_TRUE(mentions(r.diagnostics, "no min/max statistics")) << codes(r.diagnostics);
}

TEST(HostileGraph, ConvBiasSharingItsInputEdgeIsNotDerivedFromItself) {
  Graph g = hostile("conv_bias_shares_input_edge.json");
  EncodingsResult r = computeEncodings(g, builtinEngine("htp", "SM8650").rules());
  EXPECT_TRUE(mentions(r.diagnostics, "shares the encoding of its own input or weight")) << codes(r.diagnostics);
}

TEST(HostileGraph, BlockStatisticsNotMatchingTheBlockCountAreReported) {
  Graph g = hostile("block_stats_mismatch.json");
  EncodingsResult r = computeEncodings(g, annotateRules());
  EXPECT_TRUE(mentions(r.diagnostics, "3 min/max values, not a whole number of channels of 2 blocks"))
      << codes(r.diagnostics);
  for (const TensorEncoding& t : r.tensors) EXPECT_NE(t.tensor, "w") << "no encoding with empty scales";
}

TEST(HostileGraph, LongSharedChainResolvesToOneGroup) {
  // 20k relus each sharing the previous output: one group, one observed encoding for all.
  std::string nodes = R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4],
    "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255}, "stats": {"min": -1.0, "max": 1.0}}]})";
  constexpr int kChain = 20000;
  for (int i = 0; i < kChain; ++i) {
    const std::string prev = i ? "r" + std::to_string(i - 1) : "x";
    nodes += R"(, {"name": "r)" + std::to_string(i) + R"(", "kind": "call", "target": "aten.relu.default",
      "args": [{"ref": ")" + prev + R"("}], "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"shared_with": {"node": ")" + prev + R"("}}}]})";
  }
  Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1, "name": "chain", "nodes": [)" + nodes + "]}");
  EncodingsResult r = computeEncodings(g, annotateRules());
  EXPECT_TRUE(r.diagnostics.empty()) << codes(r.diagnostics);
  EXPECT_EQ(r.computed, 1u);
  ASSERT_EQ(r.tensors.size(), static_cast<size_t>(kChain + 1));
  EXPECT_EQ(r.tensors.back().source, "observed, shared by " + std::to_string(kChain + 1) + " ports");
}

TEST(HostileGraph, QdqNodeWithoutInputIsRefusedInsteadOfASelfReference) {
  QdqFoldResult f = foldQdq(hostile("qdq_self_reference.json"));
  ASSERT_FALSE(f.status.isOk());
  EXPECT_NE(f.status.message().find("node 'act' reads 'dq', a Q/DQ node without an input tensor"), std::string::npos)
      << f.status.message();
}

TEST(HostileGraph, QdqAxisOutsideTheRankIsNotWritten) {
  QdqFoldResult f = foldQdq(hostile("qdq_axis_99.json"));
  ASSERT_TRUE(f.status.isOk()) << f.status.message();
  EXPECT_TRUE(mentions(f.diagnostics, "the axis 99 is outside the input's rank 2")) << codes(f.diagnostics);
  readsBack(f.graph);
}

TEST(HostileGraph, QdqLiteralsBeyondTheIntegerRangeAreRefusedBeforeCasting) {
  QdqFoldResult f = foldQdq(hostile("qdq_huge_literal.json"));
  ASSERT_TRUE(f.status.isOk()) << f.status.message();
  EXPECT_TRUE(mentions(f.diagnostics, "a zero point is not an integer between")) << codes(f.diagnostics);
  EXPECT_TRUE(mentions(f.diagnostics, "quant_min/quant_max are not integers between")) << codes(f.diagnostics);
  readsBack(f.graph);
}

// A quantize node whose scale is inf and which has no input tensor (every argument a keyword):
// the fold reports both and reads no argument it does not have (it used to read args[0] of an
// empty argument list while naming the producers of non-finite scales).
TEST(HostileGraph, NonFiniteQuantizeWithoutInputReadsNoMissingArgument) {
  Graph g;
  Node x;
  x.name = "x";
  x.kind = NodeKind::kInput;
  x.outputs.resize(1);
  ASSERT_TRUE(g.addNode(std::move(x)).isOk());
  Node q;
  q.name = "q";
  q.targetId = g.internTarget("quantized_decomposed.quantize_per_tensor.default");
  Argument inf;
  inf.kind = Argument::Kind::kFloat;
  inf.f = std::numeric_limits<double>::infinity();
  Argument dtype;
  dtype.kind = Argument::Kind::kString;
  dtype.s = "torch.uint8";
  q.kwargs = {{"scale", inf}, {"zero_point", Argument::integer(0)}, {"quant_min", Argument::integer(0)},
              {"quant_max", Argument::integer(255)}, {"dtype", dtype}};
  q.outputs.resize(1);
  ASSERT_TRUE(g.addNode(std::move(q)).isOk());
  QdqFoldResult f = foldQdq(g);
  ASSERT_TRUE(f.status.isOk()) << f.status.message();
  EXPECT_TRUE(mentions(f.diagnostics, "a scale is not a finite number")) << codes(f.diagnostics);
  EXPECT_TRUE(mentions(f.diagnostics, "the node has no input tensor")) << codes(f.diagnostics);
  EXPECT_TRUE(f.nonFiniteScaleProducers.empty());
}

// Values the checks used to accept, each with its own code (passes/NumericChecks.h).
struct NumericCase {
  const char* file;
  std::vector<std::pair<DiagCode, std::string>> expected;  // in graph order
};

TEST(HostileGraph, BadValuesGetDiagnosticsWithTheirOwnCodes) {
  const NumericCase cases[] = {
      {"channel_count_wrong.json", {{DiagCode::kChannelCount, "3 scales for 4 channels along axis 0."}}},
      {"zero_point_outside_range.json",
       {{DiagCode::kZeroPointOutOfRange, "the zero point 300 does not fit uint8."},
        {DiagCode::kZeroPointOutOfRange, "the zero point 120 is outside quant_min..quant_max."}}},
      {"block_size_not_dividing.json", {{DiagCode::kBlockSize, "block size 4 does not divide dimension 1 of size 10."}}},
  };
  for (const NumericCase& c : cases) {
    SCOPED_TRACE(c.file);
    DiagnosticList d = checkQuantParams(hostile(c.file), annotateRules());
    ASSERT_EQ(d.size(), c.expected.size()) << codes(d);
    for (size_t i = 0; i < d.size(); ++i) {
      EXPECT_EQ(d[i].code, c.expected[i].first);
      EXPECT_EQ(d[i].message, c.expected[i].second);
    }
  }
}

}  // namespace
}  // namespace qnnrules
