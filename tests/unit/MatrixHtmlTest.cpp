// The compatibility matrix's JSON and HTML page (Matrix.h, report/MatrixHtml.h, issue 26): the
// page of a small matrix byte for byte against a golden (with its JSON), every cell linking
// to a section that exists (a shared cell to its holder's), input echoed escaped, and the CLI's
// --format html and --html FILE. The JSON is checked against docs/schemas/matrix.schema.json
// by tests/report/check_matrix.py (which also reads the golden JSON here); the page is loaded
// in chromium by tests/report/check_html.py.
//
// QNNRULES_UPDATE_GOLDEN=1 rewrites tests/golden/matrix/ from the current output (review the diff).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "AnnotationTestUtil.h"
#include "BuiltinEngine.h"
#include "TestUtil.h"
#include "qnnrules/Matrix.h"
#include "qnnrules/report/MatrixHtml.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

const std::string kSource = QNNRULES_SOURCE_DIR;
const std::filesystem::path kGolden = std::filesystem::path(kSource) / "tests" / "golden" / "matrix";

EngineOptions builtin() { return builtinOptions("htp"); }

// V68 twice (SA8295 shares SM8350's validation), V75; 16a16w is gated below V73.
CompatibilityMatrix smallMatrix() {
  MatrixOptions mo;
  mo.socs = {"SM8350", "SA8295", "SM8650"};
  mo.configs = {"16a8w", "16a16w", "8a8w:per_tensor"};
  return compatibilityMatrix(builtin(), readGraph(kSource + "/tests/data/annotate/mixed.json"), mo);
}

// The version changes with every release, not with the matrix; rule files are named relative to
// the working directory (the source tree's when a user runs it there, build/tests under ctest).
std::string normalized(const CompatibilityMatrix& m, std::string text) {
  const auto replaceAll = [&text](const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replaceAll(nlohmann::json::parse(m.json())["version"], "VERSION");
  const std::string rules = std::filesystem::path(kSource + "/rules/").lexically_normal().string();
  replaceAll(std::filesystem::path(rules).lexically_relative(std::filesystem::current_path()).string() + "/", "rules/");
  replaceAll(rules, "rules/");
  return text;
}

std::string expected(const std::filesystem::path& file, const std::string& actual) {
  if (const char* u = std::getenv("QNNRULES_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << actual;
  }
  return readFile(file);
}

// Every href="#X" of the page, and every id="X".
std::vector<std::string> links(const std::string& page) {
  std::vector<std::string> out;
  static const std::regex href(R"re(href="#([^"]*)")re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), href); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}
std::set<std::string> ids(const std::string& page) {
  std::set<std::string> out;
  static const std::regex id(R"re( id="([^"]*)")re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), id); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1]);
  return out;
}

TEST(MatrixGolden, JsonAndHtmlMatch) {
  CompatibilityMatrix m = smallMatrix();
  ASSERT_TRUE(m.ok()) << m.status.message();
  const std::string json = normalized(m, m.json()), html = normalized(m, m.html());
  EXPECT_EQ(json, expected(kGolden / "mixed.json", json)) << "golden: tests/golden/matrix/mixed.json";
  EXPECT_EQ(html, expected(kGolden / "mixed.html", html)) << "golden: tests/golden/matrix/mixed.html";
}

TEST(MatrixHtml, EveryCellLinksToTheSectionHoldingItsDiagnostics) {
  CompatibilityMatrix m = smallMatrix();
  ASSERT_TRUE(m.ok()) << m.status.message();
  const std::string page = m.html();
  const std::vector<std::string> cellLinks = links(page);
  ASSERT_EQ(cellLinks.size(), m.cells.size());
  const std::set<std::string> sections = ids(page);
  for (size_t s = 0; s < m.socs.size(); ++s) {
    for (size_t c = 0; c < m.configs.size(); ++c) {
      const MatrixCell& cell = m.at(s, c);
      SCOPED_TRACE(cell.soc + " " + cell.config);
      // Row-major, like the cells; a shared cell points at the SoC it was judged with.
      const std::string want = matrixCellAnchor(cell.judgedOn, cell.config);
      EXPECT_EQ(cellLinks[s * m.configs.size() + c], want);
      EXPECT_EQ(sections.count(want), 1u);
      EXPECT_EQ(cell.shared, cell.judgedOn != cell.soc);
    }
  }
  // One section per validation, no more.
  size_t sectionCount = 0;
  for (const std::string& id : sections) sectionCount += id.rfind("d-", 0) == 0;
  EXPECT_EQ(sectionCount, m.validations);
  EXPECT_EQ(matrixCellAnchor("SA8295", "16a8w"), "d-SA8295-16a8w");
  EXPECT_EQ(links(page)[3], "d-SM8350-16a8w");  // SA8295 shares SM8350's V68 validation
  EXPECT_EQ(matrixCellAnchor("SM8650", "8a8w:per_tensor"), "d-SM8650-8a8w.3aper_tensor");
  EXPECT_NE(matrixCellAnchor("a-b", "c"), matrixCellAnchor("a", "b-c"));
}

TEST(MatrixHtml, NamesFromTheInputAreEscaped) {
  // The graph name and a node name (echoed in a no-rule diagnostic) carry markup.
  const Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1,
    "name": "</title><script>alert(1)</script>",
    "nodes": [{"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 8]}]},
              {"name": "<img src=x onerror=alert(2)>", "kind": "call", "target": "aten.mystery_op.default",
               "args": [{"ref": "x"}], "outputs": [{"dtype": "float32", "shape": [1, 8]}]},
              {"name": "out", "kind": "output", "args": [[{"ref": "<img src=x onerror=alert(2)>"}]]}]})");
  CompatibilityMatrix m = compatibilityMatrix(builtin(), g, MatrixOptions{{"SM8650"}, {"8a8w"}, {}});
  ASSERT_TRUE(m.ok()) << m.status.message();
  ASSERT_GT(m.at(0, 0).errors, 0u);
  const std::string page = m.html();
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_EQ(std::count(page.begin(), page.end(), '<'), std::count(page.begin(), page.end(), '>'));
}

TEST(MatrixHtml, OnlyAMatrixDocumentIsDrawn) {
  std::string page;
  EXPECT_FALSE(formatMatrixHtml("not json", page).isOk());
  EXPECT_FALSE(formatMatrixHtml(R"({"socs": ["A"], "configs": ["c"], "cells": []})", page).isOk());
  EXPECT_TRUE(page.empty());
  // A shared cell naming no cell that holds diagnostics would link nowhere.
  const std::string dangling = R"({"socs": ["A", "B"], "configs": ["c"], "cells": [
    {"soc": "A", "config": "c", "verdict": "valid", "diagnostics": []},
    {"soc": "B", "config": "c", "verdict": "valid", "diagnostics_of": "C"}]})";
  Status st = formatMatrixHtml(dangling, page);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("B / c"), std::string::npos) << st.message();
  nlohmann::json fixed = nlohmann::json::parse(dangling);
  fixed["cells"][1]["diagnostics_of"] = "A";
  EXPECT_TRUE(formatMatrixHtml(fixed.dump(), page).isOk());
  EXPECT_EQ(links(page), (std::vector<std::string>{"d-A-c", "d-A-c"}));
}

TEST(MatrixHtml, TheCliWritesThePage) {
  TempDir d;
  const std::string page = (d.path() / "m.html").string();
  const std::string cli = "cd " + shellQuote(kSource) + " && env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) +
                          " tests/data/annotate/mixed.json ";
  CommandResult html = run(cli + "--soc SM8350,SM8650 --configs 16a8w 16a16w --format html");
  EXPECT_EQ(html.exitCode, 1) << html.output.substr(0, 500);  // strict: a cell is invalid
  EXPECT_EQ(html.output.rfind("<!DOCTYPE html>", 0), 0u) << html.output.substr(0, 500);
  EXPECT_EQ(links(html.output).size(), 4u);
  // --html FILE next to the JSON on stdout: the same page.
  CommandResult json = run(cli + "--soc SM8350,SM8650 --configs 16a8w 16a16w --format json --html " + shellQuote(page));
  EXPECT_EQ(json.exitCode, 1);
  EXPECT_TRUE(nlohmann::json::accept(json.output)) << json.output.substr(0, 300);
  EXPECT_EQ(readFile(page), html.output);
  // One run has --html FILE for its page; --format html is the matrix's.
  CommandResult one = run(cli + "--soc SM8650 --format html");
  EXPECT_EQ(one.exitCode, 2) << one.output;
  EXPECT_NE(one.output.find("one run writes its HTML page with --html FILE"), std::string::npos) << one.output;
}

}  // namespace
}  // namespace qnnrules
