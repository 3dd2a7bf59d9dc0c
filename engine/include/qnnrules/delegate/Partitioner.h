// Splits a validated graph the way a delegate partitioner would: which nodes the backend
// takes, which fall back to CPU, and the partitions (connected groups of delegated nodes
// that do not depend on themselves through a CPU node).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qnnrules/model/DelegationPolicy.h"
#include "qnnrules/delegate/DelegationReport.h"
#include "qnnrules/passes/LoweringRewrites.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/model/Soc.h"
#include "qnnrules/facts/GraphFacts.h"
#include "qnnrules/graph/UserIndex.h"
#include "qnnrules/validate/Validator.h"
#include "qnnrules/passes/Prune.h"

namespace qnnrules {

struct PartitionOptions {
  // The mode, for the report only: a node with validation errors is refused by the backend's
  // op validation in either mode and goes where the lowering path puts it (CPU, or a failed
  // session); warn mode changes the exit code, not the placement.
  bool strict = true;
  // Default: what the backend's policy requires (LPAI: yes).
  std::optional<bool> requireFullDelegation;
  // Default: the policy registered for the rule set's backend.
  const DelegationPolicy* policy = nullptr;
  // Dead nodes are left out (placement none, in no partition); constant nodes follow their
  // users like parameters. Null: every node counts.
  const PruneResult* pruned = nullptr;
  // The run's facts when the caller has them (the engine builds them once for every pass):
  // the graph's user index and the rule of each target. Null: built here.
  const GraphFacts* facts = nullptr;
  // The lowering path: which refused nodes fail the whole session instead of falling back.
  // Null: every refused node falls back to CPU.
  const BoundLowering* lowering = nullptr;
  // Per node, what the lowering path's rank-6 Reshape/Transpose chains make of it
  // (passes/RankFusion.h): a node whose chain fails composition is delegated and fails the session.
  // Null or empty: no chains.
  const std::vector<uint8_t>* rankChains = nullptr;
  // Nodes an output of which is quantized with a scale that is not a finite number
  // (QdqFoldResult::nonFiniteScaleProducers): on the backend, they fail the session when the
  // backend's manifest says so (BackendManifest::nonFiniteScales). Null: none.
  const std::vector<uint32_t>* nonFiniteScaleNodes = nullptr;
};

// `validation` must be validateGraph's result for this graph and rule set before applyMode,
// so errors still read as errors; the partitioner reuses its per-node diagnostics.
DelegationReport partitionGraph(const Graph& graph, const RuleSet& rules, const SocInfo& soc,
                                const ValidationResult& validation, const PartitionOptions& options = {});

}  // namespace qnnrules
