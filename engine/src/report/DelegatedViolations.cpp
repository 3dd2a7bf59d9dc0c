// Delegated nodes with violations (report/DelegatedViolations.h).
#include "qnnrules/report/DelegatedViolations.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace qnnrules {

std::vector<DelegatedViolation> delegatedWithViolations(const Graph& graph, const DelegationReport& delegation,
                                                        const DiagnosticList& diagnostics) {
  std::vector<DelegatedViolation> rows;
  std::unordered_map<std::string_view, size_t> byName;  // node name -> row
  for (uint32_t i = 0; i < delegation.nodes.size() && i < graph.nodes().size(); ++i) {
    const NodeDelegation& n = delegation.nodes[i];
    if (n.placement != Placement::kDelegated || !n.invalid || n.role != NodeRole::kCompute) continue;
    byName.emplace(graph.node(i).name, rows.size());
    rows.push_back({i, n.partition, {}});
  }
  if (rows.empty()) return rows;
  for (const Diagnostic& d : diagnostics) {
    auto it = byName.find(d.node);
    if (it == byName.end()) continue;
    std::vector<std::string>& codes = rows[it->second].codes;
    const std::string code(diagCodeName(d.code));
    if (std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
  }
  return rows;
}

std::string formatDelegatedViolations(const Graph& graph, const std::vector<DelegatedViolation>& rows) {
  if (rows.empty()) return {};
  size_t nodeWidth = 4, opWidth = 2;
  for (const DelegatedViolation& r : rows) {
    nodeWidth = std::max(nodeWidth, graph.node(r.node).name.size());
    opWidth = std::max(opWidth, graph.sourceOp(graph.node(r.node)).size());
  }
  std::string s = fmt::format(
      "delegated with violations (warn mode): {} node(s); the backend may reject them when the graph is lowered\n",
      rows.size());
  s += fmt::format("  {:<{}}  {:<{}}  partition  codes\n", "node", nodeWidth, "op", opWidth);
  for (const DelegatedViolation& r : rows) {
    std::string codes;
    for (const std::string& c : r.codes) codes += (codes.empty() ? "" : ", ") + c;
    s += fmt::format("  {:<{}}  {:<{}}  {:>9}  {}\n", graph.node(r.node).name, nodeWidth,
                     graph.sourceOp(graph.node(r.node)), opWidth, r.partition, codes);
  }
  return s;
}

}  // namespace qnnrules
