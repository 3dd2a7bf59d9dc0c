// The default backend is data (issue 23): the backend whose manifest says `default: true`, so no
// code spells a backend name. The bundled rules make it htp, with output byte-identical to an
// explicit --backend htp; a rules directory of its own chooses its own; two defaults are an
// error naming both places; none, with no backend named, is an error asking for one (exit 2).
#include <gtest/gtest.h>

#include "TestUtil.h"
#include "qnnrules/Engine.h"
#include "qnnrules/load/RuleRegistry.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::shellQuote;
using testing::TempDir;

const std::string kSource = QNNRULES_SOURCE_DIR;

// A manifest of backend `name`; `isDefault` adds `default: true` on line 4, column 10.
std::string manifest(const std::string& name, bool isDefault) {
  return "version: 1\nbackend: " + name + "\ndescription: A toy backend.\n" + (isDefault ? "default: true\n" : "");
}

// tests/data/default_backend: the toy backend's rule, a SoC for it, and a graph it runs.
const fs::path kToyData = kSource + "/tests/data/default_backend";

// A copy of the toy data in `dir` (rules/ and graph.json), with the bundled quantization configs
// (which `qnn-rules lint` requires) and a manifest for toy.
void writeToyRules(const TempDir& dir, bool isDefault) {
  fs::copy(kToyData, dir.path(), fs::copy_options::recursive);
  fs::copy_file(kSource + "/rules/quant_configs.yaml", dir.path() / "rules" / "quant_configs.yaml");
  dir.write("rules/toy/backend.yaml", manifest("toy", isDefault));
}

RegistryOptions onlyBuiltin(const fs::path& dir) {
  RegistryOptions o;
  o.builtinDir = dir;
  o.useEnvironment = false;
  o.useCache = false;
  return o;
}

EngineOptions engineOn(const fs::path& builtin, std::vector<fs::path> overlays = {}) {
  EngineOptions o;  // no backend: the rules' default
  o.builtinRulesDir = builtin;
  o.ruleDirs = std::move(overlays);
  o.useEnvironment = false;
  return o;
}

// qnn-validate (or qnn-rules) run from `cwd` with only the given rules (no QNNRULES_PATH).
CommandResult tool(const char* exe, const fs::path& cwd, const std::string& args, const std::string& builtin = "") {
  return testing::run("cd " + shellQuote(cwd.string()) + " && env QNNRULES_PATH= " +
                      (builtin.empty() ? "" : "QNNRULES_BUILTIN_RULES=" + shellQuote(builtin) + " ") +
                      shellQuote(exe) + " " + args);
}

TEST(DefaultBackend, TheBundledRulesMakeItHtp) {
  RuleRegistry reg(onlyBuiltin(kSource + "/rules"));
  const RuleRegistry::DefaultBackendLoad& chosen = reg.defaultBackend();
  ASSERT_TRUE(chosen.status.isOk()) << chosen.status.toString();
  EXPECT_EQ(chosen.name, "htp");
  Engine engine(engineOn(kSource + "/rules"));
  ASSERT_TRUE(engine.ok()) << engine.status().toString();
  EXPECT_EQ(engine.options().backend, "htp");  // where reports read it
  EXPECT_EQ(engine.rules().backend(), "htp");
}

// Every report of a run without --backend is the one of --backend htp, to the byte (the goldens,
// most of which name no backend, are unchanged by the default becoming data).
TEST(DefaultBackend, OutputIsByteIdenticalToAnExplicitHtp) {
  for (const std::string args : {
           "examples/violations.json --soc SM8650",
           "examples/violations.json --soc SM8650 --format json",
           "examples/violations.json --soc SM8650 --format sarif",
           "examples/tiny_cnn_8a8w.json",
           "tests/data/annotate/mixed.json --soc SM8350,SM8650 --configs 16a8w 16a16w --format json",
           "--list-rules --format json",
       }) {
    const CommandResult implicit = tool(QNNRULES_VALIDATE_EXE, kSource, args);
    const CommandResult explicitHtp = tool(QNNRULES_VALIDATE_EXE, kSource, args + " --backend htp");
    EXPECT_EQ(implicit.exitCode, explicitHtp.exitCode) << args;
    EXPECT_EQ(implicit.output, explicitHtp.output) << args;
    EXPECT_NE(implicit.output.find("htp"), std::string::npos) << args << "\n" << implicit.output;
  }
  const CommandResult list = tool(QNNRULES_RULES_EXE, kSource, "list");
  EXPECT_EQ(list.exitCode, 0) << list.output;
  EXPECT_EQ(list.output, tool(QNNRULES_RULES_EXE, kSource, "list --backend htp").output);
}

TEST(DefaultBackend, AToyRulesDirectoryChoosesItsOwn) {
  TempDir dir;
  writeToyRules(dir, true);
  RuleRegistry reg(onlyBuiltin(dir.path() / "rules"));
  EXPECT_EQ(reg.defaultBackend().name, "toy") << reg.defaultBackend().status.toString();
  Engine engine(engineOn(dir.path() / "rules"));
  ASSERT_TRUE(engine.ok()) << engine.status().toString();
  EXPECT_EQ(engine.options().backend, "toy");
  EXPECT_EQ(engine.rules().backend(), "toy");

  const std::string rules = (dir.path() / "rules").string();
  const CommandResult r = tool(QNNRULES_VALIDATE_EXE, dir.path(), "graph.json --format json", rules);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find(R"("backend": "toy")"), std::string::npos) << r.output;
  const CommandResult list = tool(QNNRULES_RULES_EXE, dir.path(), "list", rules);
  EXPECT_EQ(list.exitCode, 0) << list.output;
  EXPECT_EQ(list.output.rfind("toy.relu\tRelu\taten.relu.default", 0), 0u) << list.output;
  const CommandResult lint = tool(QNNRULES_RULES_EXE, dir.path(), "lint", rules);
  EXPECT_EQ(lint.exitCode, 0) << lint.output;
  EXPECT_NE(lint.output.find("default backend: toy\n"), std::string::npos) << lint.output;
}

// An overlay adding a second default is a load error that names both places.
TEST(DefaultBackend, TwoDefaultsAreAnErrorNamingBoth) {
  TempDir dir;
  fs::create_directories(dir.path() / "overlay");
  fs::copy(kToyData / "rules" / "toy", dir.path() / "overlay" / "toy", fs::copy_options::recursive);
  dir.write("overlay/toy/backend.yaml", manifest("toy", true));
  fs::copy_file(kToyData / "graph.json", dir.path() / "graph.json");
  const std::string htpDefault = "rules/htp/backend.yaml:11:10";  // the line that says `default: true`
  const std::string toyDefault = "toy/backend.yaml:4:10";

  Engine engine(engineOn(kSource + "/rules", {dir.path() / "overlay"}));
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::kRuleError);
  const std::string message = engine.status().message();
  EXPECT_NE(message.find("2 backends say `default: true`"), std::string::npos) << message;
  EXPECT_NE(message.find(htpDefault + "), toy ("), std::string::npos) << message;
  EXPECT_NE(message.find(toyDefault), std::string::npos) << message;
  ASSERT_EQ(engine.loadErrors().size(), 1u);
  const Diagnostic& d = engine.loadErrors().front();
  EXPECT_NE(d.mark.toString().find("overlay/" + toyDefault), std::string::npos) << d.mark.toString();
  EXPECT_NE(d.message.find(htpDefault), std::string::npos) << d.message;

  // The CLI: the rules' error exit, both places named; naming a backend is not affected.
  const CommandResult r = tool(QNNRULES_VALIDATE_EXE, kSource, shellQuote((dir.path() / "graph.json").string()) +
                                                                   " --rules " + shellQuote((dir.path() / "overlay").string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find(htpDefault), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(toyDefault), std::string::npos) << r.output;
  const CommandResult named = tool(QNNRULES_VALIDATE_EXE, kSource, shellQuote((dir.path() / "graph.json").string()) +
      " --backend toy --rules " + shellQuote((dir.path() / "overlay").string()));
  EXPECT_EQ(named.exitCode, 0) << named.output;
  const CommandResult lint = tool(QNNRULES_RULES_EXE, kSource, "lint --rules " + shellQuote((dir.path() / "overlay").string()));
  EXPECT_EQ(lint.exitCode, 1) << lint.output;
  EXPECT_NE(lint.output.find(toyDefault), std::string::npos) << lint.output;
}

TEST(DefaultBackend, NoneIsAnErrorOnlyWhenNoBackendIsNamed) {
  TempDir dir;
  writeToyRules(dir, false);
  const fs::path rules = dir.path() / "rules";
  Engine engine(engineOn(rules));
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(engine.status().message(),
            "no backend given and no manifest says `default: true`; name one with --backend");
  EngineOptions named = engineOn(rules);
  named.backend = "toy";
  EXPECT_TRUE(Engine(named).ok());

  // qnn-validate: a usage error, exit 2 (README's exit-code table).
  const CommandResult r = tool(QNNRULES_VALIDATE_EXE, dir.path(), "graph.json", rules.string());
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("no backend given and no manifest says `default: true`; name one with --backend"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(tool(QNNRULES_VALIDATE_EXE, dir.path(), "graph.json --backend toy", rules.string()).exitCode, 0);
  const CommandResult list = tool(QNNRULES_RULES_EXE, dir.path(), "list", rules.string());
  EXPECT_EQ(list.exitCode, 2) << list.output;
  EXPECT_NE(list.output.find("name one with --backend"), std::string::npos) << list.output;
  // Not a lint error: a search path may leave every run to name its backend.
  const CommandResult lint = tool(QNNRULES_RULES_EXE, dir.path(), "lint", rules.string());
  EXPECT_EQ(lint.exitCode, 0) << lint.output;
  EXPECT_NE(lint.output.find("default backend: none"), std::string::npos) << lint.output;
}

// The choice is cached with the rules, and an edit of a manifest invalidates it.
TEST(DefaultBackend, TheCachedChoiceFollowsAnEditedManifest) {
  TempDir dir, cache;
  writeToyRules(dir, true);
  RegistryOptions o = onlyBuiltin(dir.path() / "rules");
  o.useCache = true;
  o.cacheDir = cache.path();
  EXPECT_EQ(RuleRegistry(o).defaultBackend().name, "toy");
  EXPECT_EQ(RuleRegistry(o).defaultBackend().name, "toy");  // from the cache
  dir.write("rules/toy/backend.yaml", manifest("toy", false));
  RuleRegistry edited(o);
  EXPECT_EQ(edited.defaultBackend().name, "");
  EXPECT_EQ(edited.defaultBackend().status.code(), StatusCode::kInvalidArgument);
}

// A manifest that does not load hides nothing when another says `default: true`; when none
// does, its errors are the answer rather than "no manifest says it".
TEST(DefaultBackend, ABrokenManifestMattersOnlyWithoutADefault) {
  TempDir dir;
  writeToyRules(dir, true);
  dir.write("rules/other/backend.yaml", "version: 1\nbackend: other\ndescription: Broken.\ndefault: maybe\n");
  EXPECT_EQ(RuleRegistry(onlyBuiltin(dir.path() / "rules")).defaultBackend().name, "toy");
  dir.write("rules/toy/backend.yaml", manifest("toy", false));
  RuleRegistry reg(onlyBuiltin(dir.path() / "rules"));
  const RuleRegistry::DefaultBackendLoad& chosen = reg.defaultBackend();
  EXPECT_EQ(chosen.status.code(), StatusCode::kRuleError);
  ASSERT_EQ(chosen.errors.size(), 1u);
  EXPECT_NE(chosen.errors.front().mark.toString().find("other/backend.yaml:4:10"), std::string::npos)
      << chosen.errors.front().mark.toString();
}

}  // namespace
}  // namespace qnnrules
