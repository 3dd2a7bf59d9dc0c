#include "qnnrules/report/DotWriter.h"

#include "qnnrules/core/OutputFile.h"

namespace qnnrules {
namespace {

// A DOT double-quoted string: backslashes and quotes escaped, newlines as \n.
std::string quote(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (c == '\n') {
      q += "\\n";
      continue;
    }
    q += c;
  }
  return q + '"';
}

const char* fillOf(const NodeDelegation& nd) {
  if (nd.role == NodeRole::kCompute) {
    if (nd.invalid) return dotcolor::kInvalid;
    if (nd.placement == Placement::kDelegated) return dotcolor::kDelegated;
    return nd.reason == FallbackReason::kBackendPolicy ? dotcolor::kPolicy : dotcolor::kFallback;
  }
  return nd.placement == Placement::kDelegated ? dotcolor::kDelegated : dotcolor::kOther;
}

void writeNode(std::string& s, const Graph& g, const DelegationReport& r, uint32_t i, const char* indent) {
  const Node& n = g.node(i);
  const NodeDelegation& nd = r.nodes[i];
  std::string label = n.name;
  if (n.kind == NodeKind::kCall) {
    // The user's op type first when a reader bound the node to a rule's target (ONNX).
    if (n.sourceId != Node::kNoTarget && g.sourceOp(n) != g.target(n)) label += "\n" + std::string(g.sourceOp(n)) + " as";
    label += "\n" + std::string(g.target(n));
  }
  if (nd.placement == Placement::kCpu && nd.reason != FallbackReason::kNone)
    label += "\nCPU: " + std::string(fallbackReasonName(nd.reason));
  else if (nd.invalid)
    label += "\ninvalid";
  const char* shape = nd.role == NodeRole::kCompute ? "box" : (nd.role == NodeRole::kBoundary ? "oval" : "note");
  s += indent;
  s += "n" + std::to_string(i) + " [label=" + quote(label) + ", shape=" + shape + ", style=\"filled" +
       (nd.role == NodeRole::kFollower ? ",dashed" : "") + "\", fillcolor=\"" + fillOf(nd) + "\"";
  if (nd.role == NodeRole::kCompute && nd.placement == Placement::kCpu) s += ", penwidth=2";
  s += "];\n";
}

}  // namespace

std::string formatDot(const Graph& g, const DelegationReport& r) {
  std::string s = "digraph " + quote(g.name.empty() ? "graph" : g.name) + " {\n";
  s += "  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  s += "  label=" + quote(delegationSummaryLine(r)) + "; labelloc=t;\n";
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    s += "  subgraph cluster_p" + std::to_string(p) + " {\n";
    s += "    label=" + quote("partition " + std::to_string(p) + " (" + std::to_string(r.partitions[p].computeNodes) +
                          " compute nodes)") + ";\n";
    s += "    style=\"rounded,filled\"; fillcolor=\"#eef7ee\"; color=\"#2e7d32\";\n";
    for (uint32_t i : r.partitions[p].nodes) writeNode(s, g, r, i, "    ");
    s += "  }\n";
  }
  for (uint32_t i = 0; i < g.nodes().size(); ++i)
    if (r.nodes[i].partition < 0) writeNode(s, g, r, i, "  ");
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    auto edge = [&](const Argument& a) {
      if (a.kind == Argument::Kind::kTensor)
        s += "  n" + std::to_string(a.tensor.node) + " -> n" + std::to_string(i) + ";\n";
    };
    for (const Argument& a : g.node(i).args) {
      edge(a);
      if (a.kind == Argument::Kind::kList)
        for (const Argument& e : a.list) edge(e);
    }
  }
  s += "}\n";
  return s;
}

Status writeDotFile(const std::filesystem::path& path, const Graph& graph, const DelegationReport& report) {
  return saveOutputFile(path, formatDot(graph, report));
}

}  // namespace qnnrules
