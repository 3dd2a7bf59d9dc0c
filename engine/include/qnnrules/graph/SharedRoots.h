// The one resolver of shared_with chains: the concrete spec a (possibly shared) spec resolves
// to, or why there is none (a cycle, a dead end). Memoized per spec, so resolving every port of
// a graph is linear in the graph however long its chains of encoding-sharing views are; no
// step limit, so a chain of 10,000 views resolves like a chain of one.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "qnnrules/graph/Graph.h"

namespace qnnrules {

// How a shared reference chain ended.
enum class Resolution : uint8_t { kConcrete, kUnannotated, kCycle, kUnresolved };

struct Resolved {
  Resolution how = Resolution::kUnannotated;
  const QuantSpec* root = nullptr;  // the concrete spec (kConcrete only)
};

// Not thread-safe: one per graph per run (the memo fills as ports are resolved). The graph must
// not change while it is in use.
class SharedRoots {
 public:
  explicit SharedRoots(const Graph& g) : g_(g) {}

  // The concrete spec `spec` resolves to; kUnannotated for a null spec, kCycle or kUnresolved
  // for a chain that does not end at a spec.
  Resolved resolve(const QuantSpec* spec) const;
  // The concrete spec a tensor argument carries: its own spec, else its producer's output's,
  // resolved; null when neither ends at a concrete spec.
  const QuantSpec* concreteSpecOf(const Argument& a) const;

 private:
  const QuantSpec* edgeSpec(const SharedRef& ref) const;

  const Graph& g_;
  mutable std::vector<const QuantSpec*> path_;
  mutable std::unordered_map<const QuantSpec*, Resolved> memo_;
};

}  // namespace qnnrules
