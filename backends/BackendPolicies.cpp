// Delegation policies registered by backend name. A backend with nothing to say that rules
// cannot say (HTP, GPU) gets the neutral policy.
#include <array>
#include <utility>

#include "lpai/LpaiPolicy.h"

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

const DelegationPolicy& delegationPolicyFor(std::string_view backend) {
  static const backends::LpaiPolicy lpai;
  static const NeutralPolicy neutral;
  static const std::array<const DelegationPolicy*, 1> registered = {&lpai};
  for (const DelegationPolicy* p : registered)
    if (p->backend() == backend) return *p;
  return neutral;
}

}  // namespace qnnrules
