// What a backend decides about delegation beyond its rules: nodes it keeps on CPU whatever the
// rules say, and whether it needs the whole graph in one partition. Written as data in the
// backend's manifest (rules/<backend>/backend.yaml, `delegation`), so a new backend needs no
// engine code; the policy that reads it lives in backends/.
#pragma once

#include <cstdint>
#include <memory>
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

struct BackendManifest;

// The policy a manifest's `delegation` facts describe, or a neutral one (keeps nothing on CPU,
// partial delegation allowed) when the manifest is null or says nothing. Never null.
std::shared_ptr<const DelegationPolicy> makeDelegationPolicy(const BackendManifest* manifest);

}  // namespace qnnrules
