// ONNX models -> Graph: Q/DQ nodes read into the quantize/dequantize form foldQdq folds
// (per tensor, per axis, int4 in an 8-bit container, int16, int32 bias, block-wise), onnx::
// nodes bound onto the HTP rules by their `onnx` entries (rank and constant-input conditions,
// port mapping), shapes from ONNX shape inference where value_info is missing, and every bad
// model a failed read with one clear message. Models: tests/data/onnx/make_models.py.
#include <gtest/gtest.h>

#include <string>

#include "TestUtil.h"
#include "qnnrules/Engine.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/passes/QdqFold.h"
#include "qnnrules/io/OnnxBinding.h"

namespace qnnrules {
namespace {

const std::string kOnnxDir = std::string(QNNRULES_TEST_DATA_DIR) + "/onnx/";

const RuleSet& htpRules() {
  static const Engine engine = [] {
    EngineOptions o;
    o.backend = "htp";
    o.soc = "SM8650";
    o.useEnvironment = false;
    return Engine(o);
  }();
  EXPECT_TRUE(engine.ok()) << engine.status().message();
  return engine.rules();
}

// Read, fold, bind: what qnn-validate does before validating.
Graph prepared(const std::string& model) {
  GraphReadResult r = readGraphFile(kOnnxDir + model);
  EXPECT_TRUE(r.ok()) << r.status.message();
  QdqFoldResult f = foldQdq(r.graph);
  EXPECT_TRUE(f.status.isOk()) << f.status.message();
  EXPECT_TRUE(f.diagnostics.empty());
  bindOnnxOps(f.graph, htpRules());
  return std::move(f.graph);
}

const Node& nodeNamed(const Graph& g, const std::string& name) {
  std::optional<uint32_t> i = g.findNode(name);
  EXPECT_TRUE(i.has_value()) << name;
  return g.node(i.value_or(0));
}

TEST(OnnxReader, QdqNodesBecomeQuantizeDequantizeNodesAndOpsKeepTheirOnnxType) {
  GraphReadResult r = readGraphFile(kOnnxDir + "conv_8a8w.onnx");
  ASSERT_TRUE(r.ok()) << r.status.message();
  const Graph& g = r.graph;
  EXPECT_EQ(g.name, "conv_8a8w");
  EXPECT_EQ(g.target(nodeNamed(g, "conv")), "onnx::Conv");
  EXPECT_EQ(g.target(nodeNamed(g, "x_q")), "quantized_decomposed.quantize_per_tensor.default");
  EXPECT_EQ(g.target(nodeNamed(g, "w_dq")), "quantized_decomposed.dequantize_per_channel.default");
  EXPECT_EQ(nodeNamed(g, "x").kind, NodeKind::kInput);
  EXPECT_EQ(nodeNamed(g, "w").kind, NodeKind::kParameter);
  EXPECT_EQ(nodeNamed(g, "w").outputs[0].dtype, ScalarType::kInt8);
  EXPECT_EQ(nodeNamed(g, "w").outputs[0].shape, (std::vector<int64_t>{4, 3, 3, 3}));
  // Scales and zero points are literals of the Q/DQ nodes, not parameter nodes.
  EXPECT_FALSE(g.findNode("w_scale").has_value());
  EXPECT_TRUE(isQdqGraph(g));
}

TEST(OnnxReader, ConvPortsCarryTheFoldedPerChannelAndBiasEncodings) {
  Graph g = prepared("conv_8a8w.onnx");
  const Node& conv = nodeNamed(g, "conv");
  EXPECT_EQ(g.target(conv), "aten.conv2d.default");
  ASSERT_EQ(conv.args.size(), 3u);
  const QuantSpec& x = *conv.args[0].qspec;
  EXPECT_EQ(x.dtype, ScalarType::kUInt8);
  EXPECT_EQ(x.scales, std::vector<double>{0.019999999552965164});  // float32 0.02, little-endian raw data
  EXPECT_EQ(x.zeroPoints, std::vector<int64_t>{128});
  const QuantSpec& w = *conv.args[1].qspec;
  EXPECT_EQ(w.qscheme, QScheme::kPerChannelSymmetric);
  EXPECT_EQ(w.chAxis, 0);
  EXPECT_EQ(w.scales.size(), 4u);
  EXPECT_EQ(portTypeOf(w).encoding, Encoding::kAxisScaleOffset);
  const QuantSpec& b = *conv.args[2].qspec;
  EXPECT_EQ(b.dtype, ScalarType::kInt32);
  EXPECT_EQ(portTypeOf(b).datatype, QnnDatatype::kSFixed32);
  EXPECT_EQ(conv.outputs[0].qspec->zeroPoints, std::vector<int64_t>{10});
}

// torch.onnx's form: every Q/DQ parameter behind a constant chain (Identity, Cast,
// ConstantOfShape, Reshape, Unsqueeze, Squeeze). Folded, the ports read the values the chains make.
TEST(OnnxReader, QdqParametersBehindConstantChainsAreFolded) {
  Graph g = prepared("qdq_constant_chain.onnx");
  const Node& conv = nodeNamed(g, "conv");
  EXPECT_EQ(g.target(conv), "aten.conv2d.default");
  const QuantSpec& x = *conv.args[0].qspec;  // Constant 0.02 -> Identity; Constant 128 -> Cast(uint8)
  EXPECT_EQ(x.dtype, ScalarType::kUInt8);
  EXPECT_EQ(x.scales, std::vector<double>{0.019999999552965164});
  EXPECT_EQ(x.zeroPoints, std::vector<int64_t>{128});
  const QuantSpec& w = *conv.args[1].qspec;  // ConstantOfShape([4], 0.01); Reshape([1, 4] -> [4])
  EXPECT_EQ(w.chAxis, 0);
  EXPECT_EQ(w.dtype, ScalarType::kInt8);
  EXPECT_EQ(w.scales, std::vector<double>(4, 0.009999999776482582));
  EXPECT_EQ(w.zeroPoints, std::vector<int64_t>(4, 0));
  const QuantSpec& y = *conv.outputs[0].qspec;  // Unsqueeze(0.05) -> [1]; Squeeze([10]) -> scalar
  EXPECT_EQ(y.scales, std::vector<double>{0.05000000074505806});
  EXPECT_EQ(y.zeroPoints, std::vector<int64_t>{10});
  // The chain nodes are constants, not calls that would need rules.
  EXPECT_EQ(nodeNamed(g, "x_scale_id").kind, NodeKind::kConstant);
  EXPECT_EQ(nodeNamed(g, "x_zp_cast").kind, NodeKind::kConstant);
}

// Gemm with transB=0 holds B as [in, out]: bound to htp.linear, B and its per-channel axis are
// transposed as ORT's QNN EP does, so the weight port sees [out, in] along axis 0.
TEST(OnnxReader, GemmWithTransBZeroHasItsConstantWeightTransposed) {
  const std::string dir = std::string(QNNRULES_SOURCE_DIR) + "/tests/conformance/onnx/";
  GraphReadResult r = readGraphFile(dir + "linear_kn.8a8w_pc.SM8650.onnx");
  ASSERT_TRUE(r.ok()) << r.status.message();
  QdqFoldResult f = foldQdq(r.graph);
  ASSERT_TRUE(f.status.isOk()) << f.status.message();
  bindOnnxOps(f.graph, htpRules());
  const Node& fc = nodeNamed(f.graph, "linear_kn.8a8w_pc.SM8650");
  EXPECT_EQ(f.graph.target(fc), "aten.linear.default");
  const Argument& w = fc.args[1];
  ASSERT_TRUE(w.qspec);
  EXPECT_EQ(w.qspec->chAxis, 0);
  EXPECT_EQ(w.qspec->scales.size(), 16u);
  EXPECT_EQ(f.graph.node(w.tensor.node).outputs[w.tensor.output].shape, (std::vector<int64_t>{16, 64}));
}

TEST(OnnxReader, Int4WeightsAreFourBitsInAnEightBitContainer) {
  Graph g = prepared("conv_16a4w.onnx");
  const QuantSpec& w = *nodeNamed(g, "conv").args[1].qspec;
  EXPECT_EQ(w.dtype, ScalarType::kInt8);
  EXPECT_EQ(w.quantMin, -8);
  EXPECT_EQ(w.quantMax, 7);
  PortType p = portTypeOf(w);
  EXPECT_EQ(p.datatype, QnnDatatype::kSFixed8);
  EXPECT_EQ(p.bitwidth, 4);
  EXPECT_EQ(p.encoding, Encoding::kBwAxisScaleOffset);
  EXPECT_EQ(portTypeOf(*nodeNamed(g, "conv").args[0].qspec).datatype, QnnDatatype::kUFixed16);
}

TEST(OnnxReader, BlockSizeGivesTheBlockwiseSpec) {
  Graph g = prepared("linear_16a4w_block.onnx");
  const Node& fc = nodeNamed(g, "fc");
  EXPECT_EQ(g.target(fc), "aten.linear.default");
  const QuantSpec& w = *fc.args[1].qspec;
  EXPECT_EQ(w.blockSize, (std::vector<int64_t>{1, 32}));
  EXPECT_EQ(w.chAxis, 0);  // blocks run along axis 1 (input channels); channels are axis 0
  EXPECT_EQ(w.scales.size(), 8u);
  EXPECT_EQ(portTypeOf(w).encoding, Encoding::kBlockwiseExpansion);
}

TEST(OnnxReader, RulesSplitOneOnnxOpByRankAndConstantInputs) {
  // Gemm with a constant weight is the linear rule; MatMul of two activations the matmul rule.
  EXPECT_EQ(prepared("linear_16a8w.onnx").target(nodeNamed(prepared("linear_16a8w.onnx"), "fc")),
            "aten.linear.default");
  Graph mm = prepared("matmul_16a16w.onnx");
  EXPECT_EQ(mm.target(nodeNamed(mm, "mm")), "aten.matmul.default");
  // Rank 5 behind a Relu and without value_info: shape inference gives the rank, conv3d's rule.
  Graph c3 = prepared("conv3d_float.onnx");
  EXPECT_EQ(nodeNamed(c3, "relu").outputs[0].shape, (std::vector<int64_t>{1, 2, 4, 4, 4}));
  EXPECT_EQ(c3.target(nodeNamed(c3, "conv")), "aten.conv3d.default");
  EXPECT_EQ(c3.target(nodeNamed(c3, "relu")), "aten.relu.default");
}

TEST(OnnxReader, ATransposeOfADequantizedWeightIsFoldedIntoIt) {
  // torch.onnx's linear: MatMul(x, Transpose(DequantizeLinear(W [8, 16]))). As ORT's transpose
  // optimizer, the reader transposes the constant: the MatMul reads W [16, 8] through its
  // DequantizeLinear, and a per-channel axis moves with the permutation (0 -> 1).
  for (const char* model : {"torch_linear_transpose.onnx", "torch_linear_transpose_per_channel.onnx"}) {
    Graph g = prepared(model);
    EXPECT_FALSE(g.findNode("w_t").has_value()) << model;
    const Node& mm = nodeNamed(g, "linear");
    EXPECT_EQ(g.target(mm), "aten.matmul.default");
    ASSERT_TRUE(mm.args[1].qspec) << model;
    const Node& w = g.node(mm.args[1].tensor.node);
    EXPECT_EQ(w.kind, NodeKind::kParameter);
    EXPECT_EQ(w.outputs[0].shape, (std::vector<int64_t>{16, 8}));
    EXPECT_EQ(mm.args[1].qspec->dtype, ScalarType::kInt8);
  }
  Graph pc = prepared("torch_linear_transpose_per_channel.onnx");
  const QuantSpec& spec = *nodeNamed(pc, "linear").args[1].qspec;
  EXPECT_EQ(spec.scales.size(), 8u);
  EXPECT_EQ(spec.chAxis, 1);
}

// io/onnx/OnnxRuntimeShapes.h: a shape is a run-time one when it depends on a value ORT does not fold
// (a size behind a Q/DQ pair), and on such a shape; integer arithmetic on a static shape folds.
TEST(OnnxReader, ShapesOnnxRuntimeKnowsOnlyAtRunTimeAreMarked) {
  GraphReadResult r = readGraphFile(kOnnxDir + "runtime_shapes.onnx");
  ASSERT_TRUE(r.ok()) << r.status.message();
  const Graph& g = r.graph;
  for (const char* name : {"reshape_runtime", "sigmoid_after", "reshape_fused"})
    EXPECT_TRUE(nodeNamed(g, name).outputs[0].runtimeShape) << name;
  for (const char* name : {"x", "shape_x", "gather_h", "mul_size", "concat_runtime", "reshape_static", "gather_w"})
    EXPECT_FALSE(nodeNamed(g, name).outputs[0].runtimeShape) << name;
}

// ORT's ReshapeFusion: the Reshape reads a constant [0, 0, -1], its Shape/Gather/Unsqueeze/Concat
// chain is gone (they would be judged as nodes of their own, as ORT has none).
TEST(OnnxReader, ReshapeFusionRemovesTheShapeChainOfAReshapeOfItsOwnDims) {
  GraphReadResult r = readGraphFile(kOnnxDir + "runtime_shapes.onnx");
  ASSERT_TRUE(r.ok()) << r.status.message();
  const Graph& g = r.graph;
  for (const char* name : {"fused_shape0", "fused_shape1", "fused_gather0", "fused_unsqueeze1", "fused_concat"})
    EXPECT_FALSE(g.findNode(name).has_value()) << name;
  const Node& reshape = nodeNamed(g, "reshape_fused");
  ASSERT_EQ(reshape.args.size(), 2u);
  ASSERT_EQ(reshape.args[1].kind, Argument::Kind::kTensor);
  const Node& shape = g.node(reshape.args[1].tensor.node);
  EXPECT_EQ(shape.kind, NodeKind::kParameter);
  EXPECT_EQ(shape.outputs[0].shape, (std::vector<int64_t>{3}));
  // The Reshape whose shape is not its own dims keeps its chain.
  EXPECT_TRUE(g.findNode("concat_runtime").has_value());
}

// ORT's com.microsoft Q/DQ are the default domain's to shape inference: shapes go on through them.
TEST(OnnxReader, ShapesAreInferredThroughContribQdqNodes) {
  GraphReadResult r = readGraphFile(kOnnxDir + "contrib_qdq_16bit.onnx");
  ASSERT_TRUE(r.ok()) << r.status.message();
  EXPECT_EQ(nodeNamed(r.graph, "sigmoid").outputs[0].shape, (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_FALSE(nodeNamed(r.graph, "sigmoid").outputs[0].runtimeShape);
}

TEST(OnnxReader, AnOpNoRuleNamesKeepsItsOnnxTarget) {
  Graph g = prepared("no_rule.onnx");
  EXPECT_EQ(g.target(nodeNamed(g, "hardmax")), "onnx::Hardmax");
  EXPECT_FALSE(needsOnnxBinding(g, htpRules()));
}

struct BadModel {
  const char* file;
  StatusCode code;
  const char* message;  // after "<path>: "
};
inline void PrintTo(const BadModel& c, std::ostream* os) { *os << c.file; }

class OnnxBadModel : public ::testing::TestWithParam<BadModel> {};

TEST_P(OnnxBadModel, FailsWithOneClearMessage) {
  const BadModel& c = GetParam();
  GraphReadResult r = readGraphFile(kOnnxDir + c.file);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status.code(), c.code);
  EXPECT_EQ(r.status.message(), kOnnxDir + c.file + ": " + c.message);
  EXPECT_TRUE(r.graph.nodes().empty());  // never a half-built graph
}

INSTANTIATE_TEST_SUITE_P(
    Models, OnnxBadModel,
    ::testing::Values(
        BadModel{"truncated.onnx", StatusCode::kParseError,
                 "not a JSON graph, and not a readable ONNX model (the protobuf does not parse: the file is truncated "
                 "or corrupt, or not a model at all)"},
        BadModel{"corrupt.onnx", StatusCode::kParseError,
                 "not a JSON graph, and not a readable ONNX model (the protobuf does not parse: the file is truncated "
                 "or corrupt, or not a model at all)"},
        BadModel{"unknown_ref.onnx", StatusCode::kSchemaError,
                 "node 'w_dq' (DequantizeLinear) input 0 'nowhere' is unknown: no node, graph input or initializer "
                 "produces it"},
        BadModel{"cycle.onnx", StatusCode::kSchemaError,
                 "the graph has a cycle: node 'x_q' (QuantizeLinear) depends on its own output"},
        BadModel{"missing_initializer.onnx", StatusCode::kSchemaError,
                 "node 'w_dq' (DequantizeLinear) input 1 'w_scale' is a missing initializer: no initializer, Constant "
                 "node or graph input has that name"},
        // A scale behind an Identity of a graph input is no constant: nothing to fold.
        BadModel{"scale_from_input.onnx", StatusCode::kSchemaError,
                 "node 'w_dq' (DequantizeLinear) scale 'w_scale' is a missing initializer: the scale must be an "
                 "initializer, a Constant node's output or a constant folded through Identity, Cast, "
                 "ConstantOfShape, Reshape, Unsqueeze or Squeeze"},
        // The Conv input's rank comes from shape inference (io/onnx/OnnxShapeInference.h).
        BadModel{"conv_weight_rank.onnx", StatusCode::kSchemaError,
                 "node 'conv' (Conv): weight rank 4 differs from input rank 5"},
        BadModel{"conv_pads.onnx", StatusCode::kSchemaError,
                 "node 'conv' (Conv): attribute pads has 2 values; an input of rank 5 needs 6"}),
    [](const ::testing::TestParamInfo<BadModel>& p) {
      std::string n = p.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(OnnxReader, TextThatIsNotJsonStillGetsTheJsonReadersError) {
  testing::TempDir d;
  GraphReadResult r = readGraphFile(d.write("g.json", "[1, 2]\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status.message().find("ONNX"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace qnnrules
