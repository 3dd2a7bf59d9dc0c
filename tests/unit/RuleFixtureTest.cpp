// Hand-written rule fixtures (tests/rules/<backend>/*.json, written by tests/rules/make_fixtures.py):
// each is a graph whose top-level "meta" lists the exact diagnostics its nodes must produce on
// one SoC, FileCheck style. A diagnostic that is not listed and a listed one that does not
// appear both fail. Every rule family file of rules/htp/ops/ must have a fixture.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "TestUtil.h"
#include "qnnrules/Engine.h"
#include "qnnrules/io/GraphReader.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtureRoot = QNNRULES_SOURCE_DIR "/tests/rules";

// One expected diagnostic. An empty port or message is not compared.
struct Expectation {
  std::string node, code, rule, port, message;
};

std::string describe(const Expectation& e) {
  std::string s = "node '" + e.node + "' " + e.code + " (rule " + (e.rule.empty() ? "none" : e.rule) + ")";
  if (!e.port.empty()) s += " port " + e.port;
  if (!e.message.empty()) s += ": " + e.message;
  return s;
}

bool matches(const Expectation& e, const Diagnostic& d) {
  return e.node == d.node && e.code == diagCodeName(d.code) && e.rule == d.ruleId &&
         (e.port.empty() || e.port == d.port) && (e.message.empty() || e.message == d.message);
}

// Pairs expectations with diagnostics one to one; returns one line per missing expectation and
// per unexpected diagnostic (printed in full with formatText). Empty: they agree exactly.
std::vector<std::string> compareDiagnostics(const DiagnosticList& got, const std::vector<Expectation>& expected) {
  std::vector<bool> used(got.size(), false);
  std::vector<std::string> problems;
  for (const Expectation& e : expected) {
    bool found = false;
    for (size_t i = 0; i < got.size() && !found; ++i) {
      if (!used[i] && matches(e, got[i])) used[i] = found = true;
    }
    if (!found) problems.push_back("missing: " + describe(e));
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (!used[i]) problems.push_back("unexpected:\n" + formatText(got[i]));
  return problems;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

struct FixtureFile {
  fs::path path;
  std::string backend;  // the directory under tests/rules/
};

// Test names and failure output show the path, not the struct's bytes.
void PrintTo(const FixtureFile& f, std::ostream* os) { *os << f.path.string(); }

std::vector<FixtureFile> fixtureFiles() {
  std::vector<FixtureFile> files;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(kFixtureRoot, ec)) {
    if (!dir.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(dir.path()))
      if (f.path().extension() == ".json") files.push_back({f.path(), dir.path().filename().string()});
  }
  std::sort(files.begin(), files.end(), [](const FixtureFile& a, const FixtureFile& b) { return a.path < b.path; });
  return files;
}

// What a fixture's meta says: the SoC, and the exact diagnostics.
struct FixtureMeta {
  std::string soc;
  std::vector<Expectation> expect;
  std::string error;  // non-empty: the meta is malformed
};

std::string stringField(const nlohmann::json& obj, const char* key, bool required, std::string& error) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) error = std::string("missing \"") + key + "\" in " + obj.dump();
    return {};
  }
  if (!it->is_string()) {
    error = std::string("\"") + key + "\" is not a string in " + obj.dump();
    return {};
  }
  return it->get<std::string>();
}

// Strict: an unknown key in an expectation (a typo like "mesage") would silently weaken it.
FixtureMeta readMeta(const fs::path& path) {
  FixtureMeta m;
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("meta") || !doc["meta"].is_object()) {
    m.error = "no top-level \"meta\" object";
    return m;
  }
  const nlohmann::json& meta = doc["meta"];
  m.soc = stringField(meta, "soc", true, m.error);
  if (!meta.contains("expect") || !meta["expect"].is_array()) {
    m.error = "meta has no \"expect\" list";
    return m;
  }
  static const std::set<std::string> kKeys = {"node", "code", "rule", "port", "message"};
  for (const nlohmann::json& e : meta["expect"]) {
    if (!e.is_object()) {
      m.error = "an expectation is not an object: " + e.dump();
      return m;
    }
    for (const auto& [key, value] : e.items())
      if (!kKeys.contains(key)) m.error = "unknown key \"" + key + "\" in expectation " + e.dump();
    Expectation x;
    x.node = stringField(e, "node", true, m.error);
    x.code = stringField(e, "code", true, m.error);
    x.rule = stringField(e, "rule", true, m.error);
    x.port = stringField(e, "port", false, m.error);
    x.message = stringField(e, "message", false, m.error);
    if (!m.error.empty()) return m;
    m.expect.push_back(std::move(x));
  }
  return m;
}

struct FixtureRun {
  DiagnosticList diagnostics;
  std::vector<Expectation> expect;
  std::string error;
};

// Reads the fixture, opens an engine for its backend and SoC (built-in rules only, warn mode so
// every diagnostic comes back) and validates it.
FixtureRun runFixture(const FixtureFile& f) {
  FixtureRun run;
  FixtureMeta meta = readMeta(f.path);
  if (!meta.error.empty()) {
    run.error = meta.error;
    return run;
  }
  GraphReadResult graph = readGraphFile(f.path);
  if (!graph.ok()) {
    run.error = "cannot read the graph: " + graph.status.toString();
    for (const Diagnostic& d : graph.errors) run.error += "\n" + formatText(d);
    return run;
  }
  std::set<std::string> calls;
  for (const Node& n : graph.graph.nodes())
    if (n.kind == NodeKind::kCall) calls.insert(n.name);
  for (const Expectation& e : meta.expect) {
    if (!calls.contains(e.node)) {
      run.error = "expectation names no call node of the graph: " + describe(e);
      return run;
    }
  }
  EngineOptions options;
  options.backend = f.backend;
  options.soc = meta.soc;
  options.mode = Mode::kWarn;
  options.useEnvironment = false;
  options.builtinRulesDir = QNNRULES_SOURCE_DIR "/rules";
  Engine engine(options);
  if (!engine.ok()) {
    run.error = "engine: " + engine.status().toString();
    return run;
  }
  run.diagnostics = engine.validate(graph.graph).diagnostics;
  run.expect = std::move(meta.expect);
  return run;
}

std::string testName(const ::testing::TestParamInfo<FixtureFile>& info) {
  std::string name = info.param.backend + "_" + info.param.path.stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class RuleFixture : public ::testing::TestWithParam<FixtureFile> {};

TEST_P(RuleFixture, DiagnosticsAreExactlyTheExpectedOnes) {
  FixtureRun run = runFixture(GetParam());
  ASSERT_TRUE(run.error.empty()) << GetParam().path << ": " << run.error;
  std::vector<std::string> problems = compareDiagnostics(run.diagnostics, run.expect);
  EXPECT_TRUE(problems.empty()) << GetParam().path << ":\n" << joinLines(problems);
}

INSTANTIATE_TEST_SUITE_P(Files, RuleFixture, ::testing::ValuesIn(fixtureFiles()), testName);

// The family of a fixture file is its name up to the first dot: conv.json and conv.sm8450.json
// both cover rules/htp/ops/conv.yaml.
TEST(RuleFixtures, EveryHtpRuleFamilyHasAFixture) {
  std::set<std::string> covered;
  for (const FixtureFile& f : fixtureFiles()) {
    if (f.backend != "htp") continue;
    std::string name = f.path.filename().string();
    covered.insert(name.substr(0, name.find('.')));
  }
  std::vector<std::string> families;
  for (const auto& f : fs::directory_iterator(QNNRULES_SOURCE_DIR "/rules/htp/ops"))
    if (f.path().extension() == ".yaml") families.push_back(f.path().stem().string());
  ASSERT_FALSE(families.empty());
  for (const std::string& family : families)
    EXPECT_TRUE(covered.contains(family)) << "rules/htp/ops/" << family << ".yaml has no fixture tests/rules/htp/"
                                          << family << ".json";
}

// Each fixture file holds cases that must pass and cases that must fail; a file whose nodes
// all fail (or all pass) tests the rules only half.
TEST(RuleFixtures, EveryMainFixtureHasPassingAndFailingNodes) {
  for (const FixtureFile& f : fixtureFiles()) {
    if (f.path.stem().string().find('.') != std::string::npos) continue;  // per-SoC variants
    FixtureMeta meta = readMeta(f.path);
    ASSERT_TRUE(meta.error.empty()) << f.path << ": " << meta.error;
    GraphReadResult graph = readGraphFile(f.path);
    ASSERT_TRUE(graph.ok()) << f.path;
    std::set<std::string> failing;
    for (const Expectation& e : meta.expect) failing.insert(e.node);
    size_t calls = 0;
    for (const Node& n : graph.graph.nodes()) calls += n.kind == NodeKind::kCall;
    EXPECT_GT(failing.size(), 0u) << f.path << " has no failing case";
    EXPECT_LT(failing.size(), calls) << f.path << " has no passing case";
  }
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The JSON fixtures are written by make_fixtures.py; a hand edit or a generator change that was
// not regenerated would make the two disagree.
TEST(RuleFixtures, FixturesAreFreshFromTheirGenerator) {
  testing::TempDir tmp;
  testing::CommandResult r = testing::run("/usr/bin/python3 " + testing::shellQuote((kFixtureRoot / "make_fixtures.py").string()) +
                                          " " + testing::shellQuote(tmp.path().string()));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::set<std::string> generated, committed;
  for (const auto& f : fs::directory_iterator(tmp.path())) generated.insert(f.path().filename().string());
  for (const auto& f : fs::directory_iterator(kFixtureRoot / "htp")) committed.insert(f.path().filename().string());
  EXPECT_EQ(generated, committed) << "regenerate with: python3 tests/rules/make_fixtures.py";
  for (const std::string& name : generated) {
    if (!committed.contains(name)) continue;
    EXPECT_EQ(readFile(tmp.path() / name), readFile(kFixtureRoot / "htp" / name))
        << "tests/rules/htp/" << name << " is stale; regenerate with: python3 tests/rules/make_fixtures.py";
  }
}

// The comparison itself must catch a wrong expectation: doctor a real fixture's list.
TEST(RuleFixtures, ComparisonDetectsWrongExpectations) {
  FixtureFile conv{kFixtureRoot / "htp" / "conv.json", "htp"};
  FixtureRun run = runFixture(conv);
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_GE(run.expect.size(), 2u);
  ASSERT_TRUE(compareDiagnostics(run.diagnostics, run.expect).empty());

  // A changed message: one missing expectation and the real diagnostic unexpected.
  std::vector<Expectation> wrongMessage = run.expect;
  wrongMessage[0].message += " (doctored)";
  std::vector<std::string> p = compareDiagnostics(run.diagnostics, wrongMessage);
  ASSERT_EQ(p.size(), 2u) << joinLines(p);
  EXPECT_EQ(p[0].rfind("missing: node '" + run.expect[0].node + "'", 0), 0u) << p[0];
  EXPECT_EQ(p[1].rfind("unexpected:\n", 0), 0u) << p[1];
  EXPECT_NE(p[1].find(run.expect[0].message), std::string::npos) << p[1];

  // A wrong rule id or port, a dropped expectation, an extra one: each is reported.
  std::vector<Expectation> wrongRule = run.expect;
  wrongRule[1].rule = "htp.not_this_rule";
  EXPECT_EQ(compareDiagnostics(run.diagnostics, wrongRule).size(), 2u);
  std::vector<Expectation> wrongPort = run.expect;
  auto withPort = std::find_if(wrongPort.begin(), wrongPort.end(), [](const Expectation& e) { return !e.port.empty(); });
  ASSERT_NE(withPort, wrongPort.end());
  withPort->port = "in[7] nowhere";
  EXPECT_EQ(compareDiagnostics(run.diagnostics, wrongPort).size(), 2u);
  std::vector<Expectation> dropped(run.expect.begin() + 1, run.expect.end());
  p = compareDiagnostics(run.diagnostics, dropped);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].rfind("unexpected:\n", 0), 0u);
  std::vector<Expectation> extra = run.expect;
  extra.push_back({"conv8", "axis", "htp.conv2d", "", ""});
  p = compareDiagnostics(run.diagnostics, extra);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], "missing: node 'conv8' axis (rule htp.conv2d)");
  // The same expectation twice needs two diagnostics.
  std::vector<Expectation> twice = run.expect;
  twice.push_back(run.expect[0]);
  EXPECT_EQ(compareDiagnostics(run.diagnostics, twice).size(), 1u);
}

}  // namespace
}  // namespace qnnrules
