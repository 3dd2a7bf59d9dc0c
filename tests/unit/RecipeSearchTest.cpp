// Recipes the engine writes (RecipeSearch.h, issue 26): --suggest-recipe gives each failing node
// the nearest config the SoC takes, --plan each node the most precise one; both recipes make
// the graph validate clean, and what nothing can fix is said to stay on CPU.
#include <gtest/gtest.h>

#include "AnnotationTestUtil.h"
#include "BuiltinEngine.h"
#include "TestUtil.h"
#include "qnnrules/RecipeSearch.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

const std::string kSource = QNNRULES_SOURCE_DIR;
std::string mixedGraph() { return kSource + "/tests/data/annotate/mixed.json"; }

std::vector<std::string> choices(const RecipeSearchResult& r) {
  std::vector<std::string> out;
  for (const NodeChoice& c : r.choices) out.push_back(c.node + " " + c.from + "->" + c.to);
  return out;
}

// The errors of a run annotated with `config` and the recipe written as YAML and read back.
std::vector<std::string> errorsWithRecipe(const Engine& e, const Graph& g, const std::string& config,
                                          const std::string& yaml) {
  Recipe recipe;
  DiagnosticList loadErrors;
  loadRecipeText(yaml, "suggested.yaml", *e.quantConfigs(), recipe, loadErrors);
  EXPECT_TRUE(loadErrors.empty()) << dump(loadErrors) << yaml;
  RunOptions ro;
  ro.annotate = AnnotateOptions{};
  ro.annotate->config = config;
  ro.annotate->recipe = &recipe;
  std::vector<std::string> out;
  for (const Diagnostic& d : e.run(g, ro).validation.diagnostics)
    if (d.severity == Severity::kError) out.push_back(d.node + " " + std::string(diagCodeName(d.code)));
  return out;
}

TEST(RecipeSearch, SuggestGivesEachGatedNodeTheNearestConfigAndTheRecipeValidatesClean) {
  Engine e = builtinEngine("htp", "SM8350");
  ASSERT_TRUE(e.ok()) << e.status().message();
  const Graph g = readGraph(mixedGraph());
  RecipeSearchResult r = suggestRecipe(e, g, "16a16w");
  ASSERT_TRUE(r.ok()) << r.status.message();
  // The four ops V68 gates at 16a16w, each moved to 16-bit activations with 8-bit weights (not
  // 8a8w: activations stay 16-bit); one override per failing node, none for the others.
  EXPECT_EQ(choices(r), (std::vector<std::string>{"conv1 16a16w->16a8w", "fc 16a16w->16a8w", "ln 16a16w->16a8w",
                                                  "mm 16a16w->16a8w"}));
  EXPECT_EQ(r.choices[0].why, "arch-gate: 16-bit activations with 16-bit weights need HTP V73 or newer.");
  EXPECT_TRUE(r.onCpu.empty());
  EXPECT_TRUE(r.validatesClean);
  EXPECT_EQ(errorsWithRecipe(e, g, "16a16w", r.yaml()), std::vector<std::string>{});
}

// x -> conv -> relu -> sigmoid: at 16a16w on V68 only the conv is gated.
constexpr const char* kConvRelu = R"({"format": "qnnrules-graph", "version": 1, "name": "conv_relu", "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4, 8, 8]}]},
  {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [4, 4, 3, 3]}]},
  {"name": "b", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [4]}]},
  {"name": "conv", "kind": "call", "target": "aten.conv2d.default", "args": [{"ref": "x"}, {"ref": "w"}, {"ref": "b"}],
   "outputs": [{"dtype": "float32", "shape": [1, 4, 8, 8]}]},
  {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "conv"}],
   "outputs": [{"dtype": "float32", "shape": [1, 4, 8, 8]}]},
  {"name": "sig", "kind": "call", "target": "aten.sigmoid.default", "args": [{"ref": "relu"}],
   "outputs": [{"dtype": "float32", "shape": [1, 4, 8, 8]}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "sig"}]]}]})";

TEST(RecipeSearch, OneFailingNodeGetsExactlyOneOverride) {
  Engine e = builtinEngine("htp", "SM8350");
  const Graph g = readGraphJson(kConvRelu);
  RecipeSearchResult r = suggestRecipe(e, g, "16a16w");
  ASSERT_TRUE(r.ok()) << r.status.message();
  EXPECT_EQ(choices(r), std::vector<std::string>{"conv 16a16w->16a8w"});
  EXPECT_TRUE(r.validatesClean);
  EXPECT_EQ(errorsWithRecipe(e, g, "16a16w", r.yaml()), std::vector<std::string>{});
  // Valid as asked: nothing to override.
  RecipeSearchResult clean = suggestRecipe(e, g, "16a8w");
  EXPECT_TRUE(clean.choices.empty()) << clean.text();
  EXPECT_TRUE(clean.validatesClean);
}

TEST(RecipeSearch, AnAnnotatedNodeKeepsItsAnnotationSoItStaysOnCpuWithItsReason) {
  Engine e = builtinEngine("htp", "SM8350");
  Graph g = readGraph(mixedGraph());
  const std::string yaml = "version: 1\noverrides:\n  - name: '^mm$'\n    config: 16a16w\n";
  Recipe oneGated;
  DiagnosticList errors;
  loadRecipeText(yaml, "one.yaml", *e.quantConfigs(), oneGated, errors);
  ASSERT_TRUE(errors.empty()) << dump(errors);
  AnnotateOptions ao;
  ao.config = "16a8w";
  ao.recipe = &oneGated;
  ASSERT_TRUE(e.annotate(g, ao).status.isOk());
  // The graph now carries a 16a16w matmul; annotation keeps what a graph carries, so no config
  // the search tries changes it: no override is invented, and the node stays on CPU.
  RecipeSearchResult r = suggestRecipe(e, g, "16a8w");
  ASSERT_TRUE(r.ok()) << r.status.message();
  EXPECT_TRUE(r.choices.empty()) << r.text();
  ASSERT_EQ(r.onCpu.size(), 1u) << r.text();
  EXPECT_EQ(r.onCpu[0].node, "mm");
  EXPECT_EQ(r.onCpu[0].why, "arch-gate: 16-bit activations with a 16-bit second input need HTP V73 or newer.");
  EXPECT_TRUE(r.validatesClean) << "clean apart from the node that stays on CPU";
}

TEST(RecipeSearch, PlanDiffersBySocAndBothPlansValidateClean) {
  const Graph g = readGraph(mixedGraph());
  Engine v68 = builtinEngine("htp", "SM8350");
  Engine v75 = builtinEngine("htp", "SM8650");
  RecipeSearchResult old = planPrecision(v68, g);
  RecipeSearchResult now = planPrecision(v75, g);
  ASSERT_TRUE(old.ok() && now.ok());
  EXPECT_EQ(now.base, "16a16w:per_channel");
  // SM8650 takes 16a16w everywhere; SM8350 moves the four gated ops to 16a8w.
  EXPECT_TRUE(now.choices.empty()) << now.text();
  EXPECT_EQ(now.nodesPerConfig, (std::map<std::string, size_t>{{"16a16w:per_channel", 15}}));
  EXPECT_EQ(old.nodesPerConfig, (std::map<std::string, size_t>{{"16a16w:per_channel", 11}, {"16a8w:per_channel", 4}}));
  EXPECT_TRUE(old.validatesClean && now.validatesClean);
  EXPECT_EQ(errorsWithRecipe(v68, g, "8a8w", old.yaml()), std::vector<std::string>{});
  EXPECT_EQ(errorsWithRecipe(v75, g, "8a8w", now.yaml()), std::vector<std::string>{});
}

// The model suite's Llama decoder (transformers LlamaModel, float, tests/data/matrix/): the plan
// for V75 puts 16a16w on every node that takes it, the plan for V68 moves what V68 gates, and
// both validate clean but for the nodes no config puts on HTP (the attention mask's).
TEST(RecipeSearch, PlanOnADecoderUses16a16wWhereverTheSocTakesIt) {
  const Graph g = readGraph(kSource + "/tests/data/matrix/llama.float.json");
  Engine v68 = builtinEngine("htp", "SM8350");
  Engine v75 = builtinEngine("htp", "SM8650");
  RecipeSearchResult old = planPrecision(v68, g);
  RecipeSearchResult now = planPrecision(v75, g);
  ASSERT_TRUE(old.ok() && now.ok());
  EXPECT_TRUE(old.validatesClean) << old.text();
  EXPECT_TRUE(now.validatesClean) << now.text();
  EXPECT_NE(old.yaml(), now.yaml());
  // Every node the V75 plan moves off 16a16w says why 16a16w failed there; V68 moves more.
  for (const NodeChoice& c : now.choices) EXPECT_FALSE(c.why.empty()) << c.node << " " << c.to;
  const size_t at16Now = now.nodesPerConfig.count("16a16w:per_channel") ? now.nodesPerConfig.at("16a16w:per_channel") : 0;
  const size_t at16Old = old.nodesPerConfig.count("16a16w:per_channel") ? old.nodesPerConfig.at("16a16w:per_channel") : 0;
  EXPECT_GT(at16Now, at16Old);
  EXPECT_GT(old.choices.size(), now.choices.size());
  // What stays on CPU is the same on both: no config fixes a node without a rule.
  EXPECT_EQ(old.onCpu.size(), now.onCpu.size());
}

TEST(RecipeSearch, WarnModeJudgesLikeStrictMode) {
  const Graph g = readGraph(mixedGraph());
  RecipeSearchResult strict = suggestRecipe(builtinEngine("htp", "SM8350"), g, "16a16w");
  RecipeSearchResult warn = suggestRecipe(builtinEngine("htp", "SM8350", Mode::kWarn), g, "16a16w");
  EXPECT_EQ(choices(warn), choices(strict));
  EXPECT_EQ(warn.yaml(), strict.yaml());
}

TEST(RecipeSearch, BadConfigAndEngineThatDidNotOpenAreStatuses) {
  const Graph g = readGraph(mixedGraph());
  RecipeSearchResult bad = suggestRecipe(builtinEngine("htp", "SM8350"), g, "17a3w");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status.message().find("17a3w"), std::string::npos) << bad.status.message();
  RecipeSearchResult closed = planPrecision(builtinEngine("htp", "SM9999"), g);
  EXPECT_FALSE(closed.ok());
}

TEST(RecipeSearch, TheCliWritesTheRecipeAndItsSummary) {
  TempDir dir;
  const std::string recipe = (dir.path() / "fix.yaml").string();
  CommandResult r = run("cd " + shellQuote(kSource) + " && env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) +
                        " tests/data/annotate/mixed.json --soc SM8350 --annotate 16a16w --warn --suggest-recipe " +
                        shellQuote(recipe));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  const std::string summary = r.output.substr(r.output.find("\nsuggested recipe"));
  EXPECT_EQ(summary, "\nsuggested recipe for 16a16w on SM8350:\n"
                     "  conv1 (aten.conv2d.default): 16a16w -> 16a8w\n"
                     "    was: arch-gate: 16-bit activations with 16-bit weights need HTP V73 or newer.\n"
                     "  fc (aten.linear.default): 16a16w -> 16a8w\n"
                     "    was: arch-gate: 16-bit activations with 16-bit weights need HTP V73 or newer.\n"
                     "  ln (aten.layer_norm.default): 16a16w -> 16a8w\n"
                     "    was: arch-gate: 16-bit activations with 16-bit layer-norm weights need HTP V73 or newer.\n"
                     "  mm (aten.matmul.default): 16a16w -> 16a8w\n"
                     "    was: arch-gate: 16-bit activations with a 16-bit second input need HTP V73 or newer.\n"
                     "4 override(s), 0 node(s) stay on CPU; with the recipe the graph validates clean (16 runs)\n");
  CommandResult again = run("cd " + shellQuote(kSource) + " && env QNNRULES_PATH= " +
                            shellQuote(QNNRULES_VALIDATE_EXE) +
                            " tests/data/annotate/mixed.json --soc SM8350 --annotate 16a16w --recipe " + shellQuote(recipe));
  EXPECT_EQ(again.exitCode, 0) << again.output;
  CommandResult noAnnotate = run(shellQuote(QNNRULES_VALIDATE_EXE) + " " + shellQuote(mixedGraph()) +
                                 " --suggest-recipe " + shellQuote(recipe));
  EXPECT_EQ(noAnnotate.exitCode, 2) << noAnnotate.output;
  EXPECT_NE(noAnnotate.output.find("--suggest-recipe requires --annotate"), std::string::npos) << noAnnotate.output;
}

}  // namespace
}  // namespace qnnrules
