// One run of the engine's pipeline and everything it found, as one value:
//   read -> fold Q/DQ (and bind ONNX ops) -> annotate (optional) -> prune -> validate ->
//   numeric checks -> partition -> mode -> encodings (optional).
// Engine::run computes it once; every front end (qnn-validate, the C++ API, the Python
// package) only chooses RunOptions and renders the report (pipeline/RunReportFormat.h).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qnnrules/annotate/Annotator.h"
#include "qnnrules/annotate/Encodings.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/Status.h"
#include "qnnrules/delegate/DelegationReport.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/BackendOptions.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/model/Soc.h"
#include "qnnrules/pipeline/PhaseTimes.h"
#include "qnnrules/validate/Validator.h"

namespace qnnrules {

struct BaselineComparison;  // report/Baseline.h
class RuleSet;              // model/RuleSet.h: the rule table stays internal

struct RunOptions {
  // The graph file to read (any format readGraphFile knows); ignored by Engine::run(Graph, ...).
  std::filesystem::path graphPath;
  // Annotate before validating (--annotate, --recipe, --explain-node); the annotated graph is
  // the report's graph.
  std::optional<AnnotateOptions> annotate;
  // Compute encodings from the graph's statistics after a run that did not fail (--encodings).
  bool computeEncodings = false;
  // Stop after validation: no delegation report (Engine::validate).
  bool partition = true;
};

// Where a run stopped before validating, when it did (the JSON error's "kind").
enum class RunStage : uint8_t {
  kNone,           // it did not stop
  kRules,          // the engine did not open: rule files, SoC table, unknown SoC or backend
  kBackendOption,  // the engine did not open: bad --backend-option settings
  kGraph,          // the graph could not be read or folded
  kAnnotation,     // the quantization config or recipe is bad
};
std::string_view runStageName(RunStage s);  // "", "rules", "backend-option", "graph", "annotation"

struct RunReport {
  // --- how the run was set up ---
  std::string graphPath;                 // as given (empty for an in-memory graph)
  std::string backend;
  SocInfo soc;
  bool socDefaulted = false;             // the SoC was not chosen (the summary line says so)
  Mode mode = Mode::kStrict;
  std::vector<std::string> ruleDirs;     // search order, as displayPath prints them
  std::vector<ResolvedOption> backendOptions;
  std::shared_ptr<const BackendOptionTable> optionTable;  // keeps backendOptions' specs alive
  std::shared_ptr<const RuleSet> rules;  // the rules that judged the graph (digest, SARIF rule help)
  // The lowering path the graph was judged for (rules/lowering/), set once the graph is read;
  // defaulted: chosen by the graph's source, not by the user.
  std::shared_ptr<const LoweringPath> lowering;
  bool loweringDefaulted = true;

  // --- where it stopped, if it did (then nothing below is filled in) ---
  Status status;
  RunStage stoppedAt = RunStage::kNone;
  DiagnosticList stageErrors;            // the file:line:column errors behind `status`

  // --- what it found ---
  // The graph that was validated and partitioned: folded, bound and annotated as asked. Node
  // indices of `delegation` refer to it. Owned, or the caller's graph when no pass changed it.
  std::shared_ptr<const Graph> graph;
  size_t qdqNodesFolded = 0;             // quantize + dequantize nodes folded into port encodings
  // The encodings the lowering path changed before validation, per rewrite (the path's order).
  std::vector<AppliedRewrite> rewrites;
  // No-op conversions the path removed and merged the encodings across (passes/EncodingMerge.h).
  size_t mergedConversions = 0;
  // Nodes the path hands the backend as float32, not grouped with their Q/DQ nodes (passes/QdqGrouping.h).
  size_t floatUngroupedNodes = 0;
  std::optional<AnnotateResult> annotation;  // its diagnostics are in `validation`
  // Every diagnostic in report order (fold, annotation, rules, quantization parameters) with
  // the mode applied, and the counts.
  ValidationResult validation;
  DelegationReport delegation;           // empty when RunOptions::partition was false
  std::optional<EncodingsResult> encodings;  // computed when asked and the run did not fail
  PhaseTimes times;
  // With a baseline (qnn-validate --baseline, report/Baseline.h): the findings it already had,
  // moved out of `validation` (which keeps the new ones, so the verdict and exit code are the
  // new findings'), and the baseline's findings this run no longer has.
  std::shared_ptr<const BaselineComparison> baseline;

  bool ok() const { return status.isOk(); }
  // Strict mode with an error, or full delegation required and not satisfied: exit 1.
  bool failed() const { return mode == Mode::kStrict && (!validation.ok() || !delegation.ok()); }
  bool valid() const { return !failed() && validation.ok(); }
  // The name reports use for the graph: the path as given, else the graph's own name.
  std::string graphLabel() const;
};

}  // namespace qnnrules
