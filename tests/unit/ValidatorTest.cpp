// Validator behaviour: every constraint kind with a passing and a failing case, variant
// selection, arch gates, shared-reference resolution, missing rules, and modes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "qnnrules/io/GraphReader.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/validate/Validator.h"
#include "TestHardware.h"

namespace qnnrules {
namespace {

using json = nlohmann::json;

constexpr const char* kRules = R"yaml(
version: 1
rules:
  - id: t.conv
    targets: [aten.conv2d.default]
    qnn_op: Conv2d
    pattern: conv
    description: Convolution lowers to QNN Conv2d.
    inputs:
      - {name: input}
      - {name: weight}
      - {name: bias, optional: true}
    outputs:
      - {name: output}
    variants:
      - name: a8w8
        ports:
          input:  {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_8, encoding: [SCALE_OFFSET, AXIS_SCALE_OFFSET], symmetric: true, axis: 0, bitwidth: 8}
          bias:   {dtype: SFIXED_POINT_32, symmetric: true}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
      - name: a16w4
        ports:
          input:  {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_8, encoding: [BW_SCALE_OFFSET, BW_AXIS_SCALE_OFFSET], symmetric: true, bitwidth: 4}
          bias:   {dtype: SFIXED_POINT_32, symmetric: true}
          output: {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
      - name: a16w4-block
        min_arch: V69
        description: Block-wise (LPBQ) weights need HTP V69 or newer.
        hint: use per-channel 4-bit weights (16a4w) on this SoC
        ports:
          input:  {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_8, encoding: BLOCKWISE_EXPANSION, symmetric: true}
          bias:   {dtype: SFIXED_POINT_32, symmetric: true}
          output: {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
      - name: a16w16
        min_arch: V73
        description: 16-bit activations with 16-bit weights need HTP V73 or newer.
        hint: use 16a8w (8-bit weights) on this SoC
        ports:
          input:  {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
          weight: {dtype: SFIXED_POINT_16, encoding: [SCALE_OFFSET, AXIS_SCALE_OFFSET], symmetric: true}
          bias:   {dtype: SFIXED_POINT_32, symmetric: true}
          output: {dtype: UFIXED_POINT_16, encoding: SCALE_OFFSET}
  - id: t.sigmoid
    targets: [aten.sigmoid.default]
    qnn_op: Sigmoid
    pattern: fixed_qparams
    description: Sigmoid lowers to QNN Sigmoid with a fixed output encoding.
    inputs: [{name: input}]
    outputs: [{name: output}]
    variants:
      - name: a8
        ports:
          input:  {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET, scale: "1/256", offset: 0}
  - id: t.view
    targets: [aten.view.default]
    qnn_op: Reshape
    pattern: shared
    description: View lowers to QNN Reshape and keeps its input's encoding.
    inputs: [{name: input}]
    outputs: [{name: output}]
    variants:
      - name: a8
        ports:
          input:  {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET, shared_with: input}
  - id: t.cat
    targets: [aten.cat.default]
    qnn_op: Concat
    pattern: concat
    description: Cat lowers to QNN Concat.
    inputs: [{name: inputs, variadic: true}]
    outputs: [{name: output}]
    variants:
      - name: a8
        ports:
          inputs: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET, shared_with: inputs}
  - id: t.split
    targets: [aten.split.Tensor]
    qnn_op: Split
    pattern: multi_output
    description: Split lowers to QNN Split.
    inputs: [{name: input}]
    outputs: [{name: outputs, variadic: true}]
    variants:
      - name: a8
        ports:
          input:   {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          outputs: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET, shared_with: input}
  - id: t.getitem
    kind: structural
    targets: [getitem]
    description: Tuple element access is graph plumbing.
  - id: t.nonzero
    kind: unsupported
    targets: [aten.nonzero.default]
    description: Nonzero has a data-dependent output shape.
    reason: the op has no QNN equivalent.
)yaml";

const RuleSet& testRules() {
  static const RuleSet* rules = [] {
    std::vector<Rule> out;
    DiagnosticList errors;
    loadRuleText(kRules, "test.yaml", out, errors, {}, testing::gatedBy("htp"));
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : formatText(errors[0]));
    return new RuleSet("test", std::move(out));
  }();
  return *rules;
}

SocInfo soc(const char* name, const char* htp) { return testing::socAt(htp, name); }

// Quant spec helpers (JSON, graph format v1).
json u8(double scale = 0.02, int zp = 0) {
  return {{"dtype", "uint8"}, {"quant_min", 0}, {"quant_max", 255}, {"qscheme", "per_tensor_affine"},
          {"scale", scale}, {"zero_point", zp}};
}
json u16() { return {{"dtype", "int32"}, {"quant_min", 0}, {"quant_max", 65535}, {"qscheme", "per_tensor_affine"}}; }
json w8(const char* qscheme = "per_channel_symmetric", int axis = 0) {
  return {{"dtype", "int8"}, {"quant_min", -127}, {"quant_max", 127}, {"qscheme", qscheme}, {"ch_axis", axis}};
}
json w4() { return {{"dtype", "int8"}, {"quant_min", -7}, {"quant_max", 7}, {"qscheme", "per_channel_symmetric"}, {"ch_axis", 0}}; }
json w4block() { json j = w4(); j["block_size"] = {1, 64}; return j; }
json w16() { return {{"dtype", "int16"}, {"quant_min", -32767}, {"quant_max", 32767}, {"qscheme", "per_tensor_symmetric"}}; }
json bias32() { return {{"dtype", "int32"}, {"qscheme", "per_channel_symmetric"}, {"ch_axis", 0}}; }
json ref(const std::string& n, json qspec = nullptr) {
  json r = {{"ref", n}};
  if (!qspec.is_null()) r["qspec"] = qspec;
  return r;
}
json shared(const std::string& n) { return {{"shared_with", {{"node", n}}}}; }
json sharedEdge(const std::string& p, const std::string& c) { return {{"shared_with", {{"edge", {p, c}}}}}; }
json out(json qspec = nullptr, std::vector<int> shape = {1, 8}) {
  json o = {{"dtype", "float32"}, {"shape", shape}};
  if (!qspec.is_null()) o["qspec"] = qspec;
  return o;
}

class GraphText {
 public:
  GraphText() { j_ = {{"format", "qnnrules-graph"}, {"version", 1}, {"name", "t"}, {"nodes", json::array()}}; }
  GraphText& input(const std::string& name, json qspec = nullptr) {
    j_["nodes"].push_back({{"name", name}, {"kind", "input"}, {"outputs", {out(qspec)}}});
    return *this;
  }
  GraphText& param(const std::string& name) {
    j_["nodes"].push_back({{"name", name}, {"kind", "parameter"}, {"outputs", {out()}}});
    return *this;
  }
  // Lists, not `json`: clang applies CWG 2137, so a one-element `{x}` passed as `json` copies x
  // instead of making the list [x] as GCC does.
  GraphText& call(const std::string& name, const std::string& target, json::array_t args, json::array_t outputs) {
    j_["nodes"].push_back({{"name", name}, {"kind", "call"}, {"target", target}, {"args", args}, {"outputs", outputs}});
    return *this;
  }
  Graph build() const {
    GraphReadResult r = readGraphText(j_.dump(), "test.json");
    EXPECT_TRUE(r.ok()) << r.status.toString() << (r.errors.empty() ? "" : "\n" + formatText(r.errors[0]));
    return std::move(r.graph);
  }

 private:
  json j_;
};

ValidationResult validate(const Graph& g, const char* arch = "V75", const char* socName = "SM8650") {
  return validateGraph(g, testRules(), soc(socName, arch));
}

std::vector<std::string> codes(const ValidationResult& r) {
  std::vector<std::string> c;
  for (const Diagnostic& d : r.diagnostics) c.emplace_back(diagCodeName(d.code));
  return c;
}

// A conv graph with the given weight spec and activation spec builder.
Graph convGraph(json inSpec, json wSpec, json outSpec, bool withBias = true) {
  GraphText g;
  g.input("x").param("w").param("b");
  json::array_t args = {ref("x", inSpec), ref("w", wSpec), withBias ? ref("b", bias32()) : json(nullptr), json{1, 1}};
  g.call("conv", "aten.conv2d.default", args, {out(outSpec)});
  return g.build();
}

TEST(Validator, ValidConvPasses) {
  ValidationResult r = validate(convGraph(u8(), w8(), u8()));
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.diagnostics.empty()) << formatText(r.diagnostics[0]);
  EXPECT_EQ(r.nodesChecked, 1u);
  EXPECT_EQ(r.nodesWithRule, 1u);
}

TEST(Validator, OptionalBiasMayBeAbsent) {
  EXPECT_TRUE(validate(convGraph(u8(), w8(), u8(), /*withBias=*/false)).diagnostics.empty());
}

TEST(Validator, AsymmetricWeightViolatesSymmetric) {
  ValidationResult r = validate(convGraph(u8(), w8("per_channel_affine"), u8()));
  ASSERT_EQ(codes(r), std::vector<std::string>{"symmetric"});
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.node, "conv");
  EXPECT_EQ(d.op, "aten.conv2d.default");
  EXPECT_EQ(d.port, "in[1] weight");
  EXPECT_EQ(d.ruleId, "t.conv");
  EXPECT_EQ(d.variant, "a8w8");
  EXPECT_EQ(d.message, "weight must be symmetrically quantized (offset 0 for SFIXED, -2^(n-1) for UFIXED).");
  EXPECT_EQ(d.mark.toString(), "test.yaml:19:11");
  EXPECT_EQ(d.severity, Severity::kError);
}

// Whether a weight is symmetric comes from the range of zero points the reader records, so
// one asymmetric zero point anywhere in a long list must still fail; a spec whose record is
// absent (built or rewritten in memory) is walked instead and gives the same answer.
TEST(Validator, EveryZeroPointDecidesSymmetricRecordedOrNot) {
  struct Case {
    std::vector<int> zeroPoints;
    std::vector<std::string> codes;
  };
  const std::vector<Case> cases = {
      {{0, 0, 0, 0}, {}},
      {{0, 0, 3, 0}, {"symmetric"}},
      {{-1, 0, 0, 0}, {"symmetric"}},
      {{0, 0, 0, 1}, {"symmetric"}},
  };
  for (const Case& c : cases) {
    json w = w8();
    w["scale"] = std::vector<double>(c.zeroPoints.size(), 0.01);
    w["zero_point"] = c.zeroPoints;
    Graph g = convGraph(u8(), w, u8());
    QuantSpec& spec = *g.mutableNodes()[*g.findNode("conv")].args[1].qspec;
    EXPECT_EQ(spec.recordedZeroPointCount, c.zeroPoints.size()) << w.dump();
    EXPECT_EQ(codes(validate(g)), c.codes) << w.dump();
    spec.recordedZeroPointCount = QuantSpec::kNotRecorded;
    EXPECT_EQ(codes(validate(g)), c.codes) << w.dump() << " (not recorded)";
  }
}

TEST(Validator, WrongChannelAxisViolatesAxis) {
  ValidationResult r = validate(convGraph(u8(), w8("per_channel_symmetric", 1), u8()));
  ASSERT_EQ(codes(r), std::vector<std::string>{"axis"});
  EXPECT_EQ(r.diagnostics[0].expected, "ch_axis 0");
  EXPECT_EQ(r.diagnostics[0].actual, "ch_axis 1");
}

TEST(Validator, FourBitWeightWithEightBitActivationsHasNoVariant) {
  ValidationResult r = validate(convGraph(u8(), w4(), u8()));
  // a8w8 matches by datatype (SFIXED_POINT_8) but rejects the BW encoding and the bit width.
  EXPECT_EQ(codes(r), (std::vector<std::string>{"encoding", "bitwidth"}));
  EXPECT_EQ(r.diagnostics[1].expected, "8 bits");
  EXPECT_EQ(r.diagnostics[1].actual.substr(0, 6), "4 bits");
}

TEST(Validator, SixteenBitActivationsWithFourBitWeightsPass) {
  EXPECT_TRUE(validate(convGraph(u16(), w4(), u16())).diagnostics.empty());
}

TEST(Validator, BlockwiseWeightsPassOnV69AndAboveAndGateBelow) {
  Graph g = convGraph(u16(), w4block(), u16());
  EXPECT_TRUE(validate(g, "V69", "SM8450").diagnostics.empty());
  ValidationResult r = validate(g, "V68", "SM8350");
  ASSERT_EQ(codes(r), std::vector<std::string>{"arch-gate"});
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.message, "Block-wise (LPBQ) weights need HTP V69 or newer.");
  EXPECT_EQ(d.expected, "HTP V69 or newer");
  EXPECT_EQ(d.actual, "SM8350 is V68");
  EXPECT_EQ(d.hint, "use per-channel 4-bit weights (16a4w) on this SoC");
  EXPECT_EQ(d.port, "in[1] weight");
  EXPECT_EQ(d.variant, "a16w4-block");
}

TEST(Validator, SixteenBitWeightsGateBelowV73) {
  Graph g = convGraph(u16(), w16(), u16());
  EXPECT_TRUE(validate(g, "V73", "SM8550").diagnostics.empty());
  ValidationResult r = validate(g, "V69", "SM8450");
  ASSERT_EQ(codes(r), std::vector<std::string>{"arch-gate"});
  EXPECT_EQ(r.diagnostics[0].actual, "SM8450 is V69");
  EXPECT_EQ(r.diagnostics[0].hint, "use 16a8w (8-bit weights) on this SoC");
  EXPECT_EQ(r.diagnostics[0].port, "in[1] weight");
}

TEST(Validator, UnmatchedDatatypesNameTheNearestVariantAndPort) {
  // 8-bit input with 16-bit output: no variant has that tuple; a8w8 differs only on the output.
  ValidationResult r = validate(convGraph(u8(), w8(), u16()));
  ASSERT_EQ(codes(r), std::vector<std::string>{"no-matching-variant"});
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.variant, "a8w8");
  EXPECT_EQ(d.port, "out[0] output");
  EXPECT_EQ(d.expected, "nearest variant a8w8: out[0] output UFIXED_POINT_8 (output must be unsigned 8-bit)");
  EXPECT_NE(d.hint.find("a16w16 (V73+)"), std::string::npos) << d.hint;
}

TEST(Validator, TheNearestVariantDiffersInTheSmallestChangeOfDatatype) {
  // Asymmetric uint16 weights: a16w4 and a16w16 both differ on the weight only, but a16w16's
  // signed 16-bit is one signedness away, a16w4's 8-bit container a bit width (issue 25).
  ValidationResult r = validate(convGraph(u16(), u16(), u16()));
  ASSERT_EQ(codes(r), std::vector<std::string>{"no-matching-variant"});
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.variant, "a16w16");
  EXPECT_EQ(d.port, "in[1] weight");
  EXPECT_EQ(d.expected, "nearest variant a16w16: in[1] weight SFIXED_POINT_16 (weight must be signed symmetric 16-bit)");
}

TEST(Validator, UnannotatedPortIsFloatAndMatchesNoQuantizedVariant) {
  ValidationResult r = validate(convGraph(nullptr, w8(), u8()));
  ASSERT_EQ(codes(r), std::vector<std::string>{"no-matching-variant"});
  EXPECT_EQ(r.diagnostics[0].port, "in[0] input");
  EXPECT_NE(r.diagnostics[0].actual.find("FLOAT_32 (not annotated)"), std::string::npos) << r.diagnostics[0].actual;
}

TEST(Validator, PortsAreMatchedByArgumentPosition) {
  // Weight spec on args[0] and activation spec on args[1]: swapped, so wrong per position.
  GraphText g;
  g.input("x").param("w");
  g.call("conv", "aten.conv2d.default", {ref("x", w8()), ref("w", u8())}, {out(u8())});
  ValidationResult r = validate(g.build());
  ASSERT_EQ(codes(r), std::vector<std::string>{"no-matching-variant"});
  EXPECT_EQ(r.diagnostics[0].port, "in[0] input");
}

TEST(Validator, MissingRequiredPortIsReported) {
  GraphText g;
  g.input("x");
  g.call("conv", "aten.conv2d.default", {ref("x", u8())}, {out(u8())});
  ValidationResult r = validate(g.build());
  ASSERT_EQ(codes(r), std::vector<std::string>{"missing-port"});
  EXPECT_EQ(r.diagnostics[0].port, "in[1] weight");
}

Graph sigmoidGraph(json outSpec) {
  GraphText g;
  g.input("x");
  g.call("sig", "aten.sigmoid.default", {ref("x", u8())}, {out(outSpec)});
  return g.build();
}

TEST(Validator, FixedScaleAndOffset) {
  EXPECT_TRUE(validate(sigmoidGraph(u8(1.0 / 256, 0))).diagnostics.empty());
  ValidationResult r = validate(sigmoidGraph(u8(1.0 / 255, 0)));
  ASSERT_EQ(codes(r), std::vector<std::string>{"fixed-scale"});
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.port, "out[0] output");
  EXPECT_EQ(d.message, "output must have scale 1/256 (0.00390625) and offset 0.");
  EXPECT_EQ(d.expected, "scale 1/256 (0.00390625)");
  EXPECT_EQ(d.actual, "scale 0.00392156863 (= 1/255)");

  ValidationResult off = validate(sigmoidGraph(u8(1.0 / 256, 128)));
  ASSERT_EQ(codes(off), std::vector<std::string>{"fixed-offset"});
  EXPECT_EQ(off.diagnostics[0].actual, "offset -128 (zero_point 128)");
}

TEST(Validator, FixedScaleWithoutCalibratedScaleIsUnverifiableWarning) {
  json spec = u8();
  spec.erase("scale");
  spec.erase("zero_point");
  ValidationResult r = validate(sigmoidGraph(spec));
  ASSERT_EQ(codes(r), std::vector<std::string>{"unverifiable"});
  EXPECT_EQ(r.diagnostics[0].severity, Severity::kWarning);
  EXPECT_TRUE(r.ok());  // a warning does not make the graph invalid
}

Graph viewGraph(json inEdge, json outSpec) {
  GraphText g;
  g.input("x", u8());
  g.call("view", "aten.view.default", {ref("x", inEdge), json{1, -1}}, {out(outSpec)});
  return g.build();
}

TEST(Validator, SharedEncodingPassesWithSharedReference) {
  EXPECT_TRUE(validate(viewGraph(shared("x"), sharedEdge("x", "view"))).diagnostics.empty());
}

TEST(Validator, SharedEncodingPassesWithIdenticalCalibratedNumbers) {
  EXPECT_TRUE(validate(viewGraph(u8(0.5, 3), u8(0.5, 3))).diagnostics.empty());
}

TEST(Validator, IndependentOutputSpecViolatesShared) {
  json own = u8();
  own.erase("scale");
  own.erase("zero_point");
  ValidationResult r = validate(viewGraph(shared("x"), own));
  ASSERT_EQ(codes(r), std::vector<std::string>{"shared"});
  EXPECT_EQ(r.diagnostics[0].message, "output must share the encoding of input (math-invariant).");
  EXPECT_EQ(r.diagnostics[0].port, "out[0] output");
}

TEST(Validator, SharedCycleIsADiagnosticNotACrash) {
  // The view's input edge and output point at each other.
  GraphText g;
  g.input("x");
  g.call("view", "aten.view.default", {ref("x", shared("view")), json{1, -1}}, {out(sharedEdge("x", "view"))});
  ValidationResult r = validate(g.build());
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(codes(r)[0], "shared-cycle");
}

TEST(Validator, SharedReferenceToUnannotatedPortIsUnresolved) {
  GraphText g;
  g.input("x");  // no output annotation
  g.call("view", "aten.view.default", {ref("x", shared("x")), json{1, -1}}, {out(sharedEdge("x", "view"))});
  ValidationResult r = validate(g.build());
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(codes(r)[0], "shared-unresolved");
}

TEST(Validator, LongSharedChainsResolve) {
  GraphText g;
  g.input("x", u8());
  std::string prev = "x";
  for (int i = 0; i < 500; ++i) {
    std::string name = "v" + std::to_string(i);
    g.call(name, "aten.view.default", {ref(prev, shared(prev)), json{1, -1}}, {out(sharedEdge(prev, name))});
    prev = name;
  }
  ValidationResult r = validate(g.build());
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_EQ(r.nodesChecked, 500u);
}

TEST(Validator, VariadicInputsAreEachChecked) {
  GraphText g;
  g.input("a", u8()).input("b", u8()).input("c");
  json inputs = {ref("a", shared("a")), ref("b", shared("a")), ref("c", u16())};
  g.call("cat", "aten.cat.default", {inputs, 1}, {out(shared("a"))});
  ValidationResult r = validate(g.build());
  ASSERT_EQ(codes(r), std::vector<std::string>{"no-matching-variant"});
  EXPECT_EQ(r.diagnostics[0].port, "in[0][2] inputs");
}

TEST(Validator, ConcatOutputMustShareEveryInput) {
  GraphText g;
  g.input("a", u8()).input("b", u8(0.7, 1));
  json inputs = {ref("a", shared("a")), ref("b", shared("b"))};
  g.call("cat", "aten.cat.default", {inputs, 1}, {out(shared("a"))});
  ValidationResult r = validate(g.build());
  ASSERT_EQ(codes(r), std::vector<std::string>{"shared"});
}

TEST(Validator, EveryOutputOfAMultiOutputNodeIsChecked) {
  GraphText g;
  g.input("x", u8());
  json own = u8(0.9, 2);
  g.call("split", "aten.split.Tensor", {ref("x", shared("x")), 4},
         {out(sharedEdge("x", "split")), out(sharedEdge("x", "split")), out(own)});
  ValidationResult r = validate(g.build());
  ASSERT_EQ(codes(r), std::vector<std::string>{"shared"});
  EXPECT_EQ(r.diagnostics[0].port, "out[2] outputs");  // the output that differs, not the port's first index
}

TEST(Validator, NodeWithoutRuleIsReportedNeverSilentlyPassed) {
  GraphText g;
  g.input("x", u8());
  g.call("custom", "aten.my_custom_op.default", {ref("x", u8())}, {out(u8())});
  g.call("custom2", "aten.my_custom_op.default", {ref("custom", u8())}, {out(u8())});
  ValidationResult r = validate(g.build());
  ASSERT_EQ(codes(r), (std::vector<std::string>{"no-rule", "no-rule"}));
  EXPECT_EQ(r.diagnostics[0].node, "custom");
  EXPECT_EQ(r.diagnostics[1].node, "custom2");
  EXPECT_EQ(r.diagnostics[0].message, "no rule covers aten.my_custom_op.default, so the node would fall back to CPU.");
  EXPECT_EQ(r.nodesWithRule, 0u);
}

TEST(Validator, StructuralRulesPassAndUnsupportedRulesReportTheirReason) {
  GraphText g;
  g.input("x", u8());
  g.call("nz", "aten.nonzero.default", {ref("x", u8())}, {out()});
  g.call("first", "getitem", {ref("nz"), 0}, {out()});
  ValidationResult r = validate(g.build());
  ASSERT_EQ(codes(r), std::vector<std::string>{"unsupported-op"});
  EXPECT_EQ(r.diagnostics[0].message, "not supported by QNN TEST: the op has no QNN equivalent.");
}

TEST(Validator, AllViolationsOfAllNodesAreReported) {
  GraphText g;
  g.input("x", u8()).param("w").param("b");
  g.call("conv", "aten.conv2d.default", {ref("x", u8()), ref("w", w8("per_channel_affine", 1)), ref("b", bias32())},
         {out(u8())});
  g.call("sig", "aten.sigmoid.default", {ref("conv", u8())}, {out(u8(1.0 / 255, 0))});
  g.call("custom", "aten.my_custom_op.default", {ref("sig", u8())}, {out(u8())});
  ValidationResult r = validate(g.build());
  EXPECT_EQ(codes(r), (std::vector<std::string>{"symmetric", "axis", "fixed-scale", "no-rule"}));
  EXPECT_EQ(r.errorCount(), 4u);
}

TEST(Validator, WarnModeDowngradesErrorsButKeepsEveryDiagnostic) {
  ValidationResult r = validate(convGraph(u8(), w8("per_channel_affine", 1), u8()));
  ASSERT_EQ(r.errorCount(), 2u);
  applyMode(r, Mode::kWarn);
  EXPECT_EQ(r.errorCount(), 0u);
  EXPECT_EQ(r.warningCount(), 2u);
  EXPECT_TRUE(r.ok());
  ValidationResult s = validate(convGraph(u8(), w8("per_channel_affine", 1), u8()));
  applyMode(s, Mode::kStrict);
  EXPECT_EQ(s.errorCount(), 2u);
}

TEST(Validator, TextFormatNamesNodePortRuleLocationAndHint) {
  ValidationResult r = validate(convGraph(u16(), w16(), u16()), "V69", "SM8450");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(formatText(r.diagnostics[0]),
            "error[arch-gate]: node 'conv' (aten.conv2d.default) port in[1] weight: "
            "16-bit activations with 16-bit weights need HTP V73 or newer.\n"
            "  --> test.yaml:37:9 (rule t.conv, variant a16w16)\n"
            "  expected: HTP V73 or newer\n"
            "  actual:   SM8450 is V69\n"
            "  hint:     use 16a8w (8-bit weights) on this SoC\n");
}

TEST(Validator, JsonFormatCarriesEveryField) {
  ValidationResult r = validate(sigmoidGraph(u8(1.0 / 255, 0)));
  ASSERT_EQ(r.diagnostics.size(), 1u);
  json j = json::parse(formatJson(r.diagnostics[0]));
  EXPECT_EQ(j["severity"], "error");
  EXPECT_EQ(j["code"], "fixed-scale");
  EXPECT_EQ(j["node"], "sig");
  EXPECT_EQ(j["op"], "aten.sigmoid.default");
  EXPECT_EQ(j["port"], "out[0] output");
  EXPECT_EQ(j["rule"], "t.sigmoid");
  EXPECT_EQ(j["variant"], "a8");
  EXPECT_EQ(j["location"]["file"], "test.yaml");
  EXPECT_GT(j["location"]["line"].get<int>(), 0);
  EXPECT_FALSE(j["expected"].get<std::string>().empty());
  EXPECT_FALSE(j["actual"].get<std::string>().empty());
  EXPECT_FALSE(j["hint"].get<std::string>().empty());
}

}  // namespace
}  // namespace qnnrules
