// Encodings from min/max statistics, against values computed by hand with the observers'
// arithmetic: per-tensor affine and symmetric, per-channel, block-wise (LPBQ), fixed qparams,
// a concat group that takes the union range once, and a derived conv bias.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "AnnotationTestUtil.h"
#include "qnnrules/annotate/Encodings.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

const TensorEncoding& find(const EncodingsResult& r, const std::string& name) {
  for (const TensorEncoding& e : r.tensors)
    if (e.tensor == name) return e;
  static const TensorEncoding none;
  ADD_FAILURE() << "no encoding for " << name;
  return none;
}

std::string graph(const std::string& nodes) {
  return R"({"format": "qnnrules-graph", "version": 1, "name": "enc", "nodes": [)" + nodes + "]}";
}

TEST(Encodings, PerTensorAffineUint8) {
  // min -1, max 3: scale 4/255; zero point 0 - round(-1 / (4/255)) = round(63.75) = 64.
  Graph g = readGraphJson(graph(R"(
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255}, "stats": {"min": -1.0, "max": 3.0}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  ASSERT_TRUE(r.diagnostics.empty()) << dump(r.diagnostics);
  const TensorEncoding& e = find(r, "x");
  EXPECT_EQ(e.datatype, QnnDatatype::kUFixed8);
  EXPECT_EQ(e.encoding, Encoding::kScaleOffset);
  ASSERT_EQ(e.scales.size(), 1u);
  EXPECT_DOUBLE_EQ(e.scales[0], 4.0 / 255);
  EXPECT_EQ(e.offsets, (std::vector<int64_t>{-64}));
  EXPECT_EQ(e.source, "observed");
}

TEST(Encodings, PerTensorSymmetricInt8AndTheRangeAlwaysHoldsZero) {
  // Symmetric: the larger magnitude (2) over half the levels (254 / 2): scale 2/127, offset 0.
  // An all-positive range (0.5..1) still starts at 0 for the affine case: scale 1/255, offset 0.
  Graph g = readGraphJson(graph(R"(
    {"name": "s", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_tensor_symmetric"},
      "stats": {"min": -2.0, "max": 1.5}}]},
    {"name": "p", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "uint8"}, "stats": {"min": 0.5, "max": 1.0}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  EXPECT_DOUBLE_EQ(find(r, "s").scales.at(0), 2.0 / 127);
  EXPECT_EQ(find(r, "s").offsets, (std::vector<int64_t>{0}));
  EXPECT_EQ(find(r, "s").datatype, QnnDatatype::kSFixed8);
  EXPECT_DOUBLE_EQ(find(r, "p").scales.at(0), 1.0 / 255);
  EXPECT_EQ(find(r, "p").offsets, (std::vector<int64_t>{0}));
}

TEST(Encodings, ScaleIsFlooredAtEpsilon) {
  Graph g = readGraphJson(graph(R"(
    {"name": "z", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "uint8"}, "stats": {"min": 0.0, "max": 0.0}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  EXPECT_DOUBLE_EQ(find(r, "z").scales.at(0), 0.0001 / 255);
}

TEST(Encodings, PerChannelSymmetricWeight) {
  // Channel 0: max |x| 1 -> 1/127; channel 1: max |x| 2 -> 2/127; offsets 0, axis 0.
  Graph g = readGraphJson(graph(R"(
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [2, 3],
      "qspec": {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_channel_symmetric", "ch_axis": 0},
      "stats": {"min": [-1.0, -0.5], "max": [0.5, 2.0], "axis": 0}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  const TensorEncoding& e = find(r, "w");
  EXPECT_EQ(e.encoding, Encoding::kAxisScaleOffset);
  EXPECT_EQ(e.axis, 0);
  ASSERT_EQ(e.scales.size(), 2u);
  EXPECT_DOUBLE_EQ(e.scales[0], 1.0 / 127);
  EXPECT_DOUBLE_EQ(e.scales[1], 2.0 / 127);
  EXPECT_EQ(e.offsets, (std::vector<int64_t>{0, 0}));
}

TEST(Encodings, PerChannelSpecWithPerTensorStatisticsIsReportedNotGuessed) {
  Graph g = readGraphJson(graph(R"(
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [2, 3],
      "qspec": {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_channel_symmetric", "ch_axis": 0},
      "stats": {"min": -1.0, "max": 1.0}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  EXPECT_TRUE(r.tensors.empty());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, DiagCode::kNoStatistics);
  EXPECT_NE(r.diagnostics[0].message.find("per-channel statistics along axis 0"), std::string::npos);
}

TEST(Encodings, BlockWiseLpbqScales) {
  // One channel, two blocks, int4 symmetric (-7..7, 7 levels each side):
  // block 0 max |x| 0.7 -> 0.1; block 1 max |x| 0.35 -> 0.05. Channel scale = 0.1 / 16 =
  // 0.00625; integer block scales 0.1 / 0.00625 = 16 and 0.05 / 0.00625 = 8.
  Graph g = readGraphJson(graph(R"(
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [1, 128],
      "qspec": {"dtype": "int8", "quant_min": -7, "quant_max": 7, "qscheme": "per_channel_symmetric",
                "ch_axis": 0, "block_size": [1, 64]},
      "stats": {"min": [-0.7, -0.35], "max": [0.7, 0.2], "axis": 0, "blocks": 2}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  ASSERT_TRUE(r.diagnostics.empty()) << dump(r.diagnostics);
  const TensorEncoding& e = find(r, "w");
  EXPECT_EQ(e.encoding, Encoding::kBlockwiseExpansion);
  ASSERT_EQ(e.scales.size(), 1u);
  EXPECT_NEAR(e.scales[0], 0.00625, 1e-12);
  EXPECT_EQ(e.blockScales, (std::vector<std::vector<uint8_t>>{{16, 8}}));
  EXPECT_EQ(e.blockScaleBitwidth, 4);
  EXPECT_EQ(e.blockSize, (std::vector<int64_t>{1, 64}));
}

TEST(Encodings, SmallBlockScalesAreClippedToOne) {
  // Block 1 is 1/100 of block 0: 0.01 / (1 / 16) rounds to 0, clipped to 1.
  Graph g = readGraphJson(graph(R"(
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [1, 128],
      "qspec": {"dtype": "int8", "quant_min": -7, "quant_max": 7, "qscheme": "per_channel_symmetric",
                "ch_axis": 0, "block_size": [1, 64]},
      "stats": {"min": [-7.0, -0.07], "max": [7.0, 0.07], "axis": 0, "blocks": 2}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  EXPECT_EQ(find(r, "w").blockScales, (std::vector<std::vector<uint8_t>>{{16, 1}}));
}

TEST(Encodings, FixedQParamsAreKeptNotObserved) {
  // Sigmoid's 8-bit output is fixed at 1/256, zero point 0, whatever the statistics say.
  Graph g = readGraphJson(graph(R"(
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "uint8"}, "stats": {"min": -4.0, "max": 4.0}}]},
    {"name": "sig", "kind": "call", "target": "aten.sigmoid.default",
     "args": [{"ref": "x", "qspec": {"shared_with": {"node": "x"}}}],
     "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "uint8", "scale": 0.00390625, "zero_point": 0}, "stats": {"min": 0.1, "max": 0.6}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  const TensorEncoding& e = find(r, "sig");
  EXPECT_EQ(e.scales, (std::vector<double>{0.00390625}));
  EXPECT_EQ(e.offsets, (std::vector<int64_t>{0}));
  EXPECT_EQ(e.source, "fixed");
  EXPECT_DOUBLE_EQ(find(r, "x").scales.at(0), 8.0 / 255);
}

// A graph annotated without scales (a quantizer that did not know the rule) still gets the
// rule's fixed sigmoid output 1/256 written, not the observed 0.6 / 255 the rule would reject.
TEST(Encodings, ARuleFixedScaleIsWrittenNotTheObservedOne) {
  Graph g = readGraphJson(graph(R"(
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "uint8"}, "stats": {"min": -4.0, "max": 4.0}}]},
    {"name": "sig", "kind": "call", "target": "aten.sigmoid.default",
     "args": [{"ref": "x", "qspec": {"shared_with": {"node": "x"}}}],
     "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "uint8"}, "stats": {"min": 0.1, "max": 0.6}}]},
    {"name": "output", "kind": "output", "args": [[{"ref": "sig"}]]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  ASSERT_TRUE(r.diagnostics.empty()) << dump(r.diagnostics);
  const TensorEncoding& e = find(r, "sig");
  EXPECT_EQ(e.scales, (std::vector<double>{0.00390625}));
  EXPECT_EQ(e.offsets, (std::vector<int64_t>{0}));
  EXPECT_EQ(e.source, "fixed by rule t.sigmoid");
  EXPECT_DOUBLE_EQ(find(r, "x").scales.at(0), 8.0 / 255);
}

TEST(Encodings, ConcatGroupTakesTheUnionRangeOnce) {
  // a in [-1, 1], b in [0, 3]: the group range is [-1, 3] -> scale 4/255, offset -64 for a,
  // b and the concat output alike, computed once.
  Graph g = readGraphJson(graph(R"(
    {"name": "a", "kind": "input", "outputs": [{"dtype": "float32", "shape": [2], "stats": {"min": -1.0, "max": 1.0}}]},
    {"name": "b", "kind": "input", "outputs": [{"dtype": "float32", "shape": [2], "stats": {"min": 0.0, "max": 3.0}}]},
    {"name": "cat", "kind": "call", "target": "aten.cat.default",
     "args": [[{"ref": "a", "qspec": {"dtype": "uint8"}},
               {"ref": "b", "qspec": {"shared_with": {"edge": ["a", "cat"]}}}]],
     "outputs": [{"dtype": "float32", "shape": [4], "qspec": {"shared_with": {"edge": ["a", "cat"]}}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  ASSERT_TRUE(r.diagnostics.empty()) << dump(r.diagnostics);
  EXPECT_EQ(r.computed, 1u);
  for (const char* t : {"a", "b", "cat"}) {
    SCOPED_TRACE(t);
    EXPECT_DOUBLE_EQ(find(r, t).scales.at(0), 4.0 / 255);
    EXPECT_EQ(find(r, t).offsets, (std::vector<int64_t>{-64}));
  }
  EXPECT_EQ(find(r, "cat").source, "observed, shared by 3 ports");
}

TEST(Encodings, ConvBiasIsDerivedFromInputAndWeightScales) {
  // Input scale 4/255 (range -1..3), weight per channel 1/127 and 2/127: bias scales are the
  // products, offset 0, int32 per channel.
  Graph g = readGraphJson(graph(R"(
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 3, 4, 4],
      "qspec": {"dtype": "uint8"}, "stats": {"min": -1.0, "max": 3.0}}]},
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [2, 3, 1, 1],
      "qspec": {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_channel_symmetric", "ch_axis": 0},
      "stats": {"min": [-1.0, -2.0], "max": [1.0, 2.0], "axis": 0}}]},
    {"name": "b", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [2]}]},
    {"name": "conv", "kind": "call", "target": "aten.conv2d.default",
     "args": [{"ref": "x", "qspec": {"shared_with": {"node": "x"}}}, {"ref": "w", "qspec": {"shared_with": {"node": "w"}}},
              {"ref": "b", "qspec": {"dtype": "int32", "qscheme": "per_channel_symmetric", "ch_axis": 0}}],
     "outputs": [{"dtype": "float32", "shape": [1, 2, 4, 4]}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  ASSERT_TRUE(r.diagnostics.empty()) << dump(r.diagnostics);
  const TensorEncoding& bias = find(r, "b");
  ASSERT_EQ(bias.scales.size(), 2u);
  EXPECT_DOUBLE_EQ(bias.scales[0], (4.0 / 255) * (1.0 / 127));
  EXPECT_DOUBLE_EQ(bias.scales[1], (4.0 / 255) * (2.0 / 127));
  EXPECT_EQ(bias.offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(bias.datatype, QnnDatatype::kSFixed32);
  EXPECT_EQ(bias.source, "derived bias: input scale x weight scale");
}

TEST(Encodings, MissingStatisticsAreAWarningPerTensor) {
  Graph g = readGraphJson(graph(R"(
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4], "qspec": {"dtype": "uint8"}}]})"));
  EncodingsResult r = computeEncodings(g, annotateRules());
  EXPECT_TRUE(r.tensors.empty());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Severity::kWarning);
  EXPECT_EQ(r.diagnostics[0].code, DiagCode::kNoStatistics);
  EXPECT_EQ(r.diagnostics[0].node, "x");
}

TEST(Encodings, JsonUsesQnnOffsetsAndBlockInformation) {
  Graph g = readGraphJson(graph(R"(
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4],
      "qspec": {"dtype": "uint8"}, "stats": {"min": -1.0, "max": 3.0}}]},
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [1, 128],
      "qspec": {"dtype": "int8", "quant_min": -7, "quant_max": 7, "qscheme": "per_channel_symmetric",
                "ch_axis": 0, "block_size": [1, 64]},
      "stats": {"min": [-0.7, -0.35], "max": [0.7, 0.2], "axis": 0, "blocks": 2}}]})"));
  nlohmann::json j = nlohmann::json::parse(encodingsToJson(computeEncodings(g, annotateRules()), "enc", "16a4w_block"));
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["config"], "16a4w_block");
  EXPECT_EQ(j["tensors"]["x"]["offset"], nlohmann::json::array({-64}));
  EXPECT_EQ(j["tensors"]["x"]["dtype"], "UFIXED_POINT_8");
  EXPECT_EQ(j["tensors"]["w"]["encoding"], "BLOCKWISE_EXPANSION");
  EXPECT_EQ(j["tensors"]["w"]["block"]["block_scales"], nlohmann::json::parse("[[16, 8]]"));
}

}  // namespace
}  // namespace qnnrules
