// Delegation fallbacks as diagnostics of the same shape as the validator's: primary location
// the node, notes the rule's file:line and the hint, so every front end lists "why this node
// runs on CPU" the way it lists any other problem.
#pragma once

#include "qnnrules/delegate/DelegationReport.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Diagnostic.h"

namespace qnnrules {

// One warning per compute node on CPU, in graph order: the validator's code and message when
// validation put it there, else cpu-fallback with the reason (backend policy, follows CPU).
DiagnosticList fallbackDiagnostics(const Graph& graph, const DelegationReport& report);

}  // namespace qnnrules
