// The report surface of qnn-validate on the examples, compared with golden files
// (tests/data/report/expected/<example>.<SoC>.{txt,json,sarif,html}): the text report with its
// per-op table and verdict line, the JSON report, SARIF and the HTML page. The JSON and SARIF
// goldens are also checked against their schemas (tests/report/check_reports.py).
//
// The rule digest is replaced by DIGEST and the version by VERSION, so a rule edit or a
// release changes only the files whose findings change.
// QNNRULES_UPDATE_GOLDEN=1 rewrites the golden files from the current output (review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "TestUtil.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::shellQuote;
using testing::TempDir;

const std::string kSource = QNNRULES_SOURCE_DIR;

CommandResult validate(const std::string& args) {
  return testing::run("cd " + shellQuote(kSource) + " && env QNNRULES_PATH= NO_COLOR= " +
                      shellQuote(QNNRULES_VALIDATE_EXE) + " " + args + " 2>/dev/null");
}

std::string readAll(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The CMake project version (the one place it is written).
std::string projectVersion() {
  const std::string cmake = readAll(kSource + "/CMakeLists.txt");
  std::smatch m;
  return std::regex_search(cmake, m, std::regex(R"(project\(qnnrules VERSION ([0-9.]+))")) ? m[1].str() : "?";
}

std::string normalized(std::string text) {
  text = std::regex_replace(text, std::regex("fnv1a64:[0-9a-f]{16}"), "DIGEST");
  std::string version = projectVersion();
  for (size_t dot = version.find('.'); dot != std::string::npos; dot = version.find('.', dot + 2))
    version.replace(dot, 1, "\\.");
  return std::regex_replace(text, std::regex("(\"(semanticV|v)ersion\": ?)\"" + version + "\""), "$1\"VERSION\"");
}

std::string golden(const std::string& name, const std::string& actual) {
  const std::string file = kSource + "/tests/data/report/expected/" + name;
  if (const char* u = std::getenv("QNNRULES_UPDATE_GOLDEN"); u && std::string(u) == "1")
    std::ofstream(file, std::ios::binary) << actual;
  return readAll(file);
}

struct ReportCase {
  const char* example;
  const char* args;
  const char* suffix;  // golden name: <example>.<suffix>
  int exitCode;
};
inline void PrintTo(const ReportCase& c, std::ostream* os) { *os << c.example << " " << c.args; }

class ReportGolden : public ::testing::TestWithParam<ReportCase> {};

TEST_P(ReportGolden, OutputMatches) {
  const ReportCase& c = GetParam();
  CommandResult r = validate("examples/" + std::string(c.example) + ".json " + c.args);
  EXPECT_EQ(r.exitCode, c.exitCode) << r.output;
  const std::string out = normalized(r.output);
  EXPECT_EQ(out, golden(std::string(c.example) + "." + c.suffix, out));
}

INSTANTIATE_TEST_SUITE_P(
    Examples, ReportGolden,
    ::testing::Values(ReportCase{"tiny_cnn_8a8w", "--soc SM8650", "SM8650.txt", 0},
                      ReportCase{"tiny_cnn_8a8w", "--soc SM8650 --format json", "SM8650.json", 0},
                      ReportCase{"tiny_cnn_8a8w", "--soc SM8650 --format sarif", "SM8650.sarif", 0},
                      ReportCase{"violations", "--soc SM8650", "SM8650.txt", 1},
                      ReportCase{"violations", "--soc SM8650 --format json", "SM8650.json", 1},
                      ReportCase{"violations", "--soc SM8650 --format sarif", "SM8650.sarif", 1},
                      ReportCase{"violations", "--soc SM8650 --warn", "SM8650.warn.txt", 0},
                      ReportCase{"lpbq_linear", "--soc SM8350", "SM8350.txt", 1},
                      ReportCase{"lpbq_linear", "--soc SM8350 --format json", "SM8350.json", 1},
                      ReportCase{"lpbq_linear", "--soc SM8350 --format sarif", "SM8350.sarif", 1},
                      ReportCase{"matmul_16a16w", "--soc SM8650", "SM8650.txt", 0},
                      ReportCase{"matmul_16a16w", "--soc SM8650 --format json", "SM8650.json", 0}),
    [](const ::testing::TestParamInfo<ReportCase>& p) {
      std::string n = std::string(p.param.example) + "_" + p.param.suffix;
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// The HTML page of an example: the page (template and embedded JSON report) byte for byte.
TEST(ReportGolden, HtmlPageMatches) {
  TempDir d;
  const std::string page = (d.path() / "report.html").string();
  CommandResult r = validate("examples/violations.json --soc SM8650 --warn --html " + shellQuote(page));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  const std::string html = normalized(readAll(page));
  EXPECT_EQ(html, golden("violations.SM8650.html", html));
  // Nothing is fetched: no external script, style sheet or image.
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
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
  validate(shellQuote(g) + " --soc SM8650 --html " + shellQuote(page));
  const std::string html = readAll(page);
  ASSERT_FALSE(html.empty());
  // Exactly the page's own two script elements end.
  size_t closes = 0;
  for (size_t at = html.find("</script>"); at != std::string::npos; at = html.find("</script>", at + 1)) ++closes;
  EXPECT_EQ(closes, 2u);
  EXPECT_NE(html.find("\\u003c/script>"), std::string::npos);
}

}  // namespace
}  // namespace qnnrules
