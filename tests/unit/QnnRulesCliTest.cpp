// qnn-rules: lint, list, explain.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "TestUtil.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::shellQuote;
using testing::TempDir;

CommandResult qnnRules(const std::string& args) {
  return testing::run("cd " + shellQuote(QNNRULES_SOURCE_DIR) + " && env QNNRULES_PATH= " +
                      shellQuote(QNNRULES_RULES_EXE) + " " + args);
}

// Both tools print the CMake project version (the one place it is written).
TEST(QnnRulesCli, BothToolsPrintTheProjectVersion) {
  std::ifstream cmake(std::string(QNNRULES_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << cmake.rdbuf();
  std::smatch m;
  const std::string cmakeText = text.str();
  ASSERT_TRUE(std::regex_search(cmakeText, m, std::regex(R"(project\(qnnrules VERSION ([0-9.]+))")));
  const std::string version = m[1];
  CommandResult rules = qnnRules("--version");
  EXPECT_EQ(rules.exitCode, 0);
  EXPECT_EQ(rules.output, "qnn-rules " + version + "\n");
  CommandResult validate = testing::run(shellQuote(QNNRULES_VALIDATE_EXE) + " --version");
  EXPECT_EQ(validate.exitCode, 0);
  EXPECT_EQ(validate.output, "qnn-validate " + version + "\n");
}

TEST(QnnRulesCli, LintPassesOnTheBuiltinRules) {
  CommandResult r = qnnRules("lint");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("htp: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" rules OK"), std::string::npos) << r.output;
}

TEST(QnnRulesCli, LintReportsEveryErrorOfABrokenOverlayAndExitsOne) {
  TempDir d;
  d.write("htp/bad.yaml",
          "version: 1\nrules:\n  - id: htp.x\n    targets: [aten.x.default]\n    qnn_op: X\n"
          "    pattern: sisoo\n    description: x.\n    colour: red\n    variants: []\n");
  CommandResult r = qnnRules("lint --rules " + shellQuote(d.path().string()));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("[unknown-pattern]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bad.yaml:6:14"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[unknown-key]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bad.yaml:8:5"), std::string::npos) << r.output;
}

// Lint reads every data file qnn-validate reads, through the same registry: a broken overlay
// of the quantization configs or of the backend options fails lint with file:line:column.
TEST(QnnRulesCli, LintChecksTheQuantConfigsOverlay) {
  TempDir d;
  d.write("quant_configs.yaml",
          "version: 1\nconfigs:\n  - name: 8a8w\n    description: x.\n"
          "    activation: {dtype: uint8, quant_min: 0, quant_max: 255}\n"
          "    weight: {dtype: int8, quant_min: -127, quant_max: 127}\n"
          "    granularities: [per_tensor]\n    colour: red\n");
  CommandResult r = qnnRules("lint --rules " + shellQuote(d.path().string()));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("[unknown-key]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("quant_configs.yaml:8:5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("quant_configs: the quantization config file has errors"), std::string::npos) << r.output;
  // The built-in configs alone lint clean.
  CommandResult clean = qnnRules("lint");
  EXPECT_NE(clean.output.find("quant_configs: "), std::string::npos) << clean.output;
  EXPECT_NE(clean.output.find(" configs OK"), std::string::npos) << clean.output;
}

TEST(QnnRulesCli, LintChecksTheBackendOptionsOverlay) {
  TempDir d;
  d.write("backend_options.yaml",
          "version: 1\nbackends:\n  lpai:\n    - name: fps\n      type: int\n      min: 1\n"
          "      max: 10\n      default: 99\n      description: x.\n      colour: red\n");
  CommandResult r = qnnRules("lint --rules " + shellQuote(d.path().string()));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("[unknown-key]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("backend_options.yaml:10:7"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("backend_options: "), std::string::npos) << r.output;
  // qnn-validate refuses the same overlay: lint says what the validator reads.
  CommandResult g = testing::run("cd " + shellQuote(QNNRULES_SOURCE_DIR) + " && env QNNRULES_PATH= " +
                                 shellQuote(QNNRULES_VALIDATE_EXE) +
                                 " examples/tiny_cnn_8a8w.json --backend lpai --soc SM8850 --rules " +
                                 shellQuote(d.path().string()));
  EXPECT_EQ(g.exitCode, 2) << g.output;
  EXPECT_NE(g.output.find("backend_options.yaml:10:7"), std::string::npos) << g.output;
}

TEST(QnnRulesCli, ExplainShowsVariantsGatesAndLocation) {
  CommandResult r = qnnRules("explain htp.conv2d");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("htp.conv2d  (rules/htp/ops/"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("QNN op:  Conv2d"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("needs HTP V69+"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("needs HTP V73+"), std::string::npos) << r.output;
  // An ATen target finds its rule too.
  CommandResult byTarget = qnnRules("explain aten.conv2d.default");
  EXPECT_EQ(byTarget.exitCode, 0);
  EXPECT_EQ(byTarget.output, r.output);
}

TEST(QnnRulesCli, ExplainUnknownRuleIsAUsageError) {
  CommandResult r = qnnRules("explain htp.no_such_rule");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("no rule 'htp.no_such_rule'"), std::string::npos) << r.output;
}

TEST(QnnRulesCli, ListShowsOneLinePerRule) {
  CommandResult r = qnnRules("list --backend htp");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("htp.conv2d\tConv2d\t"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qnnrules

namespace qnnrules {
namespace {

// The committed supported-ops docs must be what the rules generate today.
TEST(QnnRulesCli, CommittedSupportedOpsDocsAreFresh) {
  CommandResult r = qnnRules("docs --check");
  EXPECT_EQ(r.exitCode, 0) << r.output;
}

TEST(QnnRulesCli, DocsCheckNoticesAStaleFile) {
  TempDir d;
  d.write("htp.md", "# outdated\n");
  CommandResult r = qnnRules("docs --check --out " + shellQuote(d.path().string()));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("htp.md is stale"), std::string::npos) << r.output;
  CommandResult write = qnnRules("docs --out " + shellQuote(d.path().string()));
  EXPECT_EQ(write.exitCode, 0) << write.output;
  EXPECT_EQ(qnnRules("docs --check --out " + shellQuote(d.path().string())).exitCode, 0);
}

}  // namespace
}  // namespace qnnrules
