// Engine::annotate folds a Q/DQ graph as Engine::run does, so annotate-then-validate (the
// embedding API, C++ and Python) reports what a run with --annotate reports: the fold's
// findings, the annotator's, then the rules', in that order.
#include <gtest/gtest.h>

#include <filesystem>

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

BothWays bothWays(const Engine& e, const std::string& path, const std::string& config) {
  BothWays b;
  const Graph original = readGraph(path);
  RunOptions ro;
  ro.annotate = AnnotateOptions{};
  ro.annotate->config = config;
  ro.partition = false;
  b.run = texts(e.run(original, ro).validation.diagnostics);
  Graph g = original;
  AnnotateOptions ao;
  ao.config = config;
  AnnotateResult a = e.annotate(g, ao);
  EXPECT_TRUE(a.status.isOk()) << a.status.message();
  EXPECT_FALSE(isQdqGraph(g)) << "annotate leaves the graph folded";
  ValidationResult v = e.validate(g);
  b.annotateThenValidate = texts(a.diagnostics);
  for (std::string& t : texts(v.diagnostics)) b.annotateThenValidate.push_back(std::move(t));
  return b;
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
