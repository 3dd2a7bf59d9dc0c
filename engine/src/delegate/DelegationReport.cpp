#include "qnnrules/delegate/DelegationReport.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace qnnrules {

std::string_view placementName(Placement p) {
  switch (p) {
    case Placement::kNone: return "none";
    case Placement::kDelegated: return "delegated";
    case Placement::kCpu: return "cpu";
  }
  return "none";
}

std::string_view fallbackReasonName(FallbackReason r) {
  switch (r) {
    case FallbackReason::kNone: return "none";
    case FallbackReason::kNoRule: return "no-rule";
    case FallbackReason::kUnsupported: return "unsupported";
    case FallbackReason::kArchGate: return "arch-gate";
    case FallbackReason::kConstraint: return "constraint";
    case FallbackReason::kBackendPolicy: return "backend-policy";
    case FallbackReason::kFollowsCpu: return "follows-cpu";
  }
  return "none";
}

std::string delegationSummaryLine(const DelegationReport& r) {
  size_t cpu = r.computeNodes - r.delegatedComputeNodes;
  std::string s = fmt::format("delegation to {} ({} mode): {} of {} compute node(s) delegated in {} partition(s), {} on CPU",
                              r.backend, r.strict ? "strict" : "warn", r.delegatedComputeNodes, r.computeNodes,
                              r.partitions.size(), cpu);
  if (r.invalidDelegatedNodes)
    s += fmt::format(", {} delegated although invalid", r.invalidDelegatedNodes);
  return s;
}

namespace {

// "a, b, c, ... (12 more)": the first few names of a long list.
std::string nameList(const Graph& graph, const std::vector<uint32_t>& nodes) {
  constexpr size_t kShown = 8;
  std::string s;
  for (size_t i = 0; i < nodes.size() && i < kShown; ++i) s += (i ? ", " : "") + graph.node(nodes[i]).name;
  if (nodes.size() > kShown) s += fmt::format(", ... ({} more)", nodes.size() - kShown);
  return s;
}

}  // namespace

std::string formatDelegationText(const Graph& graph, const DelegationReport& r) {
  std::string s = delegationSummaryLine(r) + "\n";
  if (!r.deadNodes.empty())
    s += fmt::format("  pruned {} dead node(s) (no graph output uses them): {}\n", r.deadNodes.size(),
                     nameList(graph, r.deadNodes));
  if (!r.constantNodes.empty())
    s += fmt::format("  folded {} constant node(s) (no graph input reaches them; static tensors): {}\n",
                     r.constantNodes.size(), nameList(graph, r.constantNodes));
  if (!r.partitions.empty()) {
    s += fmt::format("  {:<10} {:>8} {:>6}  {}\n", "partition", "compute", "nodes", "first .. last");
    for (size_t i = 0; i < r.partitions.size(); ++i) {
      const Partition& p = r.partitions[i];
      s += fmt::format("  {:<10} {:>8} {:>6}  {} .. {}\n", i, p.computeNodes, p.nodes.size(),
                       graph.node(p.nodes.front()).name, graph.node(p.nodes.back()).name);
    }
  }
  if (!r.fallbacks.empty()) {
    size_t wNode = 6, wOp = 2;  // at least the headers "on CPU" and "op"
    for (const Fallback& f : r.fallbacks) {
      wNode = std::max(wNode, graph.node(f.node).name.size());
      wOp = std::max(wOp, graph.target(graph.node(f.node)).size());
    }
    s += fmt::format("  {:<{}}  {:<{}}  {:<14}  {:<20}  {}\n", "on CPU", wNode, "op", wOp, "reason", "code", "why");
    for (const Fallback& f : r.fallbacks) {
      const Node& n = graph.node(f.node);
      s += fmt::format("  {:<{}}  {:<{}}  {:<14}  {:<20}  {}\n", n.name, wNode, graph.target(n), wOp,
                       fallbackReasonName(f.reason), f.code ? diagCodeName(*f.code) : std::string_view("-"),
                       f.message);
    }
  }
  for (const auto& [node, what] : r.cpuConversions) s += "  on CPU by " + r.backend + " policy: " + what + "\n";
  if (r.fullDelegationRequired) {
    s += std::string("full delegation: required, ") + (r.ok() ? "satisfied" : "NOT satisfied") + "\n";
    for (const std::string& p : r.fullDelegationProblems) s += "  error[full-delegation]: " + p + "\n";
  }
  return s;
}

std::string formatDelegationJson(const Graph& graph, const DelegationReport& r) {
  using json = nlohmann::json;
  json partitions = json::array();
  for (size_t i = 0; i < r.partitions.size(); ++i) {
    json names = json::array();
    for (uint32_t n : r.partitions[i].nodes) names.push_back(graph.node(n).name);
    partitions.push_back({{"id", i}, {"compute_nodes", r.partitions[i].computeNodes}, {"nodes", std::move(names)}});
  }
  json fallbacks = json::array();
  for (const Fallback& f : r.fallbacks) {
    const Node& n = graph.node(f.node);
    json loc = nullptr;
    if (f.mark.known()) loc = {{"file", *f.mark.file}, {"line", f.mark.line}, {"column", f.mark.column}};
    fallbacks.push_back({{"node", n.name},
                         {"op", graph.target(n)},
                         {"reason", fallbackReasonName(f.reason)},
                         {"code", f.code ? json(diagCodeName(*f.code)) : json(nullptr)},
                         {"message", f.message},
                         {"rule", f.ruleId},
                         {"location", loc},
                         {"hint", f.hint}});
  }
  json conversions = json::array();
  for (const auto& [node, what] : r.cpuConversions)
    conversions.push_back({{"node", graph.node(node).name}, {"message", what}});
  json offenders = json::array();
  for (uint32_t n : r.fullDelegationOffenders) offenders.push_back(graph.node(n).name);
  auto names = [&](const std::vector<uint32_t>& nodes) {
    json a = json::array();
    for (uint32_t n : nodes) a.push_back(graph.node(n).name);
    return a;
  };
  json j = {
      {"backend", r.backend},
      {"strict", r.strict},
      {"compute_nodes", r.computeNodes},
      {"delegated_compute_nodes", r.delegatedComputeNodes},
      {"cpu_compute_nodes", r.computeNodes - r.delegatedComputeNodes},
      {"invalid_delegated_nodes", r.invalidDelegatedNodes},
      {"partition_count", r.partitions.size()},
      {"partitions", std::move(partitions)},
      {"fallbacks", std::move(fallbacks)},
      {"cpu_conversions", std::move(conversions)},
      {"dead_nodes", names(r.deadNodes)},
      {"constant_nodes", names(r.constantNodes)},
      {"full_delegation",
       {{"required", r.fullDelegationRequired}, {"ok", r.ok()}, {"problems", r.fullDelegationProblems},
        {"offenders", std::move(offenders)}}},
  };
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace qnnrules
