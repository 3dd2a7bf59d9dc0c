// The C++ API and qnn-validate agree: for the same graph and options, Engine::run rendered with
// formatRunJson / formatRunText is byte for byte what the CLI prints (the Python package's
// agreement is tests/python/test_front_ends.py). Both run from the source root, so file names
// in the reports are the same relative paths.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "BuiltinEngine.h"
#include "TestUtil.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/pipeline/RunReportFormat.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = QNNRULES_SOURCE_DIR;

// Runs the test body with the source root as working directory (display paths are relative
// to it), and restores the previous one.
class FromSourceRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = fs::current_path();
    fs::current_path(kSource);
  }
  void TearDown() override { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

testing::CommandResult cli(const std::string& args) {
  return testing::run("env QNNRULES_PATH= " + testing::shellQuote(QNNRULES_VALIDATE_EXE) + " " + args +
                      " 2>/dev/null");
}

struct AgreementCase {
  const char* graph;
  const char* backend;
  const char* soc;
  Mode mode;
  const char* annotate;  // empty: no annotation
};
inline void PrintTo(const AgreementCase& c, std::ostream* os) { *os << c.graph << " " << c.backend << " " << c.soc; }

std::string cliArgs(const AgreementCase& c) {
  std::string a = std::string(c.graph) + " --backend " + c.backend + " --soc " + c.soc;
  if (c.mode == Mode::kWarn) a += " --warn";
  if (*c.annotate) a += std::string(" --annotate ") + c.annotate;
  return a;
}

RunOptions runOptions(const AgreementCase& c) {
  RunOptions o;
  o.graphPath = c.graph;
  if (*c.annotate) {
    AnnotateOptions ao;
    ao.config = c.annotate;
    ao.strict = c.mode == Mode::kStrict;
    o.annotate = ao;
  }
  return o;
}

class FrontEndAgreement : public FromSourceRoot, public ::testing::WithParamInterface<AgreementCase> {};

TEST_P(FrontEndAgreement, ApiJsonAndTextEqualTheCli) {
  const AgreementCase& c = GetParam();
  Engine engine = testing::builtinEngine(c.backend, c.soc, c.mode);
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  const RunReport report = engine.run(runOptions(c));
  ASSERT_TRUE(report.ok()) << report.status.message();
  EXPECT_EQ(formatRunJson(report), cli(cliArgs(c) + " --format json").output);
  EXPECT_EQ(formatRunText(report), cli(cliArgs(c)).output);
}

// The graph read by the caller and handed to Engine::run(Graph) gives the same JSON as the
// engine reading the file itself.
TEST_P(FrontEndAgreement, InMemoryGraphGivesTheSameJson) {
  const AgreementCase& c = GetParam();
  Engine engine = testing::builtinEngine(c.backend, c.soc, c.mode);
  GraphReadResult read = readGraphFile(c.graph);
  ASSERT_TRUE(read.ok()) << read.status.message();
  const RunReport fromFile = engine.run(runOptions(c));
  const RunReport fromMemory = engine.run(read.graph, runOptions(c));
  EXPECT_EQ(formatRunJson(fromMemory), formatRunJson(fromFile));
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, FrontEndAgreement,
    ::testing::Values(AgreementCase{"examples/violations.json", "htp", "SM8650", Mode::kStrict, ""},
                      AgreementCase{"examples/violations.json", "htp", "SM8650", Mode::kWarn, ""},
                      AgreementCase{"examples/tiny_cnn_8a8w.json", "lpai", "SM8850", Mode::kStrict, ""},
                      AgreementCase{"examples/lpbq_linear.json", "htp", "SM8350", Mode::kStrict, ""},
                      AgreementCase{"tests/data/onnx/sigmoid_wrong_scale.onnx", "htp", "SM8650", Mode::kStrict, ""},
                      AgreementCase{"tests/data/pt2/q8a8w.pt2", "htp", "SM8650", Mode::kStrict, ""},
                      AgreementCase{"tests/data/annotate/mixed.json", "htp", "SM8650", Mode::kStrict, "16a8w"}),
    [](const ::testing::TestParamInfo<AgreementCase>& p) { return "case" + std::to_string(p.index); });

// GraphAnalysis (Engine::analyze) is the run report's validation and delegation, so its
// delegation JSON names the same nodes as the CLI's, on a QDQ graph too.
TEST_F(FromSourceRoot, AnalyzeAgreesWithTheRunReport) {
  Engine engine = testing::builtinEngine("htp", "SM8650");
  GraphReadResult read = readGraphFile("tests/data/pt2/sigmoid_bad_scale.pt2");
  ASSERT_TRUE(read.ok());
  const GraphAnalysis a = engine.analyze(read.graph);
  const nlohmann::json cli =
      nlohmann::json::parse(testing::run("env QNNRULES_PATH= " + testing::shellQuote(QNNRULES_VALIDATE_EXE) +
                                         " tests/data/pt2/sigmoid_bad_scale.pt2 --soc SM8650 --format json")
                                .output);
  EXPECT_EQ(nlohmann::json::parse(a.delegationJson()), cli["delegation"]);
  EXPECT_EQ(a.validation.errorCount(), cli["summary"]["errors"].get<size_t>());
}

}  // namespace
}  // namespace qnnrules
