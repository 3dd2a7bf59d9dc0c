#include "qnnrules/passes/Prune.h"

#include <string_view>

namespace qnnrules {
namespace {

// Random factories depend on no input but are not constants: each run draws anew.
bool isRandom(std::string_view target) {
  for (std::string_view p : {"aten.rand", "aten.normal", "aten.bernoulli", "aten.uniform", "aten.multinomial"})
    if (target.substr(0, p.size()) == p) return true;
  return false;
}

// Ops whose result is the shape of their input, not its values: with a static input shape they
// are constants (ORT's constant folding computes Shape/Size of a statically shaped tensor;
// torch.export bakes sym_size of a static dimension).
bool readsOnlyShape(std::string_view target) {
  for (std::string_view t : {"onnx::Shape", "onnx::Size", "aten.sym_size.int", "aten.sym_numel.default", "aten.size.int"})
    if (target == t) return true;
  return false;
}

bool staticShape(const TensorMeta& t) {
  if (t.shape.empty()) return false;  // a scalar, or a shape not recorded: not known static
  for (int64_t d : t.shape)
    if (d < 0) return false;
  return true;
}

const TensorMeta* producedMeta(const Graph& graph, const TensorRef& ref) {
  const Node& p = graph.node(ref.node);
  return ref.output < p.outputs.size() ? &p.outputs[ref.output] : nullptr;
}

// The first tensor argument of `node`, or nullptr.
const Argument* firstTensorArg(const Node& node) {
  for (const Argument& a : node.args)
    if (a.kind == Argument::Kind::kTensor) return &a;
  return nullptr;
}

// Ops whose output shape depends on the values of a data input, not only on shapes and
// constants: their outputs are never shape-static.
bool valueShaped(std::string_view target) {
  for (std::string_view t : {"onnx::NonZero", "onnx::Unique", "onnx::NonMaxSuppression", "onnx::Compress", "onnx::TopK",
                             "aten.nonzero.default", "aten.unique_consecutive.default", "aten._unique2.default",
                             "aten.masked_select.default", "aten.topk.default"})
    if (target == t) return true;
  return false;
}

template <typename F>
void forEachTensorArg(const std::vector<Argument>& args, F&& f) {
  for (const Argument& a : args) {
    if (a.kind == Argument::Kind::kTensor) f(a.tensor);
    else if (a.kind == Argument::Kind::kList) forEachTensorArg(a.list, f);
  }
}

}  // namespace

// Conversions that are no-ops when the dtype does not change: ORT's CastElimination (basic
// optimizations, on by default) and ExecuTorch's Qualcomm RemoveRedundancy drop them before the
// backend sees the graph (model suite: the attention Casts of llama and qwen2).
bool isConversionTarget(std::string_view target) {
  for (std::string_view t : {"aten.to.dtype", "aten._to_copy.default", "aten.to.dtype_layout", "onnx::Cast"})
    if (target == t) return true;
  return false;
}

// A conversion whose one output has the dtype and shape of its input.
bool isNoOpConversion(const Graph& graph, const Node& node) {
  const Argument* in = firstTensorArg(node);
  if (!in || node.outputs.size() != 1) return false;
  const TensorMeta* m = producedMeta(graph, in->tensor);
  return m && m->dtype == node.outputs[0].dtype && m->shape == node.outputs[0].shape;
}

namespace {

// Live: an output node, or a node some live node uses. Nodes are in topological order, so
// one backward sweep settles every node after its users. A graph without an output node is all live.
std::vector<bool> liveNodes(const Graph& graph, const UserIndex& users, bool hasOutput) {
  const uint32_t n = static_cast<uint32_t>(graph.nodes().size());
  std::vector<bool> live(n, true);
  if (hasOutput) {
    for (uint32_t i = n; i-- > 0;) {
      if (graph.node(i).kind == NodeKind::kOutput) continue;
      bool l = false;
      for (uint32_t u : users.users(i)) l = l || live[u];
      live[i] = l;
    }
  }
  return live;
}

// Per interned target, once: random factory, shape reader, value-shaped op, conversion.
struct TargetClasses {
  std::vector<uint8_t> random, shape, valueShapedOp, conversion;

  explicit TargetClasses(const Graph& graph)
      : random(graph.targets().size()), shape(graph.targets().size()), valueShapedOp(graph.targets().size()),
        conversion(graph.targets().size()) {
    for (size_t t = 0; t < graph.targets().size(); ++t) {
      random[t] = isRandom(graph.targets()[t]);
      shape[t] = readsOnlyShape(graph.targets()[t]);
      valueShapedOp[t] = valueShaped(graph.targets()[t]);
      conversion[t] = isConversionTarget(graph.targets()[t]);
    }
  }
};

// Whether `node` reads tensors and every one of them is shape-static.
bool inputsShapeStatic(const Node& node, const std::vector<uint8_t>& shapeStatic) {
  bool ok = true, any = false;
  forEachTensorArg(node.args, [&](const TensorRef& t) {
    any = true;
    ok = ok && shapeStatic[t.node];
  });
  return ok && any;
}

// Shape-static: every output's shape is known before the graph runs, recorded or implied (the
// inputs' shapes are static and no variable integer tensor — a shape or size computed at run
// time — nor a value-shaped op decides it). ORT's shape inference with constant folding knows
// the same, so it folds a Shape of such a tensor whatever the file recorded (model suite:
// fpn_ssd's Shape of a Resize-fed Add). Settles node i, after its producers.
void settleShape(const Graph& graph, uint32_t i, const TargetClasses& classes, const std::vector<bool>& variable,
                 std::vector<uint8_t>& shapeStatic) {
  const Node& node = graph.node(i);
  if (node.kind == NodeKind::kParameter || node.kind == NodeKind::kConstant) {
    shapeStatic[i] = 1;
    return;
  }
  // The reader found the shape to be a run-time one (TensorMeta::runtimeShape): a Shape of it
  // is computed when the graph runs, whatever else is static.
  for (const TensorMeta& m : node.outputs)
    if (m.runtimeShape) return;
  bool recorded = !node.outputs.empty();
  for (const TensorMeta& m : node.outputs) recorded = recorded && staticShape(m);
  if (recorded || node.kind != NodeKind::kCall) {
    shapeStatic[i] = recorded;
    return;
  }
  if (node.targetId == Node::kNoTarget || classes.valueShapedOp[node.targetId] || !inputsShapeStatic(node, shapeStatic))
    return;
  bool ok = true;
  forEachTensorArg(node.args, [&](const TensorRef& t) {
    const TensorMeta* m = producedMeta(graph, t);
    ok = ok && !(variable[t.node] && m && !isFloatType(m->dtype));
  });
  shapeStatic[i] = ok;
}

// Variable: an input node, a node with a variable producer, or a value the lowering path computes
// when the graph runs (TensorMeta::runtimeValue); one forward sweep, settling shape-static nodes
// on the way (a shape reader of a shape-static tensor is a constant). Without an input node, all
// are variable.
std::vector<bool> variableNodes(const Graph& graph, const UserIndex& users, const TargetClasses& classes, bool hasInput,
                                bool runtimeValues) {
  const uint32_t n = static_cast<uint32_t>(graph.nodes().size());
  std::vector<bool> variable(n, true);
  std::vector<uint8_t> shapeStatic(n, 0);
  if (!hasInput) return variable;
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = graph.node(i);
    if (node.kind == NodeKind::kInput || (node.targetId != Node::kNoTarget && classes.random[node.targetId])) {
      settleShape(graph, i, classes, variable, shapeStatic);
      continue;
    }
    if (node.targetId != Node::kNoTarget && classes.shape[node.targetId] && inputsShapeStatic(node, shapeStatic)) {
      variable[i] = false;
    } else {
      // A value the lowering path computes when the graph runs (TensorMeta::runtimeValue) is
      // variable though its producers are constants: ORT does not fold a node reading a
      // quantized constant (when the path says so: `runtimeValues`).
      bool v = false;
      for (const TensorMeta& m : node.outputs) v = v || (runtimeValues && m.runtimeValue);
      for (uint32_t p : users.producers(i)) v = v || variable[p];
      variable[i] = v;
    }
    settleShape(graph, i, classes, variable, shapeStatic);
  }
  return variable;
}

// The call nodes each pass removes: dead first, then constant, then no-op conversions.
PruneResult prunedCalls(const Graph& graph, const std::vector<bool>& live, const std::vector<bool>& variable,
                        const TargetClasses& classes) {
  const uint32_t n = static_cast<uint32_t>(graph.nodes().size());
  PruneResult r;
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = graph.node(i);
    if (node.kind != NodeKind::kCall) continue;
    if (!live[i]) r.dead.push_back(i);
    else if (!variable[i]) r.constant.push_back(i);
    else if (node.targetId != Node::kNoTarget && classes.conversion[node.targetId] && isNoOpConversion(graph, node))
      r.noOp.push_back(i);
  }
  if (r.empty()) return r;
  r.kind.assign(n, PruneKind::kKept);
  for (uint32_t i : r.dead) r.kind[i] = PruneKind::kDead;
  for (uint32_t i : r.constant) r.kind[i] = PruneKind::kConstant;
  for (uint32_t i : r.noOp) r.kind[i] = PruneKind::kNoOp;
  return r;
}

}  // namespace

PruneResult pruneGraph(const Graph& graph, const UserIndex& users, bool runtimeValues) {
  bool hasInput = false, hasOutput = false;
  for (const Node& node : graph.nodes()) {
    hasInput = hasInput || node.kind == NodeKind::kInput;
    hasOutput = hasOutput || node.kind == NodeKind::kOutput;
  }
  const std::vector<bool> live = liveNodes(graph, users, hasOutput);
  const TargetClasses classes(graph);
  const std::vector<bool> variable = variableNodes(graph, users, classes, hasInput, runtimeValues);
  return prunedCalls(graph, live, variable, classes);
}

}  // namespace qnnrules
