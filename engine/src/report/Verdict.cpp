#include "qnnrules/report/Verdict.h"

#include <fmt/format.h>

namespace qnnrules {

std::string Verdict::text() const {
  switch (kind) {
    case VerdictKind::kValid: return "VALID";
    case VerdictKind::kValidWithCpuFallback: return fmt::format("VALID WITH CPU FALLBACK {}%", cpuPercent);
    case VerdictKind::kInvalid: return "INVALID";
    case VerdictKind::kSessionFailure: return "SESSION FAILS";
  }
  return "INVALID";
}

std::string_view verdictKindName(VerdictKind k) {
  switch (k) {
    case VerdictKind::kValid: return "valid";
    case VerdictKind::kValidWithCpuFallback: return "valid-with-cpu-fallback";
    case VerdictKind::kInvalid: return "invalid";
    case VerdictKind::kSessionFailure: return "session-failure";
  }
  return "invalid";
}

Verdict judge(bool failed, const DelegationReport& delegation) {
  // The lowering will not run the graph at all, whatever the mode: say so before anything else.
  if (delegation.sessionFailure) return Verdict{VerdictKind::kSessionFailure, 100};
  if (failed) return Verdict{VerdictKind::kInvalid, 0};
  const size_t total = delegation.computeNodes;
  const size_t cpu = total - delegation.delegatedComputeNodes;
  if (cpu == 0 || total == 0) return Verdict{VerdictKind::kValid, 0};
  // Rounded up: a graph with one node of 10,000 on CPU still says so (1%, never 0%).
  return Verdict{VerdictKind::kValidWithCpuFallback, (cpu * 100 + total - 1) / total};
}

}  // namespace qnnrules
