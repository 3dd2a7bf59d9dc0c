// readBaseline (report/Baseline.h, issue 36): streamed, so a baseline costs the memory of its
// findings, not of its file (a gigabyte of holes is refused at its first byte); what is not a
// report (garbage after it, a finding that is not an object, a number where a string belongs)
// is refused with a message that says what and where, never an internal error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "TestUtil.h"
#include "qnnrules/report/Baseline.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

Status read(const TempDir& dir, const std::string& text, Baseline& out) {
  return readBaseline(dir.write("baseline.json", text), out);
}

const char* kReport = R"({"tool": "qnn-validate", "version": "1.0", "diagnostics": [
  {"severity": "error", "code": "dtype", "message": "m1", "node": "a", "port": "in[0] input", "rule": "htp.relu"},
  {"severity": "error", "code": "no-rule", "message": "m2", "node": "b", "port": "", "rule": ""}],
  "baseline": {"file": "x", "unchanged": [{"code": "rank", "node": "c", "port": "", "rule": "htp.add", "message": "m3"}],
               "absent": []}})";

TEST(BaselineRead, AReportAndASarifLogAreRead) {
  TempDir dir;
  Baseline b;
  ASSERT_TRUE(read(dir, kReport, b).isOk());
  ASSERT_EQ(b.findings.size(), 3u);
  EXPECT_EQ(b.findings[0].id, (FindingIdentity{"dtype", "a", "in[0] input", "htp.relu"}));
  EXPECT_EQ(b.findings[0].message, "m1");
  EXPECT_EQ(b.findings[2].id, (FindingIdentity{"rank", "c", "", "htp.add"}));
  const char* sarif = R"({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "qnn-validate"}}, "results": [
    {"ruleId": "htp.relu", "message": {"text": "m1"}, "properties": {"code": "dtype", "node": "a", "port": "p"}},
    {"ruleId": "no-rule", "message": {"text": "m2"}, "properties": {"code": "no-rule", "node": "b"}},
    {"ruleId": "gone", "baselineState": "absent", "message": {"text": "m3"}, "properties": {"code": "x"}}]}]})";
  ASSERT_TRUE(read(dir, sarif, b).isOk());
  ASSERT_EQ(b.findings.size(), 2u);
  EXPECT_EQ(b.findings[0].id, (FindingIdentity{"dtype", "a", "p", "htp.relu"}));
  EXPECT_EQ(b.findings[0].message, "m1");
  EXPECT_EQ(b.findings[1].id, (FindingIdentity{"no-rule", "b", "", ""}));
}

TEST(BaselineRead, WhatIsNotAReportIsRefusedWithWhatAndWhere) {
  TempDir dir;
  Baseline b;
  struct Case {
    std::string text, message;
  };
  const std::vector<Case> cases = {
      {R"({"tool": 7, "diagnostics": []})", "a number where the \"tool\" (a string) belongs (at /tool)"},
      {R"({"tool": "qnn-validate", "version": 2, "diagnostics": []})",
       "a number where the \"version\" (a string) belongs (at /version)"},
      {std::string(kReport) + " trailing", "is not JSON"},
      {R"({"tool": "qnn-validate", "diagnostics": [1]})", "a number where a finding (an object) belongs"},
      {R"({"tool": "qnn-validate", "diagnostics": [[]]})", "a list where a finding (an object) belongs"},
      {R"({"tool": "qnn-validate", "diagnostics": [{"code": 3}]})", "a number where a finding's field (a string)"},
      {R"({"tool": "qnn-validate", "diagnostics": [{"node": "a"}]})", "a diagnostic without a \"code\""},
      {R"({"tool": "qnn-validate", "diagnostics": {}})", "an object where a list belongs (at /diagnostics)"},
      {R"({"version": "2.1.0", "runs": [{"results": ["x"]}]})", "a string where a finding (an object) belongs"},
      {std::string(100, '[') + std::string(100, ']'), "is nested deeper than 16 levels"},
      {R"({"tool": "qnn-validate"})", "is neither a qnn-validate JSON report"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 80));
    Status st = read(dir, c.text, b);
    EXPECT_FALSE(st.isOk());
    EXPECT_NE(st.message().find(c.message), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find("internal"), std::string::npos) << st.message();
  }
}

TEST(BaselineRead, AGigabyteOfHolesIsRefusedAtItsFirstByte) {
  TempDir dir;
  const fs::path file = dir.path() / "sparse.json";
  {
    std::ofstream f(file, std::ios::binary);
    f.seekp((1ull << 30) - 1);
    f << '\n';
  }
  Baseline b;
  Status st = readBaseline(file, b);
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_NE(st.message().find("is not JSON (at byte 1)"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace qnnrules
