// Lowering paths (rules/lowering/, issue 21): the loader's strictness (exact file:line:column
// messages), the built-in paths, the rewrites each path applies before validation, where a
// refused node goes (CPU or a failed session) in both modes, and required vs recommended
// constraints (`recommended:` in a port constraint).
#include <gtest/gtest.h>

#include <string>

#include "BuiltinEngine.h"
#include "qnnrules/Engine.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/load/RuleRegistry.h"
#include "qnnrules/report/Verdict.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/load/RuleLoader.h"

namespace qnnrules {
namespace {

const std::string kData = std::string(QNNRULES_SOURCE_DIR) + "/tests/data/lowering/";

std::string dump(const DiagnosticList& errors) {
  std::string s;
  for (const Diagnostic& d : errors) s += d.mark.toString() + ": " + d.message + "\n";
  return s;
}

const std::string kPath =
    "version: 1\n"
    "lowering: toy\n"
    "description: a toy path\n"
    "default_for: [onnx]\n"
    "session_failure: {onnx_ops: [Conv], message: the session fails}\n"
    "ungrouped_qdq_nodes: float\n"
    "rewrites:\n"
    "  - id: s16\n"
    "    rules: [htp.sigmoid]\n"
    "    when: {output: UFIXED_POINT_16}\n"
    "    static: {input: false}\n"
    "    port: output\n"
    "    set: {scale: 1/65536, offset: 0}\n"
    "    says: fixed\n";

TEST(LoweringLoader, ReadsEveryKey) {
  DiagnosticList errors;
  std::optional<LoweringPath> p = loadLoweringText(kPath, "toy.yaml", errors);
  ASSERT_TRUE(p) << dump(errors);
  EXPECT_EQ(p->name, "toy");
  ASSERT_EQ(p->defaultFor.size(), 1u);
  EXPECT_EQ(p->defaultFor[0], GraphSource::kOnnx);
  EXPECT_EQ(p->sessionFailureOnnxOps, std::vector<std::string>{"Conv"});
  EXPECT_TRUE(p->floatUngroupedQdq);
  ASSERT_EQ(p->rewrites.size(), 1u);
  const LoweringRewrite& r = p->rewrites[0];
  EXPECT_EQ(r.port, "output");
  ASSERT_EQ(r.when.size(), 1u);
  EXPECT_EQ(r.when[0].second, QnnDatatype::kUFixed16);
  EXPECT_EQ(r.readsStatic, (std::vector<std::pair<std::string, bool>>{{"input", false}}));
  ASSERT_TRUE(r.setScale);
  EXPECT_DOUBLE_EQ(*r.setScale, 1.0 / 65536);
  EXPECT_EQ(r.setOffset, 0);
  EXPECT_EQ(r.mark.toString(), "toy.yaml:8:5");
}

TEST(LoweringLoader, TyposAreErrorsWithLineAndColumn) {
  struct Case {
    std::string from, to, expected;
  } cases[] = {
      {"default_for: [onnx]", "default_for: [onxx]",
       "toy.yaml:4:14: unknown graph source 'onxx' in 'default_for'"},
      {"    port: output\n", "    prot: output\n", "toy.yaml:12:5: unknown key 'prot' in rewrite 's16'"},
      {"UFIXED_POINT_16}", "UFIXED_POINT_61}", "toy.yaml:10:20: unknown QNN datatype 'UFIXED_POINT_61' for port 'output' in 'when' of rewrite 's16'"},
      {"set: {scale: 1/65536, offset: 0}", "set: {scale: -1, offset: 0}",
       "toy.yaml:13:18: 'scale' of 'set' of rewrite 's16' must be a positive number or a fraction"},
      {"lowering: toy\n", "", "toy.yaml:1:1: the top level is missing required key 'lowering'"},
      {"ungrouped_qdq_nodes: float", "ungrouped_qdq_nodes: flaot",
       "toy.yaml:6:22: 'ungrouped_qdq_nodes' must be float or as_read"},
  };
  for (const Case& c : cases) {
    std::string text = kPath;
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    DiagnosticList errors;
    EXPECT_FALSE(loadLoweringText(text, "toy.yaml", errors));
    EXPECT_NE(dump(errors).find(c.expected), std::string::npos) << "expected: " << c.expected << "\ngot: " << dump(errors);
  }
}

TEST(LoweringLoader, RecommendedNamesAConstraintThePortHas) {
  const std::string rule =
      "version: 1\nrules:\n  - id: t.sig\n    targets: [aten.sigmoid.default]\n    qnn_op: Sigmoid\n"
      "    pattern: siso\n    description: d.\n    inputs: [{name: input}]\n    outputs: [{name: output}]\n"
      "    variants:\n      - name: a8\n        ports:\n          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n"
      "          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET, scale: 1/256, recommended: [REC]}\n";
  auto load = [&](const std::string& rec, DiagnosticList& errors) {
    std::string text = rule;
    text.replace(text.find("REC"), 3, rec);
    std::vector<Rule> rules;
    loadRuleText(text, "r.yaml", rules, errors);
    return rules;
  };
  DiagnosticList ok;
  std::vector<Rule> rules = load("scale", ok);
  ASSERT_EQ(rules.size(), 1u) << dump(ok);
  EXPECT_NE(rules[0].variants[0].ports[1].recommended, 0);
  DiagnosticList notHere, unknown, selecting;
  load("offset", notHere);
  EXPECT_NE(dump(notHere).find("r.yaml:14:95: 'recommended' of port 'output' in variant 'a8' of rule 't.sig' names "
                               "'offset', which this port does not constrain"),
            std::string::npos)
      << dump(notHere);
  load("sacle", unknown);
  EXPECT_NE(dump(unknown).find("names 'sacle', which is not a constraint a variant can fail"), std::string::npos)
      << dump(unknown);
  load("dtype", selecting);  // datatypes select variants; they cannot be a recommendation
  EXPECT_NE(dump(selecting).find("names 'dtype'"), std::string::npos) << dump(selecting);
}

TEST(LoweringPaths, BuiltinPathsLoadAndBindToHtp) {
  Engine e = testing::builtinEngine("htp", "SM8650");
  ASSERT_TRUE(e.ok()) << e.status().message() << dump(e.loadErrors());
  const RuleRegistry::LoweringLoad& l = e.registry().lowerings();
  ASSERT_TRUE(l.table) << dump(l.errors);
  EXPECT_EQ(l.table->names(), (std::vector<std::string>{"executorch", "ort-qnn"}));
  EXPECT_EQ(l.table->defaultFor(GraphSource::kOnnx)->name, "ort-qnn");
  EXPECT_EQ(l.table->defaultFor(GraphSource::kJson)->name, "executorch");
  EXPECT_EQ(l.table->defaultFor(GraphSource::kPt2)->name, "executorch");
  // "lowering" is a folder of paths, not a backend.
  const std::vector<std::string> backends = e.registry().availableBackends();
  EXPECT_EQ(std::count(backends.begin(), backends.end(), "lowering"), 0);
}

TEST(LoweringPaths, UnknownPathIsAnOptionError) {
  EngineOptions o;
  o.soc = "SM8650";
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  o.lowering = "ort-qnm";
  Engine e(o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "unknown lowering path 'ort-qnm'; did you mean 'ort-qnn'? (known: executorch, ort-qnn)");
}

RunReport runOn(const std::string& file, const std::string& soc, Mode mode, const std::string& lowering = {}) {
  EngineOptions o;
  o.soc = soc;
  o.mode = mode;
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  o.lowering = lowering;
  Engine e(o);
  EXPECT_TRUE(e.ok()) << e.status().message();
  RunOptions ro;
  ro.graphPath = kData + file;
  return e.run(ro);
}

// Annotates a float graph of tests/data/lowering with `config` and runs it on SM8650 (its default
// lowering path).
RunReport annotateAndRun(const std::string& file, const std::string& config) {
  EngineOptions o = testing::builtinOptions("htp", "SM8650");
  Engine e(o);
  EXPECT_TRUE(e.ok()) << e.status().message();
  RunOptions ro;
  ro.graphPath = kData + file;
  ro.annotate = AnnotateOptions{};
  ro.annotate->config = config;
  return e.run(ro);
}

size_t count(const RunReport& r, DiagCode code, Severity sev) {
  size_t n = 0;
  for (const Diagnostic& d : r.validation.diagnostics) n += d.code == code && d.severity == sev;
  return n;
}

// A node the backend refuses goes where the path puts it, in both modes; warn mode changes
// the exit code only. ort-qnn: the Conv was laid out as NHWC, so the session fails.
// A refused conv fails ORT's session (its layout transform) and ExecuTorch's lowering too, for
// another reason: the conv's quantized weight is dequantized on QNN as a graph of its own, which
// fails (rules/lowering/executorch.yaml parameter_dequantize; lowering oracle
// cnn_plain/executorch/16a16w/SM8350, gpt2_layer/qnnrules/8a8w/SM8850). A refused node that reads
// no parameter falls back to CPU there (ExecuTorchHandsANumberOperandToQnnAsFloat32).
TEST(LoweringPaths, RefusedConvFailsTheOrtSessionAndTheExecuTorchLowering) {
  for (Mode mode : {Mode::kStrict, Mode::kWarn}) {
    RunReport ort = runOn("conv_16a16w.json", "SM8350", mode, "ort-qnn");
    ASSERT_TRUE(ort.ok());
    ASSERT_TRUE(ort.delegation.sessionFailure);
    EXPECT_EQ(ort.graph->node(ort.delegation.sessionFailure->node).name, "conv");
    EXPECT_EQ(judge(ort.failed(), ort.delegation).text(), "SESSION FAILS");
    EXPECT_EQ(ort.failed(), mode == Mode::kStrict);

    RunReport et = runOn("conv_16a16w.json", "SM8350", mode);
    ASSERT_TRUE(et.ok());
    EXPECT_EQ(et.lowering->name, "executorch");
    ASSERT_TRUE(et.delegation.sessionFailure);
    const SessionFailure& f = *et.delegation.sessionFailure;
    EXPECT_EQ(et.graph->node(f.node).name, "conv");
    EXPECT_NE(f.mark.toString().find("lowering/executorch.yaml:"), std::string::npos) << f.mark.toString();
    EXPECT_NE(f.message.find("dequantize of a quantized parameter"), std::string::npos) << f.message;
    EXPECT_NE(f.cause.find("'conv' runs on CPU and reads the quantized parameter 'weight'"), std::string::npos) << f.cause;
    EXPECT_EQ(judge(et.failed(), et.delegation).text(), "SESSION FAILS");
  }
}

// ExecuTorch lifts a Python-number operand of add/sub/mul/div to a float32 tensor with no encoding
// and QNN refuses the mix (rules/lowering/executorch.yaml number_operands_float32; lowering oracle
// scalar_probe/qnnrules/8a8w/SM8650: h * 0.25 refused, h ** 2 delegated). ORT never sees a number.
TEST(LoweringPaths, ExecuTorchHandsANumberOperandToQnnAsFloat32) {
  RunReport et = runOn("mul_by_number.json", "SM8650", Mode::kStrict);
  ASSERT_TRUE(et.ok());
  EXPECT_EQ(et.lowering->name, "executorch");
  ASSERT_EQ(et.validation.diagnostics.size(), 1u);
  const Diagnostic& d = et.validation.diagnostics[0];
  EXPECT_EQ(d.code, DiagCode::kNoMatchingVariant);
  EXPECT_EQ(d.node, "scaled");
  EXPECT_EQ(d.port, "in[1] other");
  EXPECT_NE(d.actual.find("in[1] other is FLOAT_32 (not annotated)"), std::string::npos) << d.actual;
  // The mul on CPU; pow's number is no tensor port, and `positions + 1` stays an int64 add.
  ASSERT_EQ(et.delegation.fallbacks.size(), 1u);
  EXPECT_EQ(et.graph->node(et.delegation.fallbacks[0].node).name, "scaled");

  RunReport ort = runOn("mul_by_number.json", "SM8650", Mode::kStrict, "ort-qnn");
  ASSERT_TRUE(ort.ok());
  EXPECT_TRUE(ort.validation.diagnostics.empty());
}

// Our annotator lifts a number operand of a binary op to a constant before annotating it, as
// ExecuTorch's QnnQuantizer does (LiftConstantScalarOperands in its annotation pipeline): the
// constant is quantized like the other operand, so ExecuTorch's lowering delegates the op. The
// constant takes the op's float dtype; an integer op's number and pow's exponent (no tensor
// port) stay numbers.
TEST(LoweringPaths, AnnotationLiftsNumberOperandsOfBinaryOps) {
  RunReport r = annotateAndRun("numbers.float.json", "8a8w");
  ASSERT_TRUE(r.ok()) << r.status.message();
  EXPECT_EQ(r.lowering->name, "executorch");
  EXPECT_EQ(r.validation.errorCount(), 0u) << dump(r.validation.diagnostics);
  EXPECT_TRUE(r.delegation.fallbacks.empty());
  const Graph& g = *r.graph;
  for (const char* name : {"scaled_other", "flipped_other"}) {
    SCOPED_TRACE(name);
    std::optional<uint32_t> c = g.findNode(name);
    ASSERT_TRUE(c);
    const Node& n = g.node(*c);
    EXPECT_EQ(n.kind, NodeKind::kConstant);
    ASSERT_EQ(n.outputs.size(), 1u);
    EXPECT_TRUE(n.outputs[0].shape.empty());
    ASSERT_TRUE(n.outputs[0].stats);
    EXPECT_EQ(n.outputs[0].stats->min, n.outputs[0].stats->max);
    const Node& user = g.node(*c + 1);  // right before its consumer
    ASSERT_EQ(user.args[1].kind, Argument::Kind::kTensor);
    EXPECT_EQ(user.args[1].tensor.node, *c);
  }
  const Node& scaled = g.node(*g.findNode("scaled"));
  EXPECT_EQ(g.node(*g.findNode("scaled_other")).outputs[0].stats->min[0], 0.25);
  ASSERT_TRUE(scaled.args[1].qspec);
  EXPECT_EQ(scaled.args[1].qspec->dtype, ScalarType::kUInt8);
  // An integer op's number would get no encoding: it stays a number (and ExecuTorch lifts it to an
  // int64 tensor, which the rule's int variant takes).
  EXPECT_FALSE(g.findNode("shifted_other"));
  EXPECT_EQ(g.node(*g.findNode("shifted")).args[1].kind, Argument::Kind::kInt);
  const Node& squared = g.node(*g.findNode("squared"));
  EXPECT_EQ(squared.args[1].kind, Argument::Kind::kInt);
}

// ExecuTorch's own forms (rules/lowering/executorch.yaml cpu_forms): a quantized silu is refused
// (decomposed after quantization: llama_layer/qnnrules/<config>/<SoC>), a float one is not; a
// max_pool2d without its stride fails the whole lowering (cnn_plain/<quantizer>/<config>/<SoC>),
// naming the node, in both modes. ORT's path has neither form.
TEST(LoweringPaths, ExecuTorchRefusesQuantizedSiluAndFailsOnMaxPoolWithoutStride) {
  for (Mode mode : {Mode::kStrict, Mode::kWarn}) {
    RunReport silu = runOn("silu_quantized.json", "SM8650", mode);
    ASSERT_TRUE(silu.ok());
    EXPECT_FALSE(silu.delegation.sessionFailure);
    ASSERT_EQ(silu.delegation.fallbacks.size(), 1u);
    EXPECT_EQ(silu.graph->node(silu.delegation.fallbacks[0].node).name, "act");
    EXPECT_EQ(silu.delegation.fallbacks[0].reason, FallbackReason::kLoweringCheck);
    ASSERT_EQ(silu.validation.diagnostics.size(), 1u);
    EXPECT_EQ(silu.validation.diagnostics[0].code, DiagCode::kLoweringCheck);
    EXPECT_EQ(silu.validation.diagnostics[0].actual, "quantized");

    RunReport pool = runOn("max_pool_no_stride.json", "SM8650", mode);
    ASSERT_TRUE(pool.ok());
    ASSERT_TRUE(pool.delegation.sessionFailure);
    const SessionFailure& f = *pool.delegation.sessionFailure;
    EXPECT_EQ(pool.graph->node(f.node).name, "pool");
    EXPECT_TRUE(f.byPath);
    EXPECT_EQ(f.cause, "seen: 2 positional argument(s)");
    EXPECT_EQ(judge(pool.failed(), pool.delegation).text(), "SESSION FAILS");
    ASSERT_EQ(pool.validation.diagnostics.size(), 1u);
    EXPECT_EQ(pool.validation.diagnostics[0].code, DiagCode::kLoweringFails);
  }
  RunReport ort = runOn("silu_quantized.json", "SM8650", Mode::kStrict, "ort-qnn");
  ASSERT_TRUE(ort.ok());
  EXPECT_TRUE(ort.delegation.fallbacks.empty());
  RunReport none = runOn("max_pool_no_stride.json", "SM8650", Mode::kStrict, "none");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.lowering);
  EXPECT_FALSE(none.delegation.sessionFailure);
  EXPECT_TRUE(none.validation.diagnostics.empty());
}

// Our annotator decomposes silu, addmm and leaky_relu before annotating, as ExecuTorch's
// QnnQuantizer does, so each piece is quantized and ExecuTorch's lowering delegates the graph; an
// op the path refuses quantized (softplus) is left float.
TEST(LoweringPaths, AnnotationDecomposesWhatExecuTorchDecomposes) {
  RunReport r = annotateAndRun("decompose.float.json", "8a8w");
  ASSERT_TRUE(r.ok()) << r.status.message();
  EXPECT_EQ(r.validation.errorCount(), 0u) << dump(r.validation.diagnostics);
  EXPECT_TRUE(r.delegation.fallbacks.empty());
  EXPECT_FALSE(r.delegation.sessionFailure);
  const Graph& g = *r.graph;
  auto targetOf = [&](const char* name) {
    std::optional<uint32_t> i = g.findNode(name);
    return i ? std::string(g.target(g.node(*i))) : std::string("(none)");
  };
  EXPECT_EQ(targetOf("fc_mm"), "aten.mm.default");
  EXPECT_EQ(targetOf("fc"), "aten.add.Tensor");
  EXPECT_EQ(targetOf("act_sigmoid"), "aten.sigmoid.default");
  EXPECT_EQ(targetOf("act"), "aten.mul.Tensor");
  EXPECT_EQ(targetOf("leaky"), "aten.prelu.default");
  const Node& slope = g.node(*g.findNode("leaky_slope"));
  EXPECT_EQ(slope.kind, NodeKind::kConstant);
  ASSERT_TRUE(slope.outputs[0].stats);
  EXPECT_EQ(slope.outputs[0].stats->min[0], 0.1);
  const Node& act = g.node(*g.findNode("act"));
  ASSERT_TRUE(act.args[1].qspec);  // the sigmoid's output, read by the mul, is quantized
  EXPECT_EQ(act.args[1].qspec->dtype, ScalarType::kUInt8);
  // softplus, which the path refuses quantized and nobody decomposes first, stays float.
  const Node& soft = g.node(*g.findNode("soft"));
  EXPECT_FALSE(soft.outputs[0].qspec);
  EXPECT_FALSE(soft.args[0].qspec);
  size_t notes = 0;
  for (const Diagnostic& d : r.validation.diagnostics)
    if (d.node == "soft" && d.code == DiagCode::kDiscarded) {
      ++notes;
      EXPECT_NE(d.message.find("cpu form softplus-decomposed-after-quantization"), std::string::npos) << d.message;
    }
  EXPECT_EQ(notes, 1u);
}

TEST(LoweringPaths, SameConvRunsOnV73) {
  RunReport r = runOn("conv_16a16w.json", "SM8550", Mode::kStrict, "ort-qnn");
  EXPECT_FALSE(r.delegation.sessionFailure);
  EXPECT_EQ(judge(r.failed(), r.delegation).text(), "VALID");
}

// ort-qnn sets a 16-bit Sigmoid output to its fixed encoding before QNN sees it; ExecuTorch
// hands QNN the file's encoding.
TEST(LoweringPaths, OrtRewritesTheSixteenBitSigmoidOutput) {
  RunReport ort = runOn("sigmoid16_wrong.json", "SM8650", Mode::kStrict, "ort-qnn");
  EXPECT_EQ(count(ort, DiagCode::kFixedScale, Severity::kError), 0u);
  EXPECT_EQ(judge(ort.failed(), ort.delegation).text(), "VALID");
  ASSERT_EQ(ort.rewrites.size(), 1u);
  EXPECT_EQ(ort.rewrites[0].rewrite->id, "sigmoid-16bit-fixed-output");
  EXPECT_EQ(ort.rewrites[0].ports, 1u);

  RunReport et = runOn("sigmoid16_wrong.json", "SM8650", Mode::kStrict);
  EXPECT_EQ(count(et, DiagCode::kFixedScale, Severity::kError), 1u);
  EXPECT_TRUE(et.rewrites.empty());
  EXPECT_EQ(judge(et.failed(), et.delegation).text(), "INVALID");
}

// ort-qnn converts a computed 16-bit input 1 of a MatMul to 8 bits, but lowers a MatMul whose
// input 1 is a constant to FullyConnected, whose 16-bit weight needs V73 (model suite:
// llama/16a16w/SM8350 refused, SM8650 accepted).
TEST(LoweringPaths, OrtConvertsOnlyAComputedMatMulInputOne) {
  RunReport v68 = runOn("matmul_16x16.json", "SM8350", Mode::kStrict, "ort-qnn");
  ASSERT_TRUE(v68.ok());
  ASSERT_EQ(v68.delegation.fallbacks.size(), 1u);
  EXPECT_EQ(v68.graph->node(v68.delegation.fallbacks[0].node).name, "mm_weight");
  EXPECT_EQ(v68.delegation.fallbacks[0].code, DiagCode::kArchGate);
  ASSERT_EQ(v68.rewrites.size(), 2u);
  EXPECT_EQ(v68.rewrites[0].rewrite->id, "matmul-16x16-input1-to-8bit");
  EXPECT_EQ(v68.rewrites[1].rewrite->id, "matmul-static-uint16-input1-fully-connected");

  RunReport v75 = runOn("matmul_16x16.json", "SM8650", Mode::kStrict, "ort-qnn");
  EXPECT_EQ(judge(v75.failed(), v75.delegation).text(), "VALID");
}

// A gate QNN applies at graph finalize: op validation accepts the node, so no path moves it to
// CPU, and the whole graph fails to compile, on ExecuTorch's path as on ORT's (oracle
// where/8a_fconst/SM8350, model suite bert/<config>/SM8350).
TEST(LoweringPaths, AFinalizeGateFailsTheSessionOnEveryPath) {
  for (const char* lowering : {"ort-qnn", "executorch"}) {
    RunReport r = runOn("where_float_const.json", "SM8350", Mode::kWarn, lowering);
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r.delegation.sessionFailure) << lowering;
    EXPECT_EQ(r.graph->node(r.delegation.sessionFailure->node).name, "where");
    EXPECT_TRUE(r.delegation.fallbacks.empty());
    EXPECT_EQ(r.delegation.delegatedComputeNodes, 2u);
    EXPECT_EQ(judge(r.failed(), r.delegation).text(), "SESSION FAILS");
    EXPECT_FALSE(r.failed());  // warn mode: exit code 0
  }
  RunReport v69 = runOn("where_float_const.json", "SM8450", Mode::kStrict, "executorch");
  EXPECT_FALSE(v69.delegation.sessionFailure);
  EXPECT_EQ(judge(v69.failed(), v69.delegation).text(), "VALID");
}

// ORT drops the Cast after an embedding and merges the encodings on either side; the Gather's
// output scale then differs from its table's, so ORT hands QNN a float32 Gather, which V68
// cannot finalize (model suite qwen2/<config>/SM8350; bisected on the backend). ExecuTorch's
// path removes the Cast too but merges nothing: the Gather stays quantized.
TEST(LoweringPaths, OrtMergesEncodingsAcrossARemovedCastAndUngroupsTheGather) {
  RunReport v68 = runOn("embedding_cast.json", "SM8350", Mode::kStrict, "ort-qnn");
  ASSERT_TRUE(v68.ok());
  EXPECT_EQ(v68.mergedConversions, 1u);
  // (The Gather's own output is then handed to QNN as float; the Cast's keeps the merged one.)
  const QuantSpec& merged = *v68.graph->node(*v68.graph->findNode("to_float")).outputs[0].qspec;
  // The intersection of [0-136, 255-136] * 0.0006 and [0-141, 255-141] * 0.000587.
  EXPECT_NEAR(merged.scales[0], (std::min(119 * 0.0006, 114 * 0.000587) + std::min(136 * 0.0006, 141 * 0.000587)) / 255, 1e-9);
  ASSERT_TRUE(v68.delegation.sessionFailure);
  EXPECT_EQ(v68.graph->node(v68.delegation.sessionFailure->node).name, "embed");
  EXPECT_EQ(judge(v68.failed(), v68.delegation).text(), "SESSION FAILS");
  ASSERT_EQ(v68.rewrites.size(), 2u);
  EXPECT_EQ(v68.rewrites[0].rewrite->id, "gather-ungrouped-on-scale-change-table");

  RunReport v73 = runOn("embedding_cast.json", "SM8550", Mode::kStrict, "ort-qnn");
  EXPECT_EQ(judge(v73.failed(), v73.delegation).text(), "VALID");

  RunReport et = runOn("embedding_cast.json", "SM8350", Mode::kStrict, "executorch");
  EXPECT_EQ(et.mergedConversions, 0u);
  EXPECT_TRUE(et.rewrites.empty());
  EXPECT_EQ(judge(et.failed(), et.delegation).text(), "VALID");
}

// Our Quantizer's Llama on V68 (quantizer suite llama/<config>/SM8350, graph finalize: "could not
// create op: q::Gather"), bisected in tests/conformance/quantizer/bisect_gather.json. ORT merges
// the two pairs (and the Gather runs as float32, which V68 cannot finalize) also when
// - the embedding's output is read by a dead _assert_tensor_metadata check as well, as
//   torch.export leaves one (the ONNX exporter drops it);
// - no cast is left between them (torch.onnx drops the no-op cast: Q1 -> DQ1 -> Q2 -> DQ2,
//   requant/SM8350).
// ExecuTorch's path merges nothing: the Gather stays quantized.
TEST(LoweringPaths, OrtMergesTheLlamasEmbeddingEncodingsAsExported) {
  for (const char* file : {"embedding_cast_dead_user.json", "embedding_requant.json"}) {
    SCOPED_TRACE(file);
    RunReport v68 = runOn(file, "SM8350", Mode::kStrict, "ort-qnn");
    ASSERT_TRUE(v68.ok());
    EXPECT_EQ(v68.mergedConversions, 1u);
    ASSERT_TRUE(v68.delegation.sessionFailure);
    EXPECT_EQ(v68.graph->node(v68.delegation.sessionFailure->node).name, "embed");
    EXPECT_EQ(judge(v68.failed(), v68.delegation).text(), "SESSION FAILS");
    RunReport v75 = runOn(file, "SM8650", Mode::kStrict, "ort-qnn");
    EXPECT_EQ(judge(v75.failed(), v75.delegation).text(), "VALID");
    RunReport et = runOn(file, "SM8350", Mode::kStrict, "executorch");
    EXPECT_EQ(et.mergedConversions, 0u);
    EXPECT_EQ(judge(et.failed(), et.delegation).text(), "VALID");
  }
}

// A second live user reading the table's encoding (DQ1 has two consumers) keeps the pairs apart:
// the Gather stays quantized (bisect_gather.json, requant_fanout/SM8350 runs).
TEST(LoweringPaths, OrtMergesNothingWhenTheFirstPairHasTwoReaders) {
  RunReport fanout = runOn("embedding_requant_fanout.json", "SM8350", Mode::kStrict, "ort-qnn");
  ASSERT_TRUE(fanout.ok());
  EXPECT_EQ(fanout.mergedConversions, 0u);
  EXPECT_FALSE(fanout.delegation.sessionFailure);
  EXPECT_EQ(judge(fanout.failed(), fanout.delegation).text(), "VALID");
}

// Recommended, not required: a warning in both modes, and the node stays on the backend.
TEST(RecommendedConstraints, CalibratedEightBitSigmoidAndConcatOwnEncoding) {
  struct Case {
    const char* file;
    DiagCode code;
  } cases[] = {{"sigmoid8_calibrated.json", DiagCode::kFixedScale}, {"concat_own_encoding.json", DiagCode::kShared}};
  for (const Case& c : cases) {
    for (Mode mode : {Mode::kStrict, Mode::kWarn}) {
      RunReport r = runOn(c.file, "SM8650", mode);
      SCOPED_TRACE(c.file);
      EXPECT_EQ(r.validation.errorCount(), 0u);
      EXPECT_GE(count(r, c.code, Severity::kWarning), 1u);
      EXPECT_EQ(r.delegation.delegatedComputeNodes, r.delegation.computeNodes);
      EXPECT_FALSE(r.failed());
      EXPECT_EQ(judge(r.failed(), r.delegation).text(), "VALID");
    }
  }
}

}  // namespace
}  // namespace qnnrules
