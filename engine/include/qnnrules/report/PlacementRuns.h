// The delegation as runs of consecutive compute nodes (graph order) with one placement: what
// the partition picture of the HTML report draws, and what the JSON report's
// "placement_runs" lists. A 30,000-node decoder is a few dozen runs, not 30,000 marks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "qnnrules/delegate/DelegationReport.h"

namespace qnnrules {

struct PlacementRun {
  Placement placement = Placement::kDelegated;  // kDelegated or kCpu
  int32_t partition = -1;                       // for kDelegated
  size_t computeNodes = 0;
  uint32_t first = 0;                           // node indices of the run's first and last compute node
  uint32_t last = 0;
};

std::vector<PlacementRun> placementRuns(const DelegationReport& delegation);

}  // namespace qnnrules
