// The golden-output test set: every case of tests/golden/reports.txt runs qnn-validate from the
// source root with --format text and --format json and compares the output with
// tests/golden/expected/NAME.txt and NAME.json (the format is described in reports.txt).
//
// QNNRULES_UPDATE_GOLDEN=1 rewrites the expected files from the current output (review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
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
};
inline void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::vector<GoldenCase> loadCases() {
  std::vector<GoldenCase> cases;
  std::ifstream in(kGolden / "reports.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    GoldenCase c;
    fields >> c.name >> c.exitCode >> std::ws;
    std::getline(fields, c.args);
    cases.push_back(std::move(c));
  }
  return cases;
}

using testing::readFile;

struct Output {
  int exitCode = -1;
  std::string text;  // stdout, then "--- stderr" and stderr when there is any
};

Output runCase(const GoldenCase& c, const std::string& format) {
  testing::TempDir tmp;
  const fs::path err = tmp.path() / "stderr";
  // A subshell, so that its standard error goes to the file, not into run()'s output.
  testing::CommandResult r = testing::run("(cd " + testing::shellQuote(kSource.string()) + " && env QNNRULES_PATH= " +
                                          testing::shellQuote(QNNRULES_VALIDATE_EXE) + " " + c.args + " --format " +
                                          format + " 2>" + testing::shellQuote(err.string()) + ")");
  Output out{r.exitCode, r.output};
  if (std::string e = readFile(err); !e.empty()) out.text += "--- stderr\n" + e;
  return out;
}

// The expected file's content; QNNRULES_UPDATE_GOLDEN=1 first writes `actual` there.
std::string expected(const fs::path& file, const std::string& actual) {
  if (const char* u = std::getenv("QNNRULES_UPDATE_GOLDEN"); u && std::string(u) == "1")
    std::ofstream(file, std::ios::binary) << actual;
  return readFile(file);
}

// Runs the case in one format and compares with expected/NAME.EXTENSION.
void checkFormat(const GoldenCase& c, const std::string& format, const std::string& extension) {
  const Output out = runCase(c, format);
  EXPECT_EQ(out.exitCode, c.exitCode) << out.text;
  const fs::path file = kGolden / "expected" / (c.name + extension);
  EXPECT_EQ(out.text, expected(file, out.text)) << "golden: " << file.lexically_relative(kSource).string();
}

class GoldenReport : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenReport, TextReportMatches) { checkFormat(GetParam(), "text", ".txt"); }
TEST_P(GoldenReport, JsonReportMatches) { checkFormat(GetParam(), "json", ".json"); }

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

INSTANTIATE_TEST_SUITE_P(Cases, GoldenReport, ::testing::ValuesIn(loadCases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& p) {
                           std::string name = p.param.name;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace qnnrules
