// qnn-validate's delegation options end to end: --backend-option checking (exit 2),
// --require-full-delegation / --no-require-full-delegation, the text and JSON reports, --dot.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "DelegationTestGraphs.h"
#include "TestUtil.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::GraphBuilder;
using testing::shellQuote;
using testing::TempDir;

// A built-in rules directory: the delegation test rules and SoCs plus the real backend options.
class DelegationCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy(testing::kDelegationData + "/rules", dir_.path() / "rules",
                          std::filesystem::copy_options::recursive);
    std::filesystem::copy_file(QNNRULES_SOURCE_DIR "/rules/backend_options.yaml",
                               dir_.path() / "rules" / "backend_options.yaml");
    dir_.write("mid.json", GraphBuilder::chain({"aten.relu.default", "aten.nonzero.default", "aten.relu.default"}).text());
    dir_.write("full.json", GraphBuilder::chain({"aten.relu.default", "aten.relu.default"}).text());
  }
  // Output is stdout and stderr interleaved, or stdout only (JSON) when stderrToo is false.
  CommandResult run(const std::string& args, bool stderrToo = true) {
    std::string cmd = "cd " + shellQuote(dir_.path().string()) + " && env QNNRULES_PATH= QNNRULES_BUILTIN_RULES=" +
                      shellQuote((dir_.path() / "rules").string()) + " " + shellQuote(QNNRULES_VALIDATE_EXE) + " " +
                      args;
    return testing::run(stderrToo ? cmd : "(" + cmd + ")");
  }
  nlohmann::json runJson(const std::string& args, int expectedExit) {
    CommandResult r = run(args + " --format json 2>/dev/null", /*stderrToo=*/false);
    EXPECT_EQ(r.exitCode, expectedExit) << r.output;
    return nlohmann::json::parse(r.output, nullptr, false);
  }
  TempDir dir_;
};

TEST_F(DelegationCli, LpaiWithAnUnsupportedOpInTheMiddleFailsFullDelegation) {
  CommandResult r = run("mid.json --backend lpai --soc SM8850");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("2 of 3 compute node(s) delegated in 2 partition(s), 1 on CPU"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("error[full-delegation]: the graph splits into 2 partitions"), std::string::npos);
  EXPECT_NE(r.output.find("n1 (unsupported)"), std::string::npos);
  EXPECT_NE(r.output.find("on CPU by lpai policy: quantize of graph input 'x' runs on CPU"), std::string::npos);
}

TEST_F(DelegationCli, LpaiPassesAFullySupportedGraph) {
  CommandResult r = run("full.json --backend lpai --soc SM8850");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("full delegation: required, satisfied"), std::string::npos) << r.output;
}

TEST_F(DelegationCli, FullDelegationFlagsOverrideTheBackendDefault) {
  // LPAI without the requirement: the unsupported op is still an error (strict), but not full delegation.
  CommandResult off = run("mid.json --backend lpai --soc SM8850 --no-require-full-delegation");
  EXPECT_EQ(off.output.find("full-delegation"), std::string::npos) << off.output;
  // HTP does not require it by default, but can be asked to; --warn then reports without failing.
  nlohmann::json j = runJson("mid.json --backend htp --soc SM8650 --require-full-delegation --warn", 0);
  EXPECT_EQ(j["delegation"]["full_delegation"]["required"], true);
  EXPECT_EQ(j["delegation"]["full_delegation"]["ok"], false);
  EXPECT_EQ(j["delegation"]["full_delegation"]["offenders"], nlohmann::json({"n1"}));
  CommandResult both = run("mid.json --require-full-delegation --no-require-full-delegation");
  EXPECT_EQ(both.exitCode, 2) << both.output;
}

TEST_F(DelegationCli, JsonReportHasPartitionsFallbacksAndResolvedOptions) {
  nlohmann::json j = runJson("mid.json --backend lpai --soc SM8850 --backend-option fps=30 --backend-option affinity=hard", 1);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["delegation"]["partition_count"], 2);
  EXPECT_EQ(j["delegation"]["fallbacks"][0]["node"], "n1");
  EXPECT_EQ(j["delegation"]["fallbacks"][0]["reason"], "unsupported");
  EXPECT_EQ(j["backend_options"]["fps"]["value"], "30");
  EXPECT_EQ(j["backend_options"]["fps"]["default"], false);
  EXPECT_EQ(j["backend_options"]["affinity"]["code"], 2);
  EXPECT_EQ(j["backend_options"]["ftrt_ratio"]["value"], "10");  // defaults filled
  EXPECT_EQ(j["backend_options"]["ftrt_ratio"]["default"], true);
  EXPECT_EQ(j["backend_options"].size(), 6u);
}

TEST_F(DelegationCli, BadBackendOptionsExitTwoWithEveryError) {
  CommandResult r = run("full.json --backend lpai --soc SM8850 --backend-option fsp=30 --backend-option fps=0 "
                        "--backend-option affinity=hrad --backend-option ftrt_ratio=fast");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("error[unknown-key]: unknown option 'fsp' for backend lpai"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("did you mean 'fps'?"), std::string::npos);
  EXPECT_NE(r.output.find("error[invalid-value]: option 'fps' is out of range"), std::string::npos);
  EXPECT_NE(r.output.find("error[unknown-enum-value]: unknown value for option 'affinity'"), std::string::npos);
  EXPECT_NE(r.output.find("error[wrong-type]: option 'ftrt_ratio' takes an integer"), std::string::npos);
  EXPECT_NE(r.output.find("4 bad backend option(s) for lpai"), std::string::npos);
  nlohmann::json j = runJson("full.json --backend lpai --soc SM8850 --backend-option fps=0", 2);
  EXPECT_EQ(j["error"]["kind"], "backend-option");
  // The option's value may come before the graph path without swallowing it.
  EXPECT_EQ(run("--backend lpai --soc SM8850 --backend-option fps=30 full.json").exitCode, 0);
}

TEST_F(DelegationCli, DotFileIsWrittenAndRenders) {
  CommandResult r = run("mid.json --backend htp --soc SM8650 --warn --dot pic.dot");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  std::ifstream in(dir_.path() / "pic.dot");
  std::string dot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(dot.find("subgraph cluster_p1"), std::string::npos) << dot;
  EXPECT_EQ(testing::run("dot -Tsvg " + shellQuote((dir_.path() / "pic.dot").string()) + " >/dev/null").exitCode, 0)
      << "graphviz (dot) is installed by scripts/setup.sh";
  CommandResult bad = run("mid.json --backend htp --soc SM8650 --warn --dot no/such/dir/pic.dot");
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("cannot write"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace qnnrules
