// A repair as ONNX Runtime tensor overrides (OrtTensorOverrides.h, qnn-validate
// --suggest-overrides): the golden files of tests/data/repair/expected/ hold the JSON the CLI
// writes for the float model of tests/data/repair/make_model.py and what it says on stderr
// (QNNRULES_UPDATE_GOLDEN=1 rewrites them; review the diff). Per weighted op, the weight's
// ONNX name, its QuantType and, per-channel, the axis of the ONNX tensor.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "AnnotationTestUtil.h"
#include "BuiltinEngine.h"
#include "TestUtil.h"
#include "qnnrules/OrtTensorOverrides.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT
namespace fs = std::filesystem;

const std::string kSource = QNNRULES_SOURCE_DIR;
const fs::path kData = fs::path(kSource) / "tests" / "data" / "repair";

std::string expected(const fs::path& file, const std::string& actual) {
  if (const char* u = std::getenv("QNNRULES_UPDATE_GOLDEN"); u && std::string(u) == "1")
    std::ofstream(file, std::ios::binary) << actual;
  return readFile(file);
}

struct Written {
  int exitCode = 0;
  std::string json;    // the --suggest-overrides file
  std::string stderrText;
};

Written suggestOverrides(const std::string& model, const std::string& soc, const std::string& config) {
  TempDir dir;
  const fs::path out = dir.path() / "overrides.json", err = dir.path() / "err.txt";
  // Grouped, so that run()'s own 2>&1 does not take the command's stderr from the file.
  CommandResult r = run("{ env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) + " " + shellQuote(model) +
                        " --soc " + soc + " --annotate " + config + " --warn --format json --suggest-overrides " +
                        shellQuote(out.string()) + " >/dev/null 2>" + shellQuote(err.string()) + "; }");
  Written w{r.exitCode, fs::exists(out) ? readFile(out) : std::string(), readFile(err)};
  // The stderr of a JSON run: the search's summary, then the overrides' count and warnings;
  // the absolute output path is the temporary directory's.
  for (size_t at; (at = w.stderrText.find(out.string())) != std::string::npos;)
    w.stderrText.replace(at, out.string().size(), "OVERRIDES.json");
  return w;
}

class OrtTensorOverridesGolden : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(OrtTensorOverridesGolden, TheCliWritesTheOverridesOfTheRepair) {
  const auto& [soc, config] = GetParam();
  Written w = suggestOverrides((kData / "float_mixed.onnx").string(), soc, config);
  ASSERT_EQ(w.exitCode, 0) << w.stderrText;
  std::string name = "float_mixed." + config + "." + soc;
  for (char& c : name)
    if (c == ':' || c == ',') c = '_';
  const fs::path json = kData / "expected" / (name + ".json"), err = kData / "expected" / (name + ".stderr");
  EXPECT_EQ(w.json, expected(json, w.json)) << "golden: " << json.lexically_relative(kSource).string();
  EXPECT_EQ(w.stderrText, expected(err, w.stderrText)) << "golden: " << err.lexically_relative(kSource).string();
}

INSTANTIATE_TEST_SUITE_P(Repairs, OrtTensorOverridesGolden,
                         ::testing::Values(std::make_pair("SM8350", "16a16w"),
                                           std::make_pair("SM8350", "16a16w:per_channel"),
                                           std::make_pair("SM8350", "16a4w_block")));

TEST(OrtTensorOverrides, EachWeightOnceWithTheOnnxAxisAndActivationChangesAreUnexpressed) {
  Engine e = builtinEngine("htp", "SM8350");
  ASSERT_TRUE(e.ok()) << e.status().message();
  const Graph g = readGraph((kData / "float_mixed.onnx").string());
  RecipeSearchResult r = suggestRecipe(e, g, "16a16w:per_channel");
  ASSERT_TRUE(r.ok() && r.validatesClean) << r.text();
  OrtTensorOverrides o = ortTensorOverrides(e, g, r);
  ASSERT_TRUE(o.ok()) << o.status.message();
  std::vector<std::string> got;
  for (const OrtTensorOverride& t : o.overrides)
    got.push_back(t.tensor + " " + t.quantType + (t.symmetric ? " sym" : "") +
                  (t.axis ? " axis " + std::to_string(*t.axis) : ""));
  // The shared weight is written once; biases are ORT's to derive. A MatMul's second input is
  // per-tensor whatever the granularity (the matmul_in1 role of quant_configs.yaml).
  EXPECT_EQ(got, (std::vector<std::string>{"conv.weight QInt8 sym axis 0", "deconv.weight QInt8 sym axis 1",
                                           "fc1.weight QInt8 sym axis 0", "fc2.weight QInt8 sym axis 1",
                                           "proj.weight QInt8 sym", "shared.weight QInt8 sym"}));
  // The MatMul of two activations gets an 8-bit second input: an activation tensor.
  ASSERT_EQ(o.unexpressed.size(), 1u);
  EXPECT_NE(o.unexpressed[0].find("scores: input 1"), std::string::npos) << o.unexpressed[0];
}

TEST(OrtTensorOverrides, NotOnnxAndAFailedSearchAreErrors) {
  Written w = suggestOverrides(kSource + "/tests/data/annotate/mixed.json", "SM8350", "16a16w");
  EXPECT_EQ(w.exitCode, 2);
  EXPECT_NE(w.stderrText.find("--suggest-overrides needs an ONNX model"), std::string::npos) << w.stderrText;
  Engine e = builtinEngine("htp", "SM8350");
  const Graph g = readGraph((kData / "float_mixed.onnx").string());
  OrtTensorOverrides o = ortTensorOverrides(e, g, suggestRecipe(e, g, "17a3w"));
  EXPECT_FALSE(o.ok());
}

}  // namespace
}  // namespace qnnrules
