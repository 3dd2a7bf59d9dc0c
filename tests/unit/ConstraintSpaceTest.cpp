// Issue 32's mechanisms, each on the model of the suite whose oracle run showed it
// (tests/conformance/models/verdicts.json) and on the rule and lowering keys that state it:
// rank limits (rule, variant, manifest), ORT's rank-6 Reshape/Transpose fusion, the uint16 weight
// conversion ORT does for 2-D convolutions only, Expand lowered to a multiplication, and the
// dynamic-shape refusal of a lowering path; and on the graph patterns that isolate them
// (tests/conformance/patterns/): rank-6 chains whose end breaks the fusion, nodes of quantized
// constants ORT does not fold, and tensors computed with a non-finite scale.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "qnnrules/Engine.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/report/Verdict.h"

namespace qnnrules {
namespace {

const std::string kModels = std::string(QNNRULES_SOURCE_DIR) + "/tests/conformance/models/onnx/";
const std::string kPatterns = std::string(QNNRULES_SOURCE_DIR) + "/tests/conformance/patterns/onnx/";

// The checkout's rules (no environment), on `soc`.
EngineOptions sourceRules(const std::string& soc) {
  EngineOptions o;
  o.soc = soc;
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  return o;
}

RunReport runFile(const std::string& path, const std::string& soc) {
  Engine e(sourceRules(soc));
  EXPECT_TRUE(e.ok()) << e.status().message();
  RunOptions ro;
  ro.graphPath = path;
  return e.run(ro);
}

RunReport runModel(const std::string& file, const std::string& soc) { return runFile(kModels + file, soc); }

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
  Engine e(sourceRules("SM8650"));
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
  const Variant* a16 = cumsum->findVariant("a16");  // explore cumsum.r5/16a/<SoC>: refused
  ASSERT_TRUE(a16);
  EXPECT_EQ(cumsum->maxRankOf(*a16), 4);
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
TEST(DynamicShapes, OrtsPathRefusesMobileVitsUnfoldingWithoutFailingTheSession) {
  RunReport r = runModel("mobilevit.8a8w.onnx", "SM8650");
  ASSERT_TRUE(r.ok());
  const auto dyn = withCode(r, DiagCode::kDynamicShape);
  ASSERT_TRUE(hasNode(dyn, "/m/encoder/layer.2/Reshape"));
  for (const Diagnostic* d : dyn) {
    if (d->node != "/m/encoder/layer.2/Reshape") continue;
    EXPECT_EQ(d->message,
              "ONNX Runtime's QNN EP needs a static shape on every tensor of a node it hands to QNN; a shape known "
              "only at run time keeps the node on CPU.");
    EXPECT_EQ(d->port, "out[0]");
    EXPECT_EQ(d->actual, "shape [?, ?, ?, ?], computed at run time");
    EXPECT_NE(d->mark.toString().find("rules/lowering/ort-qnn.yaml:"), std::string::npos);
  }
  // The convolution after the unfolding is refused before QNN is asked: not laid out, no session
  // failure (mobilevit/8a8w/SM8650 falls back to CPU).
  EXPECT_FALSE(r.delegation.sessionFailure);
  bool convOnCpu = false;
  for (const Fallback& f : r.delegation.fallbacks)
    if (r.graph->node(f.node).name == "/m/encoder/layer.2/conv_projection/convolution/Conv")
      convOnCpu = f.reason == FallbackReason::kDynamicShape;
  EXPECT_TRUE(convOnCpu);
  // Shapes ORT folds (the static shape arithmetic of every other model) are not refused.
  EXPECT_TRUE(withCode(runModel("llama.8a8w.onnx", "SM8650"), DiagCode::kDynamicShape).empty());
}

// QNN has no empty tensors (tests/conformance/explore/empty.json): StridedSlice refuses an empty
// output at op validation (Phi-3's partial rotary slice q[..., rotary_dim:] with rotary_dim equal to
// the head size: phi3/8a8w/SM8650), Concat takes an empty input, and the other ops fail graph
// composition: the whole graph.
TEST(EmptyTensors, Phi3sEmptyRotarySliceIsRefused) {
  RunReport r = runModel("phi3.8a8w.onnx", "SM8650");
  ASSERT_TRUE(r.ok());
  const auto empty = withCode(r, DiagCode::kEmptyTensor);
  ASSERT_TRUE(hasNode(empty, "/m/layers.0/self_attn/Slice_4"));
  EXPECT_TRUE(hasNode(empty, "/m/layers.0/self_attn/Slice_6"));
  for (const Diagnostic* d : empty) {
    if (d->node != "/m/layers.0/self_attn/Slice_4") continue;
    EXPECT_EQ(d->message, "QNN StridedSlice refuses a tensor with a dimension of 0: the node runs on CPU.");
    EXPECT_EQ(d->actual, "shape [1, 4, 16, 0]");
    EXPECT_NE(d->mark.toString().find("rules/htp/ops/"), std::string::npos) << d->mark.toString();
  }
  EXPECT_FALSE(r.delegation.sessionFailure);  // the Concat that reads the empty slice runs
}

std::string emptyGraph(const std::string& op, const std::string& target, const std::string& args) {
  const std::string q =
      R"("qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine", "scale": 0.02, "zero_point": 128})";
  return R"({"format": "qnnrules-graph", "version": 1, "name": "empty", "nodes": [
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 16], )" + q + R"(}]},
    {"name": "e", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 0], )" + q + R"(}]},
    {"name": ")" + op + R"(", "kind": "call", "target": ")" + target + R"(", "args": )" + args +
         R"(, "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 16], )" + q + R"(}]},
    {"name": "output", "kind": "output", "args": [[{"ref": ")" + op + R"("}]]}]})";
}

RunReport runText(const std::string& text) {
  std::filesystem::path file = std::filesystem::temp_directory_path() / "qnnrules_empty_tensor_test.json";
  std::ofstream(file) << text;
  RunReport r = runFile(file.string(), "SM8650");
  std::filesystem::remove(file);
  return r;
}

TEST(EmptyTensors, AReluOfAnEmptyTensorFailsTheGraphAndAConcatTakesIt) {
  RunReport relu = runText(emptyGraph("relu", "aten.relu.default", R"([{"ref": "e"}])"));
  ASSERT_TRUE(relu.ok()) << relu.status.message();
  const auto empty = withCode(relu, DiagCode::kEmptyTensor);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0]->port, "in[0] input");
  EXPECT_EQ(empty[0]->message,
            "QNN Relu takes no tensor with a dimension of 0: graph composition fails on it, and the whole graph "
            "with it.");
  EXPECT_NE(empty[0]->mark.toString().find("rules/htp/backend.yaml:"), std::string::npos);
  ASSERT_TRUE(relu.delegation.sessionFailure);
  EXPECT_EQ(judge(relu.failed(), relu.delegation).kind, VerdictKind::kSessionFailure);

  RunReport cat = runText(emptyGraph("cat", "aten.cat.default", R"([[{"ref": "x"}, {"ref": "e"}], -1])"));
  ASSERT_TRUE(cat.ok()) << cat.status.message();
  EXPECT_TRUE(withCode(cat, DiagCode::kEmptyTensor).empty());
  EXPECT_FALSE(cat.delegation.sessionFailure);
}

TEST(LoweringKeys, NewKeysAreReadAndTyposAreErrors) {
  const std::string base =
      "version: 1\nlowering: toy\ndescription: a toy path\n"
      "dynamic_shapes: {nodes: cpu, message: static only}\n"
      "rank6_reshape_transpose: fuse\n"
      "quantized_constants: computed\n"
      "rewrites:\n"
      "  - id: e\n    rules: [htp.repeat]\n    targets: [aten.expand.default]\n"
      "    port: output\n    set: {encoding_of: input}\n    says: own\n";
  DiagnosticList errors;
  std::optional<LoweringPath> p = loadLoweringText(base, "toy.yaml", errors);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->dynamicShapesMessage, "static only");
  EXPECT_EQ(p->dynamicShapesMark.toString(), "toy.yaml:4:1");
  EXPECT_TRUE(p->fuseRank6ReshapeTranspose);
  EXPECT_TRUE(p->computesQuantizedConstants);
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


// A rank-6 chain whose last Reshape writes rank 6: the first Reshape and the Transpose pass op
// validation and fail composition (the whole session), the last is refused (pattern
// rank6_chain_out_rank6, every SoC); a chain whose first Reshape reads rank 6 is refused node by
// node, and the graph falls back (rank6_chain_in_rank6).
TEST(RankFusion, ABrokenChainFailsTheSessionOnlyFromItsLastEnd) {
  RunReport out = runFile(kPatterns + "rank6_chain_out_rank6.8a8w.onnx", "SM8650");
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out.delegation.sessionFailure);
  EXPECT_EQ(out.graph->node(out.delegation.sessionFailure->node).name, "reshape_in");
  EXPECT_NE(out.delegation.sessionFailure->message.find("graph finalize then refuses it"), std::string::npos);
  RunReport in = runFile(kPatterns + "rank6_chain_in_rank6.8a8w.onnx", "SM8650");
  ASSERT_TRUE(in.ok());
  EXPECT_FALSE(in.delegation.sessionFailure);
  std::vector<std::string> refused;
  for (const Diagnostic* d : withCode(in, DiagCode::kRank)) refused.push_back(d->node);
  EXPECT_EQ(refused, (std::vector<std::string>{"head", "reshape_in", "transpose", "reshape_out"}));
}

// ORT does not fold a node reading a quantized constant: T5's relative-position Log reaches QNN,
// and with the infinite scale calibration gave it (Log of 0) composition fails on every SoC
// (pattern static_log_zero; the manifest's non_finite_scales). A Transpose of a quantized constant
// folds (static_transpose): no node of constants is judged there.
TEST(RuntimeValues, AComputedTensorWithAnInfiniteScaleFailsTheSession) {
  for (const char* soc : {"SM8350", "SM8650", "SM8850"}) {
    SCOPED_TRACE(soc);
    RunReport r = runFile(kPatterns + "static_log_zero.8a8w.onnx", soc);
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r.delegation.sessionFailure);
    EXPECT_EQ(r.graph->node(r.delegation.sessionFailure->node).name, "log");
    EXPECT_NE(r.delegation.sessionFailure->mark.toString().find("rules/htp/backend.yaml:"), std::string::npos);
  }
  RunReport finite = runFile(kPatterns + "static_log.8a8w.onnx", "SM8650");
  ASSERT_TRUE(finite.ok());
  EXPECT_FALSE(finite.delegation.sessionFailure);
  const std::optional<uint32_t> log = finite.graph->findNode("log");
  ASSERT_TRUE(log);
  EXPECT_TRUE(finite.graph->node(*log).outputs[0].runtimeValue);
  EXPECT_EQ(finite.delegation.nodes[*log].placement, Placement::kDelegated);
}

}  // namespace
}  // namespace qnnrules
