// The JSON graph reader: what it builds from valid graphs, and the errors it reports for
// malformed, schema-breaking, dangling and oversized input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "TestUtil.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"

namespace qnnrules {
namespace {

std::string graph(const std::string& nodes) {
  return R"({"format": "qnnrules-graph", "version": 1, "name": "g", "nodes": [)" + nodes + "]}";
}

constexpr const char* kInput =
    R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4],
        "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "scale": 0.5, "zero_point": 3}}]})";

GraphReadResult read(const std::string& text, JsonParser parser = JsonParser::kSimdjson) {
  GraphReadOptions o;
  o.parser = parser;
  return readGraphText(text, "g.json", o);
}

std::string errorsText(const GraphReadResult& r) {
  std::string s = r.status.toString();
  for (const Diagnostic& d : r.errors) s += "\n" + formatText(d);
  return s;
}

class GraphReaderParsers : public ::testing::TestWithParam<JsonParser> {};

TEST_P(GraphReaderParsers, ReadsNodesArgumentsOutputsAndSpecs) {
  GraphReadResult r = read(graph(std::string(kInput) + R"(,
    {"name": "w", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [4, 4]}]},
    {"name": "fc", "kind": "call", "target": "aten.linear.default", "module": "head.fc",
     "args": [{"ref": "x", "qspec": {"dtype": "torch.uint8", "qscheme": "per_tensor_affine"}},
              {"ref": "w", "qspec": {"dtype": "int8", "quant_min": -7, "quant_max": 7,
                                     "qscheme": "per_channel_symmetric", "ch_axis": 0, "block_size": [1, 2],
                                     "scale": [0.1, 0.2, 0.3, 0.4], "zero_point": [0, 0, 0, 0]}},
              null, true, 2, 1.5, "mean", [1, [2, 3]]],
     "kwargs": {"alpha": 0.5},
     "outputs": [{"dtype": "float32", "shape": [1, -1], "qspec": {"shared_with": {"node": "x"}}}]},
    {"name": "output", "kind": "output", "args": [[{"ref": "fc"}]]})"),
                           GetParam());
  ASSERT_TRUE(r.ok()) << errorsText(r);
  const Graph& g = r.graph;
  EXPECT_EQ(g.name, "g");
  ASSERT_EQ(g.nodes().size(), 4u);
  const Node& fc = g.node(2);
  EXPECT_EQ(g.target(fc), "aten.linear.default");
  EXPECT_EQ(r.graph.modulePath(fc), "head.fc");
  ASSERT_EQ(fc.args.size(), 8u);
  EXPECT_EQ(fc.args[0].kind, Argument::Kind::kTensor);
  EXPECT_EQ(fc.args[0].tensor.node, 0u);
  EXPECT_EQ(fc.args[0].qspec->dtype, ScalarType::kUInt8);
  const QuantSpec& w = *fc.args[1].qspec;
  EXPECT_EQ(w.qscheme, QScheme::kPerChannelSymmetric);
  EXPECT_EQ(w.quantMin, -7);
  EXPECT_EQ(w.chAxis, 0);
  EXPECT_EQ(w.blockSize, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(w.scales.size(), 4u);
  EXPECT_EQ(fc.args[2].kind, Argument::Kind::kNone);
  EXPECT_EQ(fc.args[3].kind, Argument::Kind::kBool);
  EXPECT_EQ(fc.args[4].i, 2);
  EXPECT_EQ(fc.args[5].kind, Argument::Kind::kFloat);
  EXPECT_EQ(fc.args[6].s, "mean");
  ASSERT_EQ(fc.args[7].list.size(), 2u);
  EXPECT_EQ(fc.args[7].list[1].list[1].i, 3);
  ASSERT_EQ(fc.kwargs.size(), 1u);
  EXPECT_EQ(fc.kwargs[0].first, "alpha");
  EXPECT_EQ(fc.outputs[0].shape, (std::vector<int64_t>{1, -1}));
  const SharedRef& ref = *fc.outputs[0].qspec->sharedWith;
  EXPECT_EQ(ref.kind, SharedRef::Kind::kNodeOutput);
  EXPECT_EQ(ref.node, 0u);
  EXPECT_EQ(g.node(3).args[0].list[0].tensor.node, 2u);
}

INSTANTIATE_TEST_SUITE_P(Both, GraphReaderParsers, ::testing::Values(JsonParser::kSimdjson, JsonParser::kNlohmann),
                         [](const ::testing::TestParamInfo<JsonParser>& p) {
                           return std::string(p.param == JsonParser::kSimdjson ? "simdjson" : "nlohmann");
                         });

// `runtime_shape` (a shape known only at run time) and `runtime_value` (a value of constants the
// lowering path computes when the graph runs) are read with both parsers and written back only
// when set; each must be a boolean.
TEST_P(GraphReaderParsers, RuntimeFlagsAreReadAndWrittenBack) {
  const std::pair<std::string, bool TensorMeta::*> flags[] = {{"runtime_shape", &TensorMeta::runtimeShape},
                                                             {"runtime_value", &TensorMeta::runtimeValue}};
  for (const auto& [key, flag] : flags) {
    SCOPED_TRACE(key);
    const std::string text = graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, -1], ")" +
                                   key + R"(": true}]},
         {"name": "y", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 4]}]})");
    GraphReadResult r = read(text, GetParam());
    ASSERT_TRUE(r.ok()) << errorsText(r);
    EXPECT_TRUE(r.graph.node(0).outputs[0].*flag);
    EXPECT_FALSE(r.graph.node(1).outputs[0].*flag);
    const std::string written = writeGraphText(r.graph);
    const std::string set = "\"" + key + "\": true";
    EXPECT_EQ(written.find(set), written.rfind(set)) << written;
    EXPECT_NE(written.find(set), std::string::npos) << written;
    GraphReadResult again = read(written, GetParam());
    ASSERT_TRUE(again.ok()) << errorsText(again);
    EXPECT_TRUE(again.graph.node(0).outputs[0].*flag);

    GraphReadResult bad = read(graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32",
                                         "shape": [1], ")" + key + R"(": "yes"}]})"), GetParam());
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(errorsText(bad).find("/nodes/0/outputs/0/" + key), std::string::npos) << errorsText(bad);
  }
}

TEST(GraphReader, TargetsAreInternedOncePerDistinctString) {
  GraphReadResult r = read(graph(std::string(kInput) + R"(,
    {"name": "a", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x"}], "outputs": [{"dtype": "float32"}]},
    {"name": "b", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "a"}], "outputs": [{"dtype": "float32"}]},
    {"name": "c", "kind": "call", "target": "aten.gelu.default", "args": [{"ref": "b"}], "outputs": [{"dtype": "float32"}]})"));
  ASSERT_TRUE(r.ok()) << errorsText(r);
  EXPECT_EQ(r.graph.targets().size(), 2u);
  EXPECT_EQ(r.graph.node(1).targetId, r.graph.node(2).targetId);
}

TEST(GraphReader, SharedEdgeReferencesResolveInArgsListsAndOutputs) {
  GraphReadResult r = read(graph(std::string(kInput) + R"(,
    {"name": "y", "kind": "input", "outputs": [{"dtype": "float32"}]},
    {"name": "cat", "kind": "call", "target": "aten.cat.default",
     "args": [[{"ref": "x"}, {"ref": "y", "qspec": {"shared_with": {"edge": ["x", "cat"]}}}], 1],
     "outputs": [{"dtype": "float32", "qspec": {"shared_with": {"edge": ["x", "cat"]}}}]})"));
  ASSERT_TRUE(r.ok()) << errorsText(r);
  const Node& cat = r.graph.node(2);
  const SharedRef& inRef = *cat.args[0].list[1].qspec->sharedWith;
  EXPECT_EQ(inRef.kind, SharedRef::Kind::kEdge);
  EXPECT_EQ(inRef.node, 0u);
  EXPECT_EQ(inRef.consumer, 2u);
  EXPECT_EQ(cat.outputs[0].qspec->sharedWith->consumer, 2u);
}

TEST(GraphReader, SharedReferencesMayPointForward) {
  // A cycle needs a forward reference; the reader accepts it and the validator reports the cycle.
  GraphReadResult r = read(graph(R"(
    {"name": "a", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"shared_with": {"node": "b"}}}]},
    {"name": "b", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "a"}],
     "outputs": [{"dtype": "float32", "qspec": {"shared_with": {"node": "a"}}}]})"));
  ASSERT_TRUE(r.ok()) << errorsText(r);
  EXPECT_EQ(r.graph.node(0).outputs[0].qspec->sharedWith->node, 1u);
}

struct BadCase {
  const char* name;
  std::string text;
  StatusCode code;
  const char* message;  // substring of the status or of an error message
  const char* pointer;  // JSON pointer of the first error ("" when the status says it all)
  bool nlohmannToo = true;  // nlohmann's DOM drops duplicate keys before the reader sees them
};
// Test names in CTest and gtest output: the case name, not the bytes of the struct.
inline void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }


class GraphReaderBad : public ::testing::TestWithParam<BadCase> {};

void expectClearError(const BadCase& c, const GraphReadResult& r);

TEST_P(GraphReaderBad, ReportsAClearError) {
  const BadCase& c = GetParam();
  for (JsonParser parser : {JsonParser::kSimdjson, JsonParser::kNlohmann}) {
    if (parser == JsonParser::kNlohmann && !c.nlohmannToo) continue;
    SCOPED_TRACE(parser == JsonParser::kSimdjson ? "simdjson" : "nlohmann");
    expectClearError(c, read(c.text, parser));
  }
}

void expectClearError(const BadCase& c, const GraphReadResult& r) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status.code(), c.code) << errorsText(r);
  std::string all = errorsText(r);
  EXPECT_NE(all.find(c.message), std::string::npos) << all;
  if (*c.pointer) {
    ASSERT_FALSE(r.errors.empty());
    EXPECT_EQ(r.errors[0].port, c.pointer) << all;
  }
  EXPECT_TRUE(r.graph.nodes().empty()) << "a failed read must not return a half-built graph";
}

const std::string kCall = R"({"name": "r", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x"}]})";

INSTANTIATE_TEST_SUITE_P(
    Cases, GraphReaderBad,
    ::testing::Values(
        BadCase{"Malformed", R"({"format": "qnnrules-graph", "version": 1, "nodes": [}, ])", StatusCode::kParseError,
                "g.json:1:", ""},
        BadCase{"Truncated", R"({"format": "qnnrules-graph", "version": 1, "nodes": [)", StatusCode::kParseError,
                "malformed JSON", ""},
        BadCase{"NotAnObject", "[1, 2]", StatusCode::kSchemaError, "the top level must be an object", "/"},
        BadCase{"WrongFormat", R"({"format": "onnx", "version": 1, "nodes": []})", StatusCode::kSchemaError,
                "not a qnnrules graph", "/format"},
        BadCase{"WrongVersion", R"({"format": "qnnrules-graph", "version": 2, "nodes": []})", StatusCode::kSchemaError,
                "unsupported graph format version", "/version"},
        BadCase{"MissingNodes", R"({"format": "qnnrules-graph", "version": 1})", StatusCode::kSchemaError,
                "missing required key 'nodes'", "/"},
        BadCase{"UnknownTopKey", R"({"format": "qnnrules-graph", "version": 1, "nodes": [], "nodez": []})",
                StatusCode::kSchemaError, "unknown key 'nodez'", "/nodez"},
        BadCase{"NameNotString", graph(R"({"name": 3, "kind": "input"})"), StatusCode::kSchemaError, "wrong type",
                "/nodes/0/name"},
        BadCase{"UnknownKind", graph(R"({"name": "x", "kind": "placeholder"})"), StatusCode::kSchemaError,
                "unknown node kind", "/nodes/0/kind"},
        BadCase{"CallWithoutTarget", graph(R"({"name": "x", "kind": "call"})"), StatusCode::kSchemaError,
                "missing required key 'target'", "/nodes/0"},
        BadCase{"UnknownNodeKey", graph(R"({"name": "x", "kind": "input", "outptus": []})"), StatusCode::kSchemaError,
                "unknown key 'outptus'", "/nodes/0/outptus"},
        BadCase{"DuplicateName", graph(std::string(kInput) + "," + kInput), StatusCode::kSchemaError,
                "duplicate node name 'x'", "/nodes/1/name"},
        BadCase{"UnknownRef", graph(R"({"name": "r", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "nope"}]})"),
                StatusCode::kSchemaError, "unknown node 'nope'", "/nodes/0/args/0/ref"},
        BadCase{"ForwardRef", graph(kCall + "," + kInput), StatusCode::kSchemaError, "comes after it",
                "/nodes/0/args/0/ref"},
        BadCase{"BadOutputIndex",
                graph(std::string(kInput) +
                      R"(, {"name": "r", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x", "output": 3}]})"),
                StatusCode::kSchemaError, "has no output 3", "/nodes/1/args/0/output"},
        BadCase{"UnknownDtype", graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float8"}]})"),
                StatusCode::kSchemaError, "unknown tensor dtype", "/nodes/0/outputs/0/dtype"},
        BadCase{"BadQScheme",
                graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"dtype": "uint8", "qscheme": "per_row"}}]})"),
                StatusCode::kSchemaError, "unknown qscheme", "/nodes/0/outputs/0/qspec/qscheme"},
        BadCase{"EmptyRange",
                graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"dtype": "uint8", "quant_min": 5, "quant_max": 5}}]})"),
                StatusCode::kSchemaError, "quant_max must be greater than quant_min", "/nodes/0/outputs/0/qspec/quant_max"},
        BadCase{"RangeBeyondDtype",
                graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 65535}}]})"),
                StatusCode::kSchemaError, "quant_max 65535 of node 'x' is not a value of its dtype uint8",
                "/nodes/0/outputs/0/qspec/quant_max"},
        BadCase{"NegativeScale",
                graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"dtype": "uint8", "scale": -1}}]})"),
                StatusCode::kSchemaError, "scales must be positive", "/nodes/0/outputs/0/qspec/scale"},
        BadCase{"UnknownQSpecKey",
                graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"dtype": "uint8", "zeropoint": 1}}]})"),
                StatusCode::kSchemaError, "unknown key 'zeropoint'", "/nodes/0/outputs/0/qspec/zeropoint"},
        BadCase{"SharedWithBoth",
                graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"shared_with": {"node": "x", "edge": ["x", "x"]}}}]})"),
                StatusCode::kSchemaError, "exactly one of 'node' and 'edge'", "/nodes/0/outputs/0/qspec/shared_with"},
        BadCase{"SharedUnknownNode",
                graph(R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"shared_with": {"node": "ghost"}}}]})"),
                StatusCode::kSchemaError, "unknown node 'ghost'", "/nodes/0/outputs/0/qspec/shared_with"},
        // An empty consumer is a name like any other, not a node-output reference in disguise.
        BadCase{"SharedEdgeEmptyConsumer",
                graph(std::string(kInput) + R"(, {"name": "y", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"shared_with": {"edge": ["x", ""]}}}]})"),
                StatusCode::kSchemaError, "shared_with edge names unknown node ''", "/nodes/1/outputs/0/qspec/shared_with"},
        BadCase{"SharedEdgeNotInGraph",
                graph(std::string(kInput) + R"(, {"name": "y", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"shared_with": {"edge": ["x", "y"]}}}]})"),
                StatusCode::kSchemaError, "is not an edge of the graph", ""},
        BadCase{"DuplicateKey", graph(R"({"name": "x", "kind": "input", "kind": "call"})"), StatusCode::kSchemaError,
                "duplicate key 'kind'", "/nodes/0/kind", /*nlohmannToo=*/false},
        BadCase{"TooDeep", R"({"format": "qnnrules-graph", "version": 1, "nodes": [], "meta": )" + std::string(100, '[') +
                               std::string(100, ']') + "}",
                StatusCode::kLimitExceeded, "nested deeper than 64 levels", ""}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return std::string(p.param.name); });

// Issue 24: a quant range the storage dtype cannot hold (uint8 0..65535) is refused, naming the
// file, the JSON pointer of the field, the node and the dtype's range; int32 0..65535 (how
// PyTorch spells uint16) fits its dtype and is read.
TEST(GraphReader, AQuantRangeBeyondItsDtypeIsRefused) {
  auto spec = [](const char* dtype, int lo, int hi) {
    return graph(fmt::format(R"({{"name": "conv_in", "kind": "input", "outputs": [{{"dtype": "float32", "qspec": )"
                             R"({{"dtype": "{}", "quant_min": {}, "quant_max": {}}}}}]}})",
                             dtype, lo, hi));
  };
  GraphReadResult r = read(spec("uint8", -1, 65535));
  ASSERT_EQ(r.errors.size(), 2u) << errorsText(r);
  EXPECT_EQ(formatText(r.errors[0]),
            "error[graph-schema]: quant_min -1 of node 'conv_in' is not a value of its dtype uint8\n"
            "  --> g.json at /nodes/0/outputs/0/qspec/quant_min\n"
            "  expected: uint8 values 0..255\n"
            "  actual:   -1\n");
  EXPECT_EQ(formatText(r.errors[1]),
            "error[graph-schema]: quant_max 65535 of node 'conv_in' is not a value of its dtype uint8\n"
            "  --> g.json at /nodes/0/outputs/0/qspec/quant_max\n"
            "  expected: uint8 values 0..255\n"
            "  actual:   65535\n");
  EXPECT_TRUE(read(spec("int32", 0, 65535)).ok());
  EXPECT_TRUE(read(spec("int8", -8, 7)).ok());
  EXPECT_FALSE(read(spec("int8", -128, 128)).ok());
}

TEST(GraphReader, EverySchemaErrorOfTheFileIsReported) {
  GraphReadResult r = read(graph(R"(
    {"name": "x", "kind": "input", "outputs": [{"dtype": "float99"}]},
    {"name": "y", "kind": "nope"},
    {"name": "z", "kind": "input", "bogus": 1})"));
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 3u) << errorsText(r);
  EXPECT_EQ(r.errors[0].port, "/nodes/0/outputs/0/dtype");
  EXPECT_EQ(r.errors[1].port, "/nodes/1/kind");
  EXPECT_EQ(r.errors[2].port, "/nodes/2/bogus");
  EXPECT_NE(r.status.message().find("3 schema error(s)"), std::string::npos);
}

TEST(GraphReader, FileLimitsAndMissingFiles) {
  testing::TempDir d;
  auto big = d.write("big.json", graph(kInput));
  GraphReadLimits small;
  small.maxFileBytes = 16;
  GraphReadResult r = readGraphFile(big, small);
  EXPECT_EQ(r.status.code(), StatusCode::kLimitExceeded);
  EXPECT_NE(r.status.message().find("above the limit of 16"), std::string::npos);

  EXPECT_EQ(readGraphFile(d.path() / "missing.json").status.code(), StatusCode::kNotFound);
  EXPECT_EQ(readGraphFile(d.path()).status.code(), StatusCode::kIoError);
  EXPECT_EQ(readGraphFile(d.write("empty.json", "")).status.code(), StatusCode::kParseError);
  GraphReadResult ok = readGraphFile(big);
  EXPECT_TRUE(ok.ok()) << errorsText(ok);
}

TEST(GraphReader, ParseErrorsNameLineAndColumn) {
  GraphReadResult r = read("{\n  \"format\": \"qnnrules-graph\",\n  \"version\": 1,\n  \"nodes\": [,]\n}");
  ASSERT_EQ(r.status.code(), StatusCode::kParseError);
  EXPECT_NE(r.status.message().find("g.json:4:"), std::string::npos) << r.status.message();
}

// Numbers beyond double are malformed JSON with a position, from either parser, never an
// exception out of the library (nlohmann raises them as out_of_range, not parse_error).
TEST(GraphReader, NumbersBeyondDoubleAreParseErrorsWithAPosition) {
  struct Case {
    std::string text;
    const char* where;
  };
  for (const Case& c : {Case{"1e881", "g.json:1:1: malformed JSON: number overflow parsing '1e881'"},
                        Case{graph(R"({"name": "x", "kind": "input",
  "outputs": [{"dtype": "float32", "shape": [1e400]}]})"),
                             "g.json:2:46: malformed JSON: number overflow parsing '1e400'"},
                        Case{"-1e400", "g.json:1:1: malformed JSON: number overflow parsing '-1e400'"}}) {
    for (JsonParser parser : {JsonParser::kSimdjson, JsonParser::kNlohmann}) {
      SCOPED_TRACE(c.text + (parser == JsonParser::kSimdjson ? " simdjson" : " nlohmann"));
      GraphReadResult r;
      ASSERT_NO_THROW(r = read(c.text, parser));
      EXPECT_EQ(r.status.code(), StatusCode::kParseError);
      EXPECT_EQ(r.status.message(), c.where);
    }
  }
}

// Duplicate keys are found however wide the object: a kwargs object with 40k keys and two
// duplicates names both, and the check past the first keys is a hash lookup, not a scan.
TEST(GraphReader, DuplicateKeysInAWideObjectAreAllReported) {
  std::string kwargs;
  for (int i = 0; i < 40000; ++i) kwargs += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  kwargs += R"("k7": 0, "k39999": 1)";
  GraphReadResult r = read(graph(std::string(kInput) +
                                 R"(, {"name": "r", "kind": "call", "target": "aten.relu.default",
                                 "args": [{"ref": "x"}], "kwargs": {)" + kwargs + "}}"));
  ASSERT_EQ(r.status.code(), StatusCode::kSchemaError);
  ASSERT_EQ(r.errors.size(), 2u) << errorsText(r);
  EXPECT_EQ(r.errors[0].message, "duplicate key 'k7'");
  EXPECT_EQ(r.errors[0].port, "/nodes/1/kwargs/k7");
  EXPECT_EQ(r.errors[1].message, "duplicate key 'k39999'");
  EXPECT_EQ(r.errors[1].port, "/nodes/1/kwargs/k39999");
}

}  // namespace
}  // namespace qnnrules
