// A constraint kind added from outside the engine, as docs/adding-a-constraint-kind.md says:
// one unit (this file's `max_bits`, the port's bit width at most N), registered before any rule
// is loaded, and nothing else of the engine edited. Each seam a kind plugs into is exercised:
// the rule loader (its key, its errors with file:line:column), the validator (its diagnostic),
// the rule cache (its value survives a cached load), the annotator (it narrows a weight), the
// docs summary, and the rule mutation suite (its satisfy and mutate).
//
// Its own executable: a registered kind joins every rule file's allowed keys, which the main
// unit tests' golden messages must not see.
#include <gtest/gtest.h>

#include <string>

#include "../unit/RuleMutator.h"
#include "../unit/TestUtil.h"
#include "validate/constraints/ConstraintKind.h"
#include "qnnrules/Engine.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/load/RuleRegistry.h"

namespace qnnrules {
namespace {

// --- the kind: `max_bits: N` -------------------------------------------------------------

int toyIndex() {
  static const int index = kindIndex("max_bits");
  return index;
}

int64_t maxBits(const PortConstraint& c) {
  const KindValue* v = c.valueOf(static_cast<uint16_t>(toyIndex()));
  return v ? v->integer : 0;
}

void parse(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c) {
  if (auto n = p.reader.integer(e.value, what, 2, 32)) c.kindValues.push_back({static_cast<uint16_t>(toyIndex()), *n, 0, ""});
}

bool active(const PortConstraint& c) { return maxBits(c) > 0; }

bool violated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck&) {
  return t.type.quantized && t.type.bitwidth > maxBits(c);
}

std::string sentence(const Rule& r, int port, const PortConstraint& c) {
  return r.ports[port].name + " must have at most " + std::to_string(maxBits(c)) + " bits.";
}

void explain(const Rule& r, const Variant&, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {
  d.message = sentence(r, t.port, c);
  d.expected = "at most " + std::to_string(maxBits(c)) + " bits";
  d.actual = std::to_string(t.type.bitwidth) + " bits";
  d.hint = "narrow the quantization range of " + r.ports[t.port].name;
}

std::string summary(const Rule&, const PortConstraint& c) {
  return active(c) ? "at most " + std::to_string(maxBits(c)) + " bits" : "";
}

std::string docNote(const Rule& r, const Variant&, int port, const PortConstraint& c) {
  return active(c) ? sentence(r, port, c) : "";
}

bool admits(const PortConstraint& c, const PortType& t) {
  return !active(c) || !t.quantized || t.bitwidth <= maxBits(c);
}

// The widest symmetric range of N bits in the spec's container.
void satisfy(const PortConstraint& c, QuantSpec& s) {
  const int64_t half = int64_t{1} << (maxBits(c) - 1);
  s.quantMin = -(half - 1);
  s.quantMax = half - 1;
  for (int64_t& zp : s.zeroPoints) zp = 0;
}

bool mutate(const PortConstraint& c, QuantSpec& s) {
  if (!active(c) || maxBits(c) >= 8) return false;
  s.quantMin = -128;
  s.quantMax = 127;
  return true;
}

const ConstraintKind kMaxBits = {
    .key = "max_bits",
    .code = DiagCode::kBitwidth,  // a new kind reuses a code, or adds one (core/Diagnostic.h)
    .parse = parse,
    .active = active,
    .violated = violated,
    .explain = explain,
    .summary = summary,
    .docNote = docNote,
    .admits = admits,
    .satisfy = satisfy,
    .mutate = mutate,
};

// Registered during static initialization, before any rule is read.
const bool kRegistered = registerConstraintKind(kMaxBits);

// --- the rules and graphs it is tried on ------------------------------------------------

// htp.linear replaced by an overlay whose weight takes at most 4 bits.
constexpr const char* kLinear = R"(version: 1
rules:
  - id: htp.linear
    targets: [aten.linear.default]
    qnn_op: FullyConnected
    pattern: conv
    description: Linear lowers to QNN FullyConnected.
    inputs:
      - {name: input, arg: 0}
      - {name: weight, arg: 1}
      - {name: bias, arg: 2, optional: true}
    outputs: [{name: output}]
    variants:
      - name: a8w4
        ports:
          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_8, encoding: [SCALE_OFFSET, AXIS_SCALE_OFFSET, BW_SCALE_OFFSET, BW_AXIS_SCALE_OFFSET],
                   max_bits: 4}
          bias: {dtype: SFIXED_POINT_32, encoding: [SCALE_OFFSET, AXIS_SCALE_OFFSET], symmetric: true}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
)";

constexpr const char* kFloatGraph = R"({"format": "qnnrules-graph", "version": 1, "name": "toy", "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [2, 16]}]},
  {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [8, 16]}]},
  {"name": "b", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [8]}]},
  {"name": "fc", "kind": "call", "target": "aten.linear.default", "args": [{"ref": "x"}, {"ref": "w"}, {"ref": "b"}],
   "outputs": [{"dtype": "float32", "shape": [2, 8]}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "fc"}]]}]})";

// The same linear quantized 8a8w as Q/DQ nodes: an 8-bit weight.
std::string qdqGraph() {
  auto q = [](const std::string& name, const std::string& in, const char* target, const char* dtype) {
    return R"({"name": ")" + name + R"(", "kind": "call", "target": "quantized_decomposed.)" + target +
           R"(.default", "args": [{"ref": ")" + in + R"("}, 0.01, 128, 0, 255, "torch.uint8"], "outputs": [{"dtype": ")" +
           dtype + R"(", "shape": [2, )" + (name[0] == 'x' ? "16" : "8") + "]}]}";
  };
  std::string ones8 = "[0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01]", zeros8 = "[0, 0, 0, 0, 0, 0, 0, 0]";
  return R"({"format": "qnnrules-graph", "version": 1, "name": "toy_qdq", "nodes": [
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [2, 16]}]},)" +
         q("x_q", "x", "quantize_per_tensor", "uint8") + "," + q("x_dq", "x_q", "dequantize_per_tensor", "float32") +
         R"(,
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "int8", "shape": [8, 16]}]},
    {"name": "w_dq", "kind": "call", "target": "quantized_decomposed.dequantize_per_channel.default",
     "args": [{"ref": "w"}, )" + ones8 + ", " + zeros8 + R"(, 0, -128, 127, "torch.int8"],
     "outputs": [{"dtype": "float32", "shape": [8, 16]}]},
    {"name": "fc", "kind": "call", "target": "aten.linear.default", "args": [{"ref": "x_dq"}, {"ref": "w_dq"}],
     "outputs": [{"dtype": "float32", "shape": [2, 8]}]},)" +
         q("fc_q", "fc", "quantize_per_tensor", "uint8") + "," + q("fc_dq", "fc_q", "dequantize_per_tensor", "float32") +
         R"(,
    {"name": "output", "kind": "output", "args": [[{"ref": "fc_dq"}]]}]})";
}

Engine toyEngine(const testing::TempDir& overlay) {
  EngineOptions o;
  o.backend = "htp";
  o.soc = "SM8650";
  o.ruleDirs = {overlay.path()};
  return Engine(o);
}

Graph readGraph(const std::string& text) {
  GraphReadResult r = readGraphText(text, "toy.json");
  EXPECT_TRUE(r.ok()) << r.status.toString();
  return std::move(r.graph);
}

TEST(ToyConstraintKind, RegistersBeforeTheTableIsReadAndNeverAfter) {
  EXPECT_TRUE(kRegistered);
  EXPECT_GE(toyIndex(), 8);
  static const ConstraintKind late = [] {
    ConstraintKind k = kMaxBits;
    k.key = "late_kind";
    return k;
  }();
  EXPECT_FALSE(registerConstraintKind(late));      // the table has been read
  EXPECT_FALSE(registerConstraintKind(kMaxBits));  // and the key is taken
  EXPECT_EQ(kindIndex("late_kind"), -1);
}

TEST(ToyConstraintKind, TheLoaderReadsItsKeyAndReportsItsBadValuesWithFileLineColumn) {
  testing::TempDir overlay;
  std::string bad = kLinear;
  bad.replace(bad.find("max_bits: 4"), 11, "max_bits: 99");
  overlay.write("htp/toy.yaml", bad);
  Engine e = toyEngine(overlay);
  ASSERT_FALSE(e.ok());
  ASSERT_FALSE(e.loadErrors().empty());
  const Diagnostic& d = e.loadErrors().front();
  EXPECT_EQ(d.code, DiagCode::kInvalidValue) << formatText(d);
  EXPECT_NE(d.mark.toString().find("toy.yaml:18:"), std::string::npos) << d.mark.toString();
  EXPECT_NE(d.message.find("'max_bits' of"), std::string::npos) << d.message;
}

TEST(ToyConstraintKind, AViolationIsTheKindsOwnDiagnostic) {
  testing::TempDir overlay;
  overlay.write("htp/toy.yaml", kLinear);
  Engine e = toyEngine(overlay);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  const Rule* rule = e.rules().findByTarget("aten.linear.default");
  ASSERT_NE(rule, nullptr);
  EXPECT_EQ(maxBits(rule->variants.at(0).ports.at(1)), 4);
  ValidationResult r = e.validate(readGraph(qdqGraph()));
  ASSERT_EQ(r.errorCount(), 1u) << (r.diagnostics.empty() ? "" : formatText(r.diagnostics[0]));
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.code, DiagCode::kBitwidth);
  EXPECT_EQ(d.ruleId, "htp.linear");
  EXPECT_EQ(d.message, "weight must have at most 4 bits.");
  EXPECT_EQ(d.expected, "at most 4 bits");
  EXPECT_EQ(d.actual, "8 bits");
}

TEST(ToyConstraintKind, TheAnnotatorNarrowsAWeightToWhatTheKindAdmits) {
  testing::TempDir overlay;
  overlay.write("htp/toy.yaml", kLinear);
  Engine e = toyEngine(overlay);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  Graph g = readGraph(kFloatGraph);
  AnnotateOptions ao;
  ao.config = "8a8w";
  ao.explainNode = "fc";
  AnnotateResult a = e.annotate(g, ao);
  ASSERT_TRUE(a.ok()) << a.status.toString();
  ASSERT_TRUE(a.explanation.has_value());
  std::string weight;
  for (const PortDecision& p : a.explanation->ports)
    if (p.port == "in[1]") weight = p.spec;
  EXPECT_NE(weight.find("-7..7"), std::string::npos) << weight;
  ValidationResult r = e.validate(g);
  EXPECT_EQ(r.errorCount(), 0u) << (r.diagnostics.empty() ? "" : formatText(r.diagnostics[0]));
}

TEST(ToyConstraintKind, ItsValueSurvivesTheRuleCache) {
  testing::TempDir overlay, cache;
  overlay.write("htp/toy.yaml", kLinear);
  auto load = [&] {
    RegistryOptions o;
    o.builtinDir = QNNRULES_SOURCE_DIR "/rules";
    o.overlayDirs = {overlay.path()};
    o.useEnvironment = false;
    o.cacheDir = cache.path();
    RuleRegistry reg(o);
    const BackendLoad& l = reg.backend("htp");
    EXPECT_TRUE(l.status.isOk()) << l.status.toString();
    const Rule* rule = l.rules ? l.rules->findByTarget("aten.linear.default") : nullptr;
    return rule ? maxBits(rule->variants.at(0).ports.at(1)) : -1;
  };
  EXPECT_EQ(load(), 4);  // fresh, then written
  EXPECT_FALSE(std::filesystem::is_empty(cache.path()));
  EXPECT_EQ(load(), 4);  // read back
}

TEST(ToyConstraintKind, TheMutationSuiteSatisfiesAndBreaksIt) {
  testing::TempDir overlay;
  overlay.write("htp/toy.yaml", kLinear);
  Engine e = toyEngine(overlay);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  const RuleSet only("htp", {*e.rules().findByTarget("aten.linear.default")});
  const testing::MutationTally t = testing::mutateRules(only);
  EXPECT_EQ(t.passing, 1u);
  EXPECT_TRUE(t.failures.empty()) << t.failures.front();
  EXPECT_GE(t.asserted, 1u);
}

}  // namespace
}  // namespace qnnrules
