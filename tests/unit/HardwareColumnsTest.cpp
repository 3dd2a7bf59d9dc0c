// Hardware is data (rules/socs.yaml `hardware:`, a manifest's `hardware:`): a new HTP version
// with a SoC that has it, and a new backend on a hardware column of its own, work from YAML
// in an overlay directory alone, through the CLI, with no engine code naming either.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "TestUtil.h"

namespace qnnrules {
namespace {

using testing::CommandResult;
using testing::shellQuote;
using testing::TempDir;

// x -> relu -> output, every port uint8 per-tensor.
constexpr const char* kReluGraph = R"({"format": "qnnrules-graph", "version": 1, "name": "g", "nodes": [
  {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": {"dtype": "uint8",
    "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine", "scale": 0.02, "zero_point": 0}}]},
  {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x", "qspec": {"dtype": "uint8",
    "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine", "scale": 0.02, "zero_point": 0}}],
   "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255,
    "qscheme": "per_tensor_affine", "scale": 0.02, "zero_point": 0}}]},
  {"name": "output", "kind": "output", "args": [[{"ref": "relu"}]]}]})";

// One 8-bit ReLU rule whose only variant is gated on `version` (a rule id of `backend`).
std::string gatedRelu(const std::string& backend, const std::string& version) {
  return "version: 1\nrules:\n  - id: " + backend + ".relu\n    targets: [aten.relu.default]\n    qnn_op: Relu\n"
         "    pattern: siso\n    description: ReLU.\n    inputs: [{name: input}]\n    outputs: [{name: output}]\n"
         "    variants:\n      - name: a8\n        min_arch: " + version + "\n        hint: use a newer SoC\n"
         "        ports:\n          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n"
         "          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n";
}

class HardwareColumns : public ::testing::Test {
 protected:
  void SetUp() override { dir_.write("graph.json", kReluGraph); }
  // qnn-validate on graph.json with the built-in rules and the overlay `rules/`.
  std::string command(const std::string& args) const {
    return "cd " + shellQuote(dir_.path().string()) + " && env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) +
           " graph.json --rules rules " + args;
  }
  CommandResult validate(const std::string& args) { return testing::run(command(args) + " 2>&1"); }
  nlohmann::json json(const std::string& args) {
    return nlohmann::json::parse(testing::run(command("--format json " + args) + " 2>/dev/null").output, nullptr,
                                 false);
  }
  TempDir dir_;
};

// A new HTP version is one more entry of the htp column, and a SoC that has it; an overlay's
// rule can gate on it, and every gate of the built-in rules still compares by order.
TEST_F(HardwareColumns, ANewHtpVersionAndSocFromYamlAlone) {
  dir_.write("rules/socs.yaml",
             "version: 1\n"
             "hardware:\n  htp: [V68, V69, V73, V75, V79, V81, V85]\n"
             "socs:\n  - {name: TOY85, id: 9085, htp: V85, vtcm_mb: 8}\n");
  CommandResult ok = validate("--soc TOY85");
  EXPECT_EQ(ok.exitCode, 0) << ok.output;
  EXPECT_NE(ok.output.find("checked against htp rules for TOY85 (HTP V85)"), std::string::npos) << ok.output;
  EXPECT_EQ(json("--soc TOY85")["soc_hardware"], nlohmann::json({{"htp", "V85"}}));

  // A rule gated on the new version: newer than every built-in SoC.
  dir_.write("rules/htp/relu.yaml", gatedRelu("htp", "V85"));
  EXPECT_EQ(validate("--soc TOY85").exitCode, 0);
  CommandResult gated = validate("--soc SM8850");
  EXPECT_EQ(gated.exitCode, 1) << gated.output;
  EXPECT_NE(gated.output.find("error[arch-gate]"), std::string::npos) << gated.output;
  EXPECT_NE(gated.output.find("expected: HTP V85 or newer"), std::string::npos) << gated.output;
  EXPECT_NE(gated.output.find("actual:   SM8850 is V81"), std::string::npos) << gated.output;

  CommandResult socs = testing::run("env QNNRULES_PATH= " + shellQuote(QNNRULES_VALIDATE_EXE) + " --rules " +
                                    shellQuote((dir_.path() / "rules").string()) + " --list-socs");
  EXPECT_NE(socs.output.find("TOY85  HTP V85  VTCM 8 MB"), std::string::npos) << socs.output;
}

// An overlay may add versions to a column but not drop or reorder the ones SoCs and rules name.
TEST_F(HardwareColumns, AColumnDeclaredAgainKeepsItsVersionsInOrder) {
  dir_.write("rules/socs.yaml", "version: 1\nhardware:\n  htp: [V68, V73, V69]\nsocs: []\n");
  CommandResult r = validate("--soc SM8650");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("column 'htp' of 'hardware' drops or reorders version 'V73'"), std::string::npos)
      << r.output;
}

// A backend on a hardware column of its own: the column, its versions and the SoCs that have
// it are socs.yaml lines; the manifest names the column; the rules gate on its versions.
TEST_F(HardwareColumns, AToyBackendOnItsOwnColumnFromYamlAlone) {
  dir_.write("rules/socs.yaml",
             "version: 1\n"
             "hardware:\n  npu: [N1, N2]\n"
             "socs:\n  - {name: TOYA, id: 9001, vtcm_mb: 0, npu: N1}\n"
             "  - {name: TOYB, id: 9002, vtcm_mb: 0, npu: N2}\n"
             "  - {name: SM8850, id: 87, htp: V81, lpai: V6, npu: N2, vtcm_mb: 8}\n");
  dir_.write("rules/npu/backend.yaml", "version: 1\nbackend: npu\ndescription: A toy NPU.\nhardware: npu\n");
  dir_.write("rules/npu/relu.yaml", gatedRelu("npu", "N2"));

  CommandResult ok = validate("--backend npu --soc TOYB");
  EXPECT_EQ(ok.exitCode, 0) << ok.output;
  EXPECT_NE(ok.output.find("checked against npu rules for TOYB (NPU N2)"), std::string::npos) << ok.output;

  CommandResult gated = validate("--backend npu --soc TOYA");
  EXPECT_EQ(gated.exitCode, 1) << gated.output;
  EXPECT_NE(gated.output.find("error[arch-gate]: node 'relu'"), std::string::npos) << gated.output;
  EXPECT_NE(gated.output.find("expected: NPU N2 or newer"), std::string::npos) << gated.output;
  EXPECT_NE(gated.output.find("actual:   TOYA is N1"), std::string::npos) << gated.output;
  EXPECT_NE(gated.output.find("hint:     use a newer SoC"), std::string::npos) << gated.output;

  CommandResult none = validate("--backend npu --soc SM8650");
  EXPECT_EQ(none.exitCode, 2) << none.output;
  EXPECT_NE(none.output.find("SoC SM8650 has no NPU; the npu backend needs one of: SM8850, TOYA, TOYB"),
            std::string::npos) << none.output;

  // The JSON report carries every column the SoC has, whichever the backend runs on.
  const nlohmann::json j = json("--backend npu --soc SM8850");
  EXPECT_EQ(j["soc_hardware"], nlohmann::json({{"htp", "V81"}, {"lpai", "V6"}, {"npu", "N2"}}));
  EXPECT_EQ(j["hardware"], "NPU N2");
  EXPECT_EQ(json("--backend htp --soc SM8850")["hardware"], "HTP V81");
}

// A manifest names a column the table declares, or the backend does not load.
TEST_F(HardwareColumns, AManifestNamesADeclaredColumn) {
  dir_.write("rules/npu/backend.yaml", "version: 1\nbackend: npu\ndescription: A toy NPU.\nhardware: nppu\n");
  dir_.write("rules/npu/relu.yaml", gatedRelu("npu", "N2"));
  CommandResult r = validate("--backend npu --soc SM8650");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("names hardware column 'nppu', which socs.yaml does not declare"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace qnnrules
