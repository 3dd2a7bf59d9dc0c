// A lowering path's own refusals (LoweringPath::cpuForms, passes/CpuForms.h): forms of ONNX ops
// ORT's QNN EP keeps on CPU before QNN is asked, each on the differential tester's reproducer that
// showed it (tests/conformance/differential/), the named Einsum test on the EP's four MatMul forms,
// and the YAML key's errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/CpuFormTests.h"
#include "qnnrules/Engine.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/model/Lowering.h"

namespace qnnrules {
namespace {

const std::string kDifferential = std::string(QNNRULES_SOURCE_DIR) + "/tests/conformance/differential/onnx/";

RunReport runDifferential(const std::string& file, const std::string& soc) {
  EngineOptions o;
  o.soc = soc;
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  Engine e(o);
  EXPECT_TRUE(e.ok()) << e.status().message();
  RunOptions ro;
  ro.graphPath = kDifferential + file;
  return e.run(ro);
}

struct FormCase {
  const char* file;
  const char* node;
  const char* sourceOp;
  const char* actual;
  const char* messageStart;
};

class CpuFormReproducers : public ::testing::TestWithParam<FormCase> {};

// Each node the oracle saw refused by the EP's own check runs on CPU for that reason, with the
// EP's sentence and the attribute values that met the form; the session does not fail.
TEST_P(CpuFormReproducers, TheNodeRunsOnCpuForTheEpsCheck) {
  const FormCase& c = GetParam();
  RunReport r = runDifferential(c.file, "SM8650");
  ASSERT_TRUE(r.ok());
  const Diagnostic* found = nullptr;
  for (const Diagnostic& d : r.validation.diagnostics)
    if (d.code == DiagCode::kLoweringCheck && d.node == c.node) found = &d;
  ASSERT_NE(found, nullptr) << c.node;
  EXPECT_EQ(found->sourceOp, c.sourceOp);
  EXPECT_EQ(found->actual, c.actual);
  EXPECT_EQ(found->message.rfind(c.messageStart, 0), 0u) << found->message;
  EXPECT_NE(found->mark.toString().find("rules/lowering/ort-qnn.yaml:"), std::string::npos);
  bool onCpu = false;
  for (const Fallback& f : r.delegation.fallbacks)
    if (r.graph->node(f.node).name == c.node) onCpu = f.reason == FallbackReason::kLoweringCheck;
  EXPECT_TRUE(onCpu);
  EXPECT_FALSE(r.delegation.sessionFailure);
}

INSTANTIATE_TEST_SUITE_P(
    Differential, CpuFormReproducers,
    ::testing::Values(
        FormCase{"s1g8-4.16a8w.onnx", "/s1/LayerNormalization.5", "onnx::LayerNormalization", "axis = 0 of rank 2",
                 "QNN LayerNorm on HTP only supports normalization along the last axis."},
        FormCase{"s1g269-71.8a8w_pc.onnx", "/s10/Gemm.25", "onnx::Gemm", "alpha = 0.5",
                 "QNN FullyConnected Op only support alpha=1.0."},
        FormCase{"s1g6-2.16a8w.onnx", "/s8/Einsum.19", "onnx::Einsum", "equation = bnd,dc->bnc",
                 "Einsum unsupported equation"},
        FormCase{"s1g18-10.16a8w.onnx", "/s15/Resize.30", "onnx::Resize",
                 "input 0 of rank 3, mode = nearest, nearest_mode = round_prefer_floor",
                 "QNN EP: Resize on the NPU does not support this nearest_mode."},
        FormCase{"s1g44-24.16a8w.onnx", "/s2/Resize.5", "onnx::Resize",
                 "input 0 of rank 3, mode = nearest, nearest_mode = round_prefer_ceil, coordinate_transformation_mode = "
                 "asymmetric",
                 "QNN EP: Resize on the NPU only supports 'round_prefer_ceil'"},
        FormCase{"s1g256-66.16a16w.onnx", "/s19/Resize.40", "onnx::Resize",
                 "input 0 of rank 4, mode = nearest, nearest_mode = round_prefer_floor, coordinate_transformation_mode = "
                 "asymmetric",
                 "QNN EP: ResizeNearestNeighbor on the NPU"}));

struct EquationCase {
  const char* equation;
  bool matMul;
};

// einsum_op_builder.cc's forms: MatMul, input 1 transposed, rank-4 all transposed, and the
// rank-4 x rank-3 broadcast, in letters of either case (MaxViT's upper-case equations run on QNN);
// anything else (batch letters that differ, one or three terms, no arrow) stays on CPU.
TEST(CpuFormTests, EinsumMatMulIsTheEpsFourForms) {
  const std::vector<EquationCase> cases = {
      {"ij,jk->ik", true},           {"bij,bjk->bik", true},        {"bhqd,bhkd->bhqk", true},
      {"b h i j, b h j k -> b h i k", true},                       {"bchq,bkhc->bkhq", true},
      {"bhwc,hkc->bhwk", true},      {"bid,bjd->bij", true},        {"bnd,dc->bnc", false},
      {"B G H I D, B G H J D -> B G H I J", true},                  {"B G H I J, B G H J D -> B G H I D", true},
      {"bhwc,cd->bhwd", false},      {"ij->ji", false},             {"i,i->", false},
      {"Bij,bjk->bik", false},       {"ab,bc,cd->ad", false},       {"bij,bjk->bki", false},
      {"", false},                   {"ij,jk", false},
  };
  for (const EquationCase& c : cases) EXPECT_EQ(passesCpuFormTest("einsum_matmul", c.equation), c.matMul) << c.equation;
  EXPECT_FALSE(passesCpuFormTest("no_such_test", "ij,jk->ik"));
}

TEST(CpuFormsKey, FormsAreReadAndMistakesAreErrorsWithTheirPlace) {
  const std::string head = "version: 1\nlowering: t\ndescription: d\ncpu_forms:\n";
  DiagnosticList errors;
  std::optional<LoweringPath> p = loadLoweringText(
      head +
          "  - {id: ln, op: LayerNormalization, when: {axis: {default: -1, last_axis: false}}, message: m, expected: e}\n"
          "  - {id: rs, op: Resize, when: {rank: [3, 5], nearest_mode: {default: x, in: [a, b]}, alpha: {not_in: [1.0]}},"
          " message: m, expected: e, hint: h}\n"
          "  - {id: q, op: 'com.microsoft::QuickGelu', when: {alpha: {in: [2]}}, message: m, expected: e}\n",
      "t.yaml", errors);
  ASSERT_TRUE(p) << (errors.empty() ? "" : formatText(errors[0]));
  ASSERT_EQ(p->cpuForms.size(), 3u);
  EXPECT_EQ(p->cpuForms[0].op, "onnx::LayerNormalization");
  EXPECT_EQ(p->cpuForms[0].when[0].fallbackNumber, -1.0);
  EXPECT_EQ(p->cpuForms[0].when[0].lastAxis, false);
  EXPECT_EQ(p->cpuForms[0].mark.toString(), "t.yaml:5:5");
  EXPECT_EQ(p->cpuForms[1].ranks, (std::vector<int>{3, 5}));
  EXPECT_EQ(p->cpuForms[1].when[0].inStrings, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p->cpuForms[1].when[1].notInNumbers, std::vector<double>{1.0});
  EXPECT_EQ(p->cpuForms[1].hint, "h");
  EXPECT_EQ(p->cpuForms[2].op, "com.microsoft::QuickGelu");
  EXPECT_FALSE(p->cpuForms[0].quantized);
  EXPECT_FALSE(p->cpuForms[0].failsLowering);

  // ATen forms: by target, with the tests that are not attributes, and the outcome.
  std::optional<LoweringPath> aten = loadLoweringText(
      head +
          "  - {id: s, op: aten.silu.default, when: {quantized: true}, message: m, expected: e}\n"
          "  - {id: p, op: aten.max_pool2d.default, when: {arguments_below: 3}, outcome: lowering_fails, message: m,"
          " expected: e}\n",
      "t.yaml", errors);
  ASSERT_TRUE(aten) << (errors.empty() ? "" : formatText(errors[0]));
  ASSERT_EQ(aten->cpuForms.size(), 2u);
  EXPECT_EQ(aten->cpuForms[0].op, "aten.silu.default");
  EXPECT_EQ(aten->cpuForms[0].quantized, true);
  EXPECT_FALSE(aten->cpuForms[0].failsLowering);
  EXPECT_EQ(aten->cpuForms[1].argumentsBelow, 3);
  EXPECT_TRUE(aten->cpuForms[1].failsLowering);

  struct Bad {
    std::string form;
    std::string message;
    std::string where;
  };
  const std::vector<Bad> bad = {
      {"  - {id: a, op: LayerNormalisation, when: {axis: {in: [1]}}, message: m, expected: e}\n",
       "unknown ONNX op type 'LayerNormalisation' in a cpu form of 'cpu_forms'", "t.yaml:5:17"},
      {"  - {id: a, op: Einsum, when: {equation: {not_form: einsum_matmull}}, message: m, expected: e}\n",
       "unknown form test 'einsum_matmull' in 'equation' of 'when' of a cpu form of 'cpu_forms'", "t.yaml:5:53"},
      {"  - {id: a, op: Gemm, when: {alpha: {not_inn: [1]}}, message: m, expected: e}\n", "unknown key 'not_inn' in 'alpha' of 'when' of a cpu form of 'cpu_forms'", "t.yaml:5:38"},
      {"  - {id: a, op: Gemm, when: {alpha: {default: 1}}, message: m, expected: e}\n",
       "'alpha' of 'when' of a cpu form of 'cpu_forms' tests nothing", "t.yaml:5:37"},
      {"  - {id: a, op: Gemm, when: {alpha: {in: [1]}}, message: m}\n", "", "t.yaml:5:5"},
      {"  - {id: a, op: aten.silu, when: {quantized: true}, message: m, expected: e}\n",
       "'aten.silu' in a cpu form of 'cpu_forms' is not an ATen target", "t.yaml:5:17"},
      {"  - {id: a, op: aten.silu.default, when: {quantized: maybe}, message: m, expected: e}\n", "", "t.yaml:5:54"},
      {"  - {id: a, op: aten.max_pool2d.default, when: {arguments_below: 0}, message: m, expected: e}\n", "",
       "t.yaml:5:66"},
      {"  - {id: a, op: aten.max_pool2d.default, when: {arguments_below: 3}, outcome: crash, message: m, expected: e}\n",
       "'outcome' of a cpu form of 'cpu_forms' must be cpu or lowering_fails", "t.yaml:5:79"},
  };
  for (const Bad& b : bad) {
    DiagnosticList errs;
    EXPECT_FALSE(loadLoweringText(head + b.form, "t.yaml", errs)) << b.form;
    ASSERT_FALSE(errs.empty()) << b.form;
    if (!b.message.empty()) {
      EXPECT_EQ(errs[0].message, b.message);
    }
    EXPECT_EQ(errs[0].mark.toString(), b.where) << formatText(errs[0]);
  }
}

}  // namespace
}  // namespace qnnrules
