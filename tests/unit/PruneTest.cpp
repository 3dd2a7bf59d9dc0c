// Dead and constant nodes (passes/Prune.h) on real-shaped graphs through the embedding API:
// the empty.memory_format nodes make_fx leaves after batch-norm decomposition were counted as
// partitions (LPAI full delegation failed with 0 errors), and a causal-mask subgraph built from
// arange was validated as device work.
#include <gtest/gtest.h>

#include "AnnotationTestUtil.h"
#include "BuiltinEngine.h"
#include "qnnrules/Engine.h"
#include "qnnrules/graph/UserIndex.h"
#include "qnnrules/passes/Prune.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

Engine openEngine(const std::string& backend, const std::string& socName) { return builtinEngine(backend, socName); }

std::vector<std::string> names(const Graph& g, const std::vector<uint32_t>& nodes) {
  std::vector<std::string> out;
  for (uint32_t n : nodes) out.push_back(g.node(n).name);
  return out;
}

// conv -> batch_norm (decomposed by make_fx: two uint8 `empty` reserves nobody reads) -> relu.
constexpr const char* kConvBnRelu = R"({"format": "qnnrules-graph", "version": 1, "name": "conv_bn", "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 16, 8, 8]}]},
  {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [16, 16, 3, 3]}]},
  {"name": "b", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [16]}]},
  {"name": "conv", "kind": "call", "target": "aten.conv2d.default", "module": "layer1.0.conv1",
   "args": [{"ref": "x"}, {"ref": "w"}, {"ref": "b"}, [1, 1], [1, 1]],
   "outputs": [{"dtype": "float32", "shape": [1, 16, 8, 8]}]},
  {"name": "empty", "kind": "call", "target": "aten.empty.memory_format", "args": [[0]],
   "kwargs": {"dtype": "torch.uint8"}, "outputs": [{"dtype": "uint8", "shape": [0]}]},
  {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "conv"}],
   "outputs": [{"dtype": "float32", "shape": [1, 16, 8, 8]}]},
  {"name": "empty_1", "kind": "call", "target": "aten.empty.memory_format", "args": [[0]],
   "kwargs": {"dtype": "torch.uint8"}, "outputs": [{"dtype": "uint8", "shape": [0]}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "relu"}]]}]})";

// The analysis borrows a graph that is not QDQ, so the graph lives (at a fixed address) with it.
struct Analysed {
  std::unique_ptr<Graph> graph;
  GraphAnalysis a;
};

Analysed annotateAndAnalyze(const Engine& e, const std::string& text, const std::string& config) {
  Analysed out{std::make_unique<Graph>(readGraphJson(text)), {}};
  AnnotateOptions opts;
  opts.config = config;
  AnnotateResult r = e.annotate(*out.graph, opts);
  EXPECT_TRUE(r.status.isOk()) << r.status.message();
  out.a = e.analyze(*out.graph);
  return out;
}

TEST(Prune, DeadNodesAreNotPartitionsAndAreReported) {
  Engine e = openEngine("htp", "SM8650");
  ASSERT_TRUE(e.ok()) << e.status().message();
  Analysed run = annotateAndAnalyze(e, kConvBnRelu, "8a8w");
  const GraphAnalysis& a = run.a;
  EXPECT_TRUE(a.validation.diagnostics.empty()) << dump(a.validation.diagnostics);
  EXPECT_EQ(a.delegation.partitions.size(), 1u);
  EXPECT_EQ(a.delegation.computeNodes, 2u);  // conv, relu
  EXPECT_TRUE(a.delegation.fallbacks.empty());
  EXPECT_EQ(names(*a.graph, a.delegation.deadNodes), (std::vector<std::string>{"empty", "empty_1"}));
  EXPECT_EQ(a.validation.nodesChecked, 2u);
  EXPECT_NE(a.delegationText().find("pruned 2 dead node(s) (no graph output uses them): empty, empty_1\n"),
            std::string::npos)
      << a.delegationText();
  EXPECT_NE(a.delegationJson().find(R"("dead_nodes": [
    "empty",
    "empty_1"
  ])"),
            std::string::npos)
      << a.delegationJson();
}

TEST(Prune, LpaiFullDelegationIsNotBrokenByDeadNodes) {
  Engine e = openEngine("lpai", "SM8850");
  ASSERT_TRUE(e.ok()) << e.status().message();
  Analysed run = annotateAndAnalyze(e, kConvBnRelu, "8a8w:per_channel,sym");
  const GraphAnalysis& a = run.a;
  EXPECT_EQ(a.validation.errorCount(), 0u) << dump(a.validation.diagnostics);
  EXPECT_TRUE(a.delegation.fullDelegationRequired);
  EXPECT_TRUE(a.delegation.ok()) << a.delegationText();
  EXPECT_EQ(a.delegation.partitions.size(), 1u) << a.delegationText();
}

// Scores plus a causal mask built from arange (as HF attention does): the mask depends on no
// graph input, so export-time folding makes it a static tensor.
constexpr const char* kCausalMask = R"({"format": "qnnrules-graph", "version": 1, "name": "mask", "nodes": [
  {"name": "scores", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 16]}]},
  {"name": "pos", "kind": "call", "target": "aten.arange.start", "args": [0, 16],
   "outputs": [{"dtype": "int64", "shape": [16]}]},
  {"name": "row", "kind": "call", "target": "aten.unsqueeze.default", "args": [{"ref": "pos"}, 0],
   "outputs": [{"dtype": "int64", "shape": [1, 16]}]},
  {"name": "col", "kind": "call", "target": "aten.unsqueeze.default", "args": [{"ref": "pos"}, 1],
   "outputs": [{"dtype": "int64", "shape": [16, 1]}]},
  {"name": "future", "kind": "call", "target": "aten.gt.Tensor", "args": [{"ref": "row"}, {"ref": "col"}],
   "outputs": [{"dtype": "bool", "shape": [16, 16]}]},
  {"name": "zeros", "kind": "call", "target": "aten.zeros.default", "args": [[16, 16]],
   "outputs": [{"dtype": "float32", "shape": [16, 16]}]},
  {"name": "mask", "kind": "call", "target": "aten.masked_fill.Scalar",
   "args": [{"ref": "zeros"}, {"ref": "future"}, -10000.0], "outputs": [{"dtype": "float32", "shape": [16, 16]}]},
  {"name": "masked", "kind": "call", "target": "aten.add.Tensor", "args": [{"ref": "scores"}, {"ref": "mask"}],
   "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 16]}]},
  {"name": "probs", "kind": "call", "target": "aten.softmax.int", "args": [{"ref": "masked"}, -1],
   "outputs": [{"dtype": "float32", "shape": [1, 4, 16, 16]}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "probs"}]]}]})";

TEST(Prune, ConstantSubgraphIsFoldedNotValidated) {
  Engine e = openEngine("htp", "SM8650");
  ASSERT_TRUE(e.ok()) << e.status().message();
  Analysed run = annotateAndAnalyze(e, kCausalMask, "16a8w");
  const GraphAnalysis& a = run.a;
  EXPECT_EQ(a.validation.errorCount(), 0u) << dump(a.validation.diagnostics);
  EXPECT_EQ(a.validation.nodesChecked, 2u);  // masked, probs
  EXPECT_EQ(names(*a.graph, a.delegation.constantNodes),
            (std::vector<std::string>{"pos", "row", "col", "future", "zeros", "mask"}));
  ASSERT_EQ(a.delegation.partitions.size(), 1u) << a.delegationText();
  EXPECT_EQ(a.delegation.partitions[0].computeNodes, 2u);
  // The folded mask travels with its user as a static tensor.
  EXPECT_EQ(a.delegation.nodes[*a.graph->findNode("mask")].partition, 0);
  EXPECT_NE(a.delegationText().find("folded 6 constant node(s) (no graph input reaches them; static tensors): "
                                    "pos, row, col, future, zeros, mask\n"),
            std::string::npos)
      << a.delegationText();
}

// The shape of a statically shaped tensor is a constant (ORT's constant folding computes it, so
// the model suite's Shape nodes never reach the backend), also when the file does not record
// it but it follows from static shapes; of a tensor with an unknown dimension it is not. A Cast to the dtype its input has is removed (ORT's CastElimination); a Cast that
// changes the dtype is device work.
constexpr const char* kShapesAndCasts = R"({"format": "qnnrules-graph", "version": 1, "name": "sc", "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 8]}]},
  {"name": "y", "kind": "input", "outputs": [{"dtype": "float32", "shape": [-1, 8]}]},
  {"name": "shape_x", "kind": "call", "target": "onnx::Shape", "args": [{"ref": "x"}],
   "outputs": [{"dtype": "int64", "shape": [2]}]},
  {"name": "shape_y", "kind": "call", "target": "onnx::Shape", "args": [{"ref": "y"}],
   "outputs": [{"dtype": "int64", "shape": [2]}]},
  {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x"}],
   "outputs": [{"dtype": "float32", "shape": [-1, -1]}]},
  {"name": "shape_relu", "kind": "call", "target": "onnx::Shape", "args": [{"ref": "relu"}],
   "outputs": [{"dtype": "int64", "shape": [2]}]},
  {"name": "ry", "kind": "call", "target": "aten.reshape.default", "args": [{"ref": "x"}, {"ref": "shape_y"}],
   "outputs": [{"dtype": "float32", "shape": [-1, -1]}]},
  {"name": "shape_ry", "kind": "call", "target": "onnx::Shape", "args": [{"ref": "ry"}],
   "outputs": [{"dtype": "int64", "shape": [2]}]},
  {"name": "rx", "kind": "call", "target": "aten.reshape.default", "args": [{"ref": "y"}, {"ref": "shape_x"}],
   "outputs": [{"dtype": "float32", "shape": [1, 8]}]},
  {"name": "same", "kind": "call", "target": "aten.to.dtype", "args": [{"ref": "x"}, "torch.float32"],
   "outputs": [{"dtype": "float32", "shape": [1, 8]}]},
  {"name": "to_int", "kind": "call", "target": "aten.to.dtype", "args": [{"ref": "same"}, "torch.int32"],
   "outputs": [{"dtype": "int32", "shape": [1, 8]}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "rx"}, {"ref": "shape_relu"}, {"ref": "shape_ry"}, {"ref": "to_int"}]]}]})";

TEST(Prune, StaticShapesAreConstantsAndSameTypeCastsAreRemoved) {
  Graph g = readGraphJson(kShapesAndCasts);
  PruneResult p = pruneGraph(g, UserIndex(g));
  // relu's recorded shape is unknown but follows from x's; ry's follows from shape_y's value,
  // known only at run time.
  EXPECT_EQ(names(g, p.constant), (std::vector<std::string>{"shape_x", "shape_relu"}));
  EXPECT_EQ(p.of(*g.findNode("shape_ry")), PruneKind::kKept);
  EXPECT_EQ(names(g, p.noOp), (std::vector<std::string>{"same"}));
  EXPECT_EQ(p.of(*g.findNode("shape_y")), PruneKind::kKept);
  EXPECT_EQ(p.of(*g.findNode("to_int")), PruneKind::kKept);
  EXPECT_EQ(p.of(*g.findNode("rx")), PruneKind::kKept);

  Engine e = openEngine("htp", "SM8650");
  ASSERT_TRUE(e.ok()) << e.status().message();
  Graph copy = readGraphJson(kShapesAndCasts);
  GraphAnalysis a = e.analyze(copy);
  const std::string text = a.delegationText();
  EXPECT_NE(text.find("  folded 2 constant node(s) (no graph input reaches them; static tensors): shape_x, shape_relu\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("  removed 1 no-op conversion(s) (to the dtype the input has): same\n"), std::string::npos)
      << text;
  EXPECT_NE(a.delegationJson().find(R"("noop_nodes": [
    "same"
  ])"), std::string::npos) << a.delegationJson();
  for (const Fallback& f : a.delegation.fallbacks) EXPECT_NE(a.graph->node(f.node).name, "same");
}

TEST(Prune, FragmentsWithoutInputsOrOutputsAreCheckedWhole) {
  // No output node: nothing can be called dead. No input node: nothing can be called constant.
  Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1, "nodes": [
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [4]}]},
    {"name": "r", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "w"}],
     "outputs": [{"dtype": "float32", "shape": [4]}]}]})");
  PruneResult p = pruneGraph(g, UserIndex(g));
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(p.of(1), PruneKind::kKept);
}

TEST(Prune, RandomFactoriesAreNotConstant) {
  Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1, "nodes": [
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4]}]},
    {"name": "noise", "kind": "call", "target": "aten.randn.default", "args": [[4]],
     "outputs": [{"dtype": "float32", "shape": [4]}]},
    {"name": "sum", "kind": "call", "target": "aten.add.Tensor", "args": [{"ref": "x"}, {"ref": "noise"}],
     "outputs": [{"dtype": "float32", "shape": [4]}]},
    {"name": "output", "kind": "output", "args": [[{"ref": "sum"}]]}]})");
  PruneResult p = pruneGraph(g, UserIndex(g));
  EXPECT_TRUE(p.empty()) << p.constant.size();
}

}  // namespace
}  // namespace qnnrules
