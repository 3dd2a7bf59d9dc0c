// The encodings a lowering path changes before the backend sees them (rules/lowering/*.yaml,
// rules/Lowering.h): applied to the graph after folding, binding and annotation and before
// validation, so the rules judge what the backend will be handed, not what the file says.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {

// A rewrite bound to one rule of a backend: port names resolved to the rule's port indices.
struct BoundRewrite {
  const LoweringRewrite* rewrite = nullptr;
  uint32_t rule = 0;                                 // index into RuleSet::rules()
  int port = -1;                                     // the port it changes
  std::vector<std::pair<int, QnnDatatype>> when;     // port index -> datatype it must carry
  std::vector<std::pair<int, bool>> readsStatic;     // port index -> must read a static tensor (or not)
  std::vector<int> scalesDiffer;                     // port indices whose scales must differ
  std::vector<std::string> targets;                  // the rule's targets it applies to; empty: all
  int encodingOf = -1;                               // the port whose encoding `port` takes; -1: none
};

// A path's rewrites bound to a backend's rules, once per engine. A rewrite naming a rule the
// backend does not have is skipped (paths are shared by backends); one naming a port that
// rule does not declare is an error at the rewrite's file:line.
struct BoundLowering {
  const LoweringPath* path = nullptr;
  std::vector<BoundRewrite> rewrites;
  // Per rule index: whether a refusal of it fails the session (LoweringPath::sessionFailureOnnxOps).
  std::vector<uint8_t> sessionFailureRule;
  // The rules of this backend among LoweringPath::numberOperandFloatRules (others' ids are skipped:
  // paths are shared by backends).
  std::vector<const Rule*> numberOperandFloatRules;
};
BoundLowering bindLowering(const LoweringPath& path, const RuleSet& rules, DiagnosticList& errors);

// Changes the specs of the matching ports in place: a shared port gets a concrete copy of the
// spec it resolves to, changed (only that port sees the change, as a Convert the path inserts).
// Returns the rewrites that changed something, in the path's order (AppliedRewrite: model/Lowering.h).
std::vector<AppliedRewrite> applyLoweringRewrites(Graph& graph, const RuleSet& rules, const BoundLowering& lowering);

}  // namespace qnnrules
