// The delegation report through the embedding API on the built-in rules: Engine::analyze,
// backend options resolved by the engine, and LPAI's full-delegation default.
#include <gtest/gtest.h>

#include "DelegationTestGraphs.h"
#include "qnnrules/Engine.h"

namespace qnnrules {
namespace {

using testing::GraphBuilder;

// uint8 symmetric (zero point 128), which both HTP and LPAI accept for relu / abs.
nlohmann::json sym8() {
  return {{"dtype", "uint8"}, {"quant_min", 0}, {"quant_max", 255}, {"qscheme", "per_tensor_symmetric"},
          {"scale", 0.02}, {"zero_point", 128}};
}

Graph chain(const std::vector<std::string>& targets) {
  GraphBuilder g;
  g.input("x", sym8());
  std::string prev = "x";
  for (size_t i = 0; i < targets.size(); ++i) {
    std::string name = "n" + std::to_string(i);
    g.call(name, targets[i], {GraphBuilder::ref(prev, sym8())}, {GraphBuilder::tensor(sym8())});
    prev = name;
  }
  return g.output({prev}).build();
}

Engine open(const std::string& backend, const std::string& soc, std::vector<std::string> options = {},
            Mode mode = Mode::kStrict) {
  EngineOptions o;
  o.backend = backend;
  o.soc = soc;
  o.mode = mode;
  o.useEnvironment = false;
  o.builtinRulesDir = QNNRULES_SOURCE_DIR "/rules";
  o.backendOptions = std::move(options);
  return Engine(o);
}

TEST(DelegationBuiltin, HtpSupportedChainIsOnePartitionAndAnUnknownOpSplitsIt) {
  Engine e = open("htp", "SM8650");
  ASSERT_TRUE(e.ok()) << e.status().toString();
  GraphAnalysis ok = e.analyze(chain({"aten.relu.default", "aten.abs.default", "aten.relu.default"}));
  EXPECT_TRUE(ok.validation.ok()) << (ok.validation.diagnostics.empty() ? "" : formatText(ok.validation.diagnostics[0]));
  EXPECT_EQ(ok.delegation.partitions.size(), 1u);
  EXPECT_EQ(ok.delegation.delegatedComputeNodes, 3u);
  EXPECT_FALSE(ok.delegation.fullDelegationRequired);

  GraphAnalysis split = e.analyze(chain({"aten.relu.default", "aten.my_custom_op.default", "aten.relu.default"}));
  EXPECT_EQ(split.delegation.partitions.size(), 2u);
  ASSERT_EQ(split.delegation.fallbacks.size(), 1u);
  EXPECT_EQ(split.delegation.fallbacks[0].reason, FallbackReason::kNoRule);
}

TEST(DelegationBuiltin, WarnModeDowngradesDiagnosticsButStillPartitionsOnSupport) {
  Engine e = open("htp", "SM8650", {}, Mode::kWarn);
  ASSERT_TRUE(e.ok());
  GraphAnalysis a = e.analyze(chain({"aten.relu.default", "aten.my_custom_op.default", "aten.relu.default"}));
  EXPECT_EQ(a.validation.errorCount(), 0u);
  EXPECT_GE(a.validation.warningCount(), 1u);
  EXPECT_FALSE(a.delegation.strict);
  EXPECT_EQ(a.delegation.partitions.size(), 2u);  // no rule is no rule, whatever the mode
}

TEST(DelegationBuiltin, EngineResolvesBackendOptionsOrRefusesToOpen) {
  Engine none = open("htp", "SM8650");
  EXPECT_TRUE(none.backendOptions().empty());  // HTP takes no options in backend_options.yaml
  Engine bad = open("htp", "SM8650", {"fps=30"});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  ASSERT_EQ(bad.loadErrors().size(), 1u);
  EXPECT_EQ(bad.loadErrors()[0].code, DiagCode::kUnknownKey);
}

TEST(DelegationBuiltin, LpaiRequiresFullDelegationByDefault) {
  Engine e = open("lpai", "SM8850", {"fps=30", "affinity=hard"});
  ASSERT_TRUE(e.ok()) << e.status().toString();
  ASSERT_EQ(e.backendOptions().size(), 6u);
  EXPECT_EQ(e.backendOptions()[0].text(), "30");
  GraphAnalysis full = e.analyze(chain({"aten.relu.default", "aten.relu.default"}));
  EXPECT_TRUE(full.delegation.fullDelegationRequired);
  EXPECT_TRUE(full.delegation.ok()) << full.delegation.fullDelegationProblems[0];
  EXPECT_EQ(full.delegation.cpuConversions.size(), 2u);  // graph-input quantize, graph-output dequantize
  GraphAnalysis split = e.analyze(chain({"aten.relu.default", "aten.my_custom_op.default", "aten.relu.default"}));
  EXPECT_FALSE(split.delegation.ok());
  ASSERT_EQ(split.delegation.fullDelegationOffenders.size(), 1u);
}

}  // namespace
}  // namespace qnnrules
