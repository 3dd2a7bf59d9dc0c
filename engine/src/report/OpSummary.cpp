#include "qnnrules/report/OpSummary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>

namespace qnnrules {

std::vector<OpSummaryRow> summarizeOps(const Graph& graph, const DelegationReport& delegation,
                                       const DiagnosticList& diagnostics) {
  std::vector<OpSummaryRow> rows;
  // op -> row. The keys are views of the graph's interned targets and of the diagnostics' op
  // names, both of which outlive this call; nodes find their row by target id, so a node costs
  // no hash and no string.
  std::unordered_map<std::string_view, size_t> index;
  auto rowIndex = [&](std::string_view op) {
    auto [it, added] = index.try_emplace(op, rows.size());
    if (added) rows.push_back(OpSummaryRow{std::string(op), {}});
    return it->second;
  };
  constexpr size_t kNoRow = SIZE_MAX;
  // Rows by the user's op type (Node::sourceId when a reader bound the node, else its target).
  std::vector<size_t> rowOfTarget(graph.targets().size(), kNoRow);
  // (source id, target id) pairs already named in a row's `targets`.
  std::vector<std::pair<uint32_t, uint32_t>> boundPairs;
  const auto& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size() && i < delegation.nodes.size(); ++i) {
    const NodeDelegation& d = delegation.nodes[i];
    if (d.role != NodeRole::kCompute) continue;
    const Node& n = nodes[i];
    const uint32_t t = n.sourceId != Node::kNoTarget ? n.sourceId : n.targetId;
    size_t at = kNoRow;
    if (t == Node::kNoTarget) {
      at = rowIndex({});
    } else {
      if (rowOfTarget[t] == kNoRow) rowOfTarget[t] = rowIndex(graph.targets()[t]);
      at = rowOfTarget[t];
    }
    if (n.sourceId != Node::kNoTarget && n.targetId != n.sourceId && n.targetId != Node::kNoTarget) {
      const std::pair<uint32_t, uint32_t> pair{n.sourceId, n.targetId};
      if (std::find(boundPairs.begin(), boundPairs.end(), pair) == boundPairs.end()) {  // a handful of pairs
        boundPairs.push_back(pair);
        std::string& ts = rows[at].targets;
        ts += (ts.empty() ? "" : ", ") + graph.targets()[n.targetId];
      }
    }
    OpSummaryRow& r = rows[at];
    ++r.count;
    r.delegated += d.placement == Placement::kDelegated;
    r.onCpu += d.placement == Placement::kCpu;
  }
  for (const Diagnostic& d : diagnostics)
    if (const std::string& op = d.sourceOp.empty() ? d.op : d.sourceOp; !op.empty()) ++rows[rowIndex(op)].diagnostics;
  std::stable_sort(rows.begin(), rows.end(), [](const OpSummaryRow& a, const OpSummaryRow& b) {
    return a.count != b.count ? a.count > b.count : a.op < b.op;
  });
  return rows;
}

std::string formatOpTable(const std::vector<OpSummaryRow>& rows) {
  if (rows.empty()) return {};
  size_t wOp = 2;
  for (const OpSummaryRow& r : rows) wOp = std::max(wOp, r.op.size());
  // ONNX input: which rules' targets each op type was bound to, in a last column.
  const bool bound = std::any_of(rows.begin(), rows.end(), [](const OpSummaryRow& r) { return !r.targets.empty(); });
  std::string s = fmt::format("  {:<{}}  {:>6}  {:>9}  {:>6}  {:>11}{}\n", "op", wOp, "nodes", "delegated", "on CPU",
                              "diagnostics", bound ? "  rule targets" : "");
  for (const OpSummaryRow& r : rows) {
    s += fmt::format("  {:<{}}  {:>6}  {:>9}  {:>6}  {:>11}", r.op, wOp, r.count, r.delegated, r.onCpu, r.diagnostics);
    if (!r.targets.empty()) s += "  " + r.targets;
    s += '\n';
  }
  return s;
}

}  // namespace qnnrules
