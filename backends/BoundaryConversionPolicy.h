// The delegation policy a manifest's `delegation` facts describe (ExecuTorch's
// LpaiPartitionFallbackSupport for LPAI): the quantize of a graph input and the dequantize of
// a graph output stay on CPU when the backend's own conversions are less accurate, and
// lowering may need the whole graph in one partition.
#pragma once

#include <string>

#include "qnnrules/model/DelegationPolicy.h"
#include "qnnrules/model/BackendManifest.h"

namespace qnnrules::backends {

class BoundaryConversionPolicy final : public DelegationPolicy {
 public:
  BoundaryConversionPolicy(std::string backend, DelegationFacts facts);

  std::string_view backend() const override { return backend_; }
  std::vector<PolicyPlacement> cpuNodes(const Graph& graph, const UserIndex& users) const override;
  std::vector<PolicyPlacement> cpuConversions(const Graph& graph, const UserIndex& users) const override;
  bool requiresFullDelegation() const override { return facts_.requireFullDelegation; }

 private:
  std::string backend_;
  std::string displayName_;  // "LPAI": the backend name as sentences write it
  DelegationFacts facts_;
};

}  // namespace qnnrules::backends
