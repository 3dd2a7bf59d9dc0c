// Warn mode delegates nodes that violate their rules (the verdict counts them as delegated):
// the reports list them, so a VALID WITH CPU FALLBACK verdict does not hide what the backend
// may still reject when the graph is lowered. Text report and JSON "delegated_with_violations"
// (drawn by the HTML page).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qnnrules/delegate/DelegationReport.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Diagnostic.h"

namespace qnnrules {

struct DelegatedViolation {
  uint32_t node = 0;
  int32_t partition = -1;
  std::vector<std::string> codes;  // the node's diagnostic codes, each once, in report order
};

// The delegated compute nodes that have validation errors (warn mode), in graph order.
std::vector<DelegatedViolation> delegatedWithViolations(const Graph& graph, const DelegationReport& delegation,
                                                        const DiagnosticList& diagnostics);

// "delegated with violations (warn mode): 2 node(s); the backend may reject them when lowering"
// then a table: node, op, partition, codes. "" when there are none.
std::string formatDelegatedViolations(const Graph& graph, const std::vector<DelegatedViolation>& rows);

}  // namespace qnnrules
