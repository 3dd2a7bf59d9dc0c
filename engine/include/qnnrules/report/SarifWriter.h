// The diagnostics of a run as SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format),
// so CI code scanning shows each finding on the model file with the rule file beside it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qnnrules/core/Diagnostic.h"

namespace qnnrules {

class RuleSet;
struct BaselineComparison;

// How the run ended (SARIF's invocation object): whether the tool did its job (false when it
// stopped with exit 2: bad input, unknown SoC, unreadable rules), the exit code, and the
// errors that stopped it (toolExecutionNotifications), so a CI dashboard never shows a run
// that did not happen as clean.
struct SarifInvocation {
  bool successful = true;
  int exitCode = 0;
  std::vector<std::string> errors;
};

struct SarifRun {
  std::string toolName = "qnn-validate";
  std::string toolVersion;
  std::string graphPath;            // as given on the command line; the location of graph findings
  const RuleSet* rules = nullptr;   // rule descriptions for the SARIF rule entries (may be null)
  std::optional<SarifInvocation> invocation;  // the run's invocations entry, when known
  // With a baseline (report/Baseline.h): `diagnostics` are the new findings (baselineState
  // "new"), followed by the unchanged ones and those now absent.
  const BaselineComparison* baseline = nullptr;
};

// One SARIF log with one run: a result per diagnostic (ruleId = the QNN rule id, or the
// diagnostic code when no rule is involved), located on the graph file (the node as a logical
// location) with the rule's file:line:column as a related location; rule-file diagnostics are
// located on the rule file itself. Every rule entry carries the rule's own sentence as help.
std::string formatSarif(const DiagnosticList& diagnostics, const SarifRun& run);

}  // namespace qnnrules
