// The one-line verdict of a run: VALID, VALID WITH CPU FALLBACK n%, or INVALID.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "qnnrules/delegate/DelegationReport.h"

namespace qnnrules {

enum class VerdictKind { kValid, kValidWithCpuFallback, kInvalid };

struct Verdict {
  VerdictKind kind = VerdictKind::kValid;
  size_t cpuPercent = 0;  // share of compute nodes on CPU, rounded up (1% when any is)

  std::string text() const;  // "VALID", "VALID WITH CPU FALLBACK 12%", "INVALID"
};
std::string_view verdictKindName(VerdictKind k);  // "valid", "valid-with-cpu-fallback", "invalid"

// `failed`: the run fails (strict mode with errors, or full delegation not satisfied).
Verdict judge(bool failed, const DelegationReport& delegation);

}  // namespace qnnrules
