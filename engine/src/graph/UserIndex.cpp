#include "qnnrules/graph/UserIndex.h"


namespace qnnrules {
namespace {

// Calls f(producer) for every tensor reference in a node's args and kwargs (lists included).
template <typename F>
void forEachTensor(const Node& n, F&& f) {
  auto visit = [&](const Argument& a, auto&& self) -> void {
    if (a.kind == Argument::Kind::kTensor) f(a.tensor.node);
    if (a.kind == Argument::Kind::kList)
      for (const Argument& e : a.list) self(e, self);
  };
  for (const Argument& a : n.args) visit(a, visit);
  for (const auto& kv : n.kwargs) visit(kv.second, visit);
}

}  // namespace

UserIndex::UserIndex(const Graph& graph) {
  const size_t n = graph.nodes().size();
  graphOutput_.assign(n, 0);
  producerOffsets_.assign(n + 1, 0);
  std::vector<uint32_t> scratch;
  // lastUser[p] == i once p is in node i's producer list: de-duplication in O(1) per edge, so a
  // node with 100k arguments (a wide cat, the graph outputs) costs 100k steps, not 100k^2.
  std::vector<uint32_t> lastUser(n, UINT32_MAX);
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = graph.node(i);
    scratch.clear();
    forEachTensor(node, [&](uint32_t p) {
      if (p < n && lastUser[p] != i) {
        lastUser[p] = i;
        scratch.push_back(p);
      }
    });
    producers_.insert(producers_.end(), scratch.begin(), scratch.end());
    producerOffsets_[i + 1] = static_cast<uint32_t>(producers_.size());
    if (node.kind == NodeKind::kOutput)
      for (uint32_t p : scratch) graphOutput_[p] = 1;
  }
  // Users are the producer lists transposed: count, prefix-sum, fill (graph order preserved).
  offsets_.assign(n + 1, 0);
  for (uint32_t p : producers_) ++offsets_[p + 1];
  for (size_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
  users_.resize(producers_.size());
  std::vector<uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = producerOffsets_[i]; k < producerOffsets_[i + 1]; ++k) users_[fill[producers_[k]]++] = i;
}

}  // namespace qnnrules
