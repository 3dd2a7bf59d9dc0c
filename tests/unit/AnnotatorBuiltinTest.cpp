// The annotator against the real HTP table (rules/htp), not the compact test table: every
// config annotates the example graphs (annotations stripped) and the test graph so that they
// validate clean, and the 16x16 and LPBQ gates fire on exactly the nodes that carry them.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "AnnotationTestUtil.h"
#include "qnnrules/Engine.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT
using json = nlohmann::json;

const std::string kSource = QNNRULES_SOURCE_DIR;

Engine openEngine(const std::string& socName, const std::string& backend = "htp") {
  EngineOptions o;
  o.backend = backend;
  o.soc = socName;
  o.useEnvironment = false;
  o.builtinRulesDir = kSource + "/rules";
  o.mode = Mode::kWarn;
  return Engine(o);
}

void stripQspecs(json& j) {
  if (j.is_object()) {
    j.erase("qspec");
    for (auto& [k, v] : j.items()) stripQspecs(v);
  } else if (j.is_array()) {
    for (auto& v : j) stripQspecs(v);
  }
}

// A graph file with every annotation removed: what a quantizer starts from.
Graph floatGraph(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str());
  stripQspecs(j);
  return readGraphJson(j.dump());
}

std::vector<std::string> graphsToAnnotate() {
  return {kSource + "/examples/tiny_cnn_8a8w.json", kSource + "/examples/lpbq_linear.json",
          kSource + "/examples/matmul_16a16w.json", annotateData("mixed.json")};
}

// Every config the reference quantizer offers, with the granularities it is used with. 16a2w is
// absent: its 2-bit weights need V81 (SM8850), checked separately below.
const char* kConfigs[] = {"8a8w",  "8a4w",  "16a16w", "16a8w", "16a4w", "16a4w_block", "fp16a8w", "8a8w:per_channel",
                          "16a8w:per_channel", "16a4w:per_channel", "16a16w:per_channel", "8a8w:sym", "8a8w:qat"};

ValidationResult annotateAndValidate(const Engine& e, const std::string& path, const std::string& config) {
  Graph g = floatGraph(path);
  AnnotateOptions a;
  a.config = config;
  AnnotateResult r = e.annotate(g, a);
  EXPECT_TRUE(r.ok()) << r.status.message() << dump(r.diagnostics);
  return e.validate(g);
}

TEST(AnnotatorBuiltin, EveryConfigValidatesCleanOnSM8650) {
  Engine e = openEngine("SM8650");
  ASSERT_TRUE(e.ok()) << e.status().message();
  for (const std::string& path : graphsToAnnotate())
    for (const char* c : kConfigs) {
      SCOPED_TRACE(path + " with " + c);
      ValidationResult v = annotateAndValidate(e, path, c);
      EXPECT_EQ(v.errorCount() + v.warningCount(), 0u) << dump(v.diagnostics);
    }
}

// 2-bit weights were gated on V81 (PR #19632); the real HTP backend accepts them from V68
// (conformance cases conv2d/16a2w_pc/<SoC>, linear/16a2w_pc/<SoC>), so no arch gate applies:
// the graph that was gated on SM8650 is clean there now.
TEST(AnnotatorBuiltin, TwoBitWeightsValidateOnSM8850AndSM8650) {
  for (const char* socName : {"SM8850", "SM8650"}) {
    SCOPED_TRACE(socName);
    Engine e = openEngine(socName);
    ValidationResult v = annotateAndValidate(e, annotateData("mixed.json"), "16a2w");
    EXPECT_EQ(v.errorCount() + v.warningCount(), 0u) << dump(v.diagnostics);
  }
}

std::set<std::string> gatedNodes(const std::string& config, const std::string& socName) {
  Engine e = openEngine(socName);
  ValidationResult v = annotateAndValidate(e, annotateData("mixed.json"), config);
  std::set<std::string> nodes;
  for (const Diagnostic& d : v.diagnostics) {
    EXPECT_EQ(d.code, DiagCode::kArchGate) << formatText(d);
    EXPECT_NE(d.ruleId.find("htp."), std::string::npos) << formatText(d);
    nodes.insert(d.node);
  }
  return nodes;
}

TEST(AnnotatorBuiltin, SixteenBitWeightsGateExactlyConvLinearMatmulLayerNormOnSM8450) {
  EXPECT_EQ(gatedNodes("16a16w", "SM8450"), (std::set<std::string>{"conv1", "fc", "mm", "ln"}));
  EXPECT_TRUE(gatedNodes("16a8w", "SM8450").empty());
  EXPECT_TRUE(gatedNodes("16a16w", "SM8550").empty());
}

TEST(AnnotatorBuiltin, BlockWiseWeightsGateConvAndLinearBelowV69) {
  EXPECT_EQ(gatedNodes("16a4w_block", "SM8350"), (std::set<std::string>{"conv1", "fc"}));
  EXPECT_TRUE(gatedNodes("16a4w_block", "SM8450").empty());
}

// LPAI's symmetric integer kernels: symmetric configs annotate clean, and a per-channel config
// keeps the embedding table per tensor because LPAI's Gather takes no per-channel table.
TEST(AnnotatorBuiltin, SymmetricConfigsValidateCleanOnLpai) {
  Engine e = openEngine("SM8850", "lpai");
  ASSERT_TRUE(e.ok()) << e.status().message();
  for (const char* c : {"8a8w:sym", "16a8w:sym", "16a16w:sym", "8a8w:per_channel,sym", "16a8w:per_channel,sym"}) {
    SCOPED_TRACE(c);
    ValidationResult v = annotateAndValidate(e, annotateData("mixed.json"), c);
    EXPECT_TRUE(v.diagnostics.empty()) << dump(v.diagnostics);
  }
}

// LPAI is not backend-wide symmetric: ExecuTorch's LPAI op tests quantize with make_quantizer's
// default 8a8w (asymmetric uint8 activations) and pass on LPAI V6 (rules/lpai/backend.yaml).
// Weights stay symmetric through the inherited HTP weight ports.
TEST(AnnotatorBuiltin, AsymmetricEightBitActivationsValidateCleanOnLpai) {
  Engine e = openEngine("SM8850", "lpai");
  ASSERT_TRUE(e.ok()) << e.status().message();
  for (const char* c : {"8a8w", "8a8w:per_channel"}) {
    SCOPED_TRACE(c);
    ValidationResult v = annotateAndValidate(e, annotateData("mixed.json"), c);
    EXPECT_TRUE(v.diagnostics.empty()) << dump(v.diagnostics);
  }
}

// Ops the reference rewrites before annotation: attention (query, key, value) and addmm
// (bias, input, transposed weight) get second-operand specs where MatMul wants them.
constexpr const char* kAttention = R"({"format": "qnnrules-graph", "version": 1, "nodes": [
  {"name": "q", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 8]}]},
  {"name": "k", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 8]}]},
  {"name": "v", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 8]}]},
  {"name": "attn", "kind": "call", "target": "aten.scaled_dot_product_attention.default",
   "args": [{"ref": "q"}, {"ref": "k"}, {"ref": "v"}], "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 8]}]},
  {"name": "flat", "kind": "call", "target": "aten.view.default", "args": [{"ref": "attn"}, [16, 32]],
   "outputs": [{"dtype": "float32", "shape": [16, 32]}]},
  {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [10, 32]}]},
  {"name": "b", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [10]}]},
  {"name": "wt", "kind": "call", "target": "aten.t.default", "args": [{"ref": "w"}],
   "outputs": [{"dtype": "float32", "shape": [32, 10]}]},
  {"name": "fc", "kind": "call", "target": "aten.addmm.default", "args": [{"ref": "b"}, {"ref": "flat"}, {"ref": "wt"}],
   "outputs": [{"dtype": "float32", "shape": [16, 10]}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "fc"}]]}]})";

std::vector<Diagnostic> annotateAttention(const std::string& socName, const std::string& config) {
  Engine e = openEngine(socName);
  Graph g = readGraphJson(kAttention);
  AnnotateOptions a;
  a.config = config;
  AnnotateResult r = e.annotate(g, a);
  EXPECT_TRUE(r.ok()) << r.status.message() << dump(r.diagnostics);
  return e.validate(g).diagnostics;
}

TEST(AnnotatorBuiltin, AttentionAndAddmmGetSecondOperandSpecs) {
  for (const char* c : {"8a8w", "16a8w", "16a16w", "16a4w"}) {
    SCOPED_TRACE(c);
    std::vector<Diagnostic> ds = annotateAttention("SM8650", c);
    EXPECT_TRUE(ds.empty()) << dump(ds);
  }
  std::set<std::string> gated;
  for (const Diagnostic& d : annotateAttention("SM8450", "16a16w")) {
    EXPECT_EQ(d.code, DiagCode::kArchGate) << formatText(d);
    gated.insert(d.node + " " + d.ruleId);
  }
  // addmm is decomposed before annotation (annotate/Decompose.h): its mm is what the gate stops.
  EXPECT_EQ(gated, (std::set<std::string>{"attn htp.scaled_dot_product_attention", "fc_mm htp.matmul"}));
}

}  // namespace
}  // namespace qnnrules
