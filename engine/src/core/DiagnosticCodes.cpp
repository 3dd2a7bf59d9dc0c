#include "qnnrules/core/DiagnosticCodes.h"

#include <array>
#include <string>

namespace qnnrules {

namespace {

constexpr std::string_view kValidation = "graph validation";
constexpr std::string_view kNumeric = "quantization parameters";
constexpr std::string_view kRuleFiles = "rule files, configs, recipes and backend options";
constexpr std::string_view kGraphFiles = "graph files";
constexpr std::string_view kAnnotation = "annotation";

constexpr std::array kTable{
    DiagCodeInfo{DiagCode::kNoRule, kValidation, "No rule covers the node's op: it would fall back to CPU."},
    DiagCodeInfo{DiagCode::kUnsupportedOp, kValidation, "A rule declares the op unsupported on this backend."},
    DiagCodeInfo{DiagCode::kNoMatchingVariant, kValidation,
                 "The datatypes of the node's ports match no variant of its rule."},
    DiagCodeInfo{DiagCode::kArchGate, kValidation,
                 "The matching variant needs a newer version of the backend's hardware (an HTP architecture) "
                 "than the SoC has."},
    DiagCodeInfo{DiagCode::kEncoding, kValidation, "The port's encoding (per-tensor, per-channel, block) is not allowed."},
    DiagCodeInfo{DiagCode::kBitwidth, kValidation, "The port's bit width is not allowed."},
    DiagCodeInfo{DiagCode::kSymmetric, kValidation, "The port must be symmetrically quantized (zero point 0)."},
    DiagCodeInfo{DiagCode::kAxis, kValidation, "The per-channel axis differs from the one the rule requires."},
    DiagCodeInfo{DiagCode::kFixedScale, kValidation, "The scale differs from the fixed scale the op requires."},
    DiagCodeInfo{DiagCode::kFixedOffset, kValidation, "The offset differs from the fixed offset the op requires."},
    DiagCodeInfo{DiagCode::kShared, kValidation,
                 "The port must share another port's encoding (a math-invariant op) and does not."},
    DiagCodeInfo{DiagCode::kSharedCycle, kValidation, "Shared-encoding references form a cycle."},
    DiagCodeInfo{DiagCode::kSharedUnresolved, kValidation, "A shared-encoding reference leads nowhere."},
    DiagCodeInfo{DiagCode::kMissingPort, kValidation, "A required port has no tensor argument."},
    DiagCodeInfo{DiagCode::kUnverifiable, kValidation,
                 "A constraint could not be evaluated (e.g. no calibrated scale yet): a warning, not a pass."},
    DiagCodeInfo{DiagCode::kCpuFallback, kValidation,
                 "The node runs on CPU for a reason that is no validation error (backend policy, or it follows "
                 "a CPU node); the delegation report's fallbacks list it."},
    DiagCodeInfo{DiagCode::kRank, kValidation,
                 "A tensor of the node has a higher rank than the backend's op takes (the rule's max_rank)."},
    DiagCodeInfo{DiagCode::kDynamicShape, kValidation,
                 "A tensor of the node has a shape known only at run time, and the lowering path hands the "
                 "backend static shapes only (the lowering's dynamic_shapes): the node runs on CPU."},
    DiagCodeInfo{DiagCode::kEmptyTensor, kValidation,
                 "A tensor of the node has a dimension of 0: the op refuses it (the node runs on CPU), or graph "
                 "composition fails on it (the rule's empty_tensors)."},
    DiagCodeInfo{DiagCode::kLoweringCheck, kValidation,
                 "The lowering path refuses this form of the op by its own check, before the backend is asked "
                 "(the lowering's cpu_forms: ONNX Runtime's QNN EP keeps it on CPU)."},
    DiagCodeInfo{DiagCode::kScaleNotFinite, kNumeric, "A scale is infinite or NaN."},
    DiagCodeInfo{DiagCode::kScaleOutOfRange, kNumeric,
                 "A scale is below 1e-10 (1e-20 for a 32-bit bias encoding) or above float32's largest value."},
    DiagCodeInfo{DiagCode::kZeroPointOutOfRange, kNumeric, "A zero point is not a value of the storage datatype."},
    DiagCodeInfo{DiagCode::kBiasScale, kNumeric, "A bias scale is not input scale x weight scale."},
    DiagCodeInfo{DiagCode::kChannelCount, kNumeric,
                 "A per-channel list has not one value per channel of its axis."},
    DiagCodeInfo{DiagCode::kBlockSize, kNumeric,
                 "Block sizes do not divide the tensor's dimensions (or are not one per dimension)."},
    DiagCodeInfo{DiagCode::kYamlSyntax, kRuleFiles, "The file is not valid YAML (or cannot be read)."},
    DiagCodeInfo{DiagCode::kUnknownKey, kRuleFiles, "A key is not part of the format (with a did-you-mean)."},
    DiagCodeInfo{DiagCode::kDuplicateKey, kRuleFiles, "A key is given twice in one mapping."},
    DiagCodeInfo{DiagCode::kMissingKey, kRuleFiles, "A required key is missing."},
    DiagCodeInfo{DiagCode::kWrongType, kRuleFiles, "A value has the wrong type (e.g. a list where a name belongs)."},
    DiagCodeInfo{DiagCode::kUnknownEnumValue, kRuleFiles, "A value is not one of the allowed names."},
    DiagCodeInfo{DiagCode::kDuplicateRuleId, kRuleFiles, "Two rules of one backend have the same id."},
    DiagCodeInfo{DiagCode::kDuplicateTarget, kRuleFiles, "Two rules of one backend claim the same op."},
    DiagCodeInfo{DiagCode::kUnknownPattern, kRuleFiles, "A rule names an annotation pattern that does not exist."},
    DiagCodeInfo{DiagCode::kUnknownPort, kRuleFiles, "A constraint or reference names a port the rule does not have."},
    DiagCodeInfo{DiagCode::kInvalidValue, kRuleFiles, "A value is out of range or inconsistent with others."},
    DiagCodeInfo{DiagCode::kGraphSyntax, kGraphFiles, "The graph file is not valid JSON (or not a readable model)."},
    DiagCodeInfo{DiagCode::kGraphSchema, kGraphFiles,
                 "The graph does not follow the graph format (reported with its JSON pointer)."},
    DiagCodeInfo{DiagCode::kGraphLimit, kGraphFiles, "The graph exceeds a size or nesting limit."},
    DiagCodeInfo{DiagCode::kOverrideUnmatched, kAnnotation, "A recipe override matches no node."},
    DiagCodeInfo{DiagCode::kOverrideTie, kAnnotation, "Overrides of equal priority matched a node; the later one won."},
    DiagCodeInfo{DiagCode::kDiscarded, kAnnotation,
                 "A recipe discarded the node or its op: it is left unannotated and runs on CPU."},
    DiagCodeInfo{DiagCode::kNotAnnotated, kAnnotation,
                 "A port could not be annotated as the config asks (the message says why)."},
    DiagCodeInfo{DiagCode::kQdqMismatch, kAnnotation, "Q/DQ nodes around a compute node are inconsistent."},
    DiagCodeInfo{DiagCode::kNoStatistics, kAnnotation,
                 "A quantized tensor has no min/max statistics to compute its encoding from."},
};

}  // namespace

std::span<const DiagCodeInfo> diagCodeTable() { return kTable; }

const DiagCodeInfo& diagCodeInfo(DiagCode code) {
  for (const DiagCodeInfo& i : kTable)
    if (i.code == code) return i;
  return kTable.front();  // unreachable: the table test checks every code is listed
}

std::string diagnosticCodesMarkdown() {
  std::string s =
      "# Diagnostic codes\n\n"
      "<!-- Generated by `qnn-rules docs` from engine/src/core/DiagnosticCodes.cpp; do not edit. -->\n\n"
      "Every diagnostic has a stable code (`error[arch-gate]: ...` in the text report, `code` in the\n"
      "JSON report, `properties.code` in SARIF). Codes are never renamed or reused.\n";
  std::string_view group;
  for (const DiagCodeInfo& i : kTable) {
    if (i.group != group) {
      group = i.group;
      s += "\n## ";
      s += group;
      s += "\n\n| code | meaning |\n|---|---|\n";
    }
    s += "| `";
    s += diagCodeName(i.code);
    s += "` | ";
    s += i.meaning;
    s += " |\n";
  }
  return s;
}

}  // namespace qnnrules
