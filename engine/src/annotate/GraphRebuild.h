// Internal to the annotator's graph preparation (LiftNumbers.cpp, Decompose.cpp): a graph rebuilt
// with new nodes inserted before some of its nodes. Node indices move, so every reference (tensor
// arguments, shared encodings) is renumbered; names, targets and module paths are kept.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "qnnrules/graph/Graph.h"

namespace qnnrules::annotator_detail {

// A name no node of `a` or `b` has: `base`, else `base_1`, `base_2`, ...
inline std::string freeNodeName(const Graph& a, const Graph& b, const std::string& base) {
  std::string name = base;
  for (int k = 1; a.findNode(name) || b.findNode(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

inline void renumber(QuantSpec& q, const std::vector<uint32_t>& to) {
  if (!q.sharedWith) return;
  q.sharedWith->node = to[q.sharedWith->node];
  if (q.sharedWith->kind == SharedRef::Kind::kEdge) q.sharedWith->consumer = to[q.sharedWith->consumer];
}
inline void renumber(Argument& a, const std::vector<uint32_t>& to) {
  if (a.kind == Argument::Kind::kTensor) a.tensor.node = to[a.tensor.node];
  if (a.qspec) renumber(*a.qspec, to);
  for (Argument& e : a.list) renumber(e, to);
}

// Rebuilds `graph` node by node. `expand(oldIndex, node, out)` may add nodes to `out` (the new
// graph, whose references are already renumbered) before the node itself is added, and change the
// node (its arguments are renumbered to `out`'s indices before the call). References only point
// backwards, so each one is known when its node is renumbered.
template <typename Expand>
void rebuildGraph(Graph& graph, size_t extraNodes, Expand&& expand) {
  Graph out;
  out.name = graph.name;
  out.formatVersion = graph.formatVersion;
  out.source = graph.source;
  out.qdqFolded = graph.qdqFolded;
  // The same interned ids, so targetId, sourceId and moduleId carry over unchanged.
  for (const std::string& t : graph.targets()) out.internTarget(t);
  for (const std::string& m : graph.modules()) out.internModule(m);
  out.reserve(graph.nodes().size() + extraNodes);
  std::vector<uint32_t> to(graph.nodes().size());
  std::vector<Node>& nodes = graph.mutableNodes();
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    Node n = std::move(nodes[i]);
    for (Argument& a : n.args) renumber(a, to);
    for (auto& kv : n.kwargs) renumber(kv.second, to);
    for (TensorMeta& m : n.outputs)
      if (m.qspec) renumber(*m.qspec, to);
    expand(i, n, out, graph);
    to[i] = *out.addNode(std::move(n));  // names were unique in the old graph and are kept
  }
  graph = std::move(out);
}

// A number as a 0-d constant of `dtype` in the module `moduleId`, its value kept as its statistics
// (min = max), so encodings computed from a graph's statistics cover it.
inline Node numberConstant(double value, ScalarType dtype, uint32_t moduleId) {
  Node c;
  c.kind = NodeKind::kConstant;
  c.moduleId = moduleId;
  TensorMeta m;
  m.dtype = dtype;
  TensorStats s;
  s.min = {value};
  s.max = {value};
  m.stats = std::move(s);
  c.outputs.push_back(std::move(m));
  return c;
}

// The value of a number argument (int or float).
inline double numberValue(const Argument& a) { return a.kind == Argument::Kind::kInt ? static_cast<double>(a.i) : a.f; }

// Adds a node to `out` whose name is free in both graphs; returns its index.
inline uint32_t addFreshNode(Graph& out, const Graph& old, Node n, const std::string& base) {
  n.name = freeNodeName(old, out, base);
  return *out.addNode(std::move(n));  // the name is free: cannot fail
}

}  // namespace qnnrules::annotator_detail
