// Issue 36: node-name overrides that name one node exactly (what --suggest-recipe and --plan
// write) are matched by name, not by a regex per node: a recipe of thousands stays linear,
// names holding ESC or DEL round-trip through the YAML file, and a name that is not UTF-8 is
// matched without RE2 (which refuses such a pattern).
#include <gtest/gtest.h>

#include <string>

#include "AnnotationTestUtil.h"
#include "qnnrules/RecipeSearch.h"
#include "qnnrules/annotate/Recipe.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

TEST(RecipeExactName, PatternsOfExactNamesAreMatchedByName) {
  const std::vector<std::string> names = {"conv.0", "a b", "x[1]+(y)", "e\x1b[31mred\x7f", std::string("n\0x", 3),
                                         "caf\xe9", "\xc3\xa9t\xc3\xa9"};
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    Override o;
    o.by = Override::By::kNodeName;
    o.pattern = exactNamePattern(name);
    o.selection = select("16a8w");
    for (char c : o.pattern) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << o.pattern;
    ASSERT_TRUE(compileOverride(o).isOk());
    ASSERT_TRUE(o.exactName.has_value());
    EXPECT_EQ(*o.exactName, name);
    EXPECT_EQ(o.regex, nullptr);
  }
  // Anything else is a regex.
  for (const char* pattern : {"conv", "^conv", "^a.b$", "^a\\$", "^\\d$", "^\\x{1b}$", "^caf\\xe9$", "(?i)^a$"}) {
    SCOPED_TRACE(pattern);
    Override o;
    o.by = Override::By::kNodeName;
    o.pattern = pattern;
    o.selection = select("16a8w");
    ASSERT_TRUE(compileOverride(o).isOk());
    EXPECT_FALSE(o.exactName.has_value());
    EXPECT_NE(o.regex, nullptr);
  }
}

// What --suggest-recipe writes for a node named with ESC and DEL reads back with --recipe and
// overrides that node; its notes and comments hold no raw control character.
TEST(RecipeExactName, NamesWithControlCharactersRoundTripThroughTheRecipeFile) {
  const std::string name = "relu\x1b[2J\x7f";
  RecipeSearchResult r;
  r.base = "8a8w";
  r.note = "test";
  r.recipe.defaultSelection = select("8a8w");
  r.choices.push_back({name, "aten.relu.default", "8a8w", "16a8w", "dtype: node '" + name + "' needs 16 bits"});
  Override o;
  o.by = Override::By::kNodeName;
  o.pattern = exactNamePattern(name);
  r.recipe.overrides.push_back(o);
  r.onCpu.push_back({"cpu\x1b", "aten.x", "why\nnot"});
  const std::string yaml = r.yaml();
  for (char c : yaml) EXPECT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) << yaml;
  Recipe back;
  DiagnosticList errors;
  loadRecipeText(yaml, "recipe.yaml", quantConfigs(), back, errors);
  ASSERT_TRUE(errors.empty()) << formatText(errors[0]) << yaml;
  ASSERT_EQ(back.overrides.size(), 1u);
  ASSERT_TRUE(back.overrides[0].exactName.has_value());
  EXPECT_EQ(*back.overrides[0].exactName, name);
  EXPECT_EQ(r.text().find('\x1b'), std::string::npos) << r.text();

  Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1, "nodes": [
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 8]}]},
    {"name": "relu\u001b[2J\u007f", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x"}],
     "outputs": [{"dtype": "float32", "shape": [1, 8]}]},
    {"name": "out", "kind": "output", "args": [[{"ref": "relu\u001b[2J\u007f"}]]}]})");
  AnnotateResult a = annotate(g, "8a8w", &back);
  ASSERT_TRUE(a.status.isOk()) << a.status.message();
  for (const Diagnostic& d : a.diagnostics) EXPECT_NE(d.code, DiagCode::kOverrideUnmatched) << d.message;
}

}  // namespace
}  // namespace qnnrules
