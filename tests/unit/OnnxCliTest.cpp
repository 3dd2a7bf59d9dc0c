// qnn-validate model.onnx end to end (the complete reports are in the golden-output set,
// tests/golden/reports.txt): the equivalent JSON graph (same nodes, ATen targets,
// quantized_decomposed Q/DQ) gives exactly the same diagnostics; bad models exit 2 with one
// clear message; an overlay that claims an ONNX op twice is a rule error; the committed models
// are what make_models.py writes.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "TestUtil.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::shellQuote;

const std::string kSource = QNNRULES_SOURCE_DIR;
const std::string kRel = "tests/data/onnx/";

// From the source root, so paths print as tests/data/onnx/... and rules/htp/...
CommandResult qnnValidate(const std::string& args) {
  return testing::run("cd " + shellQuote(kSource) + " && env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) +
                      " " + args);
}

using testing::readFile;

struct GoldenCase {
  const char* model;  // tests/data/onnx/<model>.onnx and .json
  const char* soc;
  int exitCode;
};
inline void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.model << "_" << c.soc; }

class OnnxGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(OnnxGolden, TheEquivalentJsonGraphGivesTheSameOutput) {
  const GoldenCase& c = GetParam();
  // Both judged for ONNX Runtime's QNN EP (the ONNX model's default path, named for the JSON).
  CommandResult onnx = qnnValidate(kRel + c.model + ".onnx --backend htp --lowering ort-qnn --soc " + c.soc);
  EXPECT_EQ(onnx.exitCode, c.exitCode) << onnx.output;
  // The JSON graph differs only in the file name of the summary line, and in the hints: an
  // ONNX model is told ONNX Runtime's remedies, a graph of ATen ops pt2e's (the goldens of
  // tests/golden hold both).
  CommandResult json = qnnValidate(kRel + c.model + ".json --backend htp --lowering ort-qnn --soc " + c.soc);
  EXPECT_EQ(json.exitCode, c.exitCode) << json.output;
  std::string fromJson = json.output;
  const std::string jsonName = kRel + c.model + ".json:";
  if (size_t at = fromJson.find(jsonName); at != std::string::npos)
    fromJson.replace(at, jsonName.size(), kRel + c.model + ".onnx:");
  auto withoutHints = [](const std::string& text) {
    std::string out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      if (!line.starts_with("  hint:")) out += line + "\n";
    return out;
  };
  EXPECT_EQ(withoutHints(fromJson), withoutHints(onnx.output));
}

INSTANTIATE_TEST_SUITE_P(
    Models, OnnxGolden,
    ::testing::Values(GoldenCase{"conv_8a8w", "SM8650", 0}, GoldenCase{"linear_16a8w", "SM8650", 0},
                      GoldenCase{"matmul_16a16w", "SM8650", 0}, GoldenCase{"matmul_16a16w", "SM8350", 1},
                      GoldenCase{"conv_16a4w", "SM8650", 0}, GoldenCase{"linear_16a4w_block", "SM8650", 0},
                      GoldenCase{"linear_16a4w_block", "SM8350", 1}, GoldenCase{"add_8a", "SM8650", 0},
                      GoldenCase{"sigmoid_wrong_scale", "SM8650", 0}, GoldenCase{"sigmoid_right_scale", "SM8650", 0},
                      GoldenCase{"no_rule", "SM8650", 1}, GoldenCase{"conv_16a16w", "SM8350", 1},
                      GoldenCase{"conv_16a16w", "SM8650", 0},
                      // Q/DQ parameters behind constant chains (torch.onnx's exporter): folded.
                      GoldenCase{"qdq_constant_chain", "SM8650", 0}),
    [](const ::testing::TestParamInfo<GoldenCase>& p) { return std::string(p.param.model) + "_" + p.param.soc; });

struct BadModelCase {
  const char* file;
  const char* message;  // the whole output
};
inline void PrintTo(const BadModelCase& c, std::ostream* os) { *os << c.file; }

class OnnxCliBadModel : public ::testing::TestWithParam<BadModelCase> {};

TEST_P(OnnxCliBadModel, ExitsTwoWithOneClearMessage) {
  const BadModelCase& c = GetParam();
  CommandResult r = qnnValidate(kRel + c.file + " --backend htp --soc SM8650");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_EQ(r.output, std::string("qnn-validate: error: ") + kRel + c.file + ": " + c.message + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Models, OnnxCliBadModel,
    ::testing::Values(
        BadModelCase{"truncated.onnx",
                     "not a JSON graph, and not a readable ONNX model (the protobuf does not parse: the file is "
                     "truncated or corrupt, or not a model at all)"},
        BadModelCase{"corrupt.onnx",
                     "not a JSON graph, and not a readable ONNX model (the protobuf does not parse: the file is "
                     "truncated or corrupt, or not a model at all)"},
        BadModelCase{"unknown_ref.onnx",
                     "node 'w_dq' (DequantizeLinear) input 0 'nowhere' is unknown: no node, graph input or "
                     "initializer produces it"},
        BadModelCase{"cycle.onnx", "the graph has a cycle: node 'x_q' (QuantizeLinear) depends on its own output"},
        BadModelCase{"missing_initializer.onnx",
                     "node 'w_dq' (DequantizeLinear) input 1 'w_scale' is a missing initializer: no initializer, "
                     "Constant node or graph input has that name"},
        BadModelCase{"scale_from_input.onnx",
                     "node 'w_dq' (DequantizeLinear) scale 'w_scale' is a missing initializer: the scale must be an "
                     "initializer, a Constant node's output or a constant folded through Identity, Cast, "
                     "ConstantOfShape, Reshape, Unsqueeze or Squeeze"}),
    [](const ::testing::TestParamInfo<BadModelCase>& p) {
      std::string n = p.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(OnnxCli, AnOverlayClaimingAnOnnxOpTwiceIsARuleError) {
  testing::TempDir d;
  d.write("htp/extra.yaml",
          "version: 1\n"
          "rules:\n"
          "  - id: htp.my_sigmoid\n"
          "    targets: [aten.my_sigmoid.default]\n"
          "    onnx: [Sigmoid]\n"
          "    qnn_op: Sigmoid\n"
          "    pattern: siso\n"
          "    description: Another sigmoid.\n"
          "    inputs: [{name: input}]\n"
          "    outputs: [{name: output}]\n"
          "    variants: [{name: f, ports: {input: {dtype: FLOAT_32}, output: {dtype: FLOAT_32}}}]\n");
  CommandResult r = qnnValidate(kRel + "sigmoid_right_scale.onnx --soc SM8650 --rules " + shellQuote(d.path().string()));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("ONNX 'Sigmoid' is claimed by rule 'htp.my_sigmoid' and by rule 'htp.sigmoid'"),
            std::string::npos)
      << r.output;
}

// The committed models are what the generator writes (bytes), so a hand edit or a generator
// change that was not regenerated fails here. Needs the project's venv (the onnx package).
TEST(OnnxCli, ModelsAreFreshFromTheirGenerator) {
  const fs::path python = fs::path(kSource) / ".venv/bin/python";
  if (!fs::exists(python)) GTEST_SKIP() << "no .venv: run scripts/setup.sh";
  testing::TempDir tmp;
  CommandResult r = testing::run(shellQuote(python.string()) + " " +
                                 shellQuote(kSource + "/" + kRel + "make_models.py") + " " +
                                 shellQuote(tmp.path().string()));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::set<std::string> generated, committed;
  for (const auto& f : fs::directory_iterator(tmp.path())) generated.insert(f.path().filename().string());
  for (const auto& f : fs::directory_iterator(kSource + "/" + kRel))
    if (f.is_regular_file() && f.path().extension() != ".py" && f.path().extension() != ".sh")  // the scripts
      committed.insert(f.path().filename().string());
  EXPECT_EQ(generated, committed) << "regenerate with: .venv/bin/python tests/data/onnx/make_models.py";
  for (const std::string& name : generated)
    EXPECT_EQ(readFile(tmp.path() / name), readFile(fs::path(kSource) / kRel / name))
        << kRel << name << " is stale; regenerate with: .venv/bin/python tests/data/onnx/make_models.py";
}

}  // namespace
}  // namespace qnnrules
