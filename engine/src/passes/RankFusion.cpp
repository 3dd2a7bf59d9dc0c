#include "qnnrules/passes/RankFusion.h"

#include <string_view>

namespace qnnrules {
namespace {

bool isReshape(std::string_view t) { return t == "aten.reshape.default" || t == "aten.view.default"; }

const std::vector<int64_t>* outputShape(const Graph& g, uint32_t node) {
  const Node& n = g.node(node);
  return n.outputs.empty() ? nullptr : &n.outputs[0].shape;
}

const std::vector<int64_t>* inputShape(const Graph& g, const Node& n) {
  if (n.args.empty() || n.args[0].kind != Argument::Kind::kTensor) return nullptr;
  const Node& p = g.node(n.args[0].tensor.node);
  return n.args[0].tensor.output < p.outputs.size() ? &p.outputs[n.args[0].tensor.output].shape : nullptr;
}

// The permutation of a Transpose read from ONNX (its `perm` attribute) or of aten.permute's dims.
std::vector<int64_t> permutationOf(const Node& n) {
  std::vector<int64_t> perm;
  const Argument* a = nullptr;
  for (const auto& [name, value] : n.kwargs)
    if (name == "perm") a = &value;
  if (!a && n.args.size() > 1) a = &n.args[1];
  if (!a || a->kind != Argument::Kind::kList) return perm;
  for (const Argument& x : a->list) {
    if (x.kind != Argument::Kind::kInt) return {};
    perm.push_back(x.i);
  }
  return perm;
}

}  // namespace

std::vector<uint8_t> rank6ReshapeTransposeChains(const GraphFacts& facts) {
  const Graph& g = facts.graph();
  std::vector<uint8_t> out;
  std::vector<uint8_t> claimed;  // nodes of a chain found earlier
  for (uint32_t t = 0; t < g.nodes().size(); ++t) {
    const Node& tn = g.node(t);
    if (tn.kind != NodeKind::kCall || tn.targetId == Node::kNoTarget || g.target(tn) != "aten.permute.default") continue;
    if (tn.args.empty() || tn.args[0].kind != Argument::Kind::kTensor) continue;
    const uint32_t r1 = tn.args[0].tensor.node;
    const Node& r1n = g.node(r1);
    if (r1n.kind != NodeKind::kCall || r1n.targetId == Node::kNoTarget || !isReshape(g.target(r1n))) continue;
    // Each intermediate tensor has one user and is no graph output (GetChildNodeUnit).
    if (facts.users().users(r1).size() != 1) continue;
    const auto users = facts.users().users(t);
    if (users.size() != 1) continue;
    const uint32_t r2 = users[0];
    const Node& r2n = g.node(r2);
    if (r2n.kind != NodeKind::kCall || r2n.targetId == Node::kNoTarget || !isReshape(g.target(r2n))) continue;
    const std::vector<int64_t>* t1 = outputShape(g, r1);
    const std::vector<int64_t>* t2 = outputShape(g, t);
    const std::vector<int64_t> perm = permutationOf(tn);
    if (!t1 || !t2 || t1->size() != 6 || t2->size() != 6 || perm.size() != 6) continue;
    bool unitInPlace = false;
    for (size_t i = 0; i < 6 && !unitInPlace; ++i) unitInPlace = (*t1)[i] == 1 && (*t2)[i] == 1 && perm[i] == static_cast<int64_t>(i);
    if (!unitInPlace) continue;
    // The EP claims the nodes of a chain in graph order: a Reshape that ends one chain does not
    // start another (MaxViT's departition Reshape that is also the next grid partition's).
    if (!claimed.empty() && (claimed[r1] || claimed[t] || claimed[r2])) continue;
    if (out.empty()) {
      out.assign(g.nodes().size(), kRankChainNone);
      claimed.assign(g.nodes().size(), 0);
    }
    claimed[r1] = claimed[t] = claimed[r2] = 1;
    const std::vector<int64_t>* t0 = inputShape(g, r1n);
    const std::vector<int64_t>* t3 = outputShape(g, r2);
    if (!t0 || t0->size() > 5) continue;  // refused at the first node: each node is judged alone
    if (t3 && t3->size() <= 5) {
      out[r1] = out[t] = out[r2] = kRankChainFused;
    } else {
      out[r1] = out[t] = kRankChainCompositionFails;  // the last Reshape keeps its rank-6 refusal
    }
  }
  return out;
}

}  // namespace qnnrules
