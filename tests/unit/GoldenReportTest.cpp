// The golden-output test set: every case of tests/golden/reports.txt runs qnn-validate from the
// source root with --format text, json and sarif and compares the output with
// tests/golden/expected/NAME.txt, NAME.json and NAME.sarif; the cases reports.txt names on an
// `html` line also write their --html page, compared with NAME.html (the format is described in
// reports.txt). The JSON and SARIF goldens are also checked against their schemas
// (tests/report/check_reports.py).
//
// The rule digest is replaced by DIGEST and the version by VERSION, so a rule edit or a
// release changes only the files whose findings change.
// QNNRULES_UPDATE_GOLDEN=1 rewrites the expected files from the current output (review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "TestUtil.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = QNNRULES_SOURCE_DIR;
const fs::path kGolden = kSource / "tests" / "golden";

struct GoldenCase {
  std::string name;
  int exitCode = 0;
  std::string args;  // as written in reports.txt: relative paths, no shell metacharacters
  bool html = false;  // named on an `html` line: the --html page is a golden too
};
inline void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::vector<GoldenCase> loadCases() {
  std::vector<GoldenCase> cases;
  std::ifstream in(kGolden / "reports.txt");
  std::string line;
  std::set<std::string> html;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    GoldenCase c;
    fields >> c.name;
    if (c.name == "html") {  // html NAME...: these cases' pages are goldens
      for (std::string n; fields >> n;) html.insert(n);
      continue;
    }
    fields >> c.exitCode >> std::ws;
    std::getline(fields, c.args);
    cases.push_back(std::move(c));
  }
  for (GoldenCase& c : cases) c.html = html.contains(c.name);
  return cases;
}

using testing::readFile;

struct Output {
  int exitCode = -1;
  std::string text;  // stdout, then "--- stderr" and stderr when there is any
};

// The CMake project version (the one place it is written), as a regular expression.
std::string projectVersionPattern() {
  const std::string cmake = readFile(kSource / "CMakeLists.txt");
  std::smatch m;
  std::string version =
      std::regex_search(cmake, m, std::regex(R"(project\(qnnrules VERSION ([0-9.]+))")) ? m[1].str() : "?";
  for (size_t dot = version.find('.'); dot != std::string::npos; dot = version.find('.', dot + 2))
    version.replace(dot, 1, "\\.");
  return version;
}

// Placeholders for what changes without the findings changing: the rule digest, the version.
std::string normalized(std::string text) {
  static const std::regex digest("fnv1a64:[0-9a-f]{16}");
  static const std::regex version("(\"(semanticV|v)ersion\": ?)\"" + projectVersionPattern() + "\"");
  return std::regex_replace(std::regex_replace(text, digest, "DIGEST"), version, "$1\"VERSION\"");
}

// `extraArgs` after the case's arguments; the --html page, when asked, is read from `html`.
Output runCase(const GoldenCase& c, const std::string& extraArgs, const fs::path& html = {}) {
  testing::TempDir tmp;
  const fs::path err = tmp.path() / "stderr";
  // A subshell, so that its standard error goes to the file, not into run()'s output.
  testing::CommandResult r = testing::run("(cd " + testing::shellQuote(kSource.string()) +
                                          " && env QNNRULES_PATH= NO_COLOR= " +
                                          testing::shellQuote(QNNRULES_VALIDATE_EXE) + " " + c.args + " " + extraArgs +
                                          " 2>" + testing::shellQuote(err.string()) + ")");
  Output out{r.exitCode, r.output};
  if (std::string e = readFile(err); !e.empty()) out.text += "--- stderr\n" + e;
  if (!html.empty()) out.text = readFile(html);
  out.text = normalized(std::move(out.text));
  return out;
}

// The expected file's content; QNNRULES_UPDATE_GOLDEN=1 first writes `actual` there.
std::string expected(const fs::path& file, const std::string& actual) {
  if (const char* u = std::getenv("QNNRULES_UPDATE_GOLDEN"); u && std::string(u) == "1")
    std::ofstream(file, std::ios::binary) << actual;
  return readFile(file);
}

void checkOutput(const GoldenCase& c, const Output& out, const std::string& extension) {
  EXPECT_EQ(out.exitCode, c.exitCode) << out.text;
  const fs::path file = kGolden / "expected" / (c.name + extension);
  EXPECT_EQ(out.text, expected(file, out.text)) << "golden: " << file.lexically_relative(kSource).string();
}

// Runs the case in one format and compares with expected/NAME.EXTENSION.
void checkFormat(const GoldenCase& c, const std::string& format, const std::string& extension) {
  checkOutput(c, runCase(c, "--format " + format), extension);
}

class GoldenReport : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenReport, TextReportMatches) { checkFormat(GetParam(), "text", ".txt"); }
TEST_P(GoldenReport, JsonReportMatches) { checkFormat(GetParam(), "json", ".json"); }
TEST_P(GoldenReport, SarifReportMatches) { checkFormat(GetParam(), "sarif", ".sarif"); }

// The HTML page (template and embedded JSON report) byte for byte; it fetches nothing.
class GoldenHtml : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenHtml, HtmlPageMatches) {
  const GoldenCase& c = GetParam();
  testing::TempDir tmp;
  const fs::path page = tmp.path() / "report.html";
  const Output out = runCase(c, "--html " + testing::shellQuote(page.string()) + " >/dev/null", page);
  checkOutput(c, out, ".html");
  EXPECT_EQ(out.text.find(" src="), std::string::npos);
  EXPECT_EQ(out.text.find("<link"), std::string::npos);
}

TEST(GoldenReportSet, EveryExpectedFileBelongsToACase) {
  std::vector<std::string> names;
  for (const GoldenCase& c : loadCases()) names.push_back(c.name);
  ASSERT_GE(names.size(), 30u);
  for (const fs::directory_entry& e : fs::directory_iterator(kGolden / "expected")) {
    const std::string stem = e.path().stem().string();
    EXPECT_NE(std::find(names.begin(), names.end(), stem), names.end())
        << e.path().filename().string() << " has no case in tests/golden/reports.txt";
  }
}

std::vector<GoldenCase> htmlCases() {
  std::vector<GoldenCase> cases;
  for (GoldenCase& c : loadCases())
    if (c.html) cases.push_back(std::move(c));
  return cases;
}

std::string testName(const ::testing::TestParamInfo<GoldenCase>& p) {
  std::string name = p.param.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenReport, ::testing::ValuesIn(loadCases()), testName);
INSTANTIATE_TEST_SUITE_P(Cases, GoldenHtml, ::testing::ValuesIn(htmlCases()), testName);

}  // namespace
}  // namespace qnnrules
