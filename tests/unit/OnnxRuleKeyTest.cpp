// The `onnx` key of a rule: entries read and compiled into the op-type table, and every
// mistake an error with its exact file:line:column (unknown op type with a did-you-mean,
// unknown key, unknown port, overlapping entries, contradictory conditions, misplaced rest).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {
namespace {

// Line 5 is the `onnx` line each test writes.
std::string ruleWith(const std::string& onnxLine) {
  return "version: 1\n"
         "rules:\n"
         "  - id: t.conv\n"
         "    targets: [aten.conv2d.default]\n" +
         onnxLine + "\n" +
         "    qnn_op: Conv2d\n"
         "    pattern: conv\n"
         "    description: Conv.\n"
         "    inputs: [{name: input}, {name: weight}, {name: bias, optional: true}]\n"
         "    outputs: [{name: output}]\n"
         "    variants:\n"
         "      - name: f\n"
         "        ports: {input: {dtype: FLOAT_32}, weight: {dtype: FLOAT_32}, bias: {dtype: FLOAT_32},\n"
         "                output: {dtype: FLOAT_32}}\n";
}

struct Loaded {
  std::vector<Rule> rules;
  DiagnosticList errors;
};

Loaded load(const std::string& onnxLine) {
  Loaded l;
  loadRuleText(ruleWith(onnxLine), "t.yaml", l.rules, l.errors);
  return l;
}

std::string dump(const DiagnosticList& errors) {
  std::string s;
  for (const Diagnostic& d : errors) s += formatText(d) + "\n";
  return s;
}

TEST(OnnxRuleKey, EntriesAreReadAndCompiledToPortIndices) {
  Loaded l = load("    onnx: [Relu, {op: Conv, inputs: [input, null, bias], when: {rank: [3, 4], constant_inputs: 1}}]");
  ASSERT_TRUE(l.errors.empty()) << dump(l.errors);
  ASSERT_EQ(l.rules.size(), 1u);
  const std::vector<OnnxMapping>& m = l.rules[0].onnx;
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].opType, "Relu");
  EXPECT_TRUE(m[0].inputs.empty());
  EXPECT_EQ(m[1].opType, "Conv");
  EXPECT_EQ(m[1].inputs, (std::vector<std::string>{"input", "", "bias"}));
  EXPECT_EQ(m[1].ranks, (std::vector<int>{3, 4}));
  EXPECT_EQ(m[1].constantInputs, std::vector<int>{1});
  EXPECT_EQ(m[1].mark.toString(), "t.yaml:5:18");
  EXPECT_EQ(describeOnnxMapping(m[1]), "Conv (rank 3 or 4, input 1 constant)");

  RuleSet set("t", std::move(l.rules));
  const std::vector<OnnxCandidate>* conv = set.onnxCandidates("Conv");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->size(), 1u);
  EXPECT_EQ((*conv)[0].portOf, (std::vector<int>{0, -1, 2}));
  const std::vector<OnnxCandidate>* relu = set.onnxCandidates("Relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ((*relu)[0].portOf, (std::vector<int>{0, 1, 2}));  // default: the input ports in order
  EXPECT_EQ(set.onnxCandidates("Sigmoid"), nullptr);
}

// ONNX Runtime's contrib ops are named with their domain and keyed by it: com.microsoft::Gelu is
// not the default domain's Gelu.
TEST(OnnxRuleKey, ContribOpsAreKeyedWithTheirDomain) {
  Loaded l = load("    onnx: [com.microsoft::FusedMatMul]");
  ASSERT_TRUE(l.errors.empty()) << dump(l.errors);
  ASSERT_EQ(l.rules.size(), 1u);
  EXPECT_EQ(l.rules[0].onnx[0].opType, "com.microsoft::FusedMatMul");
  RuleSet set("t", std::move(l.rules));
  EXPECT_NE(set.onnxCandidates("com.microsoft::FusedMatMul"), nullptr);
  EXPECT_EQ(set.onnxCandidates("FusedMatMul"), nullptr);
}

struct BadKey {
  const char* name;
  const char* line;       // line 5
  DiagCode code;
  const char* location;   // file:line:column
  const char* message;
  const char* hint;
};
inline void PrintTo(const BadKey& c, std::ostream* os) { *os << c.name; }

class OnnxRuleKeyError : public ::testing::TestWithParam<BadKey> {};

TEST_P(OnnxRuleKeyError, IsOneErrorAtItsPlace) {
  const BadKey& c = GetParam();
  Loaded l = load(c.line);
  ASSERT_EQ(l.errors.size(), 1u) << dump(l.errors);
  EXPECT_TRUE(l.rules.empty());
  const Diagnostic& d = l.errors[0];
  EXPECT_EQ(d.code, c.code) << dump(l.errors);
  EXPECT_EQ(d.mark.toString(), c.location);
  EXPECT_EQ(d.message, c.message);
  EXPECT_EQ(d.hint, c.hint);
  EXPECT_EQ(d.ruleId, "t.conv");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnnxRuleKeyError,
    ::testing::Values(
        BadKey{"typo_in_op_type", "    onnx: [Cnov]", DiagCode::kUnknownEnumValue, "t.yaml:5:12",
               "unknown ONNX op type 'Cnov' in ONNX entry #1 of rule 't.conv'", "did you mean 'Conv'?"},
        BadKey{"wrong_case", "    onnx: [{op: conv}]", DiagCode::kUnknownEnumValue, "t.yaml:5:17",
               "unknown ONNX op type 'conv' in ONNX entry #1 of rule 't.conv'", "did you mean 'Conv'?"},
        BadKey{"unknown_key", "    onnx: [{op: Conv, whne: {rank: 4}}]", DiagCode::kUnknownKey, "t.yaml:5:23",
               "unknown key 'whne' in ONNX entry #1 of rule 't.conv'", "did you mean 'when'?"},
        BadKey{"unknown_condition", "    onnx: [{op: Conv, when: {ranks: 4}}]", DiagCode::kUnknownKey, "t.yaml:5:30",
               "unknown key 'ranks' in 'when' of ONNX entry #1 of rule 't.conv'", "did you mean 'rank'?"},
        BadKey{"unknown_port", "    onnx: [{op: Conv, inputs: [input, wieght]}]", DiagCode::kUnknownPort,
               "t.yaml:5:39",
               "'inputs' of ONNX entry #1 of rule 't.conv' names 'wieght', which is not an input port of rule 't.conv'",
               "did you mean 'weight'?"},
        BadKey{"overlap", "    onnx: [{op: Conv, when: {rank: [4, 5]}}, {op: Conv, when: {rank: 4}}]",
               DiagCode::kDuplicateTarget, "t.yaml:5:46",
               "ONNX entry 'Conv (rank 4)' of rule 't.conv' overlaps the entry at t.yaml:5:12; one node would match "
               "both",
               ""},
        BadKey{"constant_and_activation", "    onnx: [{op: Conv, when: {constant_inputs: [1], activation_inputs: 1}}]",
               DiagCode::kInvalidValue, "t.yaml:5:29",
               "'when' of ONNX entry #1 of rule 't.conv' wants input 1 both constant and not constant", ""},
        BadKey{"rest_not_last", "    onnx: [{op: Concat, inputs: [input..., weight]}]", DiagCode::kInvalidValue,
               "t.yaml:5:34",
               "'inputs' of ONNX entry #1 of rule 't.conv': only the last port may take the rest ('input...')", ""},
        BadKey{"rank_out_of_range", "    onnx: [{op: Conv, when: {rank: 9}}]", DiagCode::kInvalidValue,
               "t.yaml:5:36", "'rank' in 'when' of ONNX entry #1 of rule 't.conv' must be an integer from 0 to 8", ""},
        BadKey{"aten_not_a_target", "    onnx: [{op: Conv, aten: aten.conv3d.default}]", DiagCode::kInvalidValue,
               "t.yaml:5:29",
               "'aten' of ONNX entry #1 of rule 't.conv' is 'aten.conv3d.default', which is not a target of rule "
               "'t.conv'",
               "did you mean 'aten.conv2d.default'?"},
        BadKey{"typo_in_contrib_op", "    onnx: [com.microsoft::Gelux]", DiagCode::kUnknownEnumValue, "t.yaml:5:12",
               "unknown ONNX op type 'com.microsoft::Gelux' in ONNX entry #1 of rule 't.conv'",
               "did you mean 'com.microsoft::Gelu'?"},
        BadKey{"not_a_list", "    onnx: Conv", DiagCode::kWrongType, "t.yaml:5:11",
               "'onnx' in rule 't.conv' must be a list of ONNX op entries", "write [Conv]"}),
    [](const ::testing::TestParamInfo<BadKey>& p) { return std::string(p.param.name); });

TEST(OnnxRuleKey, EntriesThatConditionsSeparateAreAccepted) {
  Loaded l = load(
      "    onnx: [{op: Conv, when: {rank: [3, 4]}}, {op: Conv, when: {rank: 5, constant_inputs: 1}},\n"
      "           {op: Conv, when: {rank: 5, activation_inputs: 1}}]");
  EXPECT_TRUE(l.errors.empty()) << dump(l.errors);
}

}  // namespace
}  // namespace qnnrules
