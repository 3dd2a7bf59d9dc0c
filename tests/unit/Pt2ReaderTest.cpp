// The .pt2 reader on real torch.export archives (tests/data/pt2/make_pt2.py writes them):
// graph structure as the Python adapter maps FX graphs, folded pt2e Q/DQ with the scales torch
// computed, and a clear error for every kind of damaged archive.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/passes/QdqFold.h"
#include "qnnrules/io/Pt2Reader.h"

namespace qnnrules {
namespace {

const std::string kData = std::string(QNNRULES_TEST_DATA_DIR) + "/pt2/";

const Node& named(const Graph& g, const std::string& name) {
  std::optional<uint32_t> i = g.findNode(name);
  if (!i) throw std::runtime_error("no node " + name);
  return g.node(*i);
}

std::string refName(const Graph& g, const Argument& a) {
  return a.kind == Argument::Kind::kTensor ? g.node(a.tensor.node).name : "<not a tensor>";
}

GraphReadResult readOk(const std::string& file) {
  GraphReadResult r = readGraphFile(kData + file);
  EXPECT_TRUE(r.ok()) << r.status.message();
  return r;
}

TEST(Pt2Reader, DetectsZipMagic) {
  EXPECT_TRUE(isZipFile(kData + "float.pt2"));
  EXPECT_FALSE(isZipFile(kData + "make_pt2.py"));
  EXPECT_FALSE(isZipFile(kData + "does-not-exist.pt2"));
}

TEST(Pt2Reader, FloatGraphMapsLikeTheFxGraph) {
  GraphReadResult r = readOk("float.pt2");
  const Graph& g = r.graph;
  EXPECT_EQ(g.name, "float");
  std::vector<std::string> names;
  for (const Node& n : g.nodes()) names.push_back(n.name + ":" + std::string(nodeKindName(n.kind)) + ":" + std::string(g.target(n)));
  EXPECT_EQ(names, (std::vector<std::string>{
                       "p_conv1_weight:parameter:", "p_conv2_weight:parameter:", "x:input:",
                       "conv2d:call:aten.conv2d.default", "relu:call:aten.relu.default",
                       "conv2d_1:call:aten.conv2d.default", "sigmoid:call:aten.sigmoid.default", "output:output:"}));
  const Node& conv = named(g, "conv2d");
  EXPECT_EQ(g.modulePath(conv), "conv1");
  ASSERT_EQ(conv.args.size(), 5u);  // input, weight, bias (None), stride, padding: schema order
  EXPECT_EQ(refName(g, conv.args[0]), "x");
  EXPECT_EQ(refName(g, conv.args[1]), "p_conv1_weight");
  EXPECT_EQ(conv.args[2].kind, Argument::Kind::kNone);
  ASSERT_EQ(conv.args[4].kind, Argument::Kind::kList);
  EXPECT_EQ(conv.args[4].list[0].i, 1);
  ASSERT_EQ(conv.outputs.size(), 1u);
  EXPECT_EQ(conv.outputs[0].dtype, ScalarType::kFloat32);
  EXPECT_EQ(conv.outputs[0].shape, (std::vector<int64_t>{1, 4, 8, 8}));
  EXPECT_EQ(named(g, "p_conv1_weight").outputs[0].shape, (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_EQ(g.modulePath(named(g, "relu")), "");  // called in the root module's forward
  const Node& out = named(g, "output");
  ASSERT_EQ(out.args.size(), 1u);
  ASSERT_EQ(out.args[0].kind, Argument::Kind::kList);
  EXPECT_EQ(refName(g, out.args[0].list[0]), "sigmoid");
  EXPECT_FALSE(isQdqGraph(g));
}

TEST(Pt2Reader, ConvertedGraphFoldsIntoPortSpecs) {
  GraphReadResult r = readOk("q8a8w.pt2");
  ASSERT_TRUE(isQdqGraph(r.graph));
  QdqFoldResult f = foldQdq(r.graph);
  ASSERT_TRUE(f.status.isOk()) << f.status.message();
  EXPECT_TRUE(f.diagnostics.empty());
  EXPECT_EQ(f.quantizeNodes, 5u);
  EXPECT_EQ(f.dequantizeNodes, 7u);  // five activations and two weights
  const Graph& g = f.graph;
  const Node& conv = named(g, "conv2d");
  EXPECT_EQ(refName(g, conv.args[0]), "x");
  const QuantSpec& in = *conv.args[0].qspec;
  EXPECT_EQ(in.dtype, ScalarType::kUInt8);
  EXPECT_EQ(in.qscheme, QScheme::kPerTensorAffine);
  ASSERT_EQ(in.scales.size(), 1u);
  const QuantSpec& w = *conv.args[1].qspec;
  EXPECT_EQ(refName(g, conv.args[1]), "b__frozen_param0");  // the int8 weight convert_pt2e froze
  EXPECT_EQ(w.dtype, ScalarType::kInt8);
  EXPECT_EQ(w.qscheme, QScheme::kPerTensorSymmetric);
  EXPECT_EQ(*w.quantMin, -127);
  EXPECT_EQ(named(g, "b__frozen_param0").outputs[0].dtype, ScalarType::kInt8);
  const QuantSpec& sig = *named(g, "sigmoid").outputs[0].qspec;
  EXPECT_EQ(sig.scales, (std::vector<double>{0.00390625}));
  EXPECT_EQ(sig.zeroPoints, (std::vector<int64_t>{0}));
}

// The per-channel scales are lifted buffers: their bytes come from the archive and must be
// what torch computed (make_pt2.py writes them next to the archive).
TEST(Pt2Reader, PerChannelScalesAreReadFromTheArchive) {
  std::ifstream in(kData + "q8a8w_per_channel.scales.txt");
  std::map<std::string, std::vector<double>> expected;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::string name;
    s >> name;
    for (double v; s >> v;) expected[name].push_back(v);
  }
  ASSERT_EQ(expected.size(), 2u);
  GraphReadResult r = readOk("q8a8w_per_channel.pt2");
  QdqFoldResult f = foldQdq(r.graph);
  ASSERT_TRUE(f.status.isOk());
  const QuantSpec& w1 = *named(f.graph, "conv2d").args[1].qspec;
  const QuantSpec& w2 = *named(f.graph, "conv2d_1").args[1].qspec;
  EXPECT_EQ(w1.qscheme, QScheme::kPerChannelSymmetric);
  EXPECT_EQ(w1.chAxis, 0);
  ASSERT_EQ(w1.scales.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(static_cast<float>(w1.scales[i]), static_cast<float>(expected["b__scale_0"][i]));
    EXPECT_FLOAT_EQ(static_cast<float>(w2.scales[i]), static_cast<float>(expected["b__scale_1"][i]));
  }
  EXPECT_EQ(w1.zeroPoints, (std::vector<int64_t>{0, 0, 0, 0}));
}

// Scales and zero points read from tensors are packed numbers (Argument::Kind::kNumbers), not an
// Argument each; the fold gives what it gives for the same values as a list (a JSON graph), and
// the graph written out holds them as a list again (floats for scales, integers for zero points).
TEST(Pt2Reader, TensorScalesArePackedAndFoldAsAListWould) {
  GraphReadResult r = readOk("lpbq_16a4w.pt2");
  const Node* dq = nullptr;
  for (const Node& n : r.graph.nodes())
    if (r.graph.target(n).find("dequantize_affine") != std::string_view::npos) dq = &n;
  ASSERT_NE(dq, nullptr);
  const Argument& scale = dq->args[2];
  const Argument& zp = dq->args[3];
  ASSERT_EQ(scale.kind, Argument::Kind::kNumbers);
  ASSERT_EQ(scale.numberCount(), 32u);
  EXPECT_FALSE(scale.b);
  ASSERT_EQ(zp.kind, Argument::Kind::kNumbers);
  EXPECT_TRUE(zp.b);
  EXPECT_EQ(zp.numberCount(), 32u);

  Graph listed = r.graph;  // the same values, one Argument each
  for (Node& n : listed.mutableNodes())
    for (Argument& a : n.args) {
      if (a.kind != Argument::Kind::kNumbers) continue;
      Argument l;
      l.kind = Argument::Kind::kList;
      for (size_t i = 0; i < a.numberCount(); ++i)
        l.list.push_back(a.b ? Argument::integer(static_cast<int64_t>(a.numberAt(i))) : [&] {
          Argument f;
          f.kind = Argument::Kind::kFloat;
          f.f = a.numberAt(i);
          return f;
        }());
      a = std::move(l);
    }
  EXPECT_EQ(writeGraphText(listed), writeGraphText(r.graph));
  QdqFoldResult packed = foldQdq(r.graph), asList = foldQdq(listed);
  ASSERT_TRUE(packed.status.isOk() && asList.status.isOk());
  EXPECT_EQ(writeGraphText(packed.graph), writeGraphText(asList.graph));
  const QuantSpec& w = *named(packed.graph, "linear").args[1].qspec;
  ASSERT_EQ(w.scales.size(), 32u);
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(w.scales[i], scale.numberAt(i));
}

// torchao's affine observer (PerGroup(16), 4-bit symmetric): convert_pt2e writes
// torchao.dequantize_affine with block_size [1, 16] and a [8, 4] scale buffer.
TEST(Pt2Reader, TorchaoAffineBlockWiseWeightsFoldToLpbq) {
  GraphReadResult r = readOk("lpbq_16a4w.pt2");
  QdqFoldResult f = foldQdq(r.graph);
  ASSERT_TRUE(f.status.isOk());
  EXPECT_TRUE(f.diagnostics.empty());
  EXPECT_EQ(f.dequantizeNodes, 3u);
  const Node& linear = named(f.graph, "linear");
  const QuantSpec& w = *linear.args[1].qspec;
  EXPECT_EQ(w.dtype, ScalarType::kInt8);
  EXPECT_EQ(*w.quantMin, -8);
  EXPECT_EQ(*w.quantMax, 7);
  EXPECT_EQ(w.qscheme, QScheme::kPerChannelSymmetric);
  EXPECT_EQ(w.chAxis, 0);
  EXPECT_EQ(w.blockSize, (std::vector<int64_t>{1, 16}));
  EXPECT_EQ(w.scales.size(), 32u);  // 8 rows x 4 blocks
  for (double s : w.scales) EXPECT_GT(s, 0.0);
  EXPECT_EQ(linear.args[0].qspec->dtype, ScalarType::kUInt16);
}

TEST(Pt2Reader, MultiOutputOpsGetGetitemNodes) {
  // torch.split and max.dim in one program: the serializer drops FX's getitem nodes; the
  // reader re-creates them as torch's deserializer does, named after the values.
  GraphReadResult r = readOk("multi_output.pt2");
  const Graph& g = r.graph;
  const Node& split = named(g, "split");
  EXPECT_EQ(split.outputs.size(), 2u);
  const Node& gi = named(g, "getitem_1");
  EXPECT_EQ(g.target(gi), "getitem");
  EXPECT_EQ(refName(g, gi.args[0]), "split");
  EXPECT_EQ(gi.args[1].i, 1);
  EXPECT_EQ(gi.outputs[0].shape, (std::vector<int64_t>{-1, 2, 8, 8}));  // symbolic batch: -1
  const Node& add = named(g, "add");
  EXPECT_EQ(refName(g, add.args[0]), "getitem");
  EXPECT_EQ(refName(g, add.args[1]), "getitem_1");
  EXPECT_EQ(named(g, "max_1").outputs.size(), 2u);
  EXPECT_EQ(refName(g, named(g, "getitem_3").args[0]), "max_1");
  // reshape's shape mixes a symbolic size (a reference to sym_size) and a literal.
  const Argument& shape = named(g, "reshape").args[1];
  ASSERT_EQ(shape.kind, Argument::Kind::kList);
  EXPECT_EQ(refName(g, shape.list[0]), "sym_size_int_1");
  EXPECT_EQ(shape.list[1].i, -1);
  EXPECT_EQ(named(g, "b_mask").kind, NodeKind::kConstant);  // a buffer, as the adapter classifies it
}

struct BrokenCase {
  const char* file;
  StatusCode code;
  const char* message;  // a piece of the message
};

class Pt2Broken : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(Pt2Broken, IsAClearError) {
  const BrokenCase& c = GetParam();
  GraphReadResult r = readGraphFile(kData + "broken/" + c.file);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status.code(), c.code) << r.status.message();
  EXPECT_NE(r.status.message().find(c.message), std::string::npos) << r.status.message();
  EXPECT_TRUE(r.graph.nodes().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Pt2Broken,
    ::testing::Values(
        BrokenCase{"truncated.pt2", StatusCode::kParseError, "truncated.pt2: not a readable .pt2 archive (zip: "},
        BrokenCase{"corrupt.pt2", StatusCode::kParseError,
                   "corrupt.pt2: entry 'q8a8w/models/model.json' is corrupt or truncated (zip: CRC error)"},
        BrokenCase{"not_pt2.zip", StatusCode::kSchemaError,
                   "not_pt2.zip: a zip file, but not a torch.export archive: it has no entry '<root>/archive_format'"},
        BrokenCase{"no_program.pt2", StatusCode::kSchemaError,
                   "no_program.pt2: the archive has no exported program (no entry 'q8a8w/models/<name>.json')"},
        BrokenCase{"malformed_json.pt2", StatusCode::kParseError,
                   "malformed_json.pt2: entry 'q8a8w/models/model.json': malformed JSON at line 1, column 201"},
        BrokenCase{"future_schema.pt2", StatusCode::kSchemaError,
                   "with ExportedProgram schema version 99.1, newer than this reader knows (8.20, torch 2.14)"},
        BrokenCase{"schema_error.pt2", StatusCode::kSchemaError,
                   "schema_error.pt2: entry 'q8a8w/models/model.json' at /graph_module/graph: missing required key "
                   "'tensor_values'"}),
    [](const ::testing::TestParamInfo<BrokenCase>& p) {
      std::string n = p.param.file;
      return n.substr(0, n.find('.'));
    });

}  // namespace
}  // namespace qnnrules
