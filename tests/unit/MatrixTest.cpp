// The compatibility matrix (Matrix.h, issue 26): every cell says what a run on that SoC with
// that config says, while SoCs of the same hardware share one validation.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "AnnotationTestUtil.h"
#include "BuiltinEngine.h"
#include "TestUtil.h"
#include "qnnrules/Matrix.h"
#include "qnnrules/load/RuleRegistry.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

const std::string kSource = QNNRULES_SOURCE_DIR;

EngineOptions builtin() {
  EngineOptions o;
  o.backend = "htp";
  o.useEnvironment = false;
  o.builtinRulesDir = kSource + "/rules";
  return o;
}

TEST(Matrix, EveryCellIsWhatItsOwnRunSays) {
  const Graph g = readGraph(kSource + "/tests/data/annotate/mixed.json");
  MatrixOptions mo;
  mo.socs = {"SM8350", "SA8295", "SM8450", "SM8650", "SM8750"};
  mo.configs = {"8a8w", "16a8w", "16a16w", "16a4w_block"};
  CompatibilityMatrix m = compatibilityMatrix(builtin(), g, mo);
  ASSERT_TRUE(m.ok()) << m.status.message();
  ASSERT_EQ(m.cells.size(), 20u);
  // SM8350 and SA8295 are both V68: one validation for the two.
  EXPECT_EQ(m.validations, 16u);
  for (size_t s = 0; s < m.socs.size(); ++s) {
    Engine e = builtinEngine("htp", m.socs[s]);
    for (size_t c = 0; c < m.configs.size(); ++c) {
      SCOPED_TRACE(m.socs[s] + " " + m.configs[c]);
      RunOptions ro;
      ro.annotate = AnnotateOptions{};
      ro.annotate->config = m.configs[c];
      RunReport r = e.run(g, ro);
      const MatrixCell& cell = m.at(s, c);
      EXPECT_EQ(cell.verdict.text(), judge(r.failed(), r.delegation).text());
      EXPECT_EQ(cell.errors, r.validation.errorCount());
      EXPECT_EQ(cell.soc, m.socs[s]);
    }
  }
  EXPECT_TRUE(m.at(1, 2).shared);
  // 16a16w on V68: the refused convs read quantized weights, and ExecuTorch's lowering fails on the
  // dequantize it leaves on QNN (rules/lowering/executorch.yaml parameter_dequantize).
  EXPECT_EQ(m.at(0, 2).verdict.kind, VerdictKind::kSessionFailure);
  EXPECT_EQ(m.at(0, 2).errors, 4u);
  EXPECT_EQ(m.at(3, 2).verdict.kind, m.at(3, 0).verdict.kind);  // V75 takes 16a16w like 8a8w
}

TEST(Matrix, TextAndJson) {
  const Graph g = readGraph(kSource + "/tests/data/annotate/mixed.json");
  MatrixOptions mo;
  mo.socs = {"SM8350", "SM8650"};
  mo.configs = {"16a8w", "16a16w"};
  CompatibilityMatrix m = compatibilityMatrix(builtin(), g, mo);
  ASSERT_TRUE(m.ok()) << m.status.message();
  const std::string text = m.text();
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "compatibility matrix of mixed on htp: 2 SoC(s) x 2 config(s), 4 validation(s)");
  EXPECT_EQ(text, "compatibility matrix of mixed on htp: 2 SoC(s) x 2 config(s), 4 validation(s)\n"
                  "SoC     hardware  16a8w         16a16w\n"
                  "SM8350  HTP V68   valid (0/13)  SESSION FAILS (4/13)\n"
                  "SM8650  HTP V75   valid (0/13)  valid (0/13)\n"
                  "cells: valid, cpu N% (valid with N% of compute nodes on CPU), INVALID N (errors), SESSION FAILS; "
                  "(C/T): C of the T compute nodes on CPU\n");
  nlohmann::json j = nlohmann::json::parse(m.json());
  ASSERT_EQ(j["cells"].size(), 4u);
  EXPECT_EQ(j["cells"][1]["soc"], "SM8350");
  EXPECT_EQ(j["cells"][1]["config"], "16a16w");
  EXPECT_EQ(j["cells"][1]["verdict"], "session-failure");
  EXPECT_EQ(j["cells"][1]["errors"], 4);
  EXPECT_EQ(j["cells"][1]["diagnostics"].size(), 4u);
}

TEST(Matrix, AllSocsAndConfigsAndBadNames) {
  const Graph g = readGraph(kSource + "/tests/data/annotate/mixed.json");
  CompatibilityMatrix all = compatibilityMatrix(builtin(), g, MatrixOptions{{"all"}, {"all"}, {}});
  ASSERT_TRUE(all.ok()) << all.status.message();
  EXPECT_GE(all.socs.size(), 20u);
  EXPECT_GE(all.configs.size(), 8u);
  EXPECT_LT(all.validations, all.cells.size());  // same hardware shares
  CompatibilityMatrix badSoc = compatibilityMatrix(builtin(), g, MatrixOptions{{"SM9999"}, {"8a8w"}, {}});
  EXPECT_FALSE(badSoc.ok());
  CompatibilityMatrix badConfig = compatibilityMatrix(builtin(), g, MatrixOptions{{"SM8650"}, {"17a3w"}, {}});
  EXPECT_FALSE(badConfig.ok());
}

// "all" SoCs are those the backend runs on: for lpai, the SoCs whose table row has an LPAI
// version (rules/socs.yaml), read from the table rather than listed here.
TEST(Matrix, AllSocsOfABackendAreTheSocsItRunsOn) {
  const Graph g = readGraph(kSource + "/tests/data/annotate/mixed.json");
  EngineOptions lpai = builtin();
  lpai.backend = "lpai";
  CompatibilityMatrix m = compatibilityMatrix(lpai, g, MatrixOptions{{"all"}, {"8a8w"}, {}});
  ASSERT_TRUE(m.ok()) << m.status.message();
  Engine probe(builtin());
  ASSERT_TRUE(probe.ok());
  std::vector<std::string> withLpai;
  for (const SocInfo& s : probe.registry().socs().table->all())
    if (!s.versionOn("lpai").empty()) withLpai.push_back(s.name);
  ASSERT_FALSE(withLpai.empty());
  EXPECT_LT(withLpai.size(), probe.registry().socs().table->all().size());
  EXPECT_EQ(m.socs, withLpai);
  for (const MatrixCell& c : m.cells) EXPECT_EQ(c.hardware.rfind("LPAI ", 0), 0u) << c.soc << ": " << c.hardware;
  // The graph splits in two on LPAI, which needs it whole: INVALID with no error diagnostic,
  // and every form of the matrix says why.
  for (const MatrixCell& c : m.cells) {
    EXPECT_EQ(c.verdict.kind, VerdictKind::kInvalid);
    EXPECT_EQ(c.errors, 0u);
    ASSERT_EQ(c.fullDelegationProblems.size(), 1u);
    EXPECT_NE(c.fullDelegationProblems[0].find("splits into 2 partitions"), std::string::npos);
  }
  EXPECT_NE(m.text().find("INVALID 0 + whole"), std::string::npos) << m.text();
  const nlohmann::json doc = nlohmann::json::parse(m.json());
  EXPECT_EQ(doc["cells"][0]["full_delegation_problems"][0], m.cells[0].fullDelegationProblems[0]);
  EXPECT_NE(m.html().find("INVALID + WHOLE"), std::string::npos);
  EXPECT_NE(m.html().find("splits into 2 partitions"), std::string::npos);
  // Named, a SoC without one is still refused.
  EXPECT_FALSE(compatibilityMatrix(lpai, g, MatrixOptions{{"SM8650"}, {"8a8w"}, {}}).ok());
}

TEST(Matrix, TheCliRunsItFromSocAndConfigs) {
  CommandResult r = run("cd " + shellQuote(kSource) + " && env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) +
                        " tests/data/annotate/mixed.json --soc SM8350,SM8650 --configs 16a8w 16a16w");
  EXPECT_EQ(r.exitCode, 1) << r.output;  // strict: a cell fails
  EXPECT_NE(r.output.find("SM8350  HTP V68   valid (0/13)  SESSION FAILS (4/13)\n"), std::string::npos) << r.output;
  CommandResult warn = run("cd " + shellQuote(kSource) + " && env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) +
                           " tests/data/annotate/mixed.json --soc all --configs all --warn --format json");
  EXPECT_EQ(warn.exitCode, 0) << warn.output;
  EXPECT_TRUE(nlohmann::json::accept(warn.output)) << warn.output.substr(0, 300);
}

}  // namespace
}  // namespace qnnrules

namespace qnnrules {
namespace {

// The progress callback hears every validation the matrix makes, counted against the total it
// will make (SoCs of one hardware share one), in order, with the cell being judged.
TEST(Matrix, ProgressCountsEveryValidationAgainstTheTotal) {
  const Graph g = readGraph(kSource + "/tests/data/annotate/mixed.json");
  std::vector<std::string> seen;
  MatrixOptions o{{"SM8350", "SA8295", "SM8650"}, {"8a8w", "16a8w"}, {}};
  o.progress = [&](size_t done, size_t total, std::string_view what) {
    seen.push_back(std::to_string(done) + "/" + std::to_string(total) + " " + std::string(what));
  };
  CompatibilityMatrix m = compatibilityMatrix(builtin(), g, o);
  ASSERT_TRUE(m.ok()) << m.status.message();
  EXPECT_EQ(seen, (std::vector<std::string>{"1/4 SM8350 x 8a8w", "2/4 SM8650 x 8a8w", "3/4 SM8350 x 16a8w",
                                            "4/4 SM8650 x 16a8w"}));
  EXPECT_EQ(m.validations, 4u);
}

}  // namespace
}  // namespace qnnrules

namespace qnnrules {
namespace {

// Issue 36: a matrix holds per cell what it prints (counts, verdict, the first
// kMatrixKeptPerCode diagnostics of each code); every diagnostic reaches the JSON through a
// temporary file, and a shared cell holds none of its judge's.
TEST(Matrix, KeepsTheFirstDiagnosticsOfEachCodeAndSpoolsTheRest) {
  std::string nodes = R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 8]}]})";
  std::string prev = "x";
  for (int i = 0; i < 120; ++i) {
    const std::string name = "m" + std::to_string(i);
    nodes += R"(, {"name": ")" + name + R"(", "kind": "call", "target": "aten.mystery_op.default", "args": [{"ref": ")" +
             prev + R"("}], "outputs": [{"dtype": "float32", "shape": [1, 8]}]})";
    prev = name;
  }
  nodes += R"(, {"name": "out", "kind": "output", "args": [[{"ref": ")" + prev + R"("}]]})";
  const Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1, "nodes": [)" + nodes + "]}");
  MatrixOptions mo{{"SM8350", "SA8295"}, {"8a8w"}, {}};
  CompatibilityMatrix m = compatibilityMatrix(builtin(), g, mo);
  ASSERT_TRUE(m.ok()) << m.status.message();
  const MatrixCell& judged = m.at(0, 0);
  ASSERT_FALSE(judged.codeCounts.empty());
  size_t total = 0;
  for (const DiagnosticCodeCount& c : judged.codeCounts) {
    total += c.count;
    size_t kept = 0;
    for (const Diagnostic& d : judged.diagnostics) kept += diagCodeName(d.code) == c.code;
    EXPECT_EQ(kept, std::min(c.count, kMatrixKeptPerCode)) << c.code;
  }
  EXPECT_EQ(total, judged.diagnosticCount);
  EXPECT_GE(judged.diagnosticCount, 120u);
  EXPECT_LT(judged.diagnostics.size(), judged.diagnosticCount);
  EXPECT_TRUE(m.at(1, 0).shared);
  EXPECT_TRUE(m.at(1, 0).diagnostics.empty());
  EXPECT_EQ(m.at(1, 0).errors, judged.errors);
  nlohmann::json j = nlohmann::json::parse(m.json());
  EXPECT_EQ(j["cells"][0]["diagnostics"].size(), judged.diagnosticCount);
  EXPECT_EQ(j["cells"][1]["diagnostics_of"], "SM8350");
  EXPECT_FALSE(j["cells"][0].contains("diagnostic_counts"));
  // Without the spool, the JSON holds what was kept; the page counts every one.
  mo.allDiagnostics = false;
  CompatibilityMatrix light = compatibilityMatrix(builtin(), g, mo);
  ASSERT_TRUE(light.ok());
  EXPECT_EQ(nlohmann::json::parse(light.json())["cells"][0]["diagnostics"].size(), judged.diagnostics.size());
  EXPECT_EQ(light.html(), m.html());
  EXPECT_NE(m.html().find("more: see the JSON output"), std::string::npos);
}

}  // namespace
}  // namespace qnnrules
