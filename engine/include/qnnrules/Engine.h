// The embedding API: open an engine for (backend, SoC, mode, rule paths) once, then
// validate graphs. Construction reports ok() instead of throwing.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qnnrules/annotate/Annotator.h"
#include "qnnrules/delegate/BackendOptions.h"
#include "qnnrules/delegate/DelegationReport.h"
#include "qnnrules/report/Diagnostic.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/rules/RuleRegistry.h"
#include "qnnrules/validate/Validator.h"

namespace qnnrules {

struct EngineOptions {
  std::string backend = "htp";
  std::string soc = "SM8750";                    // the reference quantizer's default
  Mode mode = Mode::kStrict;
  std::vector<std::filesystem::path> ruleDirs;   // overlays, after QNNRULES_PATH
  bool useEnvironment = true;
  std::filesystem::path builtinRulesDir;         // empty: discover
  ValidateOptions validate;
  // Backend options as "name=value", checked against backend_options.yaml (last one in the
  // search path wins per option); a bad one makes the engine not ok().
  std::vector<std::string> backendOptions;
  std::optional<bool> requireFullDelegation;     // default: the backend's policy (LPAI: required)
};

// A graph's validation (mode applied) and the delegation report built from it, in terms of
// the graph that was analysed: node indices of `delegation` refer to `graph`, which is the
// QDQ-folded copy for a QDQ graph (owned here) or else the caller's graph itself (borrowed:
// valid while the caller's graph lives). Format the report with delegationText/Json, never
// against the graph that was passed in.
struct GraphAnalysis {
  ValidationResult validation;
  DelegationReport delegation;
  std::shared_ptr<const Graph> graph;
  size_t qdqNodesFolded = 0;  // quantize + dequantize nodes folded into port encodings

  std::string delegationText() const;  // formatDelegationText(*graph, delegation)
  std::string delegationJson() const;  // formatDelegationJson(*graph, delegation)
};

class Engine {
 public:
  explicit Engine(EngineOptions options);

  bool ok() const { return status_.isOk(); }
  const Status& status() const { return status_; }
  const DiagnosticList& loadErrors() const { return loadErrors_; }

  const EngineOptions& options() const { return options_; }
  const RuleSet& rules() const { return *rules_; }   // requires ok()
  const SocInfo& soc() const { return soc_; }        // requires ok()
  RuleRegistry& registry() { return *registry_; }
  // The rule directories this engine reads, in search order (built-in first, then
  // QNNRULES_PATH, then the overlays), as reports print them (displayPath).
  std::vector<std::string> ruleDirs() const;

  // Validates and applies the mode (warn mode downgrades errors to warnings). Like analyze, a
  // QDQ graph is folded first, and dead and constant nodes (passes/Prune.h) are not checked.
  ValidationResult validate(const Graph& graph) const;

  // Annotates `graph` in place from a quantization config (and an optional recipe), following
  // this backend's rules; validate() afterwards. On a bad config or recipe the result's status
  // says why and the graph is untouched.
  AnnotateResult annotate(Graph& graph, const AnnotateOptions& options) const;

  // Folds a QDQ graph, prunes dead and constant nodes (passes/Prune.h), validates, checks
  // quantization parameters (passes/NumericChecks.h), partitions as the backend's delegate
  // would (strict mode: invalid nodes fall back to CPU), then applies the mode.
  GraphAnalysis analyze(const Graph& graph) const;
  // Every option of the backend with its value (the user's, else the default); requires ok().
  const std::vector<ResolvedOption>& backendOptions() const { return backendOptions_; }

 private:
  EngineOptions options_;
  Status status_;
  DiagnosticList loadErrors_;
  std::unique_ptr<RuleRegistry> registry_;
  std::shared_ptr<const RuleSet> rules_;
  SocInfo soc_;
  Status resolveBackendOptions();
  std::shared_ptr<const BackendOptionTable> optionTable_;  // backendOptions_ point into it
  std::vector<ResolvedOption> backendOptions_;
};

}  // namespace qnnrules
