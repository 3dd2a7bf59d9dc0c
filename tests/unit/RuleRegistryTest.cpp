// The registry: lazy per-backend loading, overlays, cross-file duplicate checks, threads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "TestUtil.h"
#include "qnnrules/Engine.h"
#include "qnnrules/load/RuleRegistry.h"

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
    "version: 1\nhardware: {htp: [V68, V69, V73, V75, V79, V81], lpai: [V6]}\n"
    "socs:\n  - {name: SM8650, id: 57, htp: V75, vtcm_mb: 8}\n"
    "  - {name: SM8350, id: 30, htp: V68, vtcm_mb: 4}\n";

RegistryOptions opts(const TempDir& builtin, std::vector<std::filesystem::path> overlays = {}) {
  RegistryOptions o;
  o.builtinDir = builtin.path();
  o.overlayDirs = std::move(overlays);
  o.useEnvironment = false;
  return o;
}

// This test binary lives in the build tree, so it reads the source tree it was built from
// (an installed copy under the configured prefix must never shadow it). With
// QNNRULES_BUILTIN_RULES set, that directory wins.
TEST(RuleRegistry, BuildTreeBinariesReadTheSourceTreesRules) {
  const char* saved = std::getenv("QNNRULES_BUILTIN_RULES");
  const std::string keep = saved ? saved : "";
  unsetenv("QNNRULES_BUILTIN_RULES");
  EXPECT_EQ(std::filesystem::canonical(findBuiltinRulesDir()),
            std::filesystem::canonical(std::string(QNNRULES_SOURCE_DIR) + "/rules"));
  setenv("QNNRULES_BUILTIN_RULES", "/elsewhere/rules", 1);
  EXPECT_EQ(findBuiltinRulesDir(), std::filesystem::path("/elsewhere/rules"));
  if (saved) setenv("QNNRULES_BUILTIN_RULES", keep.c_str(), 1);
  else unsetenv("QNNRULES_BUILTIN_RULES");
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
  EXPECT_EQ(load.status.message(), "unknown backend 'npu' (available: htp)");
  EXPECT_EQ(reg.backend("../etc").status.code(), StatusCode::kInvalidArgument);
}

// Issue 24: a directory too large (or too deep) to be a rules directory -- `--rules /`, a home
// directory -- is refused after a bounded walk, with one error naming it, instead of every
// YAML file below it being read and hashed. The limits are LoadLimits' (small here).
TEST(RuleRegistry, ADirectoryTooLargeToBeARulesDirectoryIsRefused) {
  TempDir builtin, overlay, deep;
  builtin.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  for (int i = 0; i < 6; ++i) overlay.write("photos/" + std::to_string(i) + ".jpg", "not a rule");
  deep.write("a/b/c/d/e.yaml", "version: 1\nrules: []\n");
  RegistryOptions o = opts(builtin, {overlay.path()});
  o.limits.maxRuleTreeEntries = 6;
  o.limits.maxRuleTreeDepth = 3;
  RuleRegistry reg(o);
  const BackendLoad& load = reg.backend("htp");
  EXPECT_EQ(load.status.code(), StatusCode::kRuleError);
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(formatText(load.errors[0]),
            "error[invalid-value]: rules directory " + overlay.path().string() +
                " is not read: it holds more than 6 files and folders, or folders more than 3 levels deep. A rules "
                "directory is laid out like rules/ (DIR/<backend>/*.yaml, DIR/socs.yaml, ...); pass that directory, "
                "not one above it\n");
  EXPECT_EQ(reg.availableBackends(), std::vector<std::string>{"htp"});  // the refused one offers none
  o.overlayDirs = {deep.path()};
  RuleRegistry deeper(o);
  ASSERT_EQ(deeper.backend("htp").errors.size(), 1u);
  EXPECT_NE(deeper.backend("htp").errors[0].message.find("is not read"), std::string::npos);
  o.limits.maxRuleTreeDepth = 4;  // a/b/c/d/e.yaml is 4 folders down: within the bound
  RuleRegistry within(o);
  EXPECT_TRUE(within.backend("htp").status.isOk()) << within.backend("htp").status.toString();
}

TEST(RuleRegistry, OverlaySocReplacesByNameAndAddsNew) {
  TempDir builtin, overlay;
  builtin.write("socs.yaml", kSocs);
  overlay.write("socs.yaml", "version: 1\nsocs:\n  - {name: SM8350, id: 30, htp: V69, vtcm_mb: 4}\n"
                             "  - {name: XYZ1, id: 999, htp: V81, vtcm_mb: 8}\n");
  RuleRegistry reg(opts(builtin, {overlay.path()}));
  const auto& socs = reg.socs();
  ASSERT_TRUE(socs.status.isOk()) << socs.status.toString();
  EXPECT_EQ(socs.table->all().size(), 3u);
  EXPECT_EQ(socs.table->find("sm8350")->versionOn("htp"), "V69");
  EXPECT_EQ(socs.table->find("XYZ1")->chipsetId, 999);
}

TEST(Engine, OpensAndValidatesOrReportsWhyNot) {
  TempDir d;
  d.write("socs.yaml", kSocs);
  d.write("htp/a.yaml", ruleFile(opRule("htp.relu", "aten.relu.default")));
  EngineOptions o;
  o.backend = "htp";  // no manifest says `default: true` here
  o.builtinRulesDir = d.path();
  o.useEnvironment = false;
  o.soc = "SM8650";
  Engine ok(o);
  ASSERT_TRUE(ok.ok()) << ok.status().toString();
  EXPECT_EQ(ok.soc().versionOn("htp"), "V75");

  o.soc = "SM9999";
  Engine badSoc(o);
  EXPECT_FALSE(badSoc.ok());
  EXPECT_EQ(badSoc.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(badSoc.status().message(), "unknown SoC 'SM9999' (known SoCs: SM8650, SM8350; see --list-socs)");

  // The SoC requirement is the backend manifest's (its hardware column), not engine code.
  d.write("lpai/backend.yaml", "version: 1\nbackend: lpai\ndescription: x.\nhardware: lpai\n");
  d.write("lpai/a.yaml", ruleFile(opRule("lpai.relu", "aten.relu.default")));
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

// --- backends that extend another (rules/<backend>/backend.yaml) --------------------------

namespace qnnrules {
namespace {

using testing::TempDir;

// A small parent table: conv with ungated, gated, float and 4-bit variants; relu; reshape
// with two targets.
constexpr const char* kHtpConv = R"(version: 1
rules:
  - id: htp.conv2d
    targets: [aten.conv2d.default]
    qnn_op: Conv2d
    pattern: conv
    description: conv.
    inputs: [{name: input}, {name: weight}]
    outputs: [{name: output}]
    variants:
      - name: a8w8
        ports:
          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_8, encoding: [SCALE_OFFSET, AXIS_SCALE_OFFSET], symmetric: true}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
      - name: a16w16
        min_arch: V73
        hint: use 16a8w
        ports:
          input: {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_16, encoding: SCALE_OFFSET, symmetric: true}
          output: {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
      - name: a16w4
        ports:
          input: {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_8, encoding: BW_AXIS_SCALE_OFFSET, bitwidth: 4, symmetric: true}
          output: {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
      - name: fp16
        ports:
          input: {dtype: FLOAT_16}
          weight: {dtype: FLOAT_16}
          output: {dtype: FLOAT_16}
  - id: htp.sigmoid
    targets: [aten.sigmoid.default]
    qnn_op: Sigmoid
    pattern: fixed_qparams
    description: sigmoid.
    inputs: [{name: input}]
    outputs: [{name: output}]
    variants:
      - name: a8
        ports:
          input: {dtype: UFIXED_POINT_8}
          output: {dtype: UFIXED_POINT_8, scale: "1/256", offset: 0}
)";

constexpr const char* kLpaiManifest = R"(version: 1
backend: lpai
description: test lpai.
extends: htp
datatypes: [UFIXED_POINT_8, UFIXED_POINT_16, SFIXED_POINT_8, SFIXED_POINT_16, SFIXED_POINT_32, INT_32]
encodings: [SCALE_OFFSET, AXIS_SCALE_OFFSET]
symmetric: true
exclude:
  - why: no abs kernel.
    targets: [aten.abs.default]
  - why: no squeeze.dims.
    targets: [aten.squeeze.dims]
)";

// The parent's manifest runs it on the htp column of the table, which its gates name.
void writeHtp(const TempDir& d) {
  d.write("socs.yaml", kSocs);
  d.write("htp/backend.yaml", "version: 1\nbackend: htp\ndescription: test htp.\nhardware: htp\n");
  d.write("htp/ops/conv.yaml", kHtpConv);
  d.write("htp/ops/more.yaml", ruleFile(opRule("htp.abs", "aten.abs.default", "ElementWiseAbs") +
                                        "  - id: htp.reshape\n    targets: [aten.view.default, aten.squeeze.dims]\n"
                                        "    kind: structural\n    description: reshape.\n"));
}

std::string messages(const DiagnosticList& errors) {
  std::string s;
  for (const Diagnostic& d : errors) s += formatText(d);
  return s;
}

TEST(BackendExtends, InheritedRulesTakeThePrefixRememberTheirSourceAndAreNarrowed) {
  TempDir d;
  writeHtp(d);
  d.write("lpai/backend.yaml", kLpaiManifest);
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("lpai");
  ASSERT_TRUE(load.status.isOk()) << load.status.toString() << "\n" << messages(load.errors);
  ASSERT_NE(load.manifest, nullptr);
  EXPECT_EQ(load.manifest->extends, "htp");
  const Rule* conv = load.rules->findByTarget("aten.conv2d.default");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->id, "lpai.conv2d");
  EXPECT_EQ(conv->inheritedFrom, "htp.conv2d");
  // Diagnostics point at the HTP file the rule is written in, and say it came via lpai.
  EXPECT_NE(conv->mark.toString().find("htp/ops/conv.yaml:3:5"), std::string::npos) << conv->mark.toString();
  EXPECT_NE(conv->via.toString().find("lpai/backend.yaml:4:10"), std::string::npos) << conv->via.toString();
  // fp16 (no float on lpai) and a16w4 (no BW encodings) are not inherited; the V73 gate is dropped.
  ASSERT_EQ(conv->variants.size(), 2u);
  EXPECT_EQ(conv->variants[0].name, "a8w8");
  EXPECT_EQ(conv->variants[1].name, "a16w16");
  EXPECT_FALSE(conv->variants[1].gate.gated());
  ASSERT_EQ(conv->notes.size(), 2u);
  EXPECT_NE(conv->notes[0].find("variant a16w4 is not inherited: port weight allows only BW_AXIS_SCALE_OFFSET"),
            std::string::npos) << conv->notes[0];
  EXPECT_NE(conv->notes[1].find("variant fp16 is not inherited: port input allows only FLOAT_16"),
            std::string::npos) << conv->notes[1];
  // Symmetric backend: activations become symmetric too; fixed qparams stay as written.
  EXPECT_EQ(conv->variants[0].ports[0].symmetric, std::optional<bool>(true));
  const Rule* sigmoid = load.rules->findById("lpai.sigmoid");
  ASSERT_NE(sigmoid, nullptr);
  EXPECT_EQ(sigmoid->variants[0].ports[0].symmetric, std::optional<bool>(true));
  EXPECT_FALSE(sigmoid->variants[0].ports[1].symmetric.has_value());
  // The parent is untouched.
  const BackendLoad& htp = reg.backend("htp");
  ASSERT_TRUE(htp.status.isOk());
  EXPECT_EQ(htp.rules->findById("htp.conv2d")->variants.size(), 4u);
  EXPECT_EQ(htp.rules->findById("htp.conv2d")->variants[1].gate.version, "V73");
}

TEST(BackendExtends, ExcludedTargetsBecomeUnsupportedRulesWithTheirReason) {
  TempDir d;
  writeHtp(d);
  d.write("lpai/backend.yaml", kLpaiManifest);
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("lpai");
  ASSERT_TRUE(load.status.isOk()) << messages(load.errors);
  // A rule that loses every target becomes unsupported under its own id.
  const Rule* abs = load.rules->findByTarget("aten.abs.default");
  ASSERT_NE(abs, nullptr);
  EXPECT_EQ(abs->id, "lpai.abs");
  EXPECT_EQ(abs->kind, RuleKind::kUnsupported);
  EXPECT_EQ(abs->reason, "no abs kernel.");
  EXPECT_NE(abs->mark.toString().find("lpai/backend.yaml:9:5"), std::string::npos) << abs->mark.toString();
  // One that loses some keeps the rest.
  EXPECT_EQ(load.rules->findByTarget("aten.view.default")->id, "lpai.reshape");
  EXPECT_EQ(load.rules->findByTarget("aten.view.default")->kind, RuleKind::kStructural);
  const Rule* dims = load.rules->findByTarget("aten.squeeze.dims");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(dims->id, "lpai.reshape.excluded");
  EXPECT_EQ(dims->reason, "no squeeze.dims.");
}

TEST(BackendExtends, ExcludingATargetTheParentLacksIsAnErrorWithItsLocation) {
  TempDir d;
  writeHtp(d);
  std::string m = kLpaiManifest;
  m.replace(m.find("aten.abs.default"), 16, "aten.abss.default");
  d.write("lpai/backend.yaml", m);
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("lpai");
  EXPECT_EQ(load.status.code(), StatusCode::kRuleError);
  ASSERT_EQ(load.errors.size(), 1u) << messages(load.errors);
  EXPECT_EQ(load.errors[0].message, "exclude names target 'aten.abss.default', which backend htp does not have");
  EXPECT_NE(load.errors[0].mark.toString().find("lpai/backend.yaml:10:15"), std::string::npos)
      << load.errors[0].mark.toString();
  EXPECT_EQ(load.errors[0].hint, "did you mean 'aten.abs.default'?");
}

TEST(BackendExtends, ManifestIsStrict) {
  TempDir d;
  writeHtp(d);
  d.write("lpai/backend.yaml",
          "version: 1\nbackend: lpai\ndescription: x.\nextends: htp\nsymetric: true\nquantized: false\n");
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("lpai");
  EXPECT_EQ(load.status.code(), StatusCode::kRuleError);
  std::string all = messages(load.errors);
  EXPECT_NE(all.find("error[unknown-key]: unknown key 'symetric' in the manifest"), std::string::npos) << all;
  EXPECT_NE(all.find("lpai/backend.yaml:5:1"), std::string::npos) << all;
  EXPECT_NE(all.find("did you mean 'symmetric'?"), std::string::npos) << all;
  EXPECT_NE(all.find("quantized: false but gives no 'why_not_quantized'"), std::string::npos) << all;
}

TEST(BackendExtends, ManifestMustNameItsFolderAndCyclesAreErrors) {
  TempDir d;
  d.write("a/backend.yaml", "version: 1\nbackend: a\ndescription: a.\nextends: b\n");
  d.write("b/backend.yaml", "version: 1\nbackend: b\ndescription: b.\nextends: a\n");
  d.write("c/backend.yaml", "version: 1\nbackend: see\ndescription: c.\n");
  RuleRegistry reg(opts(d));
  const BackendLoad& a = reg.backend("a");
  EXPECT_FALSE(a.status.isOk());
  EXPECT_NE(messages(a.errors).find("backend b extends a, which extends it back: a -> b -> a"), std::string::npos)
      << messages(a.errors);
  const BackendLoad& c = reg.backend("c");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].message, "the manifest in folder 'c' declares backend 'see'");
}

TEST(BackendExtends, AskingForTheChildReadsTheParentButNeverTheOtherWayRound) {
  TempDir d;
  d.write("htp/a.yaml", "version: 1\nrules: [ broken");
  d.write("lpai/backend.yaml", kLpaiManifest);
  RuleRegistry reg(opts(d));
  const BackendLoad& lpai = reg.backend("lpai");
  EXPECT_EQ(lpai.status.code(), StatusCode::kRuleError);
  std::string all = messages(lpai.errors);
  EXPECT_NE(all.find("htp/a.yaml"), std::string::npos) << all;
  EXPECT_NE(all.find("backend lpai extends htp, which cannot be loaded"), std::string::npos) << all;

  TempDir ok;
  writeHtp(ok);
  ok.write("lpai/backend.yaml", "version: 1\nbackend: lpai\ndescription: [ broken");
  RuleRegistry reg2(opts(ok));
  EXPECT_TRUE(reg2.backend("htp").status.isOk());
  EXPECT_FALSE(reg2.backend("lpai").status.isOk());
}

// Overlays compose per backend: an htp overlay changes what lpai inherits; an lpai file
// overrides an inherited rule by id, starting from the parent rule with `extends`.
TEST(BackendExtends, OverlaysOfBothBackendsCompose) {
  TempDir builtin, overlay;
  writeHtp(builtin);
  builtin.write("lpai/backend.yaml", kLpaiManifest);
  builtin.write("lpai/ops/conv.yaml", R"(version: 1
rules:
  - id: lpai.conv2d
    extends: htp.conv2d
    add_variants:
      - name: a8w16
        ports:
          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_16, encoding: SCALE_OFFSET}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
)");
  overlay.write("htp/sigmoid.yaml", ruleFile(opRule("htp.sigmoid", "aten.sigmoid.default", "Sigmoid")));
  overlay.write("lpai/mine.yaml", ruleFile(opRule("lpai.my_op", "aten.my_op.default", "MyOp")));
  RuleRegistry reg(opts(builtin, {overlay.path()}));
  const BackendLoad& load = reg.backend("lpai");
  ASSERT_TRUE(load.status.isOk()) << messages(load.errors);
  const Rule* conv = load.rules->findById("lpai.conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->inheritedFrom, "htp.conv2d");
  EXPECT_NE(conv->mark.toString().find("lpai/ops/conv.yaml:3:5"), std::string::npos) << conv->mark.toString();
  EXPECT_NE(conv->via.toString().find("lpai/ops/conv.yaml:4:14"), std::string::npos) << conv->via.toString();
  ASSERT_EQ(conv->variants.size(), 3u);
  EXPECT_EQ(conv->variants[2].name, "a8w16");
  EXPECT_EQ(conv->variants[2].ports[1].symmetric, std::optional<bool>(true));  // the backend is symmetric
  EXPECT_EQ(conv->targets, std::vector<std::string>{"aten.conv2d.default"});
  // The htp overlay's sigmoid (no fixed qparams) is what lpai inherits.
  const Rule* sigmoid = load.rules->findById("lpai.sigmoid");
  ASSERT_NE(sigmoid, nullptr);
  EXPECT_FALSE(sigmoid->variants[0].ports[1].scale.has_value());
  EXPECT_NE(sigmoid->mark.toString().find(overlay.path().filename().string()), std::string::npos);
  EXPECT_NE(load.rules->findByTarget("aten.my_op.default"), nullptr);
}

TEST(BackendExtends, WrittenVariantsMustFitTheBackend) {
  TempDir d;
  writeHtp(d);
  d.write("lpai/backend.yaml", kLpaiManifest);
  d.write("lpai/ops/bad.yaml", R"(version: 1
rules:
  - id: lpai.conv2d
    extends: htp.conv2dd
  - id: lpai.relu
    targets: [aten.relu.default]
    qnn_op: Relu
    pattern: siso
    description: relu.
    inputs: [{name: input}]
    outputs: [{name: output}]
    variants:
      - name: fp16
        min_arch: V73
        ports:
          input: {dtype: [UFIXED_POINT_8, FLOAT_16]}
          output: {dtype: UFIXED_POINT_8, encoding: BW_SCALE_OFFSET}
)");
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("lpai");
  std::string all = messages(load.errors);
  EXPECT_NE(all.find("names rule 'htp.conv2dd', which backend htp does not have"), std::string::npos) << all;
  EXPECT_NE(all.find("did you mean 'htp.conv2d'?"), std::string::npos) << all;
  EXPECT_EQ(all.find("inherits no variant"), std::string::npos) << all;  // no follow-on error
  EXPECT_NE(all.find("'min_arch' in variant 'fp16' of rule 'lpai.relu' gates on a hardware version, which means nothing"),
            std::string::npos) << all;
  EXPECT_NE(all.find("bad.yaml:14:9"), std::string::npos) << all;
  EXPECT_NE(all.find("names datatype FLOAT_16, which backend lpai does not have"), std::string::npos) << all;
  EXPECT_NE(all.find("names encoding BW_SCALE_OFFSET, which backend lpai does not have"), std::string::npos) << all;
}

TEST(BackendExtends, AnInheritedRuleLeftWithoutVariantsMustBeOverridden) {
  TempDir d;
  writeHtp(d);
  std::string m = kLpaiManifest;
  m.replace(m.find("UFIXED_POINT_8, "), 16, "");  // sigmoid's only variant is 8-bit
  d.write("lpai/backend.yaml", m);
  RuleRegistry reg(opts(d));
  const BackendLoad& load = reg.backend("lpai");
  ASSERT_EQ(load.errors.size(), 1u) << messages(load.errors);
  EXPECT_EQ(load.errors[0].ruleId, "lpai.sigmoid");
  EXPECT_NE(load.errors[0].message.find("inherited from 'htp.sigmoid' has no variant left on lpai"),
            std::string::npos) << load.errors[0].message;
}

}  // namespace
}  // namespace qnnrules
