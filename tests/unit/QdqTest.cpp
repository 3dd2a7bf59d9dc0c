// QDQ graphs: encodings come from the quantize/dequantize nodes around each compute node and
// are validated with the same rules; real scales make fixed-qparam checks exact.
#include <gtest/gtest.h>

#include "AnnotationTestUtil.h"
#include "TestUtil.h"
#include "qnnrules/Engine.h"
#include "qnnrules/passes/QdqFold.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

// x -> Q -> DQ -> sigmoid -> Q(out scale) -> DQ -> output; weights as int8 parameters with a
// per-channel DQ feeding a conv.
std::string qdqGraph(const std::string& sigmoidScale) {
  return R"({"format": "qnnrules-graph", "version": 1, "name": "qdq", "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4, 2, 2]}]},
  {"name": "q0", "kind": "call", "target": "quantized_decomposed.quantize_per_tensor.default",
   "args": [{"ref": "x"}, 0.02, 128, 0, 255, "torch.uint8"], "outputs": [{"dtype": "uint8", "shape": [1, 4, 2, 2]}]},
  {"name": "dq0", "kind": "call", "target": "quantized_decomposed.dequantize_per_tensor.default",
   "args": [{"ref": "q0"}, 0.02, 128, 0, 255, "torch.uint8"], "outputs": [{"dtype": "float32", "shape": [1, 4, 2, 2]}]},
  {"name": "w", "kind": "parameter", "outputs": [{"dtype": "int8", "shape": [4, 4, 1, 1]}]},
  {"name": "dqw", "kind": "call", "target": "quantized_decomposed.dequantize_per_channel.default",
   "args": [{"ref": "w"}, [0.1, 0.2, 0.1, 0.3], [0, 0, 0, 0], 0, -127, 127, "torch.int8"],
   "outputs": [{"dtype": "float32", "shape": [4, 4, 1, 1]}]},
  {"name": "conv", "kind": "call", "target": "aten.conv2d.default", "args": [{"ref": "dq0"}, {"ref": "dqw"}],
   "outputs": [{"dtype": "float32", "shape": [1, 4, 2, 2]}]},
  {"name": "q1", "kind": "call", "target": "quantized_decomposed.quantize_per_tensor.default",
   "args": [{"ref": "conv"}, 0.05, 0, 0, 255, "torch.uint8"], "outputs": [{"dtype": "uint8", "shape": [1, 4, 2, 2]}]},
  {"name": "dq1", "kind": "call", "target": "quantized_decomposed.dequantize_per_tensor.default",
   "args": [{"ref": "q1"}, 0.05, 0, 0, 255, "torch.uint8"], "outputs": [{"dtype": "float32", "shape": [1, 4, 2, 2]}]},
  {"name": "sig", "kind": "call", "target": "aten.sigmoid.default", "args": [{"ref": "dq1"}],
   "outputs": [{"dtype": "float32", "shape": [1, 4, 2, 2]}]},
  {"name": "q2", "kind": "call", "target": "quantized_decomposed.quantize_per_tensor.default",
   "args": [{"ref": "sig"}, )" + sigmoidScale + R"(, 0, 0, 255, "torch.uint8"], "outputs": [{"dtype": "uint8", "shape": [1, 4, 2, 2]}]},
  {"name": "dq2", "kind": "call", "target": "quantized_decomposed.dequantize_per_tensor.default",
   "args": [{"ref": "q2"}, )" + sigmoidScale + R"(, 0, 0, 255, "torch.uint8"], "outputs": [{"dtype": "float32", "shape": [1, 4, 2, 2]}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "dq2"}]]}]})";
}

TEST(Qdq, FoldsQuantizeAndDequantizeIntoPortEncodings) {
  Graph in = readGraphJson(qdqGraph("0.00390625"));
  ASSERT_TRUE(isQdqGraph(in));
  QdqFoldResult f = foldQdq(in);
  ASSERT_TRUE(f.status.isOk());
  EXPECT_TRUE(f.diagnostics.empty()) << dump(f.diagnostics);
  EXPECT_EQ(f.quantizeNodes, 3u);
  EXPECT_EQ(f.dequantizeNodes, 4u);
  EXPECT_FALSE(isQdqGraph(f.graph));
  const Node& conv = node(f.graph, "conv");
  EXPECT_EQ(f.graph.node(conv.args[0].tensor.node).name, "x");
  EXPECT_EQ(conv.args[0].qspec->scales, (std::vector<double>{0.02}));
  EXPECT_EQ(conv.args[0].qspec->zeroPoints, (std::vector<int64_t>{128}));
  const QuantSpec& w = *conv.args[1].qspec;
  EXPECT_EQ(f.graph.node(conv.args[1].tensor.node).name, "w");
  EXPECT_EQ(w.qscheme, QScheme::kPerChannelSymmetric);
  EXPECT_EQ(w.scales.size(), 4u);
  EXPECT_EQ(conv.outputs[0].qspec->scales, (std::vector<double>{0.05}));
  EXPECT_EQ(node(f.graph, "sig").outputs[0].qspec->scales, (std::vector<double>{0.00390625}));
  EXPECT_EQ(f.graph.node(node(f.graph, "output").args[0].list[0].tensor.node).name, "sig");
}

// The folded graph is a new Graph: its nodes' module paths are interned there again (a Q/DQ
// node's path before them must not shift the ids).
TEST(Qdq, FoldedNodesKeepTheirModulePaths) {
  std::string text = qdqGraph("0.00390625");
  auto withModule = [&](const std::string& node, const std::string& module) {
    const std::string at = "{\"name\": \"" + node + "\", ";
    const size_t pos = text.find(at);
    ASSERT_NE(pos, std::string::npos) << node;
    text.insert(pos + at.size(), "\"module\": \"" + module + "\", ");
  };
  withModule("q0", "quant");
  withModule("conv", "features.0");
  withModule("sig", "head");
  QdqFoldResult f = foldQdq(readGraphJson(text));
  ASSERT_TRUE(f.status.isOk());
  EXPECT_EQ(f.graph.modulePath(node(f.graph, "conv")), "features.0");
  EXPECT_EQ(f.graph.modulePath(node(f.graph, "sig")), "head");
  EXPECT_EQ(f.graph.modulePath(node(f.graph, "x")), "");
  EXPECT_EQ(f.graph.modules(), (std::vector<std::string>{"features.0", "head"}));
  EXPECT_TRUE(f.graph.verify().isOk());
}

TEST(Qdq, SigmoidOutputScaleIsCheckedExactly) {
  QdqFoldResult bad = foldQdq(readGraphJson(qdqGraph("0.00392156862745098")));  // 1/255
  ValidationResult v = validateGraph(bad.graph, annotateRules(), soc("SM8650"));
  ASSERT_EQ(v.errorCount(), 1u) << dump(v.diagnostics);
  EXPECT_EQ(v.diagnostics[0].code, DiagCode::kFixedScale);
  EXPECT_EQ(v.diagnostics[0].ruleId, "t.sigmoid");
  EXPECT_EQ(v.diagnostics[0].node, "sig");
  QdqFoldResult good = foldQdq(readGraphJson(qdqGraph("0.00390625")));  // 1/256
  ValidationResult ok = validateGraph(good.graph, annotateRules(), soc("SM8650"));
  EXPECT_EQ(ok.errorCount(), 0u) << dump(ok.diagnostics);
  EXPECT_EQ(ok.warningCount(), 0u) << dump(ok.diagnostics);
}

TEST(Qdq, CliFoldsAndReportsTheRuleId) {
  TempDir dir;
  auto bad = dir.write("bad.json", qdqGraph("0.00392156862745098"));
  // The compact test table replaces the built-in rules (as an overlay its targets would clash).
  CommandResult r = run("env QNNRULES_PATH= QNNRULES_BUILTIN_RULES=" + shellQuote(annotateData("rules")) + " " +
                        std::string(QNNRULES_VALIDATE_EXE) + " " + shellQuote(bad.string()) + " --soc SM8650");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("error[fixed-scale]: node 'sig'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rule t.sigmoid"), std::string::npos) << r.output;
}

// Embedders get what the CLI reports: Engine::validate and analyze fold a QDQ graph first,
// against the real HTP table, so the sigmoid's 1/255 is a fixed-scale warning naming htp.sigmoid
// (the 8-bit scale is recommended, not required: oracle sigmoid/8a_fixed_wrong/<SoC>).
TEST(Qdq, EngineFoldsLikeTheCli) {
  EngineOptions o;
  o.soc = "SM8650";
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  Engine e(o);
  ASSERT_TRUE(e.ok()) << e.status().message();
  ValidationResult bad = e.validate(readGraphJson(qdqGraph("0.00392156862745098")));
  ASSERT_EQ(bad.errorCount(), 0u) << dump(bad.diagnostics);
  ASSERT_EQ(bad.warningCount(), 1u) << dump(bad.diagnostics);
  EXPECT_EQ(bad.diagnostics[0].code, DiagCode::kFixedScale);
  EXPECT_EQ(bad.diagnostics[0].ruleId, "htp.sigmoid");
  GraphAnalysis good = e.analyze(readGraphJson(qdqGraph("0.00390625")));
  EXPECT_TRUE(good.validation.diagnostics.empty()) << dump(good.validation.diagnostics);
  EXPECT_EQ(good.delegation.partitions.size(), 1u);
}

// The delegation report names the compute node in terms of the graph the engine analysed
// (folded), not the quantize node at the same index of the caller's QDQ graph.
TEST(Qdq, AnalysisReportsTheFoldedGraphsNodes) {
  EngineOptions o;
  o.soc = "SM8650";
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  Engine e(o);
  ASSERT_TRUE(e.ok()) << e.status().message();
  // 1/255: a recommended scale missed, a warning naming the folded node; sig stays delegated.
  const Graph input = readGraphJson(qdqGraph("0.00392156862745098"));
  GraphAnalysis a = e.analyze(input);
  EXPECT_EQ(a.qdqNodesFolded, 7u);
  ASSERT_EQ(a.validation.diagnostics.size(), 1u);
  EXPECT_EQ(a.validation.diagnostics[0].node, "sig");
  EXPECT_TRUE(a.delegation.fallbacks.empty());
  const std::string text = a.delegationText();
  EXPECT_EQ(text.find("q0"), std::string::npos) << text;
  // Partitions name folded nodes, nothing of the Q/DQ chain.
  ASSERT_EQ(a.delegation.partitions.size(), 1u);
  std::vector<std::string> part;
  for (uint32_t n : a.delegation.partitions[0].nodes) part.push_back(a.graph->node(n).name);
  EXPECT_EQ(part, (std::vector<std::string>{"w", "conv", "sig"}));
}

TEST(Qdq, BadArgumentsAreReportedNotCrashed) {
  Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1, "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [2]}]},
  {"name": "q", "kind": "call", "target": "quantized_decomposed.quantize_per_tensor.default",
   "args": [{"ref": "x"}, 0.1, 0], "outputs": [{"dtype": "uint8", "shape": [2]}]}]})");
  QdqFoldResult f = foldQdq(g);
  ASSERT_EQ(f.diagnostics.size(), 1u);
  EXPECT_EQ(f.diagnostics[0].code, DiagCode::kQdqMismatch);
  EXPECT_EQ(f.diagnostics[0].node, "q");
}

}  // namespace
}  // namespace qnnrules
