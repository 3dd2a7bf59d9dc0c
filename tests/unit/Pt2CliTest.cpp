// qnn-validate on .pt2 archives (their complete reports are in the golden-output set,
// tests/golden/reports.txt). A converted graph with a wrong fixed scale gives exactly the
// report of the equivalent JSON graph (written from the same ExportedProgram by the Python
// adapter); damaged archives exit 2 with a message naming the archive entry.
#include <gtest/gtest.h>

#include <string>

#include "TestUtil.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::shellQuote;

const std::string kSource = QNNRULES_SOURCE_DIR;

// From the source root, so paths print relative (tests/data/pt2/..., rules/htp/...).
CommandResult validate(const std::string& graph, const std::string& args = "--soc SM8650") {
  return testing::run("cd " + shellQuote(kSource) + " && env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) +
                      " " + shellQuote(graph) + " " + args);
}

// The report with the graph's path replaced, so reports of different files compare.
std::string normalized(std::string report, const std::string& path) {
  for (size_t at = report.find(path); at != std::string::npos; at = report.find(path, at))
    report.replace(at, path.size(), "GRAPH");
  return report;
}

// The archive and the JSON graph the Python adapter writes for the same ExportedProgram get
// the same report, line for line (the fixed-scale warning of htp.sigmoid included: an 8-bit
// output scale is recommended, not required).
TEST(Pt2Cli, SameReportAsTheEquivalentJsonGraph) {
  const std::string pt2 = "tests/data/pt2/sigmoid_bad_scale.pt2";
  const std::string json = "tests/data/pt2/sigmoid_bad_scale.json";
  CommandResult a = validate(pt2);
  CommandResult b = validate(json);
  EXPECT_EQ(a.exitCode, 0) << a.output;
  EXPECT_EQ(b.exitCode, 0) << b.output;
  EXPECT_NE(a.output.find("warning[fixed-scale]: node 'sigmoid' (aten.sigmoid.default) port out[0] output"),
            std::string::npos)
      << a.output;
  EXPECT_EQ(normalized(a.output, pt2), normalized(b.output, json));
  CommandResult ja = validate(pt2, "--soc SM8650 --format json");
  CommandResult jb = validate(json, "--soc SM8650 --format json");
  EXPECT_EQ(normalized(ja.output, pt2), normalized(jb.output, json));
}

struct BrokenCase {
  const char* file;
  const char* message;
};
inline void PrintTo(const BrokenCase& c, std::ostream* os) { *os << c.file; }

class Pt2CliBroken : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(Pt2CliBroken, ExitsTwoNamingTheEntry) {
  const BrokenCase& c = GetParam();
  const std::string path = std::string("tests/data/pt2/broken/") + c.file;
  CommandResult r = validate(path);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_EQ(r.output, "qnn-validate: error: " + path + ": " + c.message + "\n");
  CommandResult j = validate(path, "--soc SM8650 --format json");
  EXPECT_EQ(j.exitCode, 2) << j.output;
  EXPECT_NE(j.output.find("\"kind\": \"graph\""), std::string::npos) << j.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Pt2CliBroken,
    ::testing::Values(
        BrokenCase{"truncated.pt2", "not a readable .pt2 archive (zip: Not a zip archive)"},
        BrokenCase{"corrupt.pt2", "entry 'q8a8w/models/model.json' is corrupt or truncated (zip: CRC error)"},
        BrokenCase{"not_pt2.zip",
                   "a zip file, but not a torch.export archive: it has no entry '<root>/archive_format'"},
        BrokenCase{"no_program.pt2",
                   "the archive has no exported program (no entry 'q8a8w/models/<name>.json'); an AOTInductor "
                   "package?"},
        BrokenCase{"malformed_json.pt2",
                   "entry 'q8a8w/models/model.json': malformed JSON at line 1, column 201: syntax error while "
                   "parsing value - invalid string: missing closing quote; last read: '\"b__fro'"},
        BrokenCase{"future_schema.pt2",
                   "entry 'q8a8w/models/model.json' was written by torch 2.14.1+cu130 with ExportedProgram schema "
                   "version 99.1, newer than this reader knows (8.20, torch 2.14); save it with torch 2.14 or "
                   "update qnnrules"},
        BrokenCase{"schema_error.pt2",
                   "entry 'q8a8w/models/model.json' at /graph_module/graph: missing required key 'tensor_values'"}),
    [](const ::testing::TestParamInfo<BrokenCase>& p) {
      std::string n = p.param.file;
      return n.substr(0, n.find('.'));
    });

}  // namespace
}  // namespace qnnrules
