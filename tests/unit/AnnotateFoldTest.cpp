// Engine::annotate folds a Q/DQ graph as Engine::run does, so annotate-then-validate (the
// embedding API, C++ and Python) reports what a run with --annotate reports: the fold's
// findings, the annotator's, then the rules', in that order.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "AnnotationTestUtil.h"
#include "BuiltinEngine.h"
#include "qnnrules/Engine.h"
#include "qnnrules/passes/QdqFold.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

std::vector<std::string> texts(const DiagnosticList& ds) {
  std::vector<std::string> out;
  for (const Diagnostic& d : ds) out.push_back(formatText(d));
  return out;
}

std::string onnxData(const std::string& name) { return std::string(QNNRULES_SOURCE_DIR) + "/tests/data/onnx/" + name; }

// What run() with annotation reports, and what annotate() then validate() report.
struct BothWays {
  std::vector<std::string> run, annotateThenValidate;
};

BothWays bothWays(const Engine& e, const Graph& original, const std::string& config) {
  BothWays b;
  RunOptions ro;
  ro.annotate = AnnotateOptions{};
  ro.annotate->config = config;
  ro.partition = false;
  RunReport r = e.run(original, ro);
  b.run = texts(r.validation.diagnostics);
  if (!r.ok()) b.run.push_back("run stopped: " + r.status.message());
  Graph g = original;
  AnnotateOptions ao;
  ao.config = config;
  AnnotateResult a = e.annotate(g, ao);
  b.annotateThenValidate = texts(a.diagnostics);
  if (!a.status.isOk()) {
    b.annotateThenValidate.push_back("run stopped: " + a.status.message());
    return b;
  }
  EXPECT_FALSE(isQdqGraph(g)) << "annotate leaves the graph folded";
  ValidationResult v = e.validate(g);
  for (std::string& t : texts(v.diagnostics)) b.annotateThenValidate.push_back(std::move(t));
  return b;
}

BothWays bothWays(const Engine& e, const std::string& path, const std::string& config) {
  return bothWays(e, readGraph(path), config);
}

TEST(AnnotateFold, TheSigmoidsFixedScaleIsReportedBothWays) {
  Engine e = builtinEngine("htp", "SM8650");
  ASSERT_TRUE(e.ok()) << e.status().message();
  BothWays b = bothWays(e, onnxData("sigmoid_wrong_scale.json"), "8a8w");
  EXPECT_EQ(b.annotateThenValidate, b.run);
  bool fixedScale = false;
  // 8 bits: 1/256 is recommended, so a warning (16 bits would make it an error).
  for (const std::string& t : b.run) fixedScale |= t.starts_with("warning[fixed-scale]: node 'sig'");
  EXPECT_TRUE(fixedScale) << ::testing::PrintToString(b.run);
  for (const std::string& t : b.run) EXPECT_EQ(t.find("[qdq-mismatch]"), std::string::npos) << t;
}

TEST(AnnotateFold, EveryQdqGraphOfTheTestDataGivesTheSameDiagnosticsBothWays) {
  Engine e = builtinEngine("htp", "SM8350");
  ASSERT_TRUE(e.ok()) << e.status().message();
  size_t graphs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(onnxData(""))) {
    if (entry.path().extension() != ".json") continue;
    if (!isQdqGraph(readGraph(entry.path().string()))) continue;
    ++graphs;
    for (const char* config : {"8a8w", "16a8w"}) {
      SCOPED_TRACE(entry.path().filename().string() + " " + config);
      BothWays b = bothWays(e, entry.path().string(), config);
      EXPECT_EQ(b.annotateThenValidate, b.run);
    }
  }
  EXPECT_GE(graphs, 5u);
}

// Issue 35: every graph of the test data that reads, in each format (JSON, ONNX, .pt2), gives the
// same diagnostics annotated then validated as annotated within one run. A step that asked what
// the run did (how many Q/DQ nodes it folded, whether it bound ONNX ops) instead of reading the
// graph made ONNX models disagree (torch_scalar_operands.onnx, torch_decompositions.onnx).
TEST(AnnotateFold, EveryGraphOfTheTestDataGivesTheSameDiagnosticsBothWays) {
  Engine e = builtinEngine("htp", "SM8650");
  ASSERT_TRUE(e.ok()) << e.status().message();
  std::map<std::string, size_t> read;  // per extension
  const std::filesystem::path data = std::string(QNNRULES_SOURCE_DIR) + "/tests/data";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".json" && ext != ".onnx" && ext != ".pt2")) continue;
    GraphReadResult g = readGraphFile(entry.path());
    if (!g.ok()) continue;  // not a graph, or a broken one kept for the readers' tests
    ++read[ext];
    for (const char* config : {"8a8w", "16a8w"}) {
      SCOPED_TRACE(std::filesystem::relative(entry.path(), data).string() + " " + config);
      BothWays b = bothWays(e, g.graph, config);
      EXPECT_EQ(b.annotateThenValidate, b.run);
    }
  }
  EXPECT_GE(read[".json"], 20u);
  EXPECT_GE(read[".onnx"], 20u);
  EXPECT_GE(read[".pt2"], 5u);
}

TEST(AnnotateFold, AnEngineThatDidNotOpenSaysSo) {
  Engine e = builtinEngine("htp", "SM9999");
  ASSERT_FALSE(e.ok());
  Graph g = readGraph(onnxData("sigmoid_wrong_scale.json"));
  AnnotateResult a = e.annotate(g, AnnotateOptions{});
  EXPECT_FALSE(a.status.isOk());
  EXPECT_EQ(a.status.message(), e.status().message());
  ValidationResult v = e.validate(g);
  ASSERT_EQ(v.diagnostics.size(), 1u);
  EXPECT_EQ(v.diagnostics[0].message, "the engine did not open, so nothing was validated: " + e.status().message());
}

}  // namespace
}  // namespace qnnrules
