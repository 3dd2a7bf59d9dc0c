// Rule and SoC file loading: a valid file with every key (fields and marks), one test per
// error kind (code, exact line:column, message text), all errors of a file reported, hostile
// input (deep nesting, oversize, garbage) refused without crashing, and socs.yaml.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "TestHardware.h"
#include "qnnrules/load/RuleLoader.h"

namespace qnnrules {
namespace {

// `text` contains `part` (gmock is not linked into the test binary).
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

const std::string kDataDir = std::string(QNNRULES_TEST_DATA_DIR) + "/loader/";

struct Loaded {
  std::vector<Rule> rules;
  DiagnosticList errors;
};

Loaded loadText(const std::string& text, const LoadLimits& limits = {}) {
  Loaded l;
  loadRuleText(text, "t.yaml", l.rules, l.errors, limits, testing::gatedBy("htp"));
  return l;
}

std::string dump(const DiagnosticList& errors) {
  std::string s;
  for (const Diagnostic& d : errors) s += formatText(d) + "\n";
  return s;
}

std::string at(const Diagnostic& d) { return d.mark.toString(); }

// A valid one-rule file; tests derive broken files from it by replacing one line.
//  1 version: 1
//  2 rules:
//  3   - id: t.relu
//  ...
// 14           output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
const std::string kBase =
    "version: 1\n"
    "rules:\n"
    "  - id: t.relu\n"
    "    targets: [aten.relu.default]\n"
    "    qnn_op: Relu\n"
    "    pattern: siso\n"
    "    description: Relu lowers to QNN Relu.\n"
    "    inputs: [{name: input}]\n"
    "    outputs: [{name: output}]\n"
    "    variants:\n"
    "      - name: a8\n"
    "        ports:\n"
    "          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n"
    "          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n";

// kBase with the first occurrence of `from` replaced by `to` (which must exist).
std::string edit(const std::string& from, const std::string& to, std::string text = kBase) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not in the base text";
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

// Loads `text` and expects exactly one error, which it returns.
Diagnostic onlyError(const std::string& text) {
  Loaded l = loadText(text);
  EXPECT_EQ(l.errors.size(), 1u) << dump(l.errors);
  EXPECT_TRUE(l.rules.empty()) << "a rule with an error must not be appended";
  if (l.errors.empty()) return {};
  EXPECT_EQ(l.errors[0].severity, Severity::kError);
  return l.errors[0];
}

// --- the valid file -------------------------------------------------------------------------

class RuleLoaderValidFile : public ::testing::Test {
 protected:
  void SetUp() override {
    loadRuleFile(kDataDir + "valid.yaml", "rules/htp/valid.yaml", rules_, errors_, {}, testing::gatedBy("htp"));
    ASSERT_TRUE(errors_.empty()) << dump(errors_);
    ASSERT_EQ(rules_.size(), 6u);
  }
  const Rule& rule(size_t i) const { return rules_[i]; }
  std::vector<Rule> rules_;
  DiagnosticList errors_;
};

TEST_F(RuleLoaderValidFile, RuleFields) {
  const Rule& conv = rule(0);
  EXPECT_EQ(conv.id, "htp.conv2d");
  EXPECT_EQ(conv.kind, RuleKind::kOp);
  EXPECT_EQ(conv.targets, (std::vector<std::string>{"aten.conv2d.default", "aten.convolution.default"}));
  EXPECT_EQ(conv.qnnOp, "Conv2d");
  EXPECT_EQ(conv.pattern, AnnotationPattern::kConv);
  EXPECT_EQ(conv.description, "2-D convolution lowers to QNN Conv2d.");
  EXPECT_TRUE(conv.origin.empty()) << "the registry fills origin";
  EXPECT_TRUE(conv.reason.empty());
}

TEST_F(RuleLoaderValidFile, PortsAreInputsThenOutputsWithIndices) {
  const Rule& conv = rule(0);
  ASSERT_EQ(conv.ports.size(), 4u);
  const char* names[] = {"input", "weight", "bias", "output"};
  const int indices[] = {0, 1, 2, 0};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(conv.ports[i].name, names[i]);
    EXPECT_EQ(conv.ports[i].index, indices[i]) << names[i];
    EXPECT_EQ(conv.ports[i].isInput, i < 3) << names[i];
    EXPECT_EQ(conv.ports[i].optional, i == 2) << names[i];
    EXPECT_FALSE(conv.ports[i].variadic);
  }
  EXPECT_EQ(conv.findPort("bias"), 2);
  // Explicit output indices and variadic ports.
  const Rule& split = rule(3);
  ASSERT_EQ(split.ports.size(), 3u);
  EXPECT_EQ(split.ports[1].index, 1);
  EXPECT_FALSE(split.ports[1].isInput);
  EXPECT_EQ(split.ports[2].index, 2);
  EXPECT_TRUE(split.ports[2].variadic);
  EXPECT_TRUE(rule(2).ports[0].variadic);
}

TEST_F(RuleLoaderValidFile, VariantsAndConstraints) {
  const Rule& conv = rule(0);
  ASSERT_EQ(conv.variants.size(), 2u);
  const Variant& a8w8 = conv.variants[0];
  EXPECT_EQ(a8w8.name, "a8w8");
  EXPECT_FALSE(a8w8.gate.gated());
  EXPECT_TRUE(a8w8.description.empty());
  ASSERT_EQ(a8w8.ports.size(), conv.ports.size()) << "constraints are parallel to Rule::ports";
  const PortConstraint& in = a8w8.ports[0];
  DatatypeSet u8;
  u8.insert(QnnDatatype::kUFixed8);
  EXPECT_EQ(in.datatypes, u8);
  EncodingSet perTensor;
  perTensor.insert(Encoding::kScaleOffset);
  EXPECT_EQ(in.encodings, perTensor);
  EXPECT_EQ(in.bitwidths, 0u);
  EXPECT_FALSE(in.symmetric.has_value());
  EXPECT_FALSE(in.axis.has_value());
  EXPECT_FALSE(in.scale.has_value());
  EXPECT_EQ(in.sharedWith, -1);
  const PortConstraint& w = a8w8.ports[1];
  EXPECT_TRUE(w.datatypes.contains(QnnDatatype::kSFixed8));
  EXPECT_TRUE(w.encodings.contains(Encoding::kScaleOffset));
  EXPECT_TRUE(w.encodings.contains(Encoding::kAxisScaleOffset));
  EXPECT_FALSE(w.encodings.contains(Encoding::kBwScaleOffset));
  EXPECT_EQ(w.symmetric, std::optional<bool>(true));
  EXPECT_EQ(w.axis, std::optional<int>(0));
  EXPECT_TRUE(a8w8.ports[2].datatypes.contains(QnnDatatype::kSFixed32));

  const Variant& a16w16 = conv.variants[1];
  EXPECT_EQ(a16w16.gate.version, "V73");
  EXPECT_EQ(a16w16.gate.columnName, "htp");
  EXPECT_EQ(a16w16.gate.level, testing::builtinSocTable().column("htp")->levelOf("V73"));
  EXPECT_EQ(a16w16.description, "16-bit activations with 16-bit weights need HTP V73 or newer.");
  EXPECT_EQ(a16w16.hint, "use 16a8w (8-bit weights) on this SoC");
  const PortConstraint& w16 = a16w16.ports[1];
  EXPECT_TRUE(w16.datatypes.contains(QnnDatatype::kSFixed8));
  EXPECT_TRUE(w16.datatypes.contains(QnnDatatype::kSFixed16));
  EXPECT_FALSE(w16.datatypes.contains(QnnDatatype::kUFixed16));
  EXPECT_EQ(w16.bitwidths, (uint64_t{1} << 4) | (uint64_t{1} << 8) | (uint64_t{1} << 16));
  EXPECT_EQ(w16.symmetric, std::optional<bool>(false));
  EXPECT_TRUE(a16w16.ports[2].encodings.empty());
  EXPECT_EQ(a16w16.ports[3].bitwidths, uint64_t{1} << 16);
}

TEST_F(RuleLoaderValidFile, FixedScaleOffsetAndSharedWith) {
  const Rule& sigmoid = rule(1);
  EXPECT_EQ(sigmoid.pattern, AnnotationPattern::kFixedQParams);
  EXPECT_EQ(sigmoid.description, "Sigmoid lowers to QNN Sigmoid with a fixed output encoding.");
  const PortConstraint& out8 = sigmoid.variants[0].ports[1];
  ASSERT_TRUE(out8.scale.has_value());
  EXPECT_DOUBLE_EQ(*out8.scale, 1.0 / 256);
  EXPECT_EQ(out8.scaleText, "1/256");
  EXPECT_EQ(out8.offset, std::optional<int64_t>(0));
  const PortConstraint& out16 = sigmoid.variants[1].ports[1];
  ASSERT_TRUE(out16.scale.has_value());
  EXPECT_DOUBLE_EQ(*out16.scale, 1.0 / 65536);
  EXPECT_EQ(out16.scaleText, "0.0000152587890625");
  EXPECT_EQ(out16.offset, std::optional<int64_t>(-32768));

  const Rule& cat = rule(2);
  EXPECT_EQ(cat.variants[0].ports[1].sharedWith, 0);  // output shares 'tensors'
  EXPECT_EQ(cat.variants[0].ports[0].sharedWith, -1);
  const Rule& split = rule(3);
  EXPECT_EQ(split.variants[0].ports[1].sharedWith, 0);
  EXPECT_TRUE(split.variants[0].ports[0].datatypes.contains(QnnDatatype::kFloat16));
  EXPECT_TRUE(split.variants[0].ports[0].encodings.empty());
}

TEST_F(RuleLoaderValidFile, StructuralAndUnsupportedRules) {
  const Rule& getitem = rule(4);
  EXPECT_EQ(getitem.kind, RuleKind::kStructural);
  EXPECT_EQ(getitem.pattern, AnnotationPattern::kGetItem);
  EXPECT_TRUE(getitem.variants.empty());
  EXPECT_TRUE(getitem.qnnOp.empty());
  const Rule& nonzero = rule(5);
  EXPECT_EQ(nonzero.kind, RuleKind::kUnsupported);
  EXPECT_EQ(nonzero.pattern, AnnotationPattern::kNone);
  EXPECT_EQ(nonzero.reason, "QNN HTP has no Nonzero op.");
  EXPECT_TRUE(nonzero.variants.empty());
}

TEST_F(RuleLoaderValidFile, MarksAreOneBasedAndShareTheFileName) {
  const Rule& conv = rule(0);
  EXPECT_EQ(conv.mark.toString(), "rules/htp/valid.yaml:5:5");
  EXPECT_EQ(conv.ports[1].mark.toString(), "rules/htp/valid.yaml:16:9");
  EXPECT_EQ(conv.ports[3].mark.toString(), "rules/htp/valid.yaml:19:9");
  EXPECT_EQ(conv.variants[0].mark.toString(), "rules/htp/valid.yaml:21:9");
  EXPECT_EQ(conv.variants[1].mark.toString(), "rules/htp/valid.yaml:28:9");
  EXPECT_EQ(conv.variants[0].ports[1].mark.toString(), "rules/htp/valid.yaml:24:11");
  EXPECT_EQ(conv.variants[1].ports[1].mark.toString(), "rules/htp/valid.yaml:36:11");
  EXPECT_EQ(rule(5).mark.toString(), "rules/htp/valid.yaml:91:5");
  // One shared file string per file.
  EXPECT_EQ(conv.mark.file.get(), rule(5).variants.empty() ? rule(5).mark.file.get() : nullptr);
  EXPECT_EQ(conv.mark.file.get(), conv.variants[1].ports[3].mark.file.get());
}

TEST(RuleLoaderTest, ArgAndIndexDefaultToListPositionAndKindToOp) {
  Loaded l = loadText(edit("    inputs: [{name: input}]\n    outputs: [{name: output}]\n",
                           "    inputs: [{name: input}, {name: other}]\n"
                           "    outputs: [{name: output}, {name: indices}]\n",
                           edit("          output: {", "          other: {dtype: UINT_8}\n"
                                                      "          indices: {dtype: INT_32}\n"
                                                      "          output: {")));
  ASSERT_TRUE(l.errors.empty()) << dump(l.errors);
  ASSERT_EQ(l.rules.size(), 1u);
  const Rule& r = l.rules[0];
  EXPECT_EQ(r.kind, RuleKind::kOp);
  ASSERT_EQ(r.ports.size(), 4u);
  EXPECT_EQ(r.ports[0].index, 0);
  EXPECT_EQ(r.ports[1].index, 1);
  EXPECT_EQ(r.ports[2].name, "output");
  EXPECT_EQ(r.ports[2].index, 0);
  EXPECT_EQ(r.ports[3].name, "indices");
  EXPECT_EQ(r.ports[3].index, 1);
  // Constraints follow Rule::ports, not the order they are written in.
  EXPECT_TRUE(r.variants[0].ports[1].datatypes.contains(QnnDatatype::kUInt8));
  EXPECT_TRUE(r.variants[0].ports[3].datatypes.contains(QnnDatatype::kInt32));
  EXPECT_TRUE(r.variants[0].ports[2].datatypes.contains(QnnDatatype::kUFixed8));
}

TEST(RuleLoaderTest, BaseTextIsValid) {
  Loaded l = loadText(kBase);
  EXPECT_TRUE(l.errors.empty()) << dump(l.errors);
  ASSERT_EQ(l.rules.size(), 1u);
  EXPECT_EQ(l.rules[0].mark.toString(), "t.yaml:3:5");
}

// --- one test per error kind ------------------------------------------------------------------

TEST(RuleLoaderTest, YamlSyntaxErrorHasParserPosition) {
  Diagnostic d = onlyError(edit("    targets: [aten.relu.default]\n", "    targets: [aten.relu.default\n"));
  EXPECT_EQ(d.code, DiagCode::kYamlSyntax);
  EXPECT_EQ(at(d), "t.yaml:5:11");
  EXPECT_TRUE(Contains(d.message, "YAML syntax error: end of sequence flow not found"));
}

TEST(RuleLoaderTest, UnknownKeyListsAllowedKeysAndSuggests) {
  Loaded l = loadText(edit("    description: Relu", "    descripton: Relu"));
  ASSERT_GE(l.errors.size(), 1u) << dump(l.errors);
  const Diagnostic& u = l.errors[0];
  EXPECT_EQ(u.code, DiagCode::kUnknownKey);
  EXPECT_EQ(at(u), "t.yaml:7:5");
  EXPECT_EQ(u.message, "unknown key 'descripton' in rule 't.relu'");
  EXPECT_EQ(u.expected, "one of: id, kind, extends, targets, onnx, qnn_op, pattern, description, reason, max_rank, "
                        "empty_tensors, inputs, outputs, variants, add_variants");
  EXPECT_EQ(u.actual, "descripton");
  EXPECT_EQ(u.hint, "did you mean 'description'?");
  EXPECT_EQ(u.ruleId, "t.relu");
  // ... and the required description is then missing.
  ASSERT_EQ(l.errors.size(), 2u) << dump(l.errors);
  EXPECT_EQ(l.errors[1].code, DiagCode::kMissingKey);
}

TEST(RuleLoaderTest, UnknownKeyInConstraint) {
  Diagnostic d = onlyError(edit("input: {dtype: UFIXED_POINT_8,", "input: {dtype: UFIXED_POINT_8, sym: true,"));
  EXPECT_EQ(d.code, DiagCode::kUnknownKey);
  EXPECT_EQ(at(d), "t.yaml:13:42");
  EXPECT_EQ(d.message, "unknown key 'sym' in port 'input' in variant 'a8' of rule 't.relu'");
  EXPECT_TRUE(Contains(d.expected, "dtype, encoding, bitwidth, symmetric, axis, scale, offset, shared_with"));
  EXPECT_EQ(d.variant, "a8");
}

TEST(RuleLoaderTest, DuplicateKeyInBlockMapping) {
  Diagnostic d = onlyError(edit("    qnn_op: Relu\n", "    qnn_op: Relu\n    qnn_op: Relu6\n"));
  EXPECT_EQ(d.code, DiagCode::kDuplicateKey);
  EXPECT_EQ(at(d), "t.yaml:6:5");
  EXPECT_EQ(d.message, "duplicate key 'qnn_op' in rule 't.relu'; it is first given at t.yaml:5:5");
}

TEST(RuleLoaderTest, DuplicateKeyInFlowMapping) {
  Diagnostic d = onlyError(edit("input: {dtype: UFIXED_POINT_8,", "input: {dtype: UFIXED_POINT_8, dtype: INT_8,"));
  EXPECT_EQ(d.code, DiagCode::kDuplicateKey);
  EXPECT_EQ(at(d), "t.yaml:13:42");
  EXPECT_TRUE(Contains(d.message, "duplicate key 'dtype' in port 'input' in variant 'a8'"));
  EXPECT_TRUE(Contains(d.message, "first given at t.yaml:13:19"));
}

TEST(RuleLoaderTest, DuplicatePortInVariantPortsMap) {
  Diagnostic d = onlyError(edit("          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n",
                                "          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n"
                                "          output: {dtype: UFIXED_POINT_16}\n"));
  EXPECT_EQ(d.code, DiagCode::kDuplicateKey);
  EXPECT_EQ(at(d), "t.yaml:15:11");
  EXPECT_TRUE(Contains(d.message, "duplicate key 'output' in 'ports' of variant 'a8' of rule 't.relu'"));
}

TEST(RuleLoaderTest, MissingRequiredKey) {
  Diagnostic d = onlyError(edit("    targets: [aten.relu.default]\n", ""));
  EXPECT_EQ(d.code, DiagCode::kMissingKey);
  EXPECT_EQ(at(d), "t.yaml:3:5");
  EXPECT_EQ(d.message, "rule 't.relu' is missing required key 'targets'");
  EXPECT_EQ(d.expected, "targets");
  EXPECT_TRUE(Contains(d.actual, "id, qnn_op, pattern, description"));
}

TEST(RuleLoaderTest, MissingDtypeInConstraint) {
  Diagnostic d = onlyError(edit("input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}", "input: {encoding: SCALE_OFFSET}"));
  EXPECT_EQ(d.code, DiagCode::kMissingKey);
  EXPECT_EQ(at(d), "t.yaml:13:18");
  EXPECT_EQ(d.message, "port 'input' in variant 'a8' of rule 't.relu' is missing required key 'dtype'");
}

TEST(RuleLoaderTest, WrongTypeStringWhereListExpected) {
  Diagnostic d = onlyError(edit("    targets: [aten.relu.default]", "    targets: aten.relu.default"));
  EXPECT_EQ(d.code, DiagCode::kWrongType);
  EXPECT_EQ(at(d), "t.yaml:4:14");
  EXPECT_EQ(d.message, "'targets' in rule 't.relu' must be a list of strings");
  EXPECT_EQ(d.actual, "aten.relu.default");
  EXPECT_EQ(d.hint, "write [aten.relu.default]");
}

TEST(RuleLoaderTest, WrongTypeMappingWhereStringExpected) {
  Diagnostic d = onlyError(edit("    qnn_op: Relu", "    qnn_op: {name: Relu}"));
  EXPECT_EQ(d.code, DiagCode::kWrongType);
  EXPECT_EQ(at(d), "t.yaml:5:13");
  EXPECT_EQ(d.message, "'qnn_op' in rule 't.relu' must be a string");
  EXPECT_EQ(d.actual, "a mapping");
}

TEST(RuleLoaderTest, YesIsNotABoolean) {
  Diagnostic d = onlyError(edit("inputs: [{name: input}]", "inputs: [{name: input, optional: yes}]"));
  EXPECT_EQ(d.code, DiagCode::kWrongType);
  EXPECT_EQ(at(d), "t.yaml:8:38");
  EXPECT_EQ(d.message, "'optional' in input port 'input' of rule 't.relu' must be true or false");
  EXPECT_EQ(d.expected, "true or false");
  EXPECT_EQ(d.actual, "yes");
}

TEST(RuleLoaderTest, QuotedTrueIsNotABoolean) {
  Diagnostic d = onlyError(edit("input: {dtype: UFIXED_POINT_8,", "input: {dtype: UFIXED_POINT_8, symmetric: \"true\","));
  EXPECT_EQ(d.code, DiagCode::kWrongType);
  EXPECT_EQ(at(d), "t.yaml:13:53");
  EXPECT_EQ(d.actual, "\"true\"");
}

TEST(RuleLoaderTest, NumberIsNotAString) {
  Diagnostic d = onlyError(edit("    qnn_op: Relu", "    qnn_op: 12"));
  EXPECT_EQ(d.code, DiagCode::kWrongType);
  EXPECT_EQ(at(d), "t.yaml:5:13");
  EXPECT_EQ(d.hint, "quote the value to make it a string");
}

TEST(RuleLoaderTest, UnknownDatatypeSuggestsNearest) {
  Diagnostic d = onlyError(edit("output: {dtype: UFIXED_POINT_8", "output: {dtype: [UFIXED_POINT_16, UFIXED_POINT8]"));
  EXPECT_EQ(d.code, DiagCode::kUnknownEnumValue);
  EXPECT_EQ(at(d), "t.yaml:14:45");
  EXPECT_EQ(d.message,
            "unknown datatype 'UFIXED_POINT8' for 'dtype' of port 'output' in variant 'a8' of rule 't.relu'");
  EXPECT_TRUE(Contains(d.expected, "one of: UFIXED_POINT_8, UFIXED_POINT_16"));
  EXPECT_TRUE(Contains(d.expected, "BOOL_8"));
  EXPECT_EQ(d.actual, "UFIXED_POINT8");
  EXPECT_EQ(d.hint, "did you mean 'UFIXED_POINT_8'?");
}

TEST(RuleLoaderTest, UnknownEncodingSuggestsNearest) {
  Diagnostic d = onlyError(edit("input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}",
                                "input: {dtype: UFIXED_POINT_8, encoding: scale_offset}"));
  EXPECT_EQ(d.code, DiagCode::kUnknownEnumValue);
  EXPECT_EQ(at(d), "t.yaml:13:52");
  EXPECT_TRUE(Contains(d.message, "unknown encoding 'scale_offset' for 'encoding'"));
  EXPECT_EQ(d.hint, "did you mean 'SCALE_OFFSET'?");
}

TEST(RuleLoaderTest, UnknownKind) {
  Diagnostic d = onlyError(edit("    qnn_op: Relu\n", "    kind: operator\n    qnn_op: Relu\n"));
  EXPECT_EQ(d.code, DiagCode::kUnknownEnumValue);
  EXPECT_EQ(at(d), "t.yaml:5:11");
  EXPECT_EQ(d.message, "unknown rule kind 'operator' for 'kind' in rule 't.relu'");
  EXPECT_EQ(d.expected, "one of: op, structural, unsupported");
}

TEST(RuleLoaderTest, UnknownMinArchAcceptsOnlyCanonicalSpelling) {
  Diagnostic d = onlyError(edit("      - name: a8\n", "      - name: a8\n        min_arch: v73\n"));
  EXPECT_EQ(d.code, DiagCode::kUnknownEnumValue);
  EXPECT_EQ(at(d), "t.yaml:12:19");
  EXPECT_EQ(d.message, "unknown HTP version 'v73' for 'min_arch' in variant 'a8' of rule 't.relu'");
  EXPECT_EQ(d.expected, "one of: V68, V69, V73, V75, V79, V81");
  EXPECT_EQ(d.hint, "did you mean 'V73'?");
}

TEST(RuleLoaderTest, GateFailsAtIsValidationOrFinalizeBesideAMinArch) {
  Diagnostic d = onlyError(edit("      - name: a8\n", "      - name: a8\n        min_arch: V69\n        gate_fails_at: compile\n"));
  EXPECT_EQ(d.code, DiagCode::kInvalidValue);
  EXPECT_EQ(at(d), "t.yaml:13:24");
  EXPECT_EQ(d.message, "'gate_fails_at' of variant 'a8' of rule 't.relu' must be validation or finalize");
  Diagnostic alone = onlyError(edit("      - name: a8\n", "      - name: a8\n        gate_fails_at: finalize\n"));
  EXPECT_EQ(alone.code, DiagCode::kInvalidValue);
  EXPECT_EQ(at(alone), "t.yaml:12:9");
  EXPECT_EQ(alone.expected, "a min_arch beside it");
}

TEST(RuleLoaderTest, UnknownPatternSuggestsNearest) {
  Diagnostic d = onlyError(edit("    pattern: siso", "    pattern: sisso"));
  EXPECT_EQ(d.code, DiagCode::kUnknownPattern);
  EXPECT_EQ(at(d), "t.yaml:6:14");
  EXPECT_EQ(d.message, "unknown annotation pattern 'sisso' for 'pattern' in rule 't.relu'");
  EXPECT_TRUE(Contains(d.expected, "none, siso, binary, conv"));
  EXPECT_EQ(d.hint, "did you mean 'siso'?");
}

TEST(RuleLoaderTest, VariantNamesUndeclaredPort) {
  Loaded l = loadText(edit("          output: {", "          outptu: {"));
  ASSERT_EQ(l.errors.size(), 2u) << dump(l.errors);
  const Diagnostic& d = l.errors[0];
  EXPECT_EQ(d.code, DiagCode::kUnknownPort);
  EXPECT_EQ(at(d), "t.yaml:14:11");
  EXPECT_EQ(d.message, "variant 'a8' of rule 't.relu' constrains port 'outptu', which the rule does not declare");
  EXPECT_EQ(d.expected, "one of: input, output");
  EXPECT_EQ(d.hint, "did you mean 'output'?");
  // The declared port is then missing from the variant.
  const Diagnostic& m = l.errors[1];
  EXPECT_EQ(m.code, DiagCode::kMissingKey);
  EXPECT_EQ(at(m), "t.yaml:13:11");
  EXPECT_EQ(m.message,
            "variant 'a8' of rule 't.relu' does not constrain port 'output'; every port of the rule must appear");
  EXPECT_TRUE(l.rules.empty());
}

TEST(RuleLoaderTest, VariantMissingPort) {
  Diagnostic d = onlyError(edit("          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n", ""));
  EXPECT_EQ(d.code, DiagCode::kMissingKey);
  EXPECT_EQ(at(d), "t.yaml:13:11");
  EXPECT_TRUE(Contains(d.message, "does not constrain port 'output'"));
  EXPECT_EQ(d.expected, "a constraint for port 'output'");
  EXPECT_EQ(d.hint, "declared at t.yaml:9:15");
}

TEST(RuleLoaderTest, SharedWithUnknownPort) {
  Diagnostic d = onlyError(edit("output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, shared_with: inptu,"));
  EXPECT_EQ(d.code, DiagCode::kUnknownPort);
  EXPECT_EQ(at(d), "t.yaml:14:56");
  EXPECT_EQ(d.message,
            "'shared_with' of port 'output' in variant 'a8' of rule 't.relu' names port 'inptu', which the rule "
            "does not declare");
  EXPECT_EQ(d.hint, "did you mean 'input'?");
}

// kInvalidValue cases: one line of kBase replaced, one error expected at `where`.
struct InvalidCase {
  const char* name;
  const char* from;
  const char* to;
  const char* where;
  const char* message;  // a substring of the message
};
// Test names in CTest and gtest output: the case name, not the bytes of the struct.
inline void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.name; }


class RuleLoaderInvalidValue : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(RuleLoaderInvalidValue, ReportsInvalidValue) {
  const InvalidCase& c = GetParam();
  Diagnostic d = onlyError(edit(c.from, c.to));
  EXPECT_EQ(d.code, DiagCode::kInvalidValue) << formatText(d);
  EXPECT_EQ(at(d), c.where) << formatText(d);
  EXPECT_TRUE(Contains(d.message, c.message));
}

const InvalidCase kInvalidCases[] = {
    {"Version2", "version: 1", "version: 2", "t.yaml:1:10", "unsupported format version 2; the only version is 1"},
    {"NegativeArg", "inputs: [{name: input}]", "inputs: [{name: input, arg: -1}]", "t.yaml:8:33",
     "'arg' in input port 'input' of rule 't.relu' must be 0 or greater"},
    {"ArgBoundTwice", "inputs: [{name: input}]\n    outputs: [{name: output}]\n    variants:\n      - name: a8\n"
                      "        ports:\n",
     "inputs: [{name: input}, {name: x, arg: 0}]\n    outputs: [{name: output}]\n    variants:\n      - name: a8\n"
     "        ports:\n          x: {dtype: UFIXED_POINT_8}\n",
     "t.yaml:8:44",
     "argument 0 of input port 'x' of rule 't.relu' is already bound to port 'input'"},
    {"EmptyTargets", "targets: [aten.relu.default]", "targets: []", "t.yaml:4:14",
     "'targets' in rule 't.relu' must not be empty"},
    {"EmptyTargetString", "targets: [aten.relu.default]", "targets: [aten.relu.default, \"\"]", "t.yaml:4:34",
     "an element of 'targets' in rule 't.relu' must not be empty"},
    {"TargetTwiceInRule", "targets: [aten.relu.default]", "targets: [aten.relu.default, aten.relu.default]",
     "t.yaml:4:34", "target 'aten.relu.default' is listed twice"},
    {"ZeroScale", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, scale: 0,", "t.yaml:14:50",
     "'scale' of port 'output' in variant 'a8' of rule 't.relu' must be greater than 0"},
    {"NegativeScale", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, scale: -0.5,",
     "t.yaml:14:50", "must be greater than 0"},
    {"ZeroFractionScale", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, scale: \"0/256\",",
     "t.yaml:14:50", "must be greater than 0"},
    {"MalformedFraction", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, scale: \"1/x\",",
     "t.yaml:14:50", "'scale' of port 'output' in variant 'a8' of rule 't.relu' '1/x' is not a number or a fraction"},
    {"DivisionByZero", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, scale: \"1/0\",",
     "t.yaml:14:50", "'1/0' is not a number or a fraction"},
    {"QuotedNonFraction", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, scale: \"0.5\",",
     "t.yaml:14:50", "'0.5' is not a number or a fraction"},
    {"InfiniteScale", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, scale: .inf,",
     "t.yaml:14:50", "must be a positive finite decimal number"},
    {"BitwidthZero", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, bitwidth: 0,", "t.yaml:14:53",
     "'bitwidth' of port 'output' in variant 'a8' of rule 't.relu' must be a bit width from 1 to 32"},
    {"Bitwidth33InList", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, bitwidth: [8, 33],",
     "t.yaml:14:57", "must be a bit width from 1 to 32"},
    {"EmptyDtypeList", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: [],", "t.yaml:14:27",
     "'dtype' of port 'output' in variant 'a8' of rule 't.relu' must not be an empty list"},
    {"OpWithoutQnnOp", "    qnn_op: Relu\n", "", "t.yaml:3:5",
     "rule 't.relu' has kind op but no 'qnn_op'; kind op requires the QNN op type it lowers to"},
    {"OpWithoutPattern", "    pattern: siso\n", "", "t.yaml:3:5", "rule 't.relu' has kind op but no 'pattern'"},
    {"OpWithEmptyVariants",
     "    variants:\n      - name: a8\n        ports:\n"
     "          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n"
     "          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n",
     "    variants: []\n", "t.yaml:10:15", "'variants' in rule 't.relu' must not be empty"},
    {"UnsupportedWithoutReason", "    qnn_op: Relu\n    pattern: siso\n    description: Relu lowers to QNN Relu.\n"
     "    inputs: [{name: input}]\n    outputs: [{name: output}]\n    variants:\n      - name: a8\n        ports:\n"
     "          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n"
     "          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n",
     "    kind: unsupported\n    description: x.\n", "t.yaml:3:5",
     "rule 't.relu' has kind unsupported but no 'reason'"},
    {"StructuralWithVariants", "    qnn_op: Relu\n", "    kind: structural\n", "t.yaml:10:5",
     "'variants' is only allowed in rules of kind op; rule 't.relu' has kind structural"},
    {"ReasonOnOpRule", "    qnn_op: Relu\n", "    qnn_op: Relu\n    reason: none\n", "t.yaml:6:5",
     "'reason' is only allowed in rules of kind unsupported"},
    {"DuplicatePortName", "outputs: [{name: output}]", "outputs: [{name: input}]", "t.yaml:9:22",
     "port name 'input' is declared twice in rule 't.relu'; it is first declared at t.yaml:8:14"},
    {"DuplicateVariantName", "    variants:\n",
     "    variants:\n      - name: a8\n        ports: {input: {dtype: INT_8}, output: {dtype: INT_8}}\n",
     "t.yaml:13:15", "variant name 'a8' is used twice in rule 't.relu'; it is first used at t.yaml:11:9"},
    {"SharedWithItself", "output: {dtype: UFIXED_POINT_8,", "output: {dtype: UFIXED_POINT_8, shared_with: output,",
     "t.yaml:14:56", "names the port itself"},
    {"EmptyString", "    qnn_op: Relu", "    qnn_op: ''", "t.yaml:5:13", "'qnn_op' in rule 't.relu' must not be empty"},
};

INSTANTIATE_TEST_SUITE_P(RuleLoader, RuleLoaderInvalidValue, ::testing::ValuesIn(kInvalidCases),
                         [](const ::testing::TestParamInfo<InvalidCase>& p) { return p.param.name; });

TEST(RuleLoaderTest, VersionErrorKeepsCheckingButAppendsNothing) {
  Loaded l = loadText(edit("version: 1", "version: 2", edit("pattern: siso", "pattern: bogus")));
  ASSERT_EQ(l.errors.size(), 2u) << dump(l.errors);
  EXPECT_EQ(l.errors[0].code, DiagCode::kInvalidValue);
  EXPECT_EQ(l.errors[1].code, DiagCode::kUnknownPattern);
  Loaded ok = loadText(edit("version: 1", "version: 2"));
  EXPECT_TRUE(ok.rules.empty()) << "rules of a file with a bad version are not used";
  Loaded missing = loadText(edit("version: 1\n", ""));
  ASSERT_EQ(missing.errors.size(), 1u) << dump(missing.errors);
  EXPECT_EQ(missing.errors[0].code, DiagCode::kMissingKey);
  EXPECT_EQ(missing.errors[0].message, "the top level is missing required key 'version'");
  Loaded quoted = loadText(edit("version: 1", "version: \"1\""));
  ASSERT_EQ(quoted.errors.size(), 1u);
  EXPECT_EQ(quoted.errors[0].code, DiagCode::kWrongType);
}

// --- all errors of a file --------------------------------------------------------------------

TEST(RuleLoaderTest, ReportsEveryErrorOfAFileAndKeepsGoodRules) {
  std::vector<Rule> rules;
  DiagnosticList errors;
  loadRuleFile(kDataDir + "many_errors.yaml", "many_errors.yaml", rules, errors, {}, testing::gatedBy("htp"));
  struct Expected {
    DiagCode code;
    const char* where;
    const char* message;
  };
  const Expected expected[] = {
      {DiagCode::kUnknownKey, "many_errors.yaml:8:5", "unknown key 'descripton' in rule 'bad.typo'"},
      {DiagCode::kMissingKey, "many_errors.yaml:4:5", "rule 'bad.typo' is missing required key 'description'"},
      {DiagCode::kUnknownEnumValue, "many_errors.yaml:15:27", "unknown datatype 'UFIXED_POINT_7'"},
      {DiagCode::kWrongType, "many_errors.yaml:29:14", "'targets' in rule 'bad.types' must be a list of strings"},
      {DiagCode::kWrongType, "many_errors.yaml:33:38", "must be true or false"},
      {DiagCode::kUnknownEnumValue, "many_errors.yaml:37:19", "unknown HTP version 'V70'"},
      {DiagCode::kUnknownEnumValue, "many_errors.yaml:39:52", "unknown encoding 'SCALE_OFSET'"},
      {DiagCode::kUnknownPort, "many_errors.yaml:40:11", "constrains port 'outptu'"},
      {DiagCode::kMissingKey, "many_errors.yaml:39:11", "does not constrain port 'output'"},
  };
  ASSERT_EQ(errors.size(), std::size(expected)) << dump(errors);
  for (size_t i = 0; i < errors.size(); ++i) {
    SCOPED_TRACE(formatText(errors[i]));
    EXPECT_EQ(errors[i].code, expected[i].code);
    EXPECT_EQ(at(errors[i]), expected[i].where);
    EXPECT_TRUE(Contains(errors[i].message, expected[i].message));
    EXPECT_EQ(errors[i].severity, Severity::kError);
  }
  EXPECT_EQ(errors[0].ruleId, "bad.typo");
  EXPECT_EQ(errors[5].ruleId, "bad.types");
  EXPECT_EQ(errors[5].variant, "a8");
  ASSERT_EQ(rules.size(), 1u) << "only the rule without errors is kept";
  EXPECT_EQ(rules[0].id, "good.relu");
}

TEST(RuleLoaderTest, AppendsToExistingRulesAndErrors) {
  std::vector<Rule> rules(1);
  DiagnosticList errors(1);
  loadRuleText(kBase, "t.yaml", rules, errors, {}, testing::gatedBy("htp"));
  EXPECT_EQ(rules.size(), 2u);
  EXPECT_EQ(errors.size(), 1u);
}

// --- hostile and malformed input ---------------------------------------------------------------

TEST(RuleLoaderTest, DeepFlowNestingIsRefusedBeforeParsing) {
  Diagnostic d = onlyError("version: 1\nrules: " + std::string(100000, '['));
  EXPECT_EQ(d.code, DiagCode::kYamlSyntax);
  // Depth 1 is the top-level mapping, so the 64th '[' (column 7 + 64) is the 65th level.
  EXPECT_EQ(at(d), "t.yaml:2:71");
  EXPECT_EQ(d.message, "YAML nesting deeper than 64 levels; the file is refused");
}

TEST(RuleLoaderTest, DeepFlowMappingsAreRefused) {
  std::string text = "version: 1\nrules: ";
  for (int i = 0; i < 50000; ++i) text += "{a: ";
  Diagnostic d = onlyError(text);
  EXPECT_EQ(d.code, DiagCode::kYamlSyntax);
  EXPECT_TRUE(Contains(d.message, "nesting deeper than 64"));
}

TEST(RuleLoaderTest, DeepBlockNestingIsRefused) {
  std::string text = "version: 1\nrules:\n";
  for (int i = 1; i < 2000; ++i) text += std::string(static_cast<size_t>(i), ' ') + "k:\n";
  Diagnostic d = onlyError(text);
  EXPECT_EQ(d.code, DiagCode::kYamlSyntax);
  EXPECT_EQ(at(d), "t.yaml:66:65");
}

TEST(RuleLoaderTest, DeepSequenceChainIsRefused) {
  std::string text = "version: 1\nrules:\n  ";
  for (int i = 0; i < 100000; ++i) text += "- ";
  Diagnostic d = onlyError(text + "x\n");
  EXPECT_EQ(d.code, DiagCode::kYamlSyntax);
  EXPECT_TRUE(Contains(d.message, "nesting deeper than 64"));
}

TEST(RuleLoaderTest, YamlCppDepthGuardIsCaughtWhenThePreScanAllowsMore) {
  LoadLimits limits;
  limits.maxDepth = 1 << 30;  // pre-scan effectively off: yaml-cpp's own guard must stop it
  Loaded l = loadText("version: 1\nrules: " + std::string(100000, '['), limits);
  ASSERT_EQ(l.errors.size(), 1u) << dump(l.errors);
  EXPECT_EQ(l.errors[0].code, DiagCode::kYamlSyntax);
  EXPECT_TRUE(Contains(l.errors[0].message, "YAML syntax error"));
}

// yaml-cpp 0.7's LoadAll loops forever, allocating, on a ',' that begins a token at document
// level (jbeder/yaml-cpp #1040). Each of these hung before the pre-scan; each must now be one
// syntax error at the comma. (Inside a block mapping yaml-cpp throws instead of hanging; the
// pre-scan refuses those too, with the same sentence.)
struct StrayCommaCase {
  const char* text;
  const char* at;
};
class StrayCommaTest : public ::testing::TestWithParam<StrayCommaCase> {};

TEST_P(StrayCommaTest, IsOneSyntaxErrorAtTheComma) {
  Loaded l = loadText(GetParam().text);
  ASSERT_EQ(l.errors.size(), 1u) << dump(l.errors);
  EXPECT_EQ(l.errors[0].code, DiagCode::kYamlSyntax);
  EXPECT_EQ(at(l.errors[0]), GetParam().at);
  EXPECT_TRUE(Contains(l.errors[0].message, "',' outside a flow collection")) << l.errors[0].message;
}

INSTANTIATE_TEST_SUITE_P(
    RuleLoaderTest, StrayCommaTest,
    ::testing::Values(StrayCommaCase{",", "t.yaml:1:1"}, StrayCommaCase{",,", "t.yaml:1:1"},
                      StrayCommaCase{"  ,", "t.yaml:1:3"}, StrayCommaCase{", a", "t.yaml:1:1"},
                      StrayCommaCase{"[a] , b", "t.yaml:1:5"}, StrayCommaCase{"{a: 1},", "t.yaml:1:7"},
                      StrayCommaCase{"\"x\" ,", "t.yaml:1:5"}, StrayCommaCase{"'x',", "t.yaml:1:4"},
                      StrayCommaCase{"- a\n,", "t.yaml:2:1"}, StrayCommaCase{"!t ,", "t.yaml:1:4"},
                      StrayCommaCase{"&x ,", "t.yaml:1:4"}, StrayCommaCase{"--- ,", "t.yaml:1:5"},
                      StrayCommaCase{"|\n,", "t.yaml:2:1"}, StrayCommaCase{"version: 1\n---\n,", "t.yaml:3:1"},
                      StrayCommaCase{"version: ,", "t.yaml:1:10"}, StrayCommaCase{"rules:\n  - ,", "t.yaml:2:5"}));

struct ControlCharCase {
  const char* name;
  std::string text;
  const char* at;
  const char* code;
};
// Named in test listings by its case name, not by the struct's raw bytes.
void PrintTo(const ControlCharCase& c, std::ostream* os) { *os << c.name; }
class ControlCharTest : public ::testing::TestWithParam<ControlCharCase> {};

// YAML 1.2 allows no C0 control but tab, LF and CR, and no DEL; yaml-cpp 0.7 looped on "\0,".
TEST_P(ControlCharTest, IsOneSyntaxErrorAtTheCharacter) {
  Loaded l = loadText(GetParam().text);
  ASSERT_EQ(l.errors.size(), 1u) << dump(l.errors);
  EXPECT_EQ(l.errors[0].code, DiagCode::kYamlSyntax);
  EXPECT_EQ(at(l.errors[0]), GetParam().at);
  EXPECT_TRUE(Contains(l.errors[0].message, std::string("control character ") + GetParam().code)) << l.errors[0].message;
}

INSTANTIATE_TEST_SUITE_P(
    RuleLoaderTest, ControlCharTest,
    ::testing::Values(ControlCharCase{"NulComma", std::string("\0,", 2), "t.yaml:1:1", "U+0000"},
                      ControlCharCase{"NulInFlow", std::string("version: 1\nrules: [\0]", 22), "t.yaml:2:9", "U+0000"},
                      ControlCharCase{"Delete", "version: 1\x7f", "t.yaml:1:11", "U+007F"},
                      ControlCharCase{"Escape", "a: 1\n  \x1b[0m", "t.yaml:2:3", "U+001B"}),
    [](const ::testing::TestParamInfo<ControlCharCase>& p) { return std::string(p.param.name); });

// Texts on which yaml-cpp 0.7's LoadAll never returns (found by the fuzz targets): each is one
// syntax error, and loading terminates.
TEST(RuleLoaderTest, TextsThatLoopedYamlCppAreOneSyntaxError) {
  for (const char* text : {"&*,:[", "\",\"\"\",\"\",", "!!d),\n# weight\n", "version: 1\n&a ,"}) {
    Loaded l = loadText(text);
    ASSERT_EQ(l.errors.size(), 1u) << text << dump(l.errors);
    EXPECT_EQ(l.errors[0].code, DiagCode::kYamlSyntax) << text;
  }
}

TEST(RuleLoaderTest, TabsAndCarriageReturnsAreNotControlErrors) {
  Loaded l = loadText("version: 1\r\nrules: []\t\r\n");
  for (const auto& d : l.errors) EXPECT_FALSE(Contains(d.message, "control character")) << d.message;
}

TEST(RuleLoaderTest, CommasInsideValuesFlowCollectionsStringsAndCommentsLoad) {
  Loaded l = loadText(edit("    description: Relu lowers to QNN Relu.\n",
                           "    description: Relu, then QNN Relu,#1, text\n",
                           edit("    qnn_op: Relu\n", "    qnn_op: Relu # , a comment\n")));
  EXPECT_TRUE(l.errors.empty()) << dump(l.errors);
  ASSERT_EQ(l.rules.size(), 1u);
  EXPECT_EQ(l.rules[0].description, "Relu, then QNN Relu,#1, text");
  Loaded quoted = loadText(edit("    description: Relu lowers to QNN Relu.\n", "    description: \", leading\"\n"));
  EXPECT_TRUE(quoted.errors.empty()) << dump(quoted.errors);
  Loaded block = loadText(edit("    description: Relu lowers to QNN Relu.\n", "    description: |\n      , leading\n"));
  EXPECT_TRUE(block.errors.empty()) << dump(block.errors);
}

TEST(RuleLoaderTest, BracketsInStringsCommentsAndBlockScalarsDoNotCount) {
  const std::string deep(200, '[');
  std::string text = edit("    description: Relu lowers to QNN Relu.\n",
                          "    description: \"" + deep + "\" # " + deep + "\n",
                          edit("    qnn_op: Relu\n", "    qnn_op: Relu # " + deep + "\n"));
  Loaded l = loadText(text);
  EXPECT_TRUE(l.errors.empty()) << dump(l.errors);
  EXPECT_EQ(l.rules.size(), 1u);
  Loaded folded = loadText(edit("    description: Relu lowers to QNN Relu.\n",
                                "    description: >-\n      " + deep + "\n      it's [[ fine\n"));
  EXPECT_TRUE(folded.errors.empty()) << dump(folded.errors);
  ASSERT_EQ(folded.rules.size(), 1u);
  EXPECT_EQ(folded.rules[0].description, deep + " it's [[ fine");
}

TEST(RuleLoaderTest, ModerateNestingWithinLimitLoads) {
  LoadLimits limits;
  limits.maxDepth = 8;  // the format itself needs 8: file, rules, rule, variants, variant, ports, port, dtype list
  Loaded l = loadText(edit("input: {dtype: UFIXED_POINT_8,", "input: {dtype: [UFIXED_POINT_8],"), limits);
  EXPECT_TRUE(l.errors.empty()) << dump(l.errors);
  limits.maxDepth = 7;
  Loaded refused = loadText(edit("input: {dtype: UFIXED_POINT_8,", "input: {dtype: [UFIXED_POINT_8],"), limits);
  ASSERT_EQ(refused.errors.size(), 1u) << dump(refused.errors);
  EXPECT_EQ(at(refused.errors[0]), "t.yaml:13:26");
}

TEST(RuleLoaderTest, OversizeTextIsRefused) {
  LoadLimits limits;
  limits.maxFileBytes = 100;
  Loaded l = loadText(kBase, limits);
  ASSERT_EQ(l.errors.size(), 1u) << dump(l.errors);
  EXPECT_EQ(l.errors[0].code, DiagCode::kYamlSyntax);
  EXPECT_EQ(l.errors[0].message,
            "the rule file is " + std::to_string(kBase.size()) + " bytes, more than the limit of 100 bytes");
  EXPECT_EQ(at(l.errors[0]), "t.yaml");
  EXPECT_TRUE(l.rules.empty());
}

TEST(RuleLoaderTest, OversizeFileIsRefusedWithoutReadingIt) {
  testing::TempDir dir;
  auto file = dir.write("big.yaml", "version: 1\nrules: []\n# " + std::string(4096, 'x') + "\n");
  LoadLimits limits;
  limits.maxFileBytes = 1024;
  std::vector<Rule> rules;
  DiagnosticList errors;
  loadRuleFile(file, "rules/htp/big.yaml", rules, errors, limits);
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_TRUE(Contains(errors[0].message, "rule file is 4120 bytes, more than the limit of 1024 bytes"));
  EXPECT_EQ(at(errors[0]), "rules/htp/big.yaml");
}

TEST(RuleLoaderTest, MissingFileGivesOneError) {
  std::vector<Rule> rules;
  DiagnosticList errors;
  loadRuleFile("/nonexistent/qnnrules/none.yaml", "rules/htp/none.yaml", rules, errors);
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_EQ(errors[0].code, DiagCode::kYamlSyntax);
  EXPECT_EQ(errors[0].message, "cannot read rule file 'rules/htp/none.yaml': No such file or directory");
  EXPECT_EQ(at(errors[0]), "rules/htp/none.yaml");
  // A directory is not a rule file either.
  errors.clear();
  loadRuleFile(QNNRULES_TEST_DATA_DIR, "data", rules, errors);
  ASSERT_EQ(errors.size(), 1u) << dump(errors);
  EXPECT_TRUE(Contains(errors[0].message, "not a regular file"));
  EXPECT_TRUE(rules.empty());
}

TEST(RuleLoaderTest, EmptyAndMultiDocumentFiles) {
  Diagnostic empty = onlyError("# nothing here\n");
  EXPECT_EQ(empty.code, DiagCode::kMissingKey);
  EXPECT_TRUE(Contains(empty.message, "the file is empty"));
  Diagnostic multi = onlyError(kBase + "---\nversion: 1\n");
  EXPECT_EQ(multi.code, DiagCode::kYamlSyntax);
  EXPECT_EQ(multi.message,
            "the rule file holds more than one YAML document (a second begins here); it must hold exactly one");
  EXPECT_EQ(at(multi), "t.yaml:" + std::to_string(std::count(kBase.begin(), kBase.end(), '\n') + 1) + ":1");
  Diagnostic list = onlyError("- version: 1\n");
  EXPECT_EQ(list.code, DiagCode::kWrongType);
  EXPECT_EQ(list.message, "the top level must be a mapping");
}

TEST(RuleLoaderTest, GarbageNeverThrows) {
  const std::string inputs[] = {
      std::string("\0\1\2\xff\xfe", 5), "\t\t:", "{", "[", "- - -", "&a [*a, *a]", "*unknown", "!!binary x",
      "version: 1\nrules: !!map {}", "? [a]\n: b", "version: 1\nrules:\n  - *x", "\"unterminated",
      "version: 1\nrules:\n  - [id, x]", "version: 1\nrules:\n  - {id: a, targets: [{x: 1}], inputs: [[1]]}",
      "version: 1\nrules:\n  - {[a]: 1}", "%YAML 1.2\n---\n{}", "\xEF\xBB\xBFversion: 1\nrules: []\nextra: 1",
  };
  for (const std::string& text : inputs) {
    SCOPED_TRACE(text);
    Loaded l;
    EXPECT_NO_THROW(loadRuleText(text, "t.yaml", l.rules, l.errors));
    EXPECT_FALSE(l.errors.empty());
    EXPECT_TRUE(l.rules.empty());
    for (const Diagnostic& d : l.errors) {
      EXPECT_EQ(d.severity, Severity::kError);
      EXPECT_FALSE(d.message.empty());
      EXPECT_TRUE(d.mark.known());
    }
  }
}

// --- socs.yaml -----------------------------------------------------------------------------

TEST(RuleLoaderSocs, LoadsSocFile) {
  SocTable table;
  DiagnosticList errors;
  loadSocFile(kDataDir + "socs.yaml", "rules/socs.yaml", table, errors);
  ASSERT_TRUE(errors.empty()) << dump(errors);
  ASSERT_EQ(table.columns().size(), 2u);
  EXPECT_EQ(table.columns()[0].name, "htp");
  EXPECT_EQ(table.columns()[0].versions.size(), 6u);
  EXPECT_EQ(table.columns()[1].name, "lpai");
  ASSERT_EQ(table.all().size(), 3u);
  const SocInfo& a = table.all()[0];
  EXPECT_EQ(a.name, "SM8650");
  EXPECT_EQ(a.chipsetId, 57);
  EXPECT_EQ(a.versionOn("htp"), "V75");
  EXPECT_EQ(a.hardware[0].level, 4);  // the fourth HTP version of the file's order
  EXPECT_EQ(a.vtcmMb, 8);
  EXPECT_EQ(a.marketingName, "Snapdragon 8 Gen 3");
  EXPECT_TRUE(a.versionOn("lpai").empty());
  EXPECT_EQ(a.hardware[1].level, 0);
  EXPECT_EQ(a.mark.toString(), "rules/socs.yaml:4:5");
  const SocInfo& b = table.all()[1];
  EXPECT_EQ(b.versionOn("htp"), "V81");
  EXPECT_EQ(b.versionOn("lpai"), "V6");
  EXPECT_TRUE(b.marketingName.empty());
  const SocInfo& c = table.all()[2];
  EXPECT_EQ(c.name, "SM8450");
  EXPECT_EQ(c.chipsetId, 36);
  EXPECT_EQ(c.versionOn("htp"), "V69");
  EXPECT_EQ(c.mark.toString(), "rules/socs.yaml:6:5");
}

TEST(RuleLoaderSocs, ReportsEveryErrorAndKeepsGoodSocs) {
  const std::string text =
      "version: 1\n"
      "hardware: {htp: [V68, V69, V73, V75, V79], lpai: [V5, V6]}\n"
      "socs:\n"
      "  - {name: SM8650, id: 57, htp: V75, vtcm_mb: 8}\n"
      "  - {name: SM8550, id: 43, htp: V37, vtcm_mb: 8}\n"
      "  - {name: SM8450, id: 36, htp: V69}\n"
      "  - {name: SM8350, id: 30, htp: V68, vtcm_mb: 4, npu: yes}\n"
      "  - {name: SM8650, id: 99, htp: V75, vtcm_mb: eight}\n"
      "  - {name: SM7550, id: 57, htp: V73, vtcm_mb: 4, lpai: V5, marketing_name: Snapdragon 7 Gen 3}\n"
      "  - {name: SM8750, id: 69, htp: V79, vtcm_mb: 8}\n";
  SocTable table;
  DiagnosticList errors;
  loadSocText(text, "socs.yaml", table, errors);
  struct Expected {
    DiagCode code;
    const char* where;
    const char* message;
  };
  const Expected expected[] = {
      {DiagCode::kUnknownEnumValue, "socs.yaml:5:33", "unknown HTP version 'V37' for 'htp' of SoC 'SM8550'"},
      {DiagCode::kMissingKey, "socs.yaml:6:5", "SoC 'SM8450' is missing required key 'vtcm_mb'"},
      {DiagCode::kUnknownKey, "socs.yaml:7:50", "unknown key 'npu' in SoC 'SM8350'"},
      {DiagCode::kInvalidValue, "socs.yaml:8:12", "SoC 'SM8650' is listed twice; it is first listed at socs.yaml:4:5"},
      {DiagCode::kWrongType, "socs.yaml:8:47", "'vtcm_mb' of SoC 'SM8650' must be an integer"},
      {DiagCode::kInvalidValue, "socs.yaml:9:24", "SoC id 57 of SoC 'SM7550' is already the id of SoC 'SM8650'"},
  };
  ASSERT_EQ(errors.size(), std::size(expected)) << dump(errors);
  for (size_t i = 0; i < errors.size(); ++i) {
    SCOPED_TRACE(formatText(errors[i]));
    EXPECT_EQ(errors[i].code, expected[i].code);
    EXPECT_EQ(at(errors[i]), expected[i].where);
    EXPECT_TRUE(Contains(errors[i].message, expected[i].message));
  }
  ASSERT_EQ(table.all().size(), 2u);
  EXPECT_EQ(table.all()[0].name, "SM8650");
  EXPECT_EQ(table.all()[1].name, "SM8750");
}

// Columns are read before SoCs; a later file (an overlay) may insert versions into a column, and
// the SoCs already read keep their versions, with levels that follow the new order.
TEST(RuleLoaderSocs, AColumnDeclaredAgainMayGainVersionsAndSocsKeepTheirs) {
  SocTable table;
  DiagnosticList errors;
  loadSocText("version: 1\nhardware: {htp: [V68, V69, V73]}\nsocs:\n  - {name: A, id: 1, htp: V69, vtcm_mb: 8}\n",
              "builtin/socs.yaml", table, errors);
  ASSERT_TRUE(errors.empty()) << dump(errors);
  EXPECT_EQ(table.find("A")->hardware.at(0).level, 2);
  loadSocText("version: 1\nhardware: {htp: [V68, V68b, V69, V73, V85], npu: [N1]}\n"
              "socs:\n  - {name: B, id: 2, htp: V85, npu: N1, vtcm_mb: 8}\n",
              "overlay/socs.yaml", table, errors);
  ASSERT_TRUE(errors.empty()) << dump(errors);
  const SocInfo& a = *table.find("A");
  ASSERT_EQ(a.hardware.size(), 2u);  // every SoC is laid out to every column
  EXPECT_EQ(a.versionOn("htp"), "V69");
  EXPECT_EQ(a.hardware[0].level, 3);
  EXPECT_EQ(a.hardware[1].level, 0);  // no npu
  const SocInfo& b = *table.find("B");
  EXPECT_EQ(b.hardware[0].level, 5);
  EXPECT_EQ(b.versionOn("npu"), "N1");
  EXPECT_EQ(table.column("npu")->index, 1);
}

TEST(RuleLoaderSocs, HardwareColumnsAreChecked) {
  SocTable table;
  DiagnosticList errors;
  loadSocText("version: 1\nhardware:\n  htp: [V68, V68]\n  NPU: [N1]\n  id: [X]\n  dsp: []\nsocs: []\n",
              "socs.yaml", table, errors);
  std::vector<std::string> got;
  for (const Diagnostic& d : errors) got.push_back(at(d) + " " + d.message);
  EXPECT_EQ(got, (std::vector<std::string>{
                       "socs.yaml:3:14 version 'V68' is listed twice in column 'htp' of 'hardware'",
                       "socs.yaml:4:3 'NPU' cannot name a hardware column: a column is a lower-case word, and not "
                       "one of name, id, vtcm_mb, marketing_name",
                       "socs.yaml:5:3 'id' cannot name a hardware column: a column is a lower-case word, and not "
                       "one of name, id, vtcm_mb, marketing_name",
                       "socs.yaml:6:8 column 'dsp' of 'hardware' must be a non-empty list of versions, oldest first"}))
      << dump(errors);
  EXPECT_TRUE(table.columns().empty());
}

TEST(RuleLoaderSocs, StrictTopLevel) {
  SocTable table;
  DiagnosticList errors;
  loadSocText("version: 1\nsoc: []\n", "socs.yaml", table, errors);
  ASSERT_EQ(errors.size(), 2u) << dump(errors);
  EXPECT_EQ(errors[0].code, DiagCode::kUnknownKey);
  EXPECT_EQ(errors[0].hint, "did you mean 'socs'?");
  EXPECT_EQ(errors[1].code, DiagCode::kMissingKey);
  EXPECT_EQ(errors[1].message, "the top level is missing required key 'socs'");
  errors.clear();
  loadSocText("version: 1\nsocs: []\n" + std::string(10, '\n'), "socs.yaml", table, errors, LoadLimits{8, 64});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(Contains(errors[0].message, "the SoC file is 30 bytes, more than the limit of 8 bytes"));
  errors.clear();
  loadSocFile("/nonexistent/socs.yaml", "rules/socs.yaml", table, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "cannot read SoC file 'rules/socs.yaml': No such file or directory");
  EXPECT_TRUE(table.all().empty());
}

}  // namespace
}  // namespace qnnrules
