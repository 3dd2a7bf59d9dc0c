// qnn-validate's command line as a user meets it: --rules takes one directory per use, --help
// lists the exit codes, SPDLOG_LEVEL is honoured, colour follows --color and NO_COLOR, a
// missing recipe is "not found", --list-rules / --list-socs have a JSON form, and names in
// the graph cannot break the --html page.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "TestUtil.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::shellQuote;
using testing::TempDir;

CommandResult qnnValidate(const std::string& args, const std::string& env = "QNNRULES_PATH=") {
  return testing::run("cd " + shellQuote(QNNRULES_SOURCE_DIR) + " && env " + env + " " +
                      shellQuote(QNNRULES_VALIDATE_EXE) + " " + args);
}

TEST(CliSurface, RulesTakesOneDirectoryPerUseSoTheGraphStaysTheGraph) {
  TempDir d;
  d.write("htp/empty.yaml", "version: 1\nrules: []\n");
  CommandResult r = qnnValidate("--rules " + shellQuote(d.path().string()) + " examples/tiny_cnn_8a8w.json --soc SM8650");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(r.output.find("a graph file is required"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verdict: VALID"), std::string::npos) << r.output;
}

TEST(CliSurface, HelpListsTheExitCodes) {
  CommandResult r = qnnValidate("--help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.output.find("Exit codes:\n  0  valid, or warn mode\n  1  strict mode"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  2  usage error or bad input"), std::string::npos) << r.output;
  CommandResult rules = testing::run(shellQuote(QNNRULES_RULES_EXE) + " --help");
  EXPECT_NE(rules.output.find("Exit codes:"), std::string::npos) << rules.output;
}

TEST(CliSurface, SpdlogLevelIsHonouredUnlessLogLevelIsGiven) {
  const std::string args = "examples/tiny_cnn_8a8w.json --soc SM8650";
  EXPECT_NE(qnnValidate(args, "QNNRULES_PATH= SPDLOG_LEVEL=debug").output.find("loading rules for backend 'htp'"),
            std::string::npos);
  EXPECT_EQ(qnnValidate(args).output.find("loading rules"), std::string::npos);
  EXPECT_EQ(qnnValidate(args + " --log-level warn", "QNNRULES_PATH= SPDLOG_LEVEL=debug").output.find("loading rules"),
            std::string::npos);
  CommandResult rules = testing::run("env QNNRULES_PATH= SPDLOG_LEVEL=debug " + shellQuote(QNNRULES_RULES_EXE) +
                                     " list --backend htp");
  EXPECT_NE(rules.output.find("loading rules for backend 'htp'"), std::string::npos) << rules.output.substr(0, 300);
}

TEST(CliSurface, ColourFollowsTheFlagAndNoColor) {
  const std::string args = "examples/violations.json --soc SM8650";
  const std::string escape = "\x1b[";
  EXPECT_NE(qnnValidate(args + " --color always").output.find(escape), std::string::npos);
  EXPECT_EQ(qnnValidate(args + " --color never").output.find(escape), std::string::npos);
  EXPECT_EQ(qnnValidate(args).output.find(escape), std::string::npos) << "auto: stdout is a pipe";
  EXPECT_EQ(qnnValidate(args + " --color auto", "QNNRULES_PATH= NO_COLOR=1").output.find(escape), std::string::npos);
  CommandResult bad = qnnValidate(args + " --color sometimes");
  EXPECT_EQ(bad.exitCode, 2);
}

TEST(CliSurface, MissingRecipeIsFileNotFoundNotYaml) {
  CommandResult r = qnnValidate("examples/tiny_cnn_8a8w.json --soc SM8650 --annotate 8a8w --recipe no-such-recipe.yaml");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("recipe file not found: no-such-recipe.yaml"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("yaml-syntax"), std::string::npos) << r.output;
}

TEST(CliSurface, ListRulesAndSocsAsJson) {
  CommandResult rules = qnnValidate("--list-rules --backend htp --format json");
  ASSERT_EQ(rules.exitCode, 0) << rules.output;
  nlohmann::json r = nlohmann::json::parse(rules.output);
  EXPECT_EQ(r["backend"], "htp");
  ASSERT_FALSE(r["rules"].empty());
  bool conv = false;
  for (const auto& rule : r["rules"]) conv |= rule["id"] == "htp.conv2d" && rule["location"]["line"].get<int>() > 0;
  EXPECT_TRUE(conv) << rules.output.substr(0, 500);
  CommandResult socs = qnnValidate("--list-socs --format json");
  ASSERT_EQ(socs.exitCode, 0) << socs.output;
  nlohmann::json s = nlohmann::json::parse(socs.output);
  bool sm8650 = false;
  for (const auto& soc : s["socs"]) sm8650 |= soc["name"] == "SM8650" && soc["hardware"]["htp"] == "V75";
  EXPECT_TRUE(sm8650) << socs.output.substr(0, 500);
}

// A node name that closes the script element stays data.
TEST(ReportHtml, NamesCannotEndTheDataBlock) {
  TempDir d;
  const std::string g = d.write("g.json", R"({"format": "qnnrules-graph", "version": 1, "name": "</script><b>x",
    "nodes": [{"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1]}]},
              {"name": "</script>", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x"}],
               "outputs": [{"dtype": "float32", "shape": [1]}]},
              {"name": "out", "kind": "output", "args": [[{"ref": "</script>"}]]}]})").string();
  const std::string page = (d.path() / "r.html").string();
  qnnValidate(shellQuote(g) + " --soc SM8650 --html " + shellQuote(page));
  const std::string html = testing::readFile(page);
  ASSERT_FALSE(html.empty());
  // Exactly the page's own two script elements end.
  size_t closes = 0;
  for (size_t at = html.find("</script>"); at != std::string::npos; at = html.find("</script>", at + 1)) ++closes;
  EXPECT_EQ(closes, 2u);
  EXPECT_NE(html.find("\\u003c/script>"), std::string::npos);
}

}  // namespace
}  // namespace qnnrules
