// LPAI delegation policy (ExecuTorch LpaiPartitionFallbackSupport): LPAI's own Quantize and
// Dequantize are less accurate than the CPU's, so the quantize of a graph input and the
// dequantize of a graph output stay on CPU; and lowering needs the graph fully delegated.
#pragma once

#include "qnnrules/delegate/DelegationPolicy.h"

namespace qnnrules::backends {

class LpaiPolicy final : public DelegationPolicy {
 public:
  std::string_view backend() const override { return "lpai"; }
  std::vector<PolicyPlacement> cpuNodes(const Graph& graph, const UserIndex& users) const override;
  std::vector<PolicyPlacement> cpuConversions(const Graph& graph, const UserIndex& users) const override;
  bool requiresFullDelegation() const override { return true; }
};

}  // namespace qnnrules::backends
