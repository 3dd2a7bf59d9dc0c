// A backend is one folder: a manifest and rules in a directory of its own, passed with --rules,
// validate a graph through the CLI with no engine code naming it. The manifest's SoC
// requirement and delegation policy are data too.
#include <gtest/gtest.h>

#include "TestUtil.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::shellQuote;
using testing::TempDir;

constexpr const char* kManifest = R"(version: 1
backend: toy
description: A toy backend that runs 8-bit ReLU on SoCs with an LPAI.
hardware: lpai
delegation:
  require_full_delegation: true
)";

constexpr const char* kRule = R"(version: 1
rules:
  - id: toy.relu
    targets: [aten.relu.default]
    qnn_op: Relu
    pattern: siso
    description: ReLU lowers to the toy Relu.
    inputs: [{name: input}]
    outputs: [{name: output}]
    variants:
      - name: a8
        ports:
          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
)";

// x -> relu -> output, every port annotated with `dtype` (uint8 or uint16).
std::string graph(const std::string& dtype) {
  const std::string qmax = dtype == "uint8" ? "255" : "65535";
  const std::string q = R"({"dtype": ")" + dtype + R"(", "quant_min": 0, "quant_max": )" + qmax +
                        R"(, "qscheme": "per_tensor_affine", "scale": 0.02, "zero_point": 0})";
  return R"({"format": "qnnrules-graph", "version": 1, "name": "toy", "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": )" + q + R"(}]},
  {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x", "qspec": )" + q +
         R"(}], "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": )" + q + R"(}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "relu"}]]}]})";
}

class ToyBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("rules/toy/backend.yaml", kManifest);
    dir_.write("rules/toy/ops/relu.yaml", kRule);
  }
  CommandResult validate(const std::string& dtype, const std::string& soc) {
    const std::string file = dir_.write("graph_" + dtype + ".json", graph(dtype)).string();
    return testing::run("cd " + shellQuote(dir_.path().string()) + " && env QNNRULES_PATH= " +
                        shellQuote(QNNRULES_VALIDATE_EXE) + " " + shellQuote(file) + " --backend toy --soc " + soc +
                        " --rules rules");
  }
  TempDir dir_;
};

TEST_F(ToyBackend, ValidatesAGraphThroughTheCli) {
  CommandResult r = validate("uint8", "SM8850");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("0 error(s), 0 warning(s) - valid"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("full delegation: required, satisfied"), std::string::npos) << r.output;
}

TEST_F(ToyBackend, ReportsItsOwnRuleForAViolation) {
  CommandResult r = validate("uint16", "SM8850");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("toy.relu"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rules/toy/ops/relu.yaml"), std::string::npos) << r.output;
}

TEST_F(ToyBackend, ItsManifestSaysWhichSocsRunIt) {
  CommandResult r = validate("uint8", "SM8650");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("SoC SM8650 has no LPAI; the toy backend needs one of: "), std::string::npos) << r.output;
}

TEST_F(ToyBackend, LintChecksItsManifestAndRules) {
  dir_.write("rules/toy/backend.yaml", std::string(kManifest) + "colour: red\n");
  CommandResult r = testing::run("cd " + shellQuote(dir_.path().string()) + " && env QNNRULES_PATH= " +
                                 shellQuote(QNNRULES_RULES_EXE) + " lint --rules rules");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("rules/toy/backend.yaml:7:1"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qnnrules
