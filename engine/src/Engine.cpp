#include "qnnrules/Engine.h"

#include "qnnrules/core/Suggest.h"

#include "qnnrules/delegate/Partitioner.h"
#include "qnnrules/passes/QdqReader.h"
#include "qnnrules/graph/UserIndex.h"
#include "qnnrules/io/OnnxBinding.h"
#include "qnnrules/passes/NumericChecks.h"
#include "qnnrules/passes/Prune.h"

namespace qnnrules {
namespace {

// The graph the rules see. A QDQ graph (after convert_pt2e) is folded into port encodings
// first, exactly as qnn-validate does, so embedders get the CLI's results; its fold problems
// become diagnostics. A graph read from an ONNX model also has its onnx:: nodes bound to the
// rules (after the fold, so weights behind a DequantizeLinear count as constants). Other graphs
// are used as they are, without a copy (borrowed).
struct RulesView {
  std::shared_ptr<const Graph> graph;
  DiagnosticList foldDiagnostics;
  size_t qdqNodes = 0;
};

RulesView viewForRules(const Graph& graph, const RuleSet& rules) {
  RulesView v;
  std::optional<Graph> owned;
  if (isQdqGraph(graph)) {
    QdqFoldResult folded = foldQdq(graph);
    v.foldDiagnostics = std::move(folded.diagnostics);
    if (!folded.status.isOk() && v.foldDiagnostics.empty()) {
      Diagnostic d;
      d.code = DiagCode::kQdqMismatch;
      d.message = "the quantize/dequantize nodes could not be folded: " + folded.status.message();
      v.foldDiagnostics.push_back(std::move(d));
    }
    v.qdqNodes = folded.quantizeNodes + folded.dequantizeNodes;
    owned = std::move(folded.graph);
  }
  if (needsOnnxBinding(owned ? *owned : graph, rules)) {
    if (!owned) owned = graph;  // binding rewrites nodes: a copy, never the caller's graph
    bindOnnxOps(*owned, rules);
  }
  if (owned)
    v.graph = std::make_shared<const Graph>(std::move(*owned));
  else
    v.graph = std::shared_ptr<const Graph>(std::shared_ptr<const Graph>(), &graph);  // borrowed
  return v;
}

void prependFoldDiagnostics(const RulesView& v, ValidationResult& r) {
  r.diagnostics.insert(r.diagnostics.begin(), v.foldDiagnostics.begin(), v.foldDiagnostics.end());
}

std::vector<uint8_t> skipMask(const PruneResult& pruned) {
  std::vector<uint8_t> skip(pruned.kind.size());
  for (size_t i = 0; i < pruned.kind.size(); ++i) skip[i] = pruned.kind[i] != PruneKind::kKept;
  return skip;
}

// The rules' checks, then the quantization-parameter checks, on the nodes pruning kept.
ValidationResult check(const Graph& g, const RuleSet& rules, const SocInfo& soc, ValidateOptions vo,
                       const PruneResult& pruned) {
  vo.skipNodes = skipMask(pruned);
  ValidationResult r = validateGraph(g, rules, soc, vo);
  NumericCheckOptions no;
  no.skipNodes = std::move(vo.skipNodes);
  DiagnosticList numeric = checkQuantParams(g, rules, no);
  r.diagnostics.insert(r.diagnostics.end(), numeric.begin(), numeric.end());
  return r;
}

}  // namespace

Engine::Engine(EngineOptions options) : options_(std::move(options)) {
  RegistryOptions ro;
  ro.builtinDir = options_.builtinRulesDir;
  ro.overlayDirs = options_.ruleDirs;
  ro.useEnvironment = options_.useEnvironment;
  registry_ = std::make_unique<RuleRegistry>(std::move(ro));

  const RuleRegistry::SocLoad& socs = registry_->socs();
  if (!socs.status.isOk()) {
    status_ = socs.status;
    loadErrors_ = socs.errors;
    return;
  }
  const SocInfo* soc = socs.table->find(options_.soc);
  if (!soc) {
    std::string known;
    std::vector<std::string> names;
    for (const SocInfo& s : socs.table->all()) {
      known += (known.empty() ? "" : ", ") + s.name;
      names.push_back(s.name);
    }
    std::string hint = didYouMean(options_.soc, names);
    status_ = Status(StatusCode::kInvalidArgument,
                     "unknown SoC '" + options_.soc + "'" + (hint.empty() ? "" : "; " + hint) +
                         " (known SoCs: " + known + "; see --list-socs)",
                     options_.soc);
    return;
  }
  soc_ = *soc;
  // Backend names are case-insensitive, like SoC names ("HTP" is htp).
  if (std::optional<std::string> b = findIgnoringCase(options_.backend, registry_->availableBackends()))
    options_.backend = *b;
  if (options_.backend == "lpai" && soc_.lpaiVersion.empty()) {
    std::string lpaiSocs;
    for (const SocInfo& s : socs.table->all())
      if (!s.lpaiVersion.empty()) lpaiSocs += (lpaiSocs.empty() ? "" : ", ") + s.name;
    status_ = Status(StatusCode::kInvalidArgument,
                     "SoC " + soc_.name + " has no LPAI; the lpai backend needs one of: " + lpaiSocs, soc_.name);
    return;
  }
  const BackendLoad& load = registry_->backend(options_.backend);
  if (!load.status.isOk()) {
    status_ = load.status;
    loadErrors_ = load.errors;
    return;
  }
  rules_ = load.rules;
  status_ = resolveBackendOptions();
}

Status Engine::resolveBackendOptions() {
  auto table = std::make_shared<BackendOptionTable>();
  for (const std::filesystem::path& dir : registry_->searchPath()) {
    std::filesystem::path file = dir / "backend_options.yaml";
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) loadBackendOptionsFile(file, displayPath(file), *table, loadErrors_);
  }
  if (!loadErrors_.empty())
    return Status(StatusCode::kRuleError, std::to_string(loadErrors_.size()) + " error(s) in backend_options.yaml");
  optionTable_ = table;
  OptionResolution r = qnnrules::resolveBackendOptions(*optionTable_, options_.backend, options_.backendOptions);
  backendOptions_ = std::move(r.options);
  if (r.ok()) return Status::ok();
  loadErrors_ = std::move(r.errors);
  return Status(StatusCode::kInvalidArgument,
                std::to_string(loadErrors_.size()) + " bad backend option(s) for " + options_.backend);
}

std::vector<std::string> Engine::ruleDirs() const {
  std::vector<std::string> dirs;
  for (const std::filesystem::path& d : registry_->searchPath()) dirs.push_back(displayPath(d));
  return dirs;
}

std::string GraphAnalysis::delegationText() const { return formatDelegationText(*graph, delegation); }
std::string GraphAnalysis::delegationJson() const { return formatDelegationJson(*graph, delegation); }

GraphAnalysis Engine::analyze(const Graph& graph) const {
  RulesView v = viewForRules(graph, *rules_);
  const Graph& g = *v.graph;
  const UserIndex users(g);
  const PruneResult pruned = pruneGraph(g, users);
  GraphAnalysis a;
  a.validation = check(g, *rules_, soc_, options_.validate, pruned);
  PartitionOptions po;
  po.strict = options_.mode == Mode::kStrict;
  po.requireFullDelegation = options_.requireFullDelegation;
  po.pruned = &pruned;
  po.users = &users;
  a.delegation = partitionGraph(g, *rules_, soc_, a.validation, po);
  prependFoldDiagnostics(v, a.validation);
  applyMode(a.validation, options_.mode);
  a.graph = std::move(v.graph);
  a.qdqNodesFolded = v.qdqNodes;
  return a;
}

ValidationResult Engine::validate(const Graph& graph) const {
  const RulesView v = viewForRules(graph, *rules_);
  const PruneResult pruned = pruneGraph(*v.graph, UserIndex(*v.graph));
  ValidationResult r = check(*v.graph, *rules_, soc_, options_.validate, pruned);
  prependFoldDiagnostics(v, r);
  applyMode(r, options_.mode);
  return r;
}

AnnotateResult Engine::annotate(Graph& graph, const AnnotateOptions& options) const {
  AnnotateResult result;
  // quant_configs.yaml: an explicit file, else the last rules directory that has one (so an
  // overlay can replace the built-in configs).
  std::filesystem::path configFile = options.configFile;
  if (configFile.empty()) {
    const auto& dirs = registry_->searchPath();
    for (auto it = dirs.rbegin(); it != dirs.rend() && configFile.empty(); ++it)
      if (std::filesystem::exists(*it / "quant_configs.yaml")) configFile = *it / "quant_configs.yaml";
  }
  if (configFile.empty()) {
    result.status = Status(StatusCode::kNotFound, "no quant_configs.yaml in the rules search path");
    return result;
  }
  QuantConfigTable configs;
  loadQuantConfigFile(configFile, displayPath(configFile), configs, result.loadErrors);
  if (!result.loadErrors.empty()) {
    result.status = Status(StatusCode::kRuleError, "the quantization config file has errors", configFile.string());
    return result;
  }
  Recipe fileRecipe;
  const Recipe* recipe = options.recipe;
  if (!options.recipeFile.empty()) {
    // A missing recipe is a wrong path, not a YAML problem: say so, and what to do.
    std::error_code ec;
    if (!std::filesystem::exists(options.recipeFile, ec)) {
      result.status = Status(StatusCode::kNotFound,
                             "recipe file not found: " + options.recipeFile +
                                 " (paths are relative to the working directory; check the --recipe path)",
                             options.recipeFile);
      return result;
    }
    loadRecipeFile(options.recipeFile, options.recipeFile, configs, fileRecipe, result.loadErrors);
    if (!result.loadErrors.empty()) {
      result.status = Status(StatusCode::kRuleError, "the recipe file has errors", options.recipeFile);
      return result;
    }
    recipe = &fileRecipe;
  }
  StatusOr<ConfigSelection> sel = parseConfigSelection(configs, options.config);
  if (!sel.isOk()) {
    result.status = sel.status();
    return result;
  }
  if (needsOnnxBinding(graph, *rules_)) bindOnnxOps(graph, *rules_);
  return annotateGraph(graph, *rules_, configs, *sel, recipe, options);
}

}  // namespace qnnrules
