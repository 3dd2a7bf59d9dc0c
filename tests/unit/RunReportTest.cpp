// Engine::run: where a run stops and why, which phases ran, and qnn-validate --time printing
// the phase breakdown in text and JSON (values are not asserted: speed is measured in
// benchmarks/, not tested).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "BuiltinEngine.h"
#include "TestUtil.h"
#include "qnnrules/pipeline/FallbackDiagnostics.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/pipeline/RunReportFormat.h"

namespace qnnrules {
namespace {

const std::string kSource = QNNRULES_SOURCE_DIR;

RunOptions fileRun(const std::string& rel) {
  RunOptions o;
  o.graphPath = kSource + "/" + rel;
  return o;
}

TEST(RunReport, RecordsTheStagesThatRan) {
  Engine engine = testing::builtinEngine("htp", "SM8650");
  const RunReport r = engine.run(fileRun("tests/data/pt2/q8a8w.pt2"));
  ASSERT_TRUE(r.ok()) << r.status.message();
  for (Phase p : {Phase::kRuleLoad, Phase::kRead, Phase::kFold, Phase::kValidate, Phase::kPartition})
    EXPECT_TRUE(r.times[p].ran) << phaseName(p);
  EXPECT_FALSE(r.times[Phase::kAnnotate].ran);
  EXPECT_FALSE(r.times[Phase::kEncodings].ran);
  EXPECT_GT(r.qdqNodesFolded, 0u);
  EXPECT_GT(r.delegation.computeNodes, 0u);
}

TEST(RunReport, AnnotationIsAPhaseAndItsGraphIsTheReportsGraph) {
  Engine engine = testing::builtinEngine("htp", "SM8650");
  RunOptions o = fileRun("tests/data/annotate/mixed.json");
  o.annotate = AnnotateOptions{};
  o.annotate->config = "16a8w";
  const RunReport r = engine.run(o);
  ASSERT_TRUE(r.ok()) << r.status.message();
  EXPECT_TRUE(r.times[Phase::kAnnotate].ran);
  ASSERT_TRUE(r.annotation);
  EXPECT_GT(r.annotation->nodesAnnotated, 0u);
  EXPECT_TRUE(r.annotation->diagnostics.empty()) << "moved into the validation's diagnostics";
}

TEST(RunReport, StopsAtTheStageThatFailed) {
  Engine engine = testing::builtinEngine("htp", "SM8650");
  const RunReport unreadable = engine.run(fileRun("tests/data/onnx/corrupt.onnx"));
  EXPECT_EQ(unreadable.stoppedAt, RunStage::kGraph);
  EXPECT_FALSE(unreadable.ok());
  EXPECT_FALSE(unreadable.graph);

  RunOptions badConfig = fileRun("tests/data/annotate/mixed.json");
  badConfig.annotate = AnnotateOptions{};
  badConfig.annotate->config = "99a9w";
  EXPECT_EQ(engine.run(badConfig).stoppedAt, RunStage::kAnnotation);

  Engine unknownSoc = testing::builtinEngine("htp", "SM0000");
  const RunReport r = unknownSoc.run(fileRun("examples/tiny_cnn_8a8w.json"));
  EXPECT_EQ(r.stoppedAt, RunStage::kRules);
  const nlohmann::json j = nlohmann::json::parse(formatRunJson(r));
  EXPECT_EQ(j["error"]["kind"], "rules");
  EXPECT_EQ(j["valid"], false);
}

// A chain of `count` relus on int32 ports, which no HTP Relu variant accepts: a diagnostic each.
std::string invalidChain(size_t count) {
  const std::string spec = R"({"dtype": "int32", "scale": 0.5, "zero_point": 0})";
  std::string text = R"({"format": "qnnrules-graph", "version": 1, "nodes": [{"name": "r0", "kind": "input",
      "outputs": [{"dtype": "float32", "shape": [1, 4], "qspec": )" + spec + "}]}";
  for (size_t i = 1; i <= count; ++i)
    text += R"(, {"name": "r)" + std::to_string(i) + R"(", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "r)" +
            std::to_string(i - 1) + R"(", "qspec": )" + spec + R"(}], "outputs": [{"dtype": "float32", "shape": [1, 4], "qspec": )" +
            spec + "}]}";
  return text + R"(, {"name": "output", "kind": "output", "args": [[{"ref": "r)" + std::to_string(count) + R"("}]]}]})";
}

// qnn-validate writes the text and JSON reports as they are rendered: pieces of about a
// megabyte that make the report formatRunText / formatRunJson return, byte for byte.
TEST(RunReport, TextAndJsonReportsAreWrittenInPiecesThatMakeTheWholeReport) {
  Engine engine = testing::builtinEngine("htp", "SM8650");
  GraphReadResult g = readGraphText(invalidChain(4000), "chain.json");
  ASSERT_TRUE(g.ok()) << g.status.message();
  const RunReport r = engine.run(g.graph, RunOptions{});
  ASSERT_TRUE(r.ok()) << r.status.message();
  ASSERT_EQ(r.validation.errorCount(), 4000u);
  using Writer = void (*)(const RunReport&, const RenderOptions&, const OutputSink&);
  using Formatter = std::string (*)(const RunReport&, const RenderOptions&);
  for (auto [write, format] : {std::pair<Writer, Formatter>{writeRunText, formatRunText},
                               std::pair<Writer, Formatter>{writeRunJson, formatRunJson}}) {
    std::vector<std::string> pieces;
    write(r, RenderOptions{}, [&pieces](std::string_view piece) { pieces.emplace_back(piece); });
    EXPECT_GT(pieces.size(), 1u);
    std::string whole;
    for (const std::string& piece : pieces) {
      // Pieces end at the first diagnostic or section past a megabyte (the whole report is 2.4 MB).
      EXPECT_LT(piece.size(), 2 * kOutputPieceBytes) << piece.substr(0, 300);
      whole += piece;
    }
    EXPECT_EQ(whole, format(r, RenderOptions{}));
  }
}

TEST(RunReport, AnOmittedSocIsTheDefaultAndSaysSo) {
  EngineOptions o;
  o.useEnvironment = false;
  o.builtinRulesDir = kSource + "/rules";
  Engine engine(o);
  ASSERT_TRUE(engine.ok());
  const RunReport r = engine.run(fileRun("examples/tiny_cnn_8a8w.json"));
  EXPECT_EQ(r.soc.name, kDefaultSoc);
  EXPECT_TRUE(r.socDefaulted);
  EXPECT_NE(formatRunText(r).find("default SoC, choose with --soc"), std::string::npos);
}

TEST(RunReport, ModeIsAppliedOnceForEveryDiagnostic) {
  Engine warn = testing::builtinEngine("htp", "SM8650", Mode::kWarn);
  const RunReport r = warn.run(fileRun("examples/violations.json"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.validation.errorCount(), 0u);
  EXPECT_GT(r.validation.warningCount(), 0u);
  EXPECT_FALSE(r.failed());
}

// A rule violation: primary location the node and port, notes the rule's file:line with id
// and variant, then expected / actual / hint, in the text form's order.
TEST(DiagnosticNotes, PrimaryIsTheNodeAndTheRuleIsANote) {
  Engine engine = testing::builtinEngine("htp", "SM8650");
  const RunReport r = engine.run(fileRun("tests/data/pt2/sigmoid_bad_scale.pt2"));
  ASSERT_TRUE(r.ok());
  const Diagnostic* fixed = nullptr;
  for (const Diagnostic& d : r.validation.diagnostics)
    if (d.code == DiagCode::kFixedScale) fixed = &d;
  ASSERT_NE(fixed, nullptr);
  EXPECT_EQ(primaryLocation(*fixed), "node '" + fixed->node + "' (" + fixed->op + ") port " + fixed->port);
  const std::vector<DiagnosticNote> notes = notesOf(*fixed);
  ASSERT_GE(notes.size(), 3u);
  EXPECT_EQ(notes[0].message, "rule " + fixed->ruleId + ", variant " + fixed->variant);
  EXPECT_EQ(notes[0].mark.toString(), fixed->mark.toString());
  EXPECT_EQ(notes[1].message, "expected: " + fixed->expected);
  EXPECT_FALSE(notes[1].mark.known());
  const nlohmann::json j = nlohmann::json::parse(formatJson(*fixed));
  EXPECT_EQ(j["primary"], primaryLocation(*fixed));
  EXPECT_EQ(j["notes"][0]["location"]["line"], fixed->mark.line);
}

TEST(DiagnosticNotes, AFileErrorsPrimaryLocationIsTheFile) {
  Diagnostic d;
  d.code = DiagCode::kGraphSchema;
  d.mark.file = std::make_shared<const std::string>("g.json");
  d.mark.line = 3;
  d.mark.column = 7;
  d.port = "/nodes/2/target";
  EXPECT_EQ(primaryLocation(d), "g.json:3:7 at /nodes/2/target");
  EXPECT_TRUE(notesOf(d).empty());
}

// Delegation fallbacks read as diagnostics: one per CPU node, the validator's code when
// validation put it there, cpu-fallback otherwise.
TEST(DiagnosticNotes, FallbacksAreDiagnosticsOfTheSameShape) {
  Engine engine = testing::builtinEngine("htp", "SM8650");
  const RunReport r = engine.run(fileRun("examples/violations.json"));
  ASSERT_TRUE(r.ok());
  const DiagnosticList fallbacks = fallbackDiagnostics(*r.graph, r.delegation);
  ASSERT_EQ(fallbacks.size(), r.delegation.fallbacks.size());
  ASSERT_FALSE(fallbacks.empty());
  for (size_t i = 0; i < fallbacks.size(); ++i) {
    const Fallback& f = r.delegation.fallbacks[i];
    EXPECT_EQ(fallbacks[i].node, r.graph->node(f.node).name);
    EXPECT_EQ(fallbacks[i].code, f.code.value_or(DiagCode::kCpuFallback));
    EXPECT_EQ(primaryLocation(fallbacks[i]).rfind("node '" + fallbacks[i].node + "'", 0), 0u);
  }
}

testing::CommandResult qnnValidate(const std::string& args) {
  return testing::run("cd " + testing::shellQuote(kSource) + " && env QNNRULES_PATH= " +
                      testing::shellQuote(QNNRULES_VALIDATE_EXE) + " " + args);
}

TEST(CliTime, TextReportEndsWithThePhaseBreakdown) {
  testing::CommandResult r = qnnValidate("tests/data/pt2/q8a8w.pt2 --soc SM8650 --time");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  const size_t at = r.output.find("\ntime: phase");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string block = r.output.substr(at);
  for (const char* phase : {"rule load", "read", "fold", "validate", "partition", "report", "total"})
    EXPECT_NE(block.find("\n  " + std::string(phase) + " "), std::string::npos) << phase << "\n" << block;
  EXPECT_EQ(block.find("annotate"), std::string::npos) << "a phase that did not run is not listed";
}

TEST(CliTime, JsonReportHasTheTimesObject) {
  testing::CommandResult r = qnnValidate("tests/data/pt2/q8a8w.pt2 --soc SM8650 --time --format json");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  ASSERT_TRUE(j.contains("times")) << r.output;
  for (const char* phase : {"rule_load", "read", "fold", "validate", "partition", "report", "total"}) {
    ASSERT_TRUE(j["times"].contains(phase)) << phase;
    EXPECT_GE(j["times"][phase]["wall_ms"].get<double>(), 0.0);
    EXPECT_GE(j["times"][phase]["cpu_ms"].get<double>(), 0.0);
  }
  EXPECT_FALSE(j["times"].contains("annotate"));
}

TEST(CliTime, WithoutTheFlagNoTimesArePrinted) {
  EXPECT_EQ(qnnValidate("tests/data/pt2/q8a8w.pt2 --soc SM8650").output.find("time:"), std::string::npos);
  EXPECT_FALSE(nlohmann::json::parse(qnnValidate("tests/data/pt2/q8a8w.pt2 --soc SM8650 --format json").output)
                   .contains("times"));
}

}  // namespace
}  // namespace qnnrules
