#include "qnnrules/report/PlacementRuns.h"

namespace qnnrules {

std::vector<PlacementRun> placementRuns(const DelegationReport& delegation) {
  std::vector<PlacementRun> runs;
  for (size_t i = 0; i < delegation.nodes.size(); ++i) {
    const NodeDelegation& n = delegation.nodes[i];
    if (n.role != NodeRole::kCompute || n.placement == Placement::kNone) continue;
    const int32_t partition = n.placement == Placement::kDelegated ? n.partition : -1;
    const auto index = static_cast<uint32_t>(i);
    if (!runs.empty() && runs.back().placement == n.placement && runs.back().partition == partition) {
      ++runs.back().computeNodes;
      runs.back().last = index;
    } else {
      runs.push_back(PlacementRun{n.placement, partition, 1, index, index});
    }
  }
  return runs;
}

}  // namespace qnnrules
