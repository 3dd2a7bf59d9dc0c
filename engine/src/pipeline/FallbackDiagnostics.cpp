#include "qnnrules/pipeline/FallbackDiagnostics.h"

namespace qnnrules {

DiagnosticList fallbackDiagnostics(const Graph& graph, const DelegationReport& report) {
  DiagnosticList out;
  out.reserve(report.fallbacks.size());
  for (const Fallback& f : report.fallbacks) {
    const Node& n = graph.node(f.node);
    Diagnostic d;
    d.severity = Severity::kWarning;
    d.code = f.code.value_or(DiagCode::kCpuFallback);
    d.node = n.name;
    d.op = std::string(graph.target(n));
    d.message = "runs on CPU (" + std::string(fallbackReasonName(f.reason)) + "): " + f.message;
    d.ruleId = f.ruleId;
    d.mark = f.mark;
    d.hint = f.hint;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace qnnrules
