// The one-line verdict of a run: VALID, VALID WITH CPU FALLBACK n%, INVALID, or SESSION FAILS
// (the lowering path will not create a session for the graph: rules/lowering/, Lowering.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "qnnrules/delegate/DelegationReport.h"

namespace qnnrules {

enum class VerdictKind { kValid, kValidWithCpuFallback, kInvalid, kSessionFailure };

struct Verdict {
  VerdictKind kind = VerdictKind::kValid;
  size_t cpuPercent = 0;  // share of compute nodes on CPU, rounded up (1% when any is); 100 when the session fails

  std::string text() const;  // "VALID", "VALID WITH CPU FALLBACK 12%", "INVALID"
};
std::string_view verdictKindName(VerdictKind k);  // "valid", "valid-with-cpu-fallback", "invalid", "session-failure"

// `failed`: the run fails (strict mode with errors, or full delegation not satisfied).
Verdict judge(bool failed, const DelegationReport& delegation);

}  // namespace qnnrules
