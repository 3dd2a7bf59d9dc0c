// Issue 32's mechanisms, each on the model of the suite whose oracle run showed it
// (tests/conformance/models/verdicts.json) and on the rule and lowering keys that state it:
// rank limits (rule, variant, manifest), ORT's rank-6 Reshape/Transpose fusion, the uint16 weight
// conversion ORT does for 2-D convolutions only, Expand lowered to a multiplication, and the
// dynamic-shape refusal of a lowering path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "qnnrules/Engine.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/report/Verdict.h"

namespace qnnrules {
namespace {

const std::string kModels = std::string(QNNRULES_SOURCE_DIR) + "/tests/conformance/models/onnx/";

RunReport runModel(const std::string& file, const std::string& soc, const std::vector<std::filesystem::path>& overlays = {}) {
  EngineOptions o;
  o.soc = soc;
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  o.ruleDirs = overlays;
  Engine e(o);
  EXPECT_TRUE(e.ok()) << e.status().message();
  RunOptions ro;
  ro.graphPath = kModels + file;
  return e.run(ro);
}

std::vector<const Diagnostic*> withCode(const RunReport& r, DiagCode code) {
  std::vector<const Diagnostic*> out;
  for (const Diagnostic& d : r.validation.diagnostics)
    if (d.code == code) out.push_back(&d);
  return out;
}

bool hasNode(const std::vector<const Diagnostic*>& ds, const std::string& node) {
  for (const Diagnostic* d : ds)
    if (d->node == node) return true;
  return false;
}

// MaxViT's window partition of batch 1 is fused to rank 5 by ORT (its three nodes run on QNN:
// maxvit/8a8w/SM8650); the second block's grid partition has no unit dimension left in place, and
// its rank-6 Transpose is refused ("has incorrect Rank 6").
TEST(RankLimits, MaxVitsFusedWindowPartitionPassesAndItsUnfusedTransposeIsRefused) {
  RunReport r = runModel("maxvit.8a8w.onnx", "SM8650");
  ASSERT_TRUE(r.ok());
  const auto rank = withCode(r, DiagCode::kRank);
  EXPECT_FALSE(hasNode(rank, "/blocks.0/layers.0/layers/window_attention/partition_op/Reshape"));
  EXPECT_FALSE(hasNode(rank, "/blocks.0/layers.0/layers/window_attention/partition_op/Transpose"));
  ASSERT_TRUE(hasNode(rank, "/blocks.1/layers.0/layers/grid_attention/partition_op/Transpose"));
  for (const Diagnostic* d : rank) {
    if (d->node != "/blocks.1/layers.0/layers/grid_attention/partition_op/Transpose") continue;
    EXPECT_EQ(d->message, "QNN Transpose takes tensors of rank 5 or less.");
    EXPECT_EQ(d->expected, "rank 5 or less");
    EXPECT_EQ(d->actual.rfind("rank 6 [", 0), 0u) << d->actual;
    EXPECT_NE(d->mark.toString().find("rules/htp/backend.yaml:"), std::string::npos) << d->mark.toString();
  }
}

// Rank limits as data: a rule's own, a variant's own and the manifest's default, in an overlay.
TEST(RankLimits, RuleVariantAndManifestLimitsAreRead) {
  EngineOptions o;
  o.soc = "SM8650";
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  Engine e(o);
  ASSERT_TRUE(e.ok()) << e.status().message();
  const Rule* tanh = e.rules().findById("htp.tanh");
  const Rule* cumsum = e.rules().findById("htp.cumsum");
  const Rule* relu = e.rules().findById("htp.relu");
  ASSERT_TRUE(tanh && cumsum && relu);
  EXPECT_EQ(tanh->maxRank, 4);
  EXPECT_EQ(relu->maxRank, 5);  // the manifest's
  const Variant* fp16 = cumsum->findVariant("fp16");
  const Variant* a8 = cumsum->findVariant("a8");
  ASSERT_TRUE(fp16 && a8);
  EXPECT_EQ(cumsum->maxRankOf(*fp16), 4);
  EXPECT_EQ(cumsum->maxRankOf(*a8), 5);
}

// ORT converts a uint16 weight to symmetric int16 for 2-D convolutions only: wav2vec2's Conv1d
// feature extractor reaches QNN with its asymmetric uint16 weight, which QNN refuses in the NHWC
// pass, so the session fails (wav2vec2/16a16w/SM8650); the rewrite never touches a conv1d node.
TEST(OrtRewrites, Conv1dKeepsItsUint16WeightAndTheSessionFails) {
  RunReport r = runModel("wav2vec2.16a16w.onnx", "SM8650");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r.delegation.sessionFailure);
  EXPECT_EQ(r.graph->target(r.graph->node(r.delegation.sessionFailure->node)), "aten.conv1d.default");
  for (const AppliedRewrite& a : r.rewrites) EXPECT_NE(a.rewrite->id, "conv-uint16-weight-to-int16-symmetric");
}

// ORT lowers Expand to an ElementWiseMultiply by ones, whose output keeps its own encoding: phi3's
// attention-mask Expand runs on QNN (phi3/8a8w/SM8650), not a shared-encoding error.
TEST(OrtRewrites, ExpandKeepsItsOwnOutputEncoding) {
  RunReport r = runModel("phi3.8a8w.onnx", "SM8650");
  ASSERT_TRUE(r.ok());
  for (const Diagnostic* d : withCode(r, DiagCode::kShared)) EXPECT_NE(d->op, "aten.expand.default") << d->node;
  bool applied = false;
  for (const AppliedRewrite& a : r.rewrites) applied |= a.rewrite->id == "expand-multiply-own-output-encoding";
  EXPECT_TRUE(applied);
}

// A lowering path with `dynamic_shapes` refuses the nodes whose tensors have a dimension the reader
// could not infer: MobileViT's unfolding (its shape arithmetic passes through a quantized tensor).
TEST(DynamicShapes, APathThatNeedsStaticShapesRefusesMobileVitsUnfolding) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "qnnrules_dynamic_shapes_test";
  std::filesystem::create_directories(dir / "lowering");
  std::ifstream in(std::string(QNNRULES_SOURCE_DIR) + "/rules/lowering/ort-qnn.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text += "dynamic_shapes: {nodes: cpu, message: the path needs static shapes.}\n";
  std::ofstream(dir / "lowering" / "ort-qnn.yaml") << text;
  RunReport r = runModel("mobilevit.8a8w.onnx", "SM8650", {dir});
  ASSERT_TRUE(r.ok());
  const auto dyn = withCode(r, DiagCode::kDynamicShape);
  ASSERT_TRUE(hasNode(dyn, "/m/encoder/layer.2/Reshape"));
  for (const Diagnostic* d : dyn) {
    if (d->node != "/m/encoder/layer.2/Reshape") continue;
    EXPECT_EQ(d->message, "the path needs static shapes.");
    EXPECT_EQ(d->port, "out[0]");
    EXPECT_EQ(d->actual, "shape [?, ?, ?, ?]");
  }
  RunReport plain = runModel("mobilevit.8a8w.onnx", "SM8650");
  EXPECT_TRUE(withCode(plain, DiagCode::kDynamicShape).empty());
  std::filesystem::remove_all(dir);
}

TEST(LoweringKeys, NewKeysAreReadAndTyposAreErrors) {
  const std::string base =
      "version: 1\nlowering: toy\ndescription: a toy path\n"
      "dynamic_shapes: {nodes: cpu, message: static only}\n"
      "rank6_reshape_transpose: fuse\n"
      "rewrites:\n"
      "  - id: e\n    rules: [htp.repeat]\n    targets: [aten.expand.default]\n"
      "    port: output\n    set: {encoding_of: input}\n    says: own\n";
  DiagnosticList errors;
  std::optional<LoweringPath> p = loadLoweringText(base, "toy.yaml", errors);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->dynamicShapesMessage, "static only");
  EXPECT_EQ(p->dynamicShapesMark.toString(), "toy.yaml:4:1");
  EXPECT_TRUE(p->fuseRank6ReshapeTranspose);
  ASSERT_EQ(p->rewrites.size(), 1u);
  EXPECT_EQ(p->rewrites[0].targets, std::vector<std::string>{"aten.expand.default"});
  EXPECT_EQ(p->rewrites[0].setEncodingOf, "input");

  DiagnosticList bad;
  EXPECT_FALSE(loadLoweringText("version: 1\nlowering: t\ndescription: d\nrank6_reshape_transpose: fuze\n", "t.yaml", bad));
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].mark.toString(), "t.yaml:4:26");
  EXPECT_EQ(bad[0].message, "'rank6_reshape_transpose' must be fuse or as_read");
  DiagnosticList bad2;
  EXPECT_FALSE(loadLoweringText("version: 1\nlowering: t\ndescription: d\ndynamic_shapes: {nodes: npu, message: m}\n",
                                "t.yaml", bad2));
  ASSERT_EQ(bad2.size(), 1u);
  EXPECT_EQ(bad2[0].message, "'nodes' of 'dynamic_shapes' must be cpu");
}

}  // namespace
}  // namespace qnnrules
