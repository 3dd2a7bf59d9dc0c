// The annotator: every config validates clean on SM8650, the 16x16 and LPBQ gates fire on
// exactly the right nodes below their arch, patterns write what the rules demand, existing
// annotations and integer ports are left alone, and the config file is loaded strictly.
#include <gtest/gtest.h>

#include <set>

#include "AnnotationTestUtil.h"
#include "qnnrules/graph/PortType.h"

namespace qnnrules {
namespace {

using namespace qnnrules::testing;  // NOLINT

const char* kConfigs[] = {"8a8w", "8a4w", "16a16w", "16a8w", "16a4w", "16a2w", "16a4w_block", "fp16a8w",
                          "8a8w:per_channel", "8a4w:per_channel", "16a16w:per_channel", "16a8w:per_channel",
                          "16a4w:per_channel", "16a4w_block:per_tensor", "fp16a8w:per_channel", "8a8w:sym",
                          "16a8w:per_channel,sym", "8a8w:qat", "16a4w_block:qat"};

TEST(Annotator, EveryConfigValidatesCleanOnSM8650) {
  for (const char* c : kConfigs) {
    SCOPED_TRACE(c);
    Graph g = readGraph(annotateData("mixed.json"));
    AnnotateResult a = annotate(g, c);
    ASSERT_TRUE(a.ok()) << a.status.message() << dump(a.diagnostics);
    EXPECT_EQ(a.nodesAnnotated, 15u);
    ValidationResult v = validateGraph(g, annotateRules(), soc("SM8650"));
    EXPECT_EQ(v.errorCount(), 0u) << dump(v.diagnostics);
    EXPECT_EQ(v.warningCount(), 0u) << dump(v.diagnostics);
  }
}

std::set<std::string> gatedNodes(const std::string& config, const std::string& socName) {
  Graph g = readGraph(annotateData("mixed.json"));
  AnnotateResult a = annotate(g, config);
  EXPECT_TRUE(a.ok());
  ValidationResult v = validateGraph(g, annotateRules(), soc(socName));
  std::set<std::string> nodes;
  for (const Diagnostic& d : v.diagnostics) {
    EXPECT_EQ(d.code, DiagCode::kArchGate) << formatText(d);
    nodes.insert(d.node);
  }
  return nodes;
}

TEST(Annotator, SixteenBitWeightsGateExactlyConvLinearMatmulLayerNormOnSM8450) {
  EXPECT_EQ(gatedNodes("16a16w", "SM8450"), (std::set<std::string>{"conv1", "fc", "mm", "ln"}));
  EXPECT_TRUE(gatedNodes("16a8w", "SM8450").empty());
  EXPECT_TRUE(gatedNodes("16a16w", "SM8650").empty());
}

TEST(Annotator, BlockWiseWeightsGateConvAndLinearBelowV69) {
  EXPECT_EQ(gatedNodes("16a4w_block", "SM8350"), (std::set<std::string>{"conv1", "fc"}));
  EXPECT_TRUE(gatedNodes("16a4w_block", "SM8450").empty());
  EXPECT_TRUE(gatedNodes("16a4w_block:per_channel", "SM8350").empty());
}

TEST(Annotator, ConvGetsActivationWeightDerivedBiasAndOutput) {
  Graph g = readGraph(annotateData("mixed.json"));
  ASSERT_TRUE(annotate(g, "16a4w_block").ok());
  const Node& conv = node(g, "conv1");
  const QuantSpec& in = *conv.args[0].qspec;
  EXPECT_EQ(in.dtype, ScalarType::kInt32);
  EXPECT_EQ(*in.quantMin, 0);
  EXPECT_EQ(*in.quantMax, 65535);
  const QuantSpec& w = *conv.args[1].qspec;
  EXPECT_EQ(w.qscheme, QScheme::kPerChannelSymmetric);
  EXPECT_EQ(*w.chAxis, 0);
  EXPECT_EQ(w.blockSize, (std::vector<int64_t>{1, 32, 1, 1}));
  EXPECT_EQ(portTypeOf(w).bitwidth, 4);
  const QuantSpec& b = *conv.args[2].qspec;
  EXPECT_EQ(portTypeOf(b).datatype, QnnDatatype::kSFixed32);
  EXPECT_TRUE(isSymmetric(b.qscheme));
  ASSERT_TRUE(conv.outputs[0].qspec);
}

TEST(Annotator, FixedQParamsComeFromTheRuleVariant) {
  Graph g8 = readGraph(annotateData("mixed.json"));
  ASSERT_TRUE(annotate(g8, "8a8w").ok());
  const QuantSpec& s8 = *node(g8, "sig").outputs[0].qspec;
  EXPECT_DOUBLE_EQ(s8.scales.at(0), 1.0 / 256);
  EXPECT_EQ(s8.zeroPoints.at(0), 0);
  EXPECT_TRUE(node(g8, "th").outputs[0].qspec->scales.empty());  // 8-bit tanh: no fixed encoding
  Graph g16 = readGraph(annotateData("mixed.json"));
  ASSERT_TRUE(annotate(g16, "16a8w").ok());
  EXPECT_DOUBLE_EQ(node(g16, "sig").outputs[0].qspec->scales.at(0), 1.0 / 65536);
  const QuantSpec& t16 = *node(g16, "th").outputs[0].qspec;
  EXPECT_DOUBLE_EQ(t16.scales.at(0), 1.0 / 32768);
  EXPECT_EQ(t16.zeroPoints.at(0), 32768);  // QNN offset -32768
}

TEST(Annotator, FixedQParamsFollowAnEditedRule) {
  // One place per fact: change the rule's scale and the annotator writes the new number.
  std::vector<Rule> rules;
  DiagnosticList errors;
  loadRuleText(R"(version: 1
rules:
  - id: x.sigmoid
    targets: [aten.sigmoid.default]
    qnn_op: Sigmoid
    pattern: fixed_qparams
    description: Sigmoid.
    inputs: [{name: input}]
    outputs: [{name: output}]
    variants:
      - name: a8
        ports:
          input: {dtype: UFIXED_POINT_8}
          output: {dtype: UFIXED_POINT_8, scale: "1/128", offset: -3}
)", "x.yaml", rules, errors);
  ASSERT_TRUE(errors.empty());
  RuleSet set("htp", std::move(rules));
  Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1, "nodes": [
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4]}]},
    {"name": "s", "kind": "call", "target": "aten.sigmoid.default", "args": [{"ref": "x"}],
     "outputs": [{"dtype": "float32", "shape": [4]}]}]})");
  AnnotateResult a = annotateGraph(g, set, quantConfigs(), select("8a8w"), nullptr, {});
  ASSERT_TRUE(a.ok());
  const QuantSpec& out = *node(g, "s").outputs[0].qspec;
  EXPECT_DOUBLE_EQ(out.scales.at(0), 1.0 / 128);
  EXPECT_EQ(out.zeroPoints.at(0), 3);
  EXPECT_EQ(validateGraph(g, set, soc("SM8650")).errorCount(), 0u);
}

TEST(Annotator, SharedConcatMultiOutputAndGetItemPatterns) {
  Graph g = readGraph(annotateData("mixed.json"));
  ASSERT_TRUE(annotate(g, "8a8w").ok());
  // view: the producer (mul1) has an output encoding, so both sides share it.
  const Node& flat = node(g, "flat");
  ASSERT_TRUE(flat.outputs[0].qspec->isShared());
  EXPECT_EQ(flat.outputs[0].qspec->sharedWith->node, *g.findNode("mul1"));
  // cat: the first input carries the spec, the second input and the output share that edge.
  const Node& cat = node(g, "cat1");
  EXPECT_FALSE(cat.args[0].list[0].qspec->isShared());
  ASSERT_TRUE(cat.args[0].list[1].qspec->isShared());
  EXPECT_EQ(cat.args[0].list[1].qspec->sharedWith->kind, SharedRef::Kind::kEdge);
  EXPECT_EQ(cat.args[0].list[1].qspec->sharedWith->node, *g.findNode("relu1"));
  EXPECT_TRUE(cat.outputs[0].qspec->isShared());
  // split: every output shares the input edge; getitem follows its producer's output.
  const Node& split = node(g, "split1");
  EXPECT_TRUE(split.outputs[0].qspec->isShared() && split.outputs[1].qspec->isShared());
  const QuantSpec& g1 = *node(g, "g1").outputs[0].qspec;
  ASSERT_TRUE(g1.isShared());
  EXPECT_EQ(g1.sharedWith->output, 1u);
}

TEST(Annotator, IntegerPortsNeverGetSpecs) {
  Graph g = readGraph(annotateData("mixed.json"));
  ASSERT_TRUE(annotate(g, "16a8w:per_channel").ok());
  const Node& emb = node(g, "emb");
  EXPECT_FALSE(emb.args[1].qspec.has_value());  // int64 indices
  ASSERT_TRUE(emb.args[0].qspec);               // per-channel table (weight role)
  EXPECT_EQ(emb.args[0].qspec->qscheme, QScheme::kPerChannelSymmetric);
}

TEST(Annotator, AlreadyAnnotatedNodesKeepTheirAnnotation) {
  Graph g = readGraphJson(R"({"format": "qnnrules-graph", "version": 1, "nodes": [
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [4]}]},
    {"name": "r", "kind": "call", "target": "aten.relu.default",
     "args": [{"ref": "x", "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255}}],
     "outputs": [{"dtype": "float32", "shape": [4], "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255}}]},
    {"name": "r2", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "r"}],
     "outputs": [{"dtype": "float32", "shape": [4]}]}]})");
  AnnotateResult a = annotate(g, "16a8w");
  EXPECT_EQ(a.nodesKept, 1u);
  EXPECT_EQ(a.nodesAnnotated, 1u);
  EXPECT_EQ(node(g, "r").outputs[0].qspec->dtype, ScalarType::kUInt8);
  EXPECT_EQ(node(g, "r2").outputs[0].qspec->dtype, ScalarType::kInt32);
}

TEST(Annotator, ExplainNodeNamesConfigRuleAndPatternPerPort) {
  Graph g = readGraph(annotateData("mixed.json"));
  AnnotateOptions opt;
  opt.explainNode = "sig";
  AnnotateResult a = annotate(g, "8a8w", nullptr, opt);
  ASSERT_TRUE(a.explanation);
  EXPECT_EQ(a.explanation->config, "8a8w:per_tensor");
  EXPECT_NE(a.explanation->rule.find("t.sigmoid"), std::string::npos);
  ASSERT_EQ(a.explanation->ports.size(), 2u);
  EXPECT_EQ(a.explanation->ports[1].port, "out[0]");
  EXPECT_NE(a.explanation->ports[1].source.find("fixed"), std::string::npos);
  EXPECT_NE(a.explanation->ports[1].spec.find("scale 0.00390625"), std::string::npos);
}

TEST(QuantConfigLoad, BuiltInConfigsAndTheChoicesWeMade) {
  const QuantConfigTable& t = quantConfigs();
  for (const char* n : {"8a8w", "8a4w", "16a16w", "16a8w", "16a4w", "16a2w", "16a4w_block", "fp16a8w"})
    EXPECT_NE(t.find(n), nullptr) << n;
  // 16a8w weights are int8 symmetric in PTQ and QAT alike (the reference uses uint8 in PTQ).
  EXPECT_EQ(t.find("16a8w")->weight.dtype, ScalarType::kInt8);
  EXPECT_EQ(t.find("16a8w")->weight.quantMin, -127);
  EXPECT_TRUE(t.find("fp16a8w")->activation.isFloat());
  EXPECT_FALSE(t.find("16a2w")->offers(Granularity::kPerTensor));  // 2-bit per-tensor is not encodable
  EXPECT_EQ(t.weightAxis("aten.conv_transpose2d.input"), 1);
  EXPECT_EQ(t.weightAxis("aten.conv2d.default"), 0);
}

TEST(QuantConfigLoad, SelectionErrors) {
  EXPECT_FALSE(parseConfigSelection(quantConfigs(), "9a9w").isOk());
  EXPECT_FALSE(parseConfigSelection(quantConfigs(), "16a2w:per_tensor").isOk());
  EXPECT_FALSE(parseConfigSelection(quantConfigs(), "16a16w:qat").isOk());
  EXPECT_FALSE(parseConfigSelection(quantConfigs(), "8a8w:per_chanel").isOk());
  // Issue 24: two granularities are refused, not the last one silently kept.
  StatusOr<ConfigSelection> two = parseConfigSelection(quantConfigs(), "8a8w:per_channel,sym,per_tensor");
  ASSERT_FALSE(two.isOk());
  EXPECT_EQ(two.status().message(),
            "'8a8w:per_channel,sym,per_tensor' gives two weight granularities, 'per_channel' and 'per_tensor'; "
            "give at most one of per_tensor, per_channel and per_block");
  StatusOr<ConfigSelection> s = parseConfigSelection(quantConfigs(), "16a4w:per_channel,sym,qat");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->text(), "16a4w:per_channel,sym,qat");
}

TEST(QuantConfigLoad, StrictLikeTheRuleLoader) {
  QuantConfigTable t;
  DiagnosticList errors;
  loadQuantConfigText(R"(version: 1
configs:
  - name: a
    description: x
    activation: {dtype: uint8}
    weight: {dtype: int8, quant_min: -127, quant_max: 127}
    eps: 0.001
    granularities: [per_tensor]
    granularitis: [per_channel]
  - name: a
    description: y
    description: z
    activation: {dtype: uint9}
    weight: {dtype: int8}
    eps: -1
    granularities: [per_block]
)", "cfg.yaml", t, errors);
  std::set<std::string> got;
  for (const Diagnostic& d : errors) got.insert(std::string(diagCodeName(d.code)) + "@" + d.mark.toString());
  EXPECT_TRUE(got.count("unknown-key@cfg.yaml:9:5")) << dump(errors);
  EXPECT_TRUE(got.count("duplicate-key@cfg.yaml:12:5")) << dump(errors);
  EXPECT_TRUE(got.count("unknown-enum-value@cfg.yaml:13:25")) << dump(errors);
  EXPECT_TRUE(got.count("invalid-value@cfg.yaml:10:11")) << dump(errors);   // config 'a' twice
  EXPECT_TRUE(got.count("invalid-value@cfg.yaml:15:10")) << dump(errors);   // eps
  EXPECT_TRUE(got.count("missing-key@cfg.yaml:10:5")) << dump(errors);      // per_block without block_size
  EXPECT_EQ(t.all().size(), 0u);
}

}  // namespace
}  // namespace qnnrules
