// What a backend decides about delegation that cannot be written as rule data: nodes it keeps
// on CPU whatever the rules say, and whether it needs the whole graph in one partition.
// Implementations live in backends/<name>/ and are found by backend name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/graph/UserIndex.h"

namespace qnnrules {

// A node a backend keeps on CPU, and why (one sentence).
struct PolicyPlacement {
  uint32_t node = 0;
  std::string reason;
};

class DelegationPolicy {
 public:
  virtual ~DelegationPolicy() = default;
  virtual std::string_view backend() const = 0;
  // Call nodes the backend keeps on CPU even when a rule supports them. Called once per
  // graph; implementations classify each distinct target once, not each node.
  virtual std::vector<PolicyPlacement> cpuNodes(const Graph& graph, const UserIndex& users) const = 0;
  // Conversions at the graph boundary that the backend leaves to CPU in an annotated graph
  // (one without explicit Q/DQ nodes): `node` is the graph input, or the node whose output is
  // a graph output.
  virtual std::vector<PolicyPlacement> cpuConversions(const Graph& graph, const UserIndex& users) const = 0;
  // Whether lowering fails unless the graph is one partition with no compute on CPU.
  virtual bool requiresFullDelegation() const = 0;
};

// The policy registered for `backend`, or a neutral one (keeps nothing on CPU, partial
// delegation allowed) when the backend registers none. Never null; lives for the program.
const DelegationPolicy& delegationPolicyFor(std::string_view backend);

}  // namespace qnnrules
