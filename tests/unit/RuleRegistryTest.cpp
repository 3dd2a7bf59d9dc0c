// The registry: lazy per-backend loading, overlays, cross-file duplicate checks, threads.
#include <gtest/gtest.h>

#include <thread>

#include "TestUtil.h"
#include "qnnrules/Engine.h"
#include "qnnrules/RuleRegistry.h"

namespace qnnrules {
namespace {

using testing::TempDir;

std::string opRule(const std::string& id, const std::string& target, const std::string& qnnOp = "Relu") {
  return "  - id: " + id + "\n    targets: [" + target + "]\n    qnn_op: " + qnnOp +
         "\n    pattern: siso\n    description: " + id + " test rule.\n"
         "    inputs: [{name: input}]\n    outputs: [{name: output}]\n"
         "    variants:\n      - name: a8\n        ports:\n"
         "          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n"
         "          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n";
}

std::string ruleFile(const std::string& rules) { return "version: 1\nrules:\n" + rules; }

constexpr const char* kSocs =
    "version: 1\nsocs:\n  - {name: SM8650, id: 57, htp_arch: V75, vtcm_mb: 8}\n"
    "  - {name: SM8350, id: 30, htp_arch: V68, vtcm_mb: 4}\n";

RegistryOptions opts(const TempDir& builtin, std::vector<std::filesystem::path> overlays = {}) {
  RegistryOptions o;
  o.builtinDir = builtin.path();
  o.overlayDirs = std::move(overlays);
  o.useEnvironment = false;
  return o;
}

TEST(RuleRegistry, LoadsABackendFromEveryYamlFileBelowItsFolder) {
  TempDir d;
  d.write("htp/ops/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  d.write("htp/more/b.yaml", ruleFile(opRule("htp.gelu", "aten.gelu.default", "Gelu")));
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("htp");
  ASSERT_TRUE(load.status.isOk()) << load.status.toString();
  EXPECT_EQ(load.rules->rules().size(), 2u);
  ASSERT_NE(load.rules->findByTarget("aten.gelu.default"), nullptr);
  EXPECT_EQ(load.rules->findByTarget("aten.gelu.default")->id, "htp.gelu");
  EXPECT_EQ(load.rules->findById("htp.relu")->origin, "builtin");
}

TEST(RuleRegistry, BackendsThatAreNeverAskedForAreNeverRead) {
  TempDir d;
  d.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  d.write("lpai/broken.yaml", "version: 1\nrules: [ this is not: valid");
  RuleRegistry reg(opts(d));
  EXPECT_TRUE(reg.backend("htp").status.isOk());
  // Only asking for lpai reads (and rejects) its broken file.
  const BackendLoad& lpai = reg.backend("lpai");
  EXPECT_EQ(lpai.status.code(), StatusCode::kRuleError);
  ASSERT_FALSE(lpai.errors.empty());
  EXPECT_EQ(lpai.errors[0].code, DiagCode::kYamlSyntax);
}

TEST(RuleRegistry, ResultsAreCachedAndSharedAcrossThreads) {
  TempDir d;
  d.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  RuleRegistry reg(opts(d));
  std::vector<const RuleSet*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([&, i] { seen[i] = reg.backend("htp").rules.get(); });
  for (auto& t : threads) t.join();
  for (const RuleSet* s : seen) EXPECT_EQ(s, seen[0]);
  EXPECT_NE(seen[0], nullptr);
}

TEST(RuleRegistry, OverlayReplacesARuleWithTheSameIdAndAddsNewIds) {
  TempDir builtin, overlay;
  builtin.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  overlay.write("htp/mine.yaml", ruleFile(opRule("htp.relu", "aten.relu.default", "ReluMinMax") +
                                          opRule("htp.my_op", "aten.my_custom_op.default", "MyOp")));
  RuleRegistry reg(opts(builtin, {overlay.path()}));
  const BackendLoad& load = reg.backend("htp");
  ASSERT_TRUE(load.status.isOk()) << load.status.toString();
  EXPECT_EQ(load.rules->rules().size(), 2u);
  EXPECT_EQ(load.rules->findById("htp.relu")->qnnOp, "ReluMinMax");
  EXPECT_NE(load.rules->findById("htp.relu")->origin, "builtin");
  EXPECT_EQ(load.rules->findByTarget("aten.my_custom_op.default")->id, "htp.my_op");
}

TEST(RuleRegistry, OverlayFromEnvironmentIsSearched) {
  TempDir builtin, overlay;
  builtin.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  overlay.write("htp/mine.yaml", ruleFile(opRule("htp.my_op", "aten.my_custom_op.default", "MyOp")));
  setenv("QNNRULES_PATH", ("/nonexistent-first:" + overlay.path().string()).c_str(), 1);
  RegistryOptions o = opts(builtin);
  o.useEnvironment = true;
  RuleRegistry reg(o);
  unsetenv("QNNRULES_PATH");
  ASSERT_EQ(reg.searchPath().size(), 3u);
  const BackendLoad& load = reg.backend("htp");
  // The missing directory is an error, not silently skipped.
  EXPECT_FALSE(load.status.isOk());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_NE(load.errors[0].message.find("/nonexistent-first does not exist"), std::string::npos)
      << load.errors[0].message;
}

TEST(RuleRegistry, NewIdClaimingAnExistingTargetIsAnErrorNamingBothRules) {
  TempDir builtin, overlay;
  builtin.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  overlay.write("htp/mine.yaml", ruleFile(opRule("htp.my_relu", "aten.relu.default")));
  RuleRegistry reg(opts(builtin, {overlay.path()}));
  const BackendLoad& load = reg.backend("htp");
  EXPECT_EQ(load.status.code(), StatusCode::kRuleError);
  ASSERT_EQ(load.errors.size(), 1u);
  const Diagnostic& e = load.errors[0];
  EXPECT_EQ(e.code, DiagCode::kDuplicateTarget);
  EXPECT_NE(e.message.find("'aten.relu.default' is claimed by rule 'htp.my_relu' and by rule 'htp.relu'"),
            std::string::npos) << e.message;
  EXPECT_NE(e.message.find("a.yaml:3"), std::string::npos) << e.message;
  EXPECT_EQ(e.hint, "to replace rule 'htp.relu' from an overlay, reuse its id");
  EXPECT_NE(e.mark.toString().find("mine.yaml:3"), std::string::npos) << e.mark.toString();
}

TEST(RuleRegistry, DuplicateIdWithinOneDirectoryIsAnError) {
  TempDir d;
  d.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  d.write("htp/b.yaml", ruleFile(opRule("htp.relu", "aten.relu_.default")));
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("htp");
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(load.errors[0].code, DiagCode::kDuplicateRuleId);
  EXPECT_NE(load.errors[0].message.find("a.yaml:3"), std::string::npos);
  EXPECT_NE(load.errors[0].mark.toString().find("b.yaml:3"), std::string::npos);
}

TEST(RuleRegistry, UnknownBackendListsTheAvailableOnes) {
  TempDir d;
  d.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("npu");
  EXPECT_EQ(load.status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(load.status.message(), "unknown backend 'npu'; available: htp");
  EXPECT_EQ(reg.backend("../etc").status.code(), StatusCode::kInvalidArgument);
}

TEST(RuleRegistry, OverlaySocReplacesByNameAndAddsNew) {
  TempDir builtin, overlay;
  builtin.write("socs.yaml", kSocs);
  overlay.write("socs.yaml", "version: 1\nsocs:\n  - {name: SM8350, id: 30, htp_arch: V69, vtcm_mb: 4}\n"
                             "  - {name: XYZ1, id: 999, htp_arch: V81, vtcm_mb: 8}\n");
  RuleRegistry reg(opts(builtin, {overlay.path()}));
  const auto& socs = reg.socs();
  ASSERT_TRUE(socs.status.isOk()) << socs.status.toString();
  EXPECT_EQ(socs.table->all().size(), 3u);
  EXPECT_EQ(socs.table->find("sm8350")->htpArch, HtpArch::kV69);
  EXPECT_EQ(socs.table->find("XYZ1")->chipsetId, 999);
}

TEST(Engine, OpensAndValidatesOrReportsWhyNot) {
  TempDir d;
  d.write("socs.yaml", kSocs);
  d.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  EngineOptions o;
  o.builtinRulesDir = d.path();
  o.useEnvironment = false;
  o.soc = "SM8650";
  Engine ok(o);
  ASSERT_TRUE(ok.ok()) << ok.status().toString();
  EXPECT_EQ(ok.soc().htpArch, HtpArch::kV75);

  o.soc = "SM9999";
  Engine badSoc(o);
  EXPECT_FALSE(badSoc.ok());
  EXPECT_EQ(badSoc.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(badSoc.status().message(), "unknown SoC 'SM9999'; known SoCs: SM8650, SM8350");

  o.soc = "SM8650";
  o.backend = "lpai";
  Engine noLpai(o);
  EXPECT_FALSE(noLpai.ok());
  EXPECT_NE(noLpai.status().message().find("SM8650 has no LPAI"), std::string::npos);
}

TEST(Engine, BuiltinRulesLoadCleanly) {
  EngineOptions o;
  o.builtinRulesDir = QNNRULES_SOURCE_DIR "/rules";
  o.useEnvironment = false;
  o.soc = "SM8650";
  Engine e(o);
  ASSERT_TRUE(e.ok()) << e.status().toString()
                      << (e.loadErrors().empty() ? "" : "\n" + formatText(e.loadErrors()[0]));
  EXPECT_GT(e.rules().rules().size(), 10u);
  EXPECT_NE(e.rules().findByTarget("aten.conv2d.default"), nullptr);
  EXPECT_NE(e.registry().socs().table->find("SM8350"), nullptr);
}

}  // namespace
}  // namespace qnnrules
