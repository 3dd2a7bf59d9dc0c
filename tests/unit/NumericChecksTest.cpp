// Quantization-parameter sanity (passes/NumericChecks.h) on a conv + sigmoid graph with
// calibrated scales: each broken number is one diagnostic with its own code, reported once
// per tensor, through Engine::validate as every front end runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "AnnotationTestUtil.h"
#include "BuiltinEngine.h"
#include "qnnrules/Engine.h"
#include "qnnrules/passes/NumericChecks.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

// x (uint8, 0.02 / 128) -> conv (int8 per-channel weight 0.01 / 0.02, int32 bias) -> sigmoid.
// The bias scales are exactly input x weight (0.0002, 0.0004); tests break one number each.
constexpr const char* kConv = R"({"format": "qnnrules-graph", "version": 1, "name": "conv_sig", "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 2, 4, 4],
   "qspec": {"dtype": "uint8", "scale": 0.02, "zero_point": 128}}]},
  {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [2, 2, 1, 1]}]},
  {"name": "b", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [2]}]},
  {"name": "conv", "kind": "call", "target": "aten.conv2d.default",
   "args": [{"ref": "x", "qspec": {"shared_with": {"node": "x"}}},
            {"ref": "w", "qspec": {"dtype": "int8", "quant_min": -127, "quant_max": 127,
              "qscheme": "per_channel_symmetric", "ch_axis": 0, "scale": [0.01, 0.02], "zero_point": [0, 0]}},
            {"ref": "b", "qspec": {"dtype": "int32", "qscheme": "per_channel_symmetric", "ch_axis": 0,
              "scale": [0.0002, 0.0004], "zero_point": [0, 0]}}],
   "outputs": [{"dtype": "float32", "shape": [1, 2, 4, 4],
     "qspec": {"dtype": "uint8", "scale": 0.05, "zero_point": 0}}]},
  {"name": "sig", "kind": "call", "target": "aten.sigmoid.default",
   "args": [{"ref": "conv", "qspec": {"shared_with": {"node": "conv"}}}],
   "outputs": [{"dtype": "float32", "shape": [1, 2, 4, 4],
     "qspec": {"dtype": "uint8", "scale": 0.00390625, "zero_point": 0}}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "sig"}]]}]})";

Engine openEngine() { return builtinEngine("htp", "SM8650"); }

QuantSpec& outSpec(Graph& g, const std::string& node) {
  return *g.mutableNodes()[*g.findNode(node)].outputs[0].qspec;
}
QuantSpec& argSpec(Graph& g, const std::string& node, size_t arg) {
  return *g.mutableNodes()[*g.findNode(node)].args[arg].qspec;
}

// code, node, port of every diagnostic.
std::vector<std::string> summary(const ValidationResult& v) {
  std::vector<std::string> out;
  for (const Diagnostic& d : v.diagnostics)
    out.push_back(std::string(diagCodeName(d.code)) + " " + d.node + " " + d.port);
  return out;
}

TEST(NumericChecks, TheCleanGraphHasNoDiagnostic) {
  Engine e = openEngine();
  ASSERT_TRUE(e.ok()) << e.status().message();
  Graph g = readGraphJson(kConv);
  ValidationResult v = e.validate(g);
  EXPECT_TRUE(v.diagnostics.empty()) << dump(v.diagnostics);
}

TEST(NumericChecks, NanAndInfiniteScales) {
  Engine e = openEngine();
  Graph g = readGraphJson(kConv);
  outSpec(g, "x").scales = {std::numeric_limits<double>::quiet_NaN()};
  argSpec(g, "conv", 1).scales[1] = std::numeric_limits<double>::infinity();
  ValidationResult v = e.validate(g);
  EXPECT_EQ(summary(v), (std::vector<std::string>{"scale-not-finite x out[0]", "scale-not-finite conv in[1]"}))
      << dump(v.diagnostics);
  EXPECT_EQ(v.diagnostics[1].message, "the scale of channel 1 is inf.");
}

TEST(NumericChecks, TinyAndHugeScales) {
  Engine e = openEngine();
  Graph g = readGraphJson(kConv);
  outSpec(g, "conv").scales = {1e-12};
  argSpec(g, "conv", 1).scales = {0.01, 1e39};
  ValidationResult v = e.validate(g);
  // The huge weight scale also breaks the bias product: a second, separate finding.
  EXPECT_EQ(summary(v), (std::vector<std::string>{"scale-out-of-range conv out[0]", "scale-out-of-range conv in[1]",
                                                  "bias-scale conv in[2] bias"}))
      << dump(v.diagnostics);
  EXPECT_EQ(v.diagnostics[0].expected, "1e-10 <= scale <= 3.40282e+38");
  // The tiny one is a warning (the backend takes 1e-12: numeric_ort.json act_scale/in_out@1e-12),
  // the one beyond float32 an error.
  EXPECT_EQ(v.diagnostics[0].severity, Severity::kWarning);
  EXPECT_EQ(v.diagnostics[1].severity, Severity::kError);
}

// An attention mask's encoding spans float32's lowest value: a scale near 5.2e33 (16 bits) that
// the HTP backend accepts (conformance case add/16a_mask/<SoC>), so it is in range.
TEST(NumericChecks, AttentionMaskScalesAreInRange) {
  Engine e = openEngine();
  Graph g = readGraphJson(kConv);
  outSpec(g, "conv").scales = {3.4028234e38 / 65535};
  ValidationResult v = e.validate(g);
  EXPECT_TRUE(v.diagnostics.empty()) << dump(v.diagnostics);
}

// 16-bit activations (scale 1e-5) with per-channel weights (6e-6) make int32 bias scales near
// 6e-11, as on efficientnet_b0 at 16a8w after convert_pt2e: correct, so not out of range. A
// 32-bit scale is bounded below by the product of two lower bounds.
TEST(NumericChecks, ProductScalesOfBiasesMayBeTiny) {
  Engine e = openEngine();
  Graph g = readGraphJson(kConv);
  outSpec(g, "x").scales = {1e-5};
  argSpec(g, "conv", 1).scales = {6e-6, 3.5e-6};
  argSpec(g, "conv", 2).scales = {6e-11, 3.5e-11};
  ValidationResult clean = e.validate(g);
  EXPECT_TRUE(clean.diagnostics.empty()) << dump(clean.diagnostics);
  argSpec(g, "conv", 2).scales = {6e-11, 1e-21};
  ValidationResult v = e.validate(g);
  ASSERT_EQ(summary(v).front(), "scale-out-of-range conv in[2]") << dump(v.diagnostics);
  EXPECT_EQ(v.diagnostics[0].expected, "1e-20 <= scale <= 3.40282e+38");
}

TEST(NumericChecks, ZeroPointOutsideTheDtype) {
  Engine e = openEngine();
  Graph g = readGraphJson(kConv);
  outSpec(g, "x").zeroPoints = {300};
  ValidationResult v = e.validate(g);
  EXPECT_EQ(summary(v), (std::vector<std::string>{"zero-point-out-of-range x out[0]"})) << dump(v.diagnostics);
  EXPECT_EQ(v.diagnostics[0].expected, "0..255");
  EXPECT_EQ(v.diagnostics[0].actual, "300");
}

TEST(NumericChecks, BiasScaleMustBeInputTimesWeight) {
  Engine e = openEngine();
  Graph g = readGraphJson(kConv);
  argSpec(g, "conv", 2).scales = {0.0002, 0.0005};  // channel 1 should be 0.02 x 0.02 = 0.0004
  ValidationResult v = e.validate(g);
  ASSERT_EQ(summary(v), (std::vector<std::string>{"bias-scale conv in[2] bias"})) << dump(v.diagnostics);
  EXPECT_EQ(v.diagnostics[0].message,
            "the bias scale of channel 1 is not input scale x weight scale of its channel. The backend accepts it; the "
            "convolution's result is scaled by the difference.");
  EXPECT_EQ(v.diagnostics[0].actual, "0.0005");
  // A warning: the backend accepts it on both lowering paths (numeric_ort.json bias/*, the
  // ExecuTorch lowering's conv_bias@bias=0.5 and @bias=2), so the graph stays valid.
  EXPECT_EQ(v.diagnostics[0].severity, Severity::kWarning);
  EXPECT_TRUE(v.ok());
  // Within the tolerance (float32 round trips) is fine.
  argSpec(g, "conv", 2).scales = {0.0002 * (1 + 1e-6), 0.0004};
  EXPECT_TRUE(e.validate(g).diagnostics.empty());
}

TEST(NumericChecks, OneTensorIsCheckedOnceEvenWhenItsEdgeRepeatsIt) {
  // QDQ folding writes a tensor's parameters on the producer's output and on the edge.
  Graph g = readGraphJson(kConv);
  outSpec(g, "x").zeroPoints = {-1};
  argSpec(g, "sig", 0) = outSpec(g, "conv");
  outSpec(g, "conv").zeroPoints = {-1};
  argSpec(g, "sig", 0).zeroPoints = {-1};
  DiagnosticList ds = checkQuantParams(g, openEngine().rules());
  ASSERT_EQ(ds.size(), 2u) << dump(ds);
  EXPECT_EQ(ds[0].node, "x");
  EXPECT_EQ(ds[1].node, "conv");
}

// kConv with `views` reshapes between x and the conv, each sharing its input's encoding: the
// conv's input encoding is x's, however many views stand between.
std::string convBehindViews(int views) {
  std::string nodes = R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 2, 4, 4],
   "qspec": {"dtype": "uint8", "scale": 0.02, "zero_point": 128}}]},)";
  std::string prev = "x";
  for (int i = 0; i < views; ++i) {
    const std::string name = "view" + std::to_string(i);
    nodes += R"({"name": ")" + name + R"(", "kind": "call", "target": "aten.view.default", "args": [{"ref": ")" + prev +
             R"(", "qspec": {"shared_with": {"node": ")" + prev + R"("}}}, [1, 2, 4, 4]], "outputs": [{"dtype": "float32",
             "shape": [1, 2, 4, 4], "qspec": {"shared_with": {"node": ")" + prev + R"("}}}]},)";
    prev = name;
  }
  std::string g = kConv;
  const size_t from = g.find(R"({"name": "x")"), to = g.find(R"({"name": "w")");
  g.replace(from, to - from, nodes);
  const std::string edge = R"({"ref": "x", "qspec": {"shared_with": {"node": "x"}}})";
  g.replace(g.rfind(edge), edge.size(), R"({"ref": ")" + prev + R"(", "qspec": {"shared_with": {"node": ")" + prev + R"("}}})");
  return g;
}

std::vector<std::string> codesOf(const ValidationResult& v, DiagCode code) {
  std::vector<std::string> out;
  for (const Diagnostic& d : v.diagnostics)
    if (d.code == code) out.push_back(d.node + " " + d.port + " " + d.expected);
  return out;
}

// The numeric checks resolve shared encodings with the run's one resolver (graph/SharedRoots.h),
// which has no step limit: a bias scale wrong behind 64 views used to pass (a 64-step walk of
// its own gave up), while the validator followed the chain.
TEST(NumericChecks, BiasScaleIsJudgedBehindAnyNumberOfEncodingSharingViews) {
  Engine e = openEngine();
  for (int views : {0, 63, 64, 10000}) {
    SCOPED_TRACE(views);
    Graph g = readGraphJson(convBehindViews(views));
    ValidationResult clean = e.validate(g);
    EXPECT_TRUE(codesOf(clean, DiagCode::kBiasScale).empty()) << dump(clean.diagnostics);
    argSpec(g, "conv", 2).scales = {0.0002, 0.0005};
    ValidationResult v = e.validate(g);
    EXPECT_EQ(codesOf(v, DiagCode::kBiasScale), (std::vector<std::string>{"conv in[2] bias 0.0004 (0.02 x 0.02)"}))
        << dump(v.diagnostics);
    EXPECT_TRUE(v.ok()) << "a bias-scale finding is a warning";
  }
}

}  // namespace
}  // namespace qnnrules
