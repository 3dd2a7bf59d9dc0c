#include "qnnrules/passes/QdqGrouping.h"

#include <vector>

#include "qnnrules/graph/QuantSpec.h"

namespace qnnrules {
namespace {

// A float32 "annotation": the port is handed to QNN unquantized (as LoweringRewrites' `float`).
QuantSpec floatSpec() {
  QuantSpec s;
  s.dtype = ScalarType::kFloat32;
  return s;
}

// The tensor arguments input port `decl` binds on `node`, as NodeValidator::bind reads them
// (a variadic port takes the arguments from its index on, a list its elements).
template <typename F>
void forEachInputArg(Node& node, const PortDecl& decl, F&& f) {
  for (size_t a = static_cast<size_t>(decl.index); a < node.args.size(); ++a) {
    Argument& arg = node.args[a];
    if (arg.kind == Argument::Kind::kTensor) f(arg);
    if (arg.kind == Argument::Kind::kList)
      for (Argument& e : arg.list)
        if (e.kind == Argument::Kind::kTensor) f(e);
    if (!decl.variadic) break;
  }
}

template <typename F>
void forEachTensorArg(Argument& a, F&& f) {
  if (a.kind == Argument::Kind::kTensor) f(a);
  for (Argument& e : a.list) forEachTensorArg(e, f);
}

}  // namespace

size_t floatUngroupedQdqNodes(Graph& graph, const RuleSet& rules) {
  std::vector<Node>& nodes = graph.mutableNodes();
  const std::vector<const Rule*> ruleOf = rules.rulesOfTargets(graph.targets());
  // Per output: whether some node reads it without a Q/DQ in between (the fold leaves an edge
  // without its own encoding), the graph's output node included.
  // An output nothing reads (Split's unused part) asks for no QuantizeLinear.
  std::vector<std::vector<uint8_t>> readRaw(nodes.size()), read(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    readRaw[i].assign(nodes[i].outputs.size(), 0);
    read[i].assign(nodes[i].outputs.size(), 0);
  }
  for (Node& n : nodes) {
    auto mark = [&](Argument& a) {
      if (a.tensor.node >= nodes.size() || a.tensor.output >= readRaw[a.tensor.node].size()) return;
      read[a.tensor.node][a.tensor.output] = 1;
      if (!a.qspec) readRaw[a.tensor.node][a.tensor.output] = 1;
    };
    for (Argument& a : n.args) forEachTensorArg(a, mark);
    for (auto& kv : n.kwargs) forEachTensorArg(kv.second, mark);
  }
  // Decide on the graph as read, then change: a node's verdict must not see a neighbour's change.
  std::vector<uint32_t> ungrouped;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    Node& node = nodes[i];
    if (node.kind != NodeKind::kCall || node.targetId >= ruleOf.size() || !ruleOf[node.targetId]) continue;
    bool quantized = false, unquantized = false;
    for (const PortDecl& decl : ruleOf[node.targetId]->ports) {
      if (decl.isInput) {
        forEachInputArg(node, decl, [&](Argument& a) {
          if (a.qspec) {
            (isFloatType(a.qspec->dtype) ? unquantized : quantized) = true;
            return;
          }
          const Node& p = nodes[a.tensor.node];
          if (a.tensor.output < p.outputs.size() && isFloatType(p.outputs[a.tensor.output].dtype)) unquantized = true;
        });
        continue;
      }
      const size_t o = static_cast<size_t>(decl.index);
      if (o >= node.outputs.size()) continue;
      const TensorMeta& m = node.outputs[o];
      if (m.qspec && !isFloatType(m.qspec->dtype) && !readRaw[i][o]) quantized = true;
      else if (isFloatType(m.dtype) && read[i][o]) unquantized = true;
    }
    if (quantized && unquantized) ungrouped.push_back(i);
  }
  for (uint32_t i : ungrouped) {
    Node& node = nodes[i];
    for (const PortDecl& decl : ruleOf[node.targetId]->ports) {
      if (decl.isInput) {
        forEachInputArg(node, decl, [&](Argument& a) {
          if (a.qspec) a.qspec = floatSpec();
        });
      } else if (static_cast<size_t>(decl.index) < node.outputs.size() && node.outputs[static_cast<size_t>(decl.index)].qspec) {
        node.outputs[static_cast<size_t>(decl.index)].qspec = floatSpec();
      }
    }
  }
  return ungrouped.size();
}

}  // namespace qnnrules
