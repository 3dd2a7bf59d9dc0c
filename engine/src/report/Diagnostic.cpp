#include "qnnrules/report/Diagnostic.h"

#include <nlohmann/json.hpp>

namespace qnnrules {

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::kNote: return "note";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

std::string_view diagCodeName(DiagCode c) {
  switch (c) {
    case DiagCode::kNoRule: return "no-rule";
    case DiagCode::kUnsupportedOp: return "unsupported-op";
    case DiagCode::kNoMatchingVariant: return "no-matching-variant";
    case DiagCode::kArchGate: return "arch-gate";
    case DiagCode::kEncoding: return "encoding";
    case DiagCode::kBitwidth: return "bitwidth";
    case DiagCode::kSymmetric: return "symmetric";
    case DiagCode::kAxis: return "axis";
    case DiagCode::kFixedScale: return "fixed-scale";
    case DiagCode::kFixedOffset: return "fixed-offset";
    case DiagCode::kShared: return "shared";
    case DiagCode::kSharedCycle: return "shared-cycle";
    case DiagCode::kSharedUnresolved: return "shared-unresolved";
    case DiagCode::kMissingPort: return "missing-port";
    case DiagCode::kUnverifiable: return "unverifiable";
    case DiagCode::kScaleNotFinite: return "scale-not-finite";
    case DiagCode::kScaleOutOfRange: return "scale-out-of-range";
    case DiagCode::kZeroPointOutOfRange: return "zero-point-out-of-range";
    case DiagCode::kBiasScale: return "bias-scale";
    case DiagCode::kChannelCount: return "channel-count";
    case DiagCode::kBlockSize: return "block-size";
    case DiagCode::kYamlSyntax: return "yaml-syntax";
    case DiagCode::kUnknownKey: return "unknown-key";
    case DiagCode::kDuplicateKey: return "duplicate-key";
    case DiagCode::kMissingKey: return "missing-key";
    case DiagCode::kWrongType: return "wrong-type";
    case DiagCode::kUnknownEnumValue: return "unknown-enum-value";
    case DiagCode::kDuplicateRuleId: return "duplicate-rule-id";
    case DiagCode::kDuplicateTarget: return "duplicate-target";
    case DiagCode::kUnknownPattern: return "unknown-pattern";
    case DiagCode::kUnknownPort: return "unknown-port";
    case DiagCode::kInvalidValue: return "invalid-value";
    case DiagCode::kGraphSyntax: return "graph-syntax";
    case DiagCode::kGraphSchema: return "graph-schema";
    case DiagCode::kGraphLimit: return "graph-limit";
    case DiagCode::kOverrideUnmatched: return "override-unmatched";
    case DiagCode::kOverrideTie: return "override-tie";
    case DiagCode::kDiscarded: return "discarded";
    case DiagCode::kNotAnnotated: return "not-annotated";
    case DiagCode::kQdqMismatch: return "qdq-mismatch";
    case DiagCode::kNoStatistics: return "no-statistics";
  }
  return "unknown";
}

size_t countSeverity(const DiagnosticList& diags, Severity s) {
  size_t n = 0;
  for (const Diagnostic& d : diags) n += d.severity == s;
  return n;
}

std::string formatText(const Diagnostic& d) {
  std::string s;
  s += severityName(d.severity);
  s += '[';
  s += diagCodeName(d.code);
  s += "]: ";
  if (!d.node.empty()) {
    s += "node '" + d.node + "'";
    if (!d.op.empty()) s += " (" + d.op + ")";
    if (!d.port.empty()) s += " port " + d.port;
    s += ": ";
  }
  s += d.message;
  s += '\n';
  if (d.mark.known() || !d.ruleId.empty()) {
    s += "  --> ";
    if (d.mark.known()) s += d.mark.toString();
    // Graph-file diagnostics locate the value by its JSON pointer, carried in `port`.
    if (d.node.empty() && !d.port.empty()) s += " at " + d.port;
    if (!d.ruleId.empty()) {
      s += d.mark.known() ? " (rule " : "(rule ";
      s += d.ruleId;
      if (!d.variant.empty()) s += ", variant " + d.variant;
      s += ')';
    }
    s += '\n';
  }
  if (!d.expected.empty()) s += "  expected: " + d.expected + '\n';
  if (!d.actual.empty()) s += "  actual:   " + d.actual + '\n';
  if (!d.hint.empty()) s += "  hint:     " + d.hint + '\n';
  return s;
}

namespace {
nlohmann::json toJson(const Diagnostic& d) {
  nlohmann::json loc = nullptr;
  if (d.mark.known()) loc = {{"file", *d.mark.file}, {"line", d.mark.line}, {"column", d.mark.column}};
  return {
      {"severity", severityName(d.severity)}, {"code", diagCodeName(d.code)},
      {"message", d.message},                 {"node", d.node},
      {"op", d.op},                           {"port", d.port},
      {"rule", d.ruleId},                     {"variant", d.variant},
      {"location", loc},                      {"expected", d.expected},
      {"actual", d.actual},                   {"hint", d.hint},
  };
}
}  // namespace

std::string formatJson(const Diagnostic& d) {
  return toJson(d).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string formatJsonArray(const DiagnosticList& diags) {
  nlohmann::json arr = nlohmann::json::array();
  for (const Diagnostic& d : diags) arr.push_back(toJson(d));
  return arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace qnnrules
