// Checks every node of a graph against a backend's rules for one SoC, and reports every
// violation of every node. It never stops at the first problem and never throws.
#pragma once

#include <cstdint>
#include <vector>

#include "qnnrules/core/Diagnostic.h"

namespace qnnrules {

// Named by reference only: the result and options are all an embedder sees (Engine.h).
class Graph;
class GraphFacts;
class RuleSet;
struct Rule;
struct SocInfo;

enum class Mode : uint8_t {
  kStrict,  // violations are errors: exit 1, exception in bindings
  kWarn,    // violations are reported as warnings: exit 0
};

struct ValidateOptions {
  double scaleRelTolerance = 1e-5;  // |actual - fixed| <= tol * fixed
  // Per node, nonzero: not checked (dead or constant nodes, passes/Prune.h). Empty: all.
  std::vector<uint8_t> skipNodes;
  // Per node, nonzero: the lowering path lowers the node at a lower rank than the graph's (ORT's
  // rank-6 Reshape/Transpose fusion, passes/RankFusion.h), so rank limits are not checked on it.
  std::vector<uint8_t> rankExempt;
  // Rules whose Python-number operands the lowering path hands QNN as unquantized float32
  // tensors (LoweringPath::numberOperandFloatRules): such a number is bound on its input port.
  std::vector<const Rule*> numberOperandFloatRules;
};

struct ValidationResult {
  DiagnosticList diagnostics;
  size_t nodesChecked = 0;   // call nodes looked at
  size_t nodesWithRule = 0;
  size_t errorCount() const { return countSeverity(diagnostics, Severity::kError); }
  size_t warningCount() const { return countSeverity(diagnostics, Severity::kWarning); }
  bool ok() const { return errorCount() == 0; }
};

ValidationResult validateGraph(const Graph& graph, const RuleSet& rules, const SocInfo& soc,
                               const ValidateOptions& options = {});
// The same over the run's facts (the engine builds them once and shares them with every pass).
ValidationResult validateGraph(const GraphFacts& facts, const SocInfo& soc, const ValidateOptions& options = {});

// Warn mode: every error becomes a warning. Checks are the same in both modes.
void applyMode(ValidationResult& result, Mode mode);

}  // namespace qnnrules
