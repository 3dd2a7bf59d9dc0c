// Recipe overrides: by target, node-name regex and module regex; priorities and reported
// ties; unmatched patterns in warn and strict mode; discarded nodes and ops; per-node blocks.
#include <gtest/gtest.h>

#include "AnnotationTestUtil.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/annotate/Recipe.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

Recipe recipe(const std::string& yaml, DiagnosticList* errorsOut = nullptr) {
  Recipe r;
  DiagnosticList errors;
  loadRecipeText(yaml, "recipe.yaml", quantConfigs(), r, errors);
  if (errorsOut) *errorsOut = errors;
  else EXPECT_TRUE(errors.empty()) << dump(errors);
  return r;
}

ScalarType actDtype(const Graph& g, const std::string& n) { return node(g, n).outputs[0].qspec->dtype; }

TEST(Recipe, ByTargetNodeNameAndModule) {
  Recipe r = recipe(R"(version: 1
overrides:
  - {target: aten.relu.default, config: 16a8w}
  - {name: "^(sig|th)$", config: 16a4w}
  - {module: "^classifier\\.", config: "16a16w:per_channel"}
)");
  Graph g = readGraph(annotateData("mixed.json"));
  AnnotateResult a = annotate(g, "8a8w", &r);
  ASSERT_TRUE(a.ok()) << dump(a.diagnostics);
  EXPECT_EQ(actDtype(g, "relu1"), ScalarType::kInt32);
  EXPECT_EQ(actDtype(g, "sig"), ScalarType::kInt32);
  EXPECT_EQ(actDtype(g, "add1"), ScalarType::kUInt8);  // module "gate" but name does not match
  EXPECT_EQ(node(g, "fc").args[1].qspec->dtype, ScalarType::kInt16);
  EXPECT_EQ(node(g, "fc").args[1].qspec->qscheme, QScheme::kPerChannelSymmetric);
  EXPECT_EQ(node(g, "ln").args[2].qspec->dtype, ScalarType::kInt16);  // classifier.norm
  EXPECT_EQ(actDtype(g, "conv1"), ScalarType::kUInt8);
}

TEST(Recipe, HigherPriorityWinsAndEqualPriorityTiesAreReported) {
  Recipe r = recipe(R"(version: 1
overrides:
  - {module: "^features", config: 16a8w, priority: 5}
  - {target: aten.conv2d.default, config: 16a4w, priority: 1}
  - {name: "^relu", config: 16a16w, priority: 5}
)");
  Graph g = readGraph(annotateData("mixed.json"));
  AnnotateResult a = annotate(g, "8a8w", &r);
  ASSERT_TRUE(a.ok());
  // conv1: module (5) beats target (1) -> 16a8w weights are int8 -127..127.
  EXPECT_EQ(*node(g, "conv1").args[1].qspec->quantMin, -127);
  // relu1: module (5) and name (5) tie; the later one (name, 16a16w) wins and is reported.
  EXPECT_EQ(actDtype(g, "relu1"), ScalarType::kInt32);
  size_t ties = 0;
  for (const Diagnostic& d : a.diagnostics)
    if (d.code == DiagCode::kOverrideTie) {
      ++ties;
      EXPECT_EQ(d.node, "relu1");
      EXPECT_NE(d.expected.find("node-name regex '^relu'"), std::string::npos) << formatText(d);
      EXPECT_EQ(d.mark.line, 5u);
    }
  EXPECT_EQ(ties, 1u) << dump(a.diagnostics);
  AnnotateOptions opt;
  opt.explainNode = "relu1";
  Graph g2 = readGraph(annotateData("mixed.json"));
  AnnotateResult b = annotate(g2, "8a8w", &r, opt);
  ASSERT_TRUE(b.explanation);
  EXPECT_NE(b.explanation->decidedBy.find("node-name regex '^relu'"), std::string::npos);
  EXPECT_EQ(b.explanation->config, "16a16w:per_tensor");
}

TEST(Recipe, UnmatchedPatternWarnsOrFailsInStrictMode) {
  Recipe r = recipe(R"(version: 1
overrides:
  - {module: "^decoder\\.", config: 16a8w}
discard_nodes: [no_such_node]
)");
  Graph g = readGraph(annotateData("mixed.json"));
  AnnotateResult warn = annotate(g, "8a8w", &r);
  EXPECT_TRUE(warn.ok());
  EXPECT_EQ(countSeverity(warn.diagnostics, Severity::kWarning), 2u) << dump(warn.diagnostics);
  EXPECT_EQ(warn.diagnostics[0].code, DiagCode::kOverrideUnmatched);
  EXPECT_EQ(warn.diagnostics[0].mark.toString(), "recipe.yaml:3:5");
  Graph g2 = readGraph(annotateData("mixed.json"));
  AnnotateOptions strict;
  strict.strict = true;
  AnnotateResult s = annotate(g2, "8a8w", &r, strict);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(countSeverity(s.diagnostics, Severity::kError), 2u);
}

TEST(Recipe, DiscardedNodesAndOpsStayUnannotated) {
  Recipe r = recipe(R"(version: 1
overrides:
  - {name: "^mm$", discard: true}
discard_nodes: [sig]
discard_ops: [aten.embedding.default]
)");
  Graph g = readGraph(annotateData("mixed.json"));
  AnnotateResult a = annotate(g, "8a8w", &r);
  ASSERT_TRUE(a.ok()) << dump(a.diagnostics);
  EXPECT_EQ(a.nodesDiscarded, 3u);
  for (const char* n : {"mm", "sig", "emb"}) {
    EXPECT_FALSE(node(g, n).outputs[0].qspec) << n;
    EXPECT_FALSE(node(g, n).args[0].qspec) << n;
  }
  EXPECT_TRUE(node(g, "th").outputs[0].qspec);
  EXPECT_EQ(countSeverity(a.diagnostics, Severity::kNote), 3u);
}

TEST(Recipe, PerNodeBlockSizeAndRecipeDefault) {
  Recipe r = recipe(R"(version: 1
default: 16a4w_block
overrides:
  - {name: "^fc$", config: 16a4w_block, block_size: [1, 64]}
)");
  Graph g = readGraph(annotateData("mixed.json"));
  AnnotateResult a = annotate(g, "8a8w", &r);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.config, "16a4w_block:per_block");
  EXPECT_EQ(node(g, "fc").args[1].qspec->blockSize, (std::vector<int64_t>{1, 64}));
  EXPECT_EQ(node(g, "conv1").args[1].qspec->blockSize, (std::vector<int64_t>{1, 32, 1, 1}));
}

TEST(Recipe, ApiOverridesAreCompiledOnce) {
  Recipe r;
  Override o;
  o.by = Override::By::kNodeName;
  o.pattern = "conv[";
  o.selection = select("16a8w");
  EXPECT_FALSE(compileOverride(o).isOk());  // bad regex
  o.pattern = "^conv";
  ASSERT_TRUE(compileOverride(o).isOk());
  r.overrides.push_back(o);
  Graph g = readGraph(annotateData("mixed.json"));
  ASSERT_TRUE(annotate(g, "8a8w", &r).ok());
  EXPECT_EQ(actDtype(g, "conv1"), ScalarType::kInt32);
  Override uncompiled;
  uncompiled.by = Override::By::kModule;
  uncompiled.pattern = "x";
  uncompiled.selection = select("16a8w");
  Recipe bad;
  bad.overrides.push_back(uncompiled);
  Graph g2 = readGraph(annotateData("mixed.json"));
  EXPECT_FALSE(annotate(g2, "8a8w", &bad).status.isOk());
}

TEST(Recipe, LoaderErrorsCarryFileLineColumn) {
  DiagnosticList errors;
  recipe(R"(version: 1
overrides:
  - {module: "(", config: 16a8w}
  - {target: aten.relu.default, name: x, config: 16a8w}
  - {target: aten.relu.default, config: 9a9w}
  - {target: aten.relu.default, config: 16a8w, prority: 2}
  - {target: aten.relu.default, config: 16a8w, block_size: [1, 32]}
)", &errors);
  std::vector<std::string> at;
  for (const Diagnostic& d : errors) at.push_back(std::string(diagCodeName(d.code)) + "@" + d.mark.toString());
  EXPECT_EQ(at, (std::vector<std::string>{"invalid-value@recipe.yaml:3:14", "invalid-value@recipe.yaml:4:5",
                                          "unknown-enum-value@recipe.yaml:5:41",
                                          "unknown-key@recipe.yaml:6:48", "invalid-value@recipe.yaml:7:14"}))
      << dump(errors);
}

}  // namespace
}  // namespace qnnrules
