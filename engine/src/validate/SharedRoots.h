// Resolves shared_with references to the concrete spec at the end of the chain, memoized per
// spec so that long reshape chains resolve in linear time over the graph. Internal.
#pragma once

#include <unordered_map>
#include <vector>

#include "BoundTensor.h"
#include "qnnrules/graph/Graph.h"

namespace qnnrules {

class SharedRoots {
 public:
  explicit SharedRoots(const Graph& g) : g_(g) { memo_.reserve(g.nodes().size() * 2); }

  // The concrete spec `spec` resolves to; kUnannotated for a null spec, kCycle or kUnresolved
  // for a chain that does not end at a spec.
  Resolved resolve(const QuantSpec* spec);

 private:
  const QuantSpec* edgeSpec(const SharedRef& ref) const;

  const Graph& g_;
  std::vector<const QuantSpec*> path_;
  std::unordered_map<const QuantSpec*, Resolved> memo_;
};

}  // namespace qnnrules
