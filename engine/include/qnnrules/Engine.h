// The embedding API: open an engine for (backend, SoC, mode, rule paths) once, then
// validate graphs. Construction reports ok() instead of throwing.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// What the API's declarations need, and no more: the loaders, the rule table, the passes and
// the engine's state stay behind Engine::Impl (engine/src/EngineImpl.h), so that this header and
// what it includes are the installed public face (engine/PublicHeaders.cmake).
#include "qnnrules/annotate/Annotator.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/Status.h"
#include "qnnrules/delegate/DelegationReport.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/io/ReaderModules.h"
#include "qnnrules/model/BackendOptions.h"
#include "qnnrules/model/Soc.h"
#include "qnnrules/pipeline/RunReport.h"
#include "qnnrules/validate/Validator.h"

namespace qnnrules {

inline constexpr const char* kDefaultSoc = "SM8750";  // the reference quantizer's default

class QuantConfigTable;  // model/QuantConfig.h
class RuleRegistry;      // load/RuleRegistry.h (in-tree front ends only)
class RuleSet;           // model/RuleSet.h (in-tree front ends only)

namespace detail {
class WorkingGraph;
}

struct EngineOptions {
  // Empty: the backend whose manifest says `default: true` (RuleRegistry::defaultBackend). The
  // engine stores the name it resolved in options().backend, which reports print.
  std::string backend;
  std::string soc;                               // empty: kDefaultSoc, and reports say so
  Mode mode = Mode::kStrict;
  std::vector<std::filesystem::path> ruleDirs;   // overlays, after QNNRULES_PATH
  bool useEnvironment = true;
  std::filesystem::path builtinRulesDir;         // empty: discover
  ValidateOptions validate;
  // Backend options as "name=value", checked against backend_options.yaml (last one in the
  // search path wins per option); a bad one makes the engine not ok().
  std::vector<std::string> backendOptions;
  std::optional<bool> requireFullDelegation;     // default: the backend's policy (LPAI: required)
  // The lowering path the graph will take (rules/lowering/<name>.yaml: "ort-qnn", "executorch");
  // empty: the path that is the default for the graph's source (ONNX: ort-qnn, else executorch);
  // "none": no path, the graph judged as the backend would see it (what rule fixtures check).
  std::string lowering;
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
  // The same engine for another SoC: the rule files already loaded are shared (one registry;
  // thread-safe), so opening it costs a table lookup instead of a rule load.
  Engine withSoc(const std::string& soc) const;

  bool ok() const;
  const Status& status() const;
  const DiagnosticList& loadErrors() const;

  const EngineOptions& options() const;
  const RuleSet& rules() const;  // requires ok()
  const SocInfo& soc() const;    // requires ok()
  RuleRegistry& registry();      // the rule files read, shared by withSoc's engines
  // The rule directories this engine reads, in search order (built-in first, then
  // QNNRULES_PATH, then the overlays): as given (registry().searchPath()), and as reports
  // print them (displayPath).
  std::vector<std::filesystem::path> searchPath() const;
  std::vector<std::string> ruleDirs() const;

  // The whole pipeline on the graph file options.graphPath, computed once (pipeline/RunReport.h):
  // read, fold Q/DQ, annotate (if asked), prune, validate, check quantization parameters,
  // partition, apply the mode, compute encodings (if asked). Never throws: a run that stops
  // early (engine not ok, unreadable graph, bad annotation config) says where in the report.
  RunReport run(const RunOptions& options) const;
  // The same on a graph already in memory (options.graphPath is only its label). The report's
  // graph borrows `graph` when no pass changed it: keep `graph` alive while using the report.
  RunReport run(const Graph& graph, const RunOptions& options) const;

  // run() without partitioning, as a ValidationResult (mode applied; a graph that cannot be
  // folded gives its fold errors as diagnostics).
  ValidationResult validate(const Graph& graph) const;

  // Annotates `graph` in place from a quantization config (and an optional recipe), following
  // this backend's rules; validate() afterwards. The graph first takes the forms ExecuTorch's
  // QnnQuantizer annotates (silu, addmm, leaky_relu decomposed; number operands lifted to
  // constants: docs/annotation.md), so nodes may be added and indices move. On a bad config or
  // recipe the result's status says why and the graph is untouched.
  AnnotateResult annotate(Graph& graph, const AnnotateOptions& options) const;

  // run() on an in-memory graph, as validation plus delegation report (strict mode: invalid
  // nodes fall back to CPU).
  GraphAnalysis analyze(const Graph& graph) const;
  // Every option of the backend with its value (the user's, else the default); requires ok().
  const std::vector<ResolvedOption>& backendOptions() const;
  // quant_configs.yaml as the registry loads it (the last rules directory that has one); null
  // when it has errors (annotate() reports them) or the engine did not open.
  const QuantConfigTable* quantConfigs() const;

 private:
  // The opened engine: options, status, the registry, the backend's rules, the SoC, the bound
  // lowering paths, the backend options (engine/src/EngineImpl.h). Built by the constructor and
  // never changed after, so copies of an engine share it.
  struct Impl;
  std::shared_ptr<const Impl> impl_;
  Engine(EngineOptions options, std::shared_ptr<RuleRegistry> registry);

  RunReport startReport(const RunOptions& options) const;
  void runPasses(RunReport& report, detail::WorkingGraph& graph, const RunOptions& options) const;
};

}  // namespace qnnrules
