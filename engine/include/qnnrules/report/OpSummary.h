// The per-op summary of a run: for each op type of the user's file (ONNX input groups by its
// op types, not by the rules' targets), how many compute nodes use it, how
// many the backend runs, how many fall back to CPU, and how many diagnostics name it. The
// text table, the JSON report's "ops" and the HTML page all show these rows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qnnrules/delegate/DelegationReport.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Diagnostic.h"

namespace qnnrules {

struct OpSummaryRow {
  std::string op;          // the op type the user's file names (Graph::sourceOp): an ONNX
                           // model's "onnx::Gemm", a .pt2's ATen target
  std::string targets;     // the rules' targets its nodes were bound to, when not `op` itself
                           // ("aten.addmm.default, aten.linear.default")
  size_t count = 0;        // compute nodes with this op
  size_t delegated = 0;
  size_t onCpu = 0;
  size_t diagnostics = 0;  // diagnostics of any severity naming this op
};

// Rows ordered by node count (largest first), then by op name. `graph` is the graph the
// delegation report was made for (GraphAnalysis::graph).
std::vector<OpSummaryRow> summarizeOps(const Graph& graph, const DelegationReport& delegation,
                                       const DiagnosticList& diagnostics);

//   op                     nodes  delegated  on CPU  diagnostics
//   aten.conv2d.default        3          3       0            0
std::string formatOpTable(const std::vector<OpSummaryRow>& rows);

}  // namespace qnnrules
