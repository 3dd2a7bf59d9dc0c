// qnn-validate end to end: exit codes, output formats, overlays, bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "TestUtil.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::shellQuote;
using testing::TempDir;

const std::string kSource = QNNRULES_SOURCE_DIR;

// Runs qnn-validate from the source root (so rule paths print as rules/htp/...), with the
// environment's overlay path cleared unless a test sets it.
CommandResult qnnValidate(const std::string& args, const std::string& env = "QNNRULES_PATH=") {
  return testing::run("cd " + shellQuote(kSource) + " && env " + env + " " + shellQuote(QNNRULES_VALIDATE_EXE) +
                      " " + args);
}

std::string example(const std::string& name) { return shellQuote(kSource + "/examples/" + name); }

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

constexpr const char* kCustomGraph = R"({
  "format": "qnnrules-graph", "version": 1, "name": "custom",
  "nodes": [
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4],
      "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255}}]},
    {"name": "c", "kind": "call", "target": "aten.my_custom_op.default",
     "args": [{"ref": "x", "qspec": {"shared_with": {"node": "x"}}}],
     "outputs": [{"dtype": "float32", "shape": [1, 4],
      "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255}}]},
    {"name": "output", "kind": "output", "args": [[{"ref": "c"}]]}
  ]
})";

constexpr const char* kCustomRule = R"(version: 1
rules:
  - id: htp.my_custom_op
    targets: [aten.my_custom_op.default]
    qnn_op: MyCustomOp
    pattern: siso
    description: A custom op from an overlay.
    inputs: [{name: input}]
    outputs: [{name: output}]
    variants:
      - name: a8
        ports:
          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
)";

TEST(Cli, ValidExampleExitsZero) {
  CommandResult r = qnnValidate(example("tiny_cnn_8a8w.json") + " --backend htp --soc SM8650 --strict");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("0 error(s), 0 warning(s) - valid"), std::string::npos) << r.output;
}

TEST(Cli, ViolationsExampleReportsEveryKindInStrictModeAndExitsOne) {
  CommandResult r = qnnValidate(example("violations.json") + " --backend htp --soc SM8650 --strict");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  size_t kinds = 0;
  for (const char* code : {"[no-rule]", "[symmetric]", "[axis]", "[fixed-scale]", "[shared]", "[encoding]",
                           "[bitwidth]", "[no-matching-variant]", "[arch-gate]", "[fixed-offset]"})
    kinds += r.output.find(code) != std::string::npos;
  EXPECT_GE(kinds, 5u) << r.output;
  // Every constraint diagnostic points at a rule file line.
  EXPECT_GE(count(r.output, "--> rules/htp/"), 4u) << r.output;
  EXPECT_NE(r.output.find("INVALID"), std::string::npos);
}

TEST(Cli, WarnModeReportsTheSameAsWarningsAndExitsZero) {
  CommandResult strict = qnnValidate(example("violations.json") + " --soc SM8650 --strict");
  CommandResult warn = qnnValidate(example("violations.json") + " --soc SM8650 --warn");
  EXPECT_EQ(warn.exitCode, 0) << warn.output;
  // The lowering's failure (a refused linear fails ExecuTorch's lowering) is a fact of the
  // delegation, said in both modes; every diagnostic becomes a warning.
  const size_t failures = count(strict.output, "error[session-failure]");
  EXPECT_EQ(failures, 1u) << strict.output;
  EXPECT_EQ(count(warn.output, "error[session-failure]"), failures) << warn.output;
  EXPECT_EQ(count(warn.output, "warning["), count(strict.output, "error[") + count(strict.output, "warning[") - failures);
  EXPECT_EQ(count(warn.output, "error["), failures);
}

TEST(Cli, StrictIsTheDefault) {
  EXPECT_EQ(qnnValidate(example("violations.json") + " --soc SM8650").exitCode, 1);
}

TEST(Cli, BlockwiseExamplePassesOnSM8650AndFailsOnSM8350) {
  EXPECT_EQ(qnnValidate(example("lpbq_linear.json") + " --soc SM8650").exitCode, 0);
  CommandResult r = qnnValidate(example("lpbq_linear.json") + " --soc SM8350");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("error[arch-gate]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("SM8350 is V68"), std::string::npos) << r.output;
}

TEST(Cli, SixteenBitMatmulExamplePassesOnSM8650AndFailsOnSM8350) {
  EXPECT_EQ(qnnValidate(example("matmul_16a16w.json") + " --soc SM8650").exitCode, 0);
  CommandResult r = qnnValidate(example("matmul_16a16w.json") + " --soc SM8350");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("error[arch-gate]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("V73 or newer"), std::string::npos) << r.output;
}

TEST(Cli, JsonFormatIsMachineReadable) {
  CommandResult r = qnnValidate(example("violations.json") + " --soc SM8650 --format json 2>/dev/null");
  EXPECT_EQ(r.exitCode, 1);
  nlohmann::json j = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["soc"], "SM8650");
  EXPECT_EQ(j["soc_hardware"], nlohmann::json({{"htp", "V75"}}));
  ASSERT_TRUE(j["diagnostics"].is_array());
  ASSERT_FALSE(j["diagnostics"].empty());
  for (const auto& d : j["diagnostics"])
    for (const char* key : {"severity", "code", "message", "node", "op", "port", "rule", "location", "expected",
                            "actual", "hint"})
      EXPECT_TRUE(d.contains(key)) << key;
  EXPECT_EQ(j["summary"]["errors"].get<size_t>(), j["diagnostics"].size() - j["summary"]["warnings"].get<size_t>());
}

// Without --soc the run still checks SM8750, and says so in the summary line and the JSON.
TEST(Cli, AnOmittedSocIsNamedAsTheDefault) {
  CommandResult r = qnnValidate(example("tiny_cnn_8a8w.json"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find(" rules for SM8750 (HTP V79; default SoC, choose with --soc), strict mode"),
            std::string::npos)
      << r.output;
  CommandResult chosen = qnnValidate(example("tiny_cnn_8a8w.json") + " --soc SM8750");
  EXPECT_NE(chosen.output.find(" rules for SM8750 (HTP V79), strict mode"), std::string::npos) << chosen.output;
  nlohmann::json j = nlohmann::json::parse(qnnValidate(example("tiny_cnn_8a8w.json") + " --format json").output);
  EXPECT_EQ(j["soc_defaulted"], true);
  EXPECT_EQ(j["soc"], "SM8750");
}

// Every report names the rule directories it read: the build tree's tools read the source
// tree's rules (never an installed copy), then QNNRULES_PATH, then --rules.
TEST(Cli, ReportsNameTheRuleDirectoriesInSearchOrder) {
  TempDir dir;
  dir.write("env/htp/extra.yaml", "version: 1\nrules: []\n");
  dir.write("cli/htp/extra.yaml", "version: 1\nrules: []\n");
  const std::string envDir = (dir.path() / "env").string(), cliDir = (dir.path() / "cli").string();
  CommandResult r = qnnValidate(example("tiny_cnn_8a8w.json") + " --soc SM8650 --format json --rules " +
                                    shellQuote(cliDir),
                                "QNNRULES_BUILTIN_RULES= QNNRULES_PATH=" + shellQuote(envDir));
  nlohmann::json j = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j["rule_dirs"], (nlohmann::json{"rules", envDir, cliDir}));
  CommandResult text = qnnValidate(example("tiny_cnn_8a8w.json") + " --soc SM8650", "QNNRULES_BUILTIN_RULES= QNNRULES_PATH=");
  EXPECT_NE(text.output.find("\nrules from: rules\n"), std::string::npos) << text.output;
}

TEST(Cli, OverlayAddsAnOpWithoutRebuilding) {
  TempDir d;
  std::string graph = d.write("g.json", kCustomGraph).string();
  CommandResult before = qnnValidate(shellQuote(graph) + " --soc SM8650");
  EXPECT_EQ(before.exitCode, 1) << before.output;
  EXPECT_NE(before.output.find("error[no-rule]"), std::string::npos) << before.output;

  d.write("overlay/htp/custom.yaml", kCustomRule);
  std::string overlay = (d.path() / "overlay").string();
  CommandResult viaFlag = qnnValidate(shellQuote(graph) + " --soc SM8650 --rules " + shellQuote(overlay));
  EXPECT_EQ(viaFlag.exitCode, 0) << viaFlag.output;
  CommandResult viaEnv = qnnValidate(shellQuote(graph) + " --soc SM8650", "QNNRULES_PATH=" + shellQuote(overlay));
  EXPECT_EQ(viaEnv.exitCode, 0) << viaEnv.output;

  CommandResult list = qnnValidate("--list-rules --rules " + shellQuote(overlay));
  EXPECT_EQ(list.exitCode, 0);
  EXPECT_NE(list.output.find("htp.my_custom_op  [" + overlay), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("htp.conv2d  [builtin]  rules/htp/"), std::string::npos) << list.output;
}

TEST(Cli, OverlayWithMisspelledKeyFailsWithFileLineColumnAndExitTwo) {
  TempDir d;
  std::string graph = d.write("g.json", kCustomGraph).string();
  std::string bad = kCustomRule;
  bad.replace(bad.find("qnn_op:"), 7, "qnn_opp:");
  d.write("overlay/htp/custom.yaml", bad);
  CommandResult r = qnnValidate(shellQuote(graph) + " --soc SM8650 --rules " + shellQuote((d.path() / "overlay").string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("[unknown-key]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("custom.yaml:5:5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("qnn_opp"), std::string::npos) << r.output;
}

// A YAML file that is just ',' made yaml-cpp 0.7 loop forever, allocating; every YAML the
// tool reads goes through the same guarded parse, so each kind must now exit 2 at once.
TEST(Cli, StrayCommaYamlIsRefusedInEveryYamlInput) {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"overlay/htp/x.yaml", "--rules overlay"},
      {"overlay/socs.yaml", "--rules overlay"},
      {"overlay/quant_configs.yaml", "--rules overlay --annotate 8a8w"},
      {"overlay/backend_options.yaml", "--rules overlay"},
      {"recipe.yaml", "--annotate 8a8w --recipe recipe.yaml"},
  };
  for (const auto& [file, args] : kinds) {
    TempDir d;
    std::string graph = d.write("g.json", kCustomGraph).string();
    d.write(file, ",");
    CommandResult r = testing::run("cd " + shellQuote(d.path().string()) + " && env QNNRULES_PATH= timeout 20 " +
                                   shellQuote(QNNRULES_VALIDATE_EXE) + " " + shellQuote(graph) + " --soc SM8650 " +
                                   args);
    EXPECT_EQ(r.exitCode, 2) << file << "\n" << r.output;
    EXPECT_NE(r.output.find(file + ":1:1"), std::string::npos) << file << "\n" << r.output;
    EXPECT_NE(r.output.find("',' outside a flow collection"), std::string::npos) << file << "\n" << r.output;
  }
}

// /dev/zero skipped the size limit (gigabytes, then an internal error) and a FIFO with no
// writer blocked forever: neither is a regular file, so both are refused before any read.
TEST(Cli, DevicesAndFifosAreRefusedAsGraphs) {
  TempDir d;
  const std::string fifo = (d.path() / "graph.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/zero"), fifo}) {
    CommandResult r = testing::run("env QNNRULES_PATH= timeout 20 " + shellQuote(QNNRULES_VALIDATE_EXE) + " " +
                                   shellQuote(path) + " --soc SM8650");
    EXPECT_EQ(r.exitCode, 2) << path << "\n" << r.output;
    EXPECT_NE(r.output.find("is not a regular file (a device, FIFO or socket)"), std::string::npos)
        << path << "\n" << r.output;
  }
}

struct BadInputCase {
  const char* name;
  const char* graphText;  // written to a file; nullptr: use `args` alone
  const char* args;
  const char* expected;   // substring of the one clear message
};
// Test names in CTest and gtest output: the case name, not the bytes of the struct.
inline void PrintTo(const BadInputCase& c, std::ostream* os) { *os << c.name; }


class CliBadInput : public ::testing::TestWithParam<BadInputCase> {};

TEST_P(CliBadInput, ExitsTwoWithOneClearMessage) {
  const BadInputCase& c = GetParam();
  TempDir d;
  std::string args = c.args;
  if (c.graphText) args = shellQuote(d.write("g.json", c.graphText).string()) + " " + args;
  CommandResult r = qnnValidate(args);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find(c.expected), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    ::testing::Values(
        BadInputCase{"malformed", "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": [}", "--soc SM8650",
                     "qnn-validate: error:"},
        BadInputCase{"truncated", "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": [", "--soc SM8650",
                     "qnn-validate: error:"},
        BadInputCase{"empty", "", "--soc SM8650", "qnn-validate: error:"},
        BadInputCase{"schema", "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": [{\"name\": 3}]}",
                     "--soc SM8650", "qnn-validate: error:"},
        BadInputCase{"wrong_version", "{\"format\": \"qnnrules-graph\", \"version\": 7, \"nodes\": []}",
                     "--soc SM8650", "qnn-validate: error:"},
        BadInputCase{"unknown_soc", "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": []}",
                     "--soc SM1234", "unknown SoC 'SM1234'"},
        BadInputCase{"unknown_backend", "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": []}",
                     "--soc SM8650 --backend npu", "unknown backend 'npu'"},
        BadInputCase{"lpai_without_lpai_soc", "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": []}",
                     "--soc SM8650 --backend lpai", "SM8650 has no LPAI"},
        BadInputCase{"missing_file", nullptr, "/nonexistent/graph.json --soc SM8650", "qnn-validate: error:"},
        BadInputCase{"no_graph", nullptr, "--soc SM8650", "a graph file is required"},
        BadInputCase{"unknown_flag", nullptr, "--frobnicate", "frobnicate"},
        BadInputCase{"strict_and_warn", nullptr, "x.json --strict --warn", "excludes"},
        BadInputCase{"bad_format", nullptr, "x.json --format xml", "xml"},
        BadInputCase{"missing_overlay", "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": []}",
                     "--soc SM8650 --rules /nonexistent-overlay", "/nonexistent-overlay does not exist"}),
    [](const ::testing::TestParamInfo<BadInputCase>& p) { return std::string(p.param.name); });

TEST(Cli, DeeplyNestedGraphIsRefusedNotACrash) {
  TempDir d;
  std::string deep = "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": [], \"meta\": ";
  deep += std::string(200000, '[') + std::string(200000, ']') + "}";
  CommandResult r = qnnValidate(shellQuote(d.write("deep.json", deep).string()) + " --soc SM8650");
  EXPECT_EQ(r.exitCode, 2) << r.output.substr(0, 500);
  EXPECT_NE(r.output.find("qnn-validate: error:"), std::string::npos) << r.output.substr(0, 500);
}

TEST(Cli, EmptyGraphIsValid) {
  TempDir d;
  std::string g = d.write("g.json", "{\"format\": \"qnnrules-graph\", \"version\": 1, \"nodes\": []}").string();
  CommandResult r = qnnValidate(shellQuote(g) + " --soc SM8650");
  EXPECT_EQ(r.exitCode, 0) << r.output;
}

TEST(Cli, HelpExitsZero) {
  CommandResult r = qnnValidate("--help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.output.find("--soc"), std::string::npos);
}

TEST(Cli, ListSocsShowsEveryHardwareColumn) {
  CommandResult r = qnnValidate("--list-socs");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("SM8650  HTP V75"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("SM8850  HTP V81  LPAI V6  VTCM 8 MB"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qnnrules
