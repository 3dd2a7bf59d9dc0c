// Delegation policies from backend manifests. A backend whose manifest says nothing about
// delegation (HTP, GPU) gets the neutral policy.
#include "BoundaryConversionPolicy.h"

namespace qnnrules {
namespace {

class NeutralPolicy final : public DelegationPolicy {
 public:
  std::string_view backend() const override { return ""; }
  std::vector<PolicyPlacement> cpuNodes(const Graph&, const UserIndex&) const override { return {}; }
  std::vector<PolicyPlacement> cpuConversions(const Graph&, const UserIndex&) const override { return {}; }
  bool requiresFullDelegation() const override { return false; }
};

}  // namespace

std::shared_ptr<const DelegationPolicy> makeDelegationPolicy(const BackendManifest* manifest) {
  if (!manifest || !manifest->delegation.any()) {
    static const auto neutral = std::make_shared<const NeutralPolicy>();
    return neutral;
  }
  return std::make_shared<const backends::BoundaryConversionPolicy>(manifest->backend, manifest->delegation);
}

}  // namespace qnnrules
