#include "qnnrules/delegate/DelegationReport.h"

#include <fmt/format.h>

#include "qnnrules/core/JsonWriter.h"

namespace qnnrules {

std::string_view fallbackReasonName(FallbackReason r) {
  switch (r) {
    case FallbackReason::kNone: return "none";
    case FallbackReason::kNoRule: return "no-rule";
    case FallbackReason::kUnsupported: return "unsupported";
    case FallbackReason::kArchGate: return "arch-gate";
    case FallbackReason::kConstraint: return "constraint";
    case FallbackReason::kDynamicShape: return "dynamic-shape";
    case FallbackReason::kLoweringCheck: return "lowering-check";
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
  if (!r.noOpNodes.empty())
    s += fmt::format("  removed {} no-op conversion(s) (to the dtype the input has): {}\n", r.noOpNodes.size(),
                     nameList(graph, r.noOpNodes));
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
      wOp = std::max(wOp, graph.sourceOp(graph.node(f.node)).size());
    }
    s += fmt::format("  {:<{}}  {:<{}}  {:<14}  {:<20}  {}\n", "on CPU", wNode, "op", wOp, "reason", "code", "why");
    for (const Fallback& f : r.fallbacks) {
      const Node& n = graph.node(f.node);
      s += fmt::format("  {:<{}}  {:<{}}  {:<14}  {:<20}  {}\n", n.name, wNode, graph.sourceOp(n), wOp,
                       fallbackReasonName(f.reason), f.code ? diagCodeName(*f.code) : std::string_view("-"),
                       f.message);
    }
  }
  for (const auto& [node, what] : r.cpuConversions) s += "  on CPU by " + r.backend + " policy: " + what + "\n";
  if (r.sessionFailure) {
    const Node& n = graph.node(r.sessionFailure->node);
    if (r.sessionFailure->byPath)  // the path's own failure: what it saw, not a refusal by the backend
      s += fmt::format("  error[session-failure]: node '{}' ({}): {} ({})\n", n.name, graph.sourceOp(n),
                       r.sessionFailure->message, r.sessionFailure->cause);
    else
      s += fmt::format("  error[session-failure]: node '{}' ({}): {}; the backend refuses it: {}\n", n.name,
                       graph.sourceOp(n), r.sessionFailure->message, r.sessionFailure->cause);
  }
  if (r.fullDelegationRequired) {
    s += std::string("full delegation: required, ") + (r.ok() ? "satisfied" : "NOT satisfied") + "\n";
    for (const std::string& p : r.fullDelegationProblems) s += "  error[full-delegation]: " + p + "\n";
  }
  return s;
}

// Keys in sorted order, as the nlohmann DOM this replaces printed them (golden outputs).
std::string formatDelegationJson(const Graph& graph, const DelegationReport& r, int level) {
  std::string s;
  JsonWriter w(s, /*indent=*/2, level);
  writeDelegationJson(w, graph, r);
  return s;
}

void writeDelegationJson(JsonWriter& w, const Graph& graph, const DelegationReport& r) {
  auto names = [&](std::string_view key, const std::vector<uint32_t>& nodes) {
    w.key(key);
    w.beginArray();
    for (uint32_t n : nodes) w.value(graph.node(n).name);
    w.endArray();
  };
  w.beginObject();
  w.field("backend", r.backend);
  w.field("compute_nodes", r.computeNodes);
  names("constant_nodes", r.constantNodes);
  w.field("cpu_compute_nodes", r.computeNodes - r.delegatedComputeNodes);
  w.key("cpu_conversions");
  w.beginArray();
  for (const auto& [node, what] : r.cpuConversions) {
    w.beginObject();
    w.field("message", what);
    w.field("node", graph.node(node).name);
    w.endObject();
  }
  w.endArray();
  names("dead_nodes", r.deadNodes);
  w.field("delegated_compute_nodes", r.delegatedComputeNodes);
  w.key("fallbacks");
  w.beginArray();
  for (const Fallback& f : r.fallbacks) {
    const Node& n = graph.node(f.node);
    w.beginObject();
    w.key("code");
    if (f.code) w.value(diagCodeName(*f.code));
    else w.null();
    w.field("hint", f.hint);
    writeJsonLocation(w, "location", f.mark);
    w.field("message", f.message);
    w.field("node", n.name);
    w.field("op", graph.target(n));
    w.field("reason", fallbackReasonName(f.reason));
    w.field("rule", f.ruleId);
    w.field("source_op", graph.sourceOp(n));
    w.endObject();
  }
  w.endArray();
  w.key("full_delegation");
  w.beginObject();
  names("offenders", r.fullDelegationOffenders);
  w.field("ok", r.ok());
  w.key("problems");
  w.beginArray();
  for (const std::string& p : r.fullDelegationProblems) w.value(p);
  w.endArray();
  w.field("required", r.fullDelegationRequired);
  w.endObject();
  w.field("invalid_delegated_nodes", r.invalidDelegatedNodes);
  w.field("lowering", r.lowering);
  names("noop_nodes", r.noOpNodes);
  w.field("partition_count", r.partitions.size());
  w.key("partitions");
  w.beginArray();
  for (size_t i = 0; i < r.partitions.size(); ++i) {
    w.beginObject();
    w.field("compute_nodes", r.partitions[i].computeNodes);
    w.field("id", i);
    names("nodes", r.partitions[i].nodes);
    w.endObject();
  }
  w.endArray();
  w.key("session_failure");
  if (r.sessionFailure) {
    const Node& n = graph.node(r.sessionFailure->node);
    w.beginObject();
    w.field("cause", r.sessionFailure->cause);
    writeJsonLocation(w, "location", r.sessionFailure->mark);
    w.field("message", r.sessionFailure->message);
    w.field("node", n.name);
    w.field("op", graph.target(n));
    w.field("rule", r.sessionFailure->ruleId);
    w.field("source_op", graph.sourceOp(n));
    w.endObject();
  } else {
    w.null();
  }
  w.field("strict", r.strict);
  w.endObject();
}

}  // namespace qnnrules
