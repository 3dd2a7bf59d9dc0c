// Did-you-mean for every name a user types (core/Suggest.h): one case per typo class, each
// through the front end that takes the name, showing the suggestion in the error.
#include <gtest/gtest.h>

#include <vector>

#include "TestUtil.h"
#include "qnnrules/core/Suggest.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::shellQuote;

TEST(Suggest, NearestNameIgnoresCaseAndRejectsFarNames) {
  const std::vector<std::string> socs{"SM8350", "SM8650", "SM8750"};
  EXPECT_EQ(didYouMean("sm8655", socs), "did you mean 'SM8650'?");
  EXPECT_EQ(didYouMean("QCS6490", socs), "");
  EXPECT_EQ(findIgnoringCase("sm8750", socs), "SM8750");
  EXPECT_EQ(findIgnoringCase("SM87", socs), std::nullopt);
  // A swap of neighbouring letters is one edit: "hpt" is htp, not gpu (two substitutions).
  EXPECT_EQ(editDistanceIgnoringCase("hpt", "htp"), 1u);
  EXPECT_EQ(didYouMean("hpt", std::vector<std::string>{"gpu", "htp", "lpai"}), "did you mean 'htp'?");
}

CommandResult run(const std::string& tool, const std::string& args) {
  return testing::run("cd " + shellQuote(QNNRULES_SOURCE_DIR) + " && env QNNRULES_PATH= " + shellQuote(tool) + " " +
                      args);
}

struct TypoCase {
  const char* name;
  const char* args;
  const char* suggestion;  // the text the error must contain
};
inline void PrintTo(const TypoCase& c, std::ostream* os) { *os << c.name; }

class ValidateTypo : public ::testing::TestWithParam<TypoCase> {};

TEST_P(ValidateTypo, ErrorSuggestsTheName) {
  const TypoCase& c = GetParam();
  CommandResult r = run(QNNRULES_VALIDATE_EXE, c.args);
  EXPECT_NE(r.output.find(c.suggestion), std::string::npos) << r.output;
  EXPECT_NE(r.exitCode, 0) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Classes, ValidateTypo,
    ::testing::Values(
        TypoCase{"soc", "examples/tiny_cnn_8a8w.json --soc SM8655", "did you mean 'SM8650'?"},
        TypoCase{"backend", "examples/tiny_cnn_8a8w.json --soc SM8650 --backend hpt", "did you mean 'htp'?"},
        TypoCase{"config", "examples/tiny_cnn_8a8w.json --soc SM8650 --annotate 16a8x", "did you mean '16a8w'?"},
        TypoCase{"config_modifier", "examples/tiny_cnn_8a8w.json --soc SM8650 --annotate 16a8w:per_chanel",
                 "did you mean 'per_channel'?"},
        TypoCase{"flag", "examples/tiny_cnn_8a8w.json --fromat json", "did you mean '--format'?"},
        TypoCase{"format", "examples/tiny_cnn_8a8w.json --format jsn",
                 "--format: jsn is not one of {text, json, sarif, html}; did you mean 'json'?"},
        TypoCase{"color", "examples/tiny_cnn_8a8w.json --color alway", "did you mean 'always'?"},
        TypoCase{"log_level", "examples/tiny_cnn_8a8w.json --log-level wran", "did you mean 'warn'?"},
        TypoCase{"backend_option", "examples/tiny_cnn_8a8w.json --backend lpai --soc SM8850 --backend-option fsp=30",
                 "did you mean 'fps'?"},
        TypoCase{"graph_op", "tests/data/report/typo_op.json --soc SM8650",
                 "did you mean 'aten.conv2d.default'?"}),
    [](const ::testing::TestParamInfo<TypoCase>& p) { return std::string(p.param.name); });

TEST(RulesTypo, ExplainSuggestsTheRuleId) {
  CommandResult r = run(QNNRULES_RULES_EXE, "explain htp.conv2 --backend htp");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("did you mean 'htp.conv2d'?"), std::string::npos) << r.output;
}

// Names are case-insensitive wherever one of them is: SoC, backend, format, config.
TEST(NameCase, SocBackendFormatAndConfigIgnoreCase) {
  CommandResult r = run(QNNRULES_VALIDATE_EXE,
                        "examples/tiny_cnn_8a8w.json --soc sm8650 --backend HTP --format JSON --annotate 16A8W");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("\"backend\": \"htp\""), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qnnrules
