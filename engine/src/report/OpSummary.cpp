#include "qnnrules/report/OpSummary.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace qnnrules {

std::vector<OpSummaryRow> summarizeOps(const Graph& graph, const DelegationReport& delegation,
                                       const DiagnosticList& diagnostics) {
  std::vector<OpSummaryRow> rows;
  std::unordered_map<std::string, size_t> index;  // op -> row
  auto row = [&](std::string_view op) -> OpSummaryRow& {
    auto [it, added] = index.try_emplace(std::string(op), rows.size());
    if (added) rows.push_back(OpSummaryRow{std::string(op)});
    return rows[it->second];
  };
  const auto& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size() && i < delegation.nodes.size(); ++i) {
    const NodeDelegation& d = delegation.nodes[i];
    if (d.role != NodeRole::kCompute) continue;
    OpSummaryRow& r = row(graph.target(nodes[i]));
    ++r.count;
    r.delegated += d.placement == Placement::kDelegated;
    r.onCpu += d.placement == Placement::kCpu;
  }
  for (const Diagnostic& d : diagnostics)
    if (!d.op.empty()) ++row(d.op).diagnostics;
  std::stable_sort(rows.begin(), rows.end(), [](const OpSummaryRow& a, const OpSummaryRow& b) {
    return a.count != b.count ? a.count > b.count : a.op < b.op;
  });
  return rows;
}

std::string formatOpTable(const std::vector<OpSummaryRow>& rows) {
  if (rows.empty()) return {};
  size_t wOp = 2;
  for (const OpSummaryRow& r : rows) wOp = std::max(wOp, r.op.size());
  std::string s = fmt::format("  {:<{}}  {:>6}  {:>9}  {:>6}  {:>11}\n", "op", wOp, "nodes", "delegated", "on CPU",
                              "diagnostics");
  for (const OpSummaryRow& r : rows)
    s += fmt::format("  {:<{}}  {:>6}  {:>9}  {:>6}  {:>11}\n", r.op, wOp, r.count, r.delegated, r.onCpu,
                     r.diagnostics);
  return s;
}

}  // namespace qnnrules
