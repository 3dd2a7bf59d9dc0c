#include "qnnrules/io/OnnxBinding.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace qnnrules {
namespace {

constexpr std::string_view kOnnxPrefix = "onnx::";

// The candidates of each interned target, looked up once per distinct target.
std::vector<const std::vector<OnnxCandidate>*> candidatesByTarget(const Graph& g, const RuleSet& rules) {
  std::vector<const std::vector<OnnxCandidate>*> out(g.targets().size(), nullptr);
  for (size_t t = 0; t < g.targets().size(); ++t) {
    std::string_view s = g.targets()[t];
    // Default-domain ops are keyed by op type; other domains by "<domain>::<op>", as the reader
    // interns them (com.microsoft::Gelu).
    if (s.substr(0, kOnnxPrefix.size()) == kOnnxPrefix) out[t] = rules.onnxCandidates(s.substr(kOnnxPrefix.size()));
    else if (s.find("::") != std::string_view::npos) out[t] = rules.onnxCandidates(s);
  }
  return out;
}

bool isConstantArg(const Graph& g, const Node& n, size_t i) {
  if (i >= n.args.size() || n.args[i].kind != Argument::Kind::kTensor) return false;
  NodeKind k = g.node(n.args[i].tensor.node).kind;
  return k == NodeKind::kParameter || k == NodeKind::kConstant;
}

bool isActivationArg(const Graph& g, const Node& n, size_t i) {
  return i < n.args.size() && n.args[i].kind == Argument::Kind::kTensor && !isConstantArg(g, n, i);
}

bool matches(const Graph& g, const Node& n, const OnnxMapping& m) {
  if (!m.ranks.empty()) {
    if (n.args.empty() || n.args[0].kind != Argument::Kind::kTensor) return false;
    const TensorRef& t = n.args[0].tensor;
    const Node& p = g.node(t.node);
    if (t.output >= p.outputs.size()) return false;
    const int rank = static_cast<int>(p.outputs[t.output].shape.size());
    if (std::find(m.ranks.begin(), m.ranks.end(), rank) == m.ranks.end()) return false;
  }
  for (int i : m.constantInputs)
    if (!isConstantArg(g, n, static_cast<size_t>(i))) return false;
  for (int i : m.activationInputs)
    if (!isActivationArg(g, n, static_cast<size_t>(i))) return false;
  return true;
}

// ONNX inputs -> the argument positions of the rule's ports.
void rebind(Node& n, const Rule& rule, const OnnxCandidate& c) {
  size_t width = 0;
  for (int p : c.portOf)
    if (p >= 0) width = std::max(width, static_cast<size_t>(rule.ports[static_cast<size_t>(p)].index) + 1);
  std::vector<Argument> onnxArgs = std::move(n.args);
  n.args.assign(width, Argument{});
  std::vector<Argument> unbound;
  for (size_t i = 0; i < onnxArgs.size(); ++i) {
    const bool rest = c.lastTakesRest && i + 1 >= c.portOf.size();
    int p = i < c.portOf.size() ? c.portOf[i] : (rest ? c.portOf.back() : -1);
    if (p < 0) {
      unbound.push_back(std::move(onnxArgs[i]));
      continue;
    }
    const PortDecl& port = rule.ports[static_cast<size_t>(p)];
    Argument& slot = n.args[static_cast<size_t>(port.index)];
    if (rest) {
      slot.kind = Argument::Kind::kList;  // like aten.cat's tensor list
      slot.list.push_back(std::move(onnxArgs[i]));
    } else {
      slot = std::move(onnxArgs[i]);
    }
  }
  // Inputs no port names (Reshape's shape, Clip's bounds) follow the ports: not checked, but
  // still edges of the graph, so partitions stay connected through them.
  for (Argument& a : unbound) n.args.push_back(std::move(a));
}

// How many argument slots (list elements included) read each node.
std::vector<uint32_t> useCounts(const Graph& g) {
  std::vector<uint32_t> uses(g.nodes().size(), 0);
  auto count = [&](const Argument& a, auto& self) -> void {
    if (a.kind == Argument::Kind::kTensor && a.tensor.node < uses.size()) ++uses[a.tensor.node];
    for (const Argument& e : a.list) self(e, self);
  };
  for (const Node& n : g.nodes()) {
    for (const Argument& a : n.args) count(a, count);
    for (const auto& kw : n.kwargs) count(kw.second, count);
  }
  return uses;
}

int64_t intKwarg(const Node& n, std::string_view name, int64_t fallback) {
  for (const auto& [k, v] : n.kwargs)
    if (k == name && v.kind == Argument::Kind::kInt) return v.i;
  return fallback;
}

// Gemm with transB=0 (ONNX's default) holds B as [K, N]. ONNX Runtime's QNN EP transposes a
// constant B, and its per-channel axis with it, before building FullyConnected
// (onnxruntime/onnxruntime-qnn .../opbuilder/gemm_op_builder.cc), so the weight port sees
// [N, K] with the channels on axis 0, as an ATen linear weight (conformance cases
// linear_kn/<config>/<SoC>). The constant is rewritten only when this Gemm is its one reader.
void transposeConstantB(Graph& g, Argument& w, const std::vector<uint32_t>& uses) {
  if (w.kind != Argument::Kind::kTensor) return;
  Node& p = g.mutableNodes()[w.tensor.node];
  if ((p.kind != NodeKind::kParameter && p.kind != NodeKind::kConstant) || uses[w.tensor.node] != 1 ||
      w.tensor.output >= p.outputs.size())
    return;
  TensorMeta& m = p.outputs[w.tensor.output];
  if (m.shape.size() != 2) return;
  auto flip = [](QuantSpec& q) {
    if (q.chAxis && q.blockSize.empty() && *q.chAxis >= 0 && *q.chAxis <= 1) q.chAxis = 1 - *q.chAxis;
  };
  if (w.qspec) flip(*w.qspec);
  if (m.qspec) flip(*m.qspec);
  std::swap(m.shape[0], m.shape[1]);
}

}  // namespace

bool needsOnnxBinding(const Graph& graph, const RuleSet& rules) {
  for (const auto* c : candidatesByTarget(graph, rules))
    if (c) return true;
  return false;
}

size_t bindOnnxOps(Graph& graph, const RuleSet& rules) {
  // The onnx:: targets are bound away below: the graph keeps where it came from.
  graph.source = GraphSource::kOnnx;
  const auto candidates = candidatesByTarget(graph, rules);
  std::unordered_map<const OnnxCandidate*, uint32_t> targetOf;
  std::unordered_map<const OnnxCandidate*, bool> gemmEntry;  // per entry, not per node
  std::vector<uint32_t> uses;  // filled on the first Gemm with transB=0
  size_t bound = 0;
  for (Node& n : graph.mutableNodes()) {
    if (n.kind != NodeKind::kCall || n.targetId >= candidates.size() || !candidates[n.targetId]) continue;
    for (const OnnxCandidate& c : *candidates[n.targetId]) {
      const Rule& rule = rules.rules()[c.rule];
      if (!matches(graph, n, rule.onnx[c.mapping])) continue;
      auto [slot, fresh] = targetOf.try_emplace(&c, Node::kNoTarget);
      if (fresh) slot->second = graph.internTarget(c.target);  // once per entry, not per node
      if (n.sourceId == Node::kNoTarget) n.sourceId = n.targetId;  // the user's op type, for every report
      n.targetId = slot->second;
      auto [gemm, firstSeen] = gemmEntry.try_emplace(&c, false);
      if (firstSeen) gemm->second = rule.onnx[c.mapping].opType == "Gemm" && c.portOf.size() > 1 && c.portOf[1] >= 0;
      const bool gemmKN = gemm->second && n.args.size() > 1 && intKwarg(n, "transB", 0) == 0;
      if (gemmKN) {
        if (uses.empty()) uses = useCounts(graph);
        transposeConstantB(graph, n.args[1], uses);
      }
      rebind(n, rule, c);
      ++bound;
      break;
    }
  }
  return bound;
}

}  // namespace qnnrules
