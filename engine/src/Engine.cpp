#include "qnnrules/Engine.h"

#include <utility>

#include "qnnrules/core/Suggest.h"
#include "GraphIntake.h"
#include "qnnrules/passes/QdqFold.h"

namespace qnnrules {

Engine::Engine(EngineOptions options) : Engine(std::move(options), nullptr) {}

Engine::Engine(EngineOptions options, std::shared_ptr<RuleRegistry> registry)
    : options_(std::move(options)), registry_(std::move(registry)) {
  PhaseTimes times;
  {
    PhaseTimer timer(times, Phase::kRuleLoad);
    open();
  }
  loadTime_ = times[Phase::kRuleLoad];
}

Engine Engine::withSoc(const std::string& soc) const {
  EngineOptions o = options_;
  o.soc = soc;
  return Engine(std::move(o), registry_);
}

void Engine::open() {
  if (!registry_) {
    RegistryOptions ro;
    ro.builtinDir = options_.builtinRulesDir;
    ro.overlayDirs = options_.ruleDirs;
    ro.useEnvironment = options_.useEnvironment;
    registry_ = std::make_shared<RuleRegistry>(std::move(ro));
  }
  // No backend named: the rules say which (a manifest's `default: true`). Resolved first, so that
  // every report, even of a run that stops at the SoC, names the backend.
  if (options_.backend.empty()) {
    const RuleRegistry::DefaultBackendLoad& chosen = registry_->defaultBackend();
    if (!chosen.status.isOk()) {
      status_ = chosen.status;
      loadErrors_ = chosen.errors;
      return;
    }
    options_.backend = chosen.name;
  }

  const RuleRegistry::SocLoad& socs = registry_->socs();
  if (!socs.status.isOk()) {
    status_ = socs.status;
    loadErrors_ = socs.errors;
    return;
  }
  const std::string socName = options_.soc.empty() ? std::string(kDefaultSoc) : options_.soc;
  const SocInfo* soc = socs.table->find(socName);
  if (!soc) {
    std::string known;
    std::vector<std::string> names;
    for (const SocInfo& s : socs.table->all()) {
      known += (known.empty() ? "" : ", ") + s.name;
      names.push_back(s.name);
    }
    std::string hint = didYouMean(socName, names);
    status_ = Status(StatusCode::kInvalidArgument,
                     "unknown SoC '" + socName + "'" + (hint.empty() ? "" : "; " + hint) + " (known SoCs: " + known +
                         "; see --list-socs)",
                     socName);
    return;
  }
  soc_ = *soc;
  // Backend names are case-insensitive, like SoC names ("HTP" is htp).
  if (std::optional<std::string> b = findIgnoringCase(options_.backend, registry_->availableBackends()))
    options_.backend = *b;
  const BackendLoad& load = registry_->backend(options_.backend);
  if (!load.status.isOk()) {
    status_ = load.status;
    loadErrors_ = load.errors;
    return;
  }
  // What the backend needs of the SoC is in its manifest (its hardware column), not here.
  if (Status s = checkSocRequirement(load.manifest.get(), options_.backend, soc_, *socs.table); !s.isOk()) {
    status_ = s;
    return;
  }
  rules_ = load.rules;
  status_ = resolveBackendOptions();
  if (status_.isOk()) status_ = openLowerings();
}

namespace {
constexpr std::string_view kNoLowering = "none";  // EngineOptions::lowering: judge the graph as the backend sees it
}  // namespace

Status Engine::openLowerings() {
  const RuleRegistry::LoweringLoad& load = registry_->lowerings();
  if (!load.status.isOk()) {
    loadErrors_ = load.errors;
    return load.status;
  }
  lowerings_ = load.table;
  if (!options_.lowering.empty() && options_.lowering != kNoLowering && !lowerings_->find(options_.lowering)) {
    const std::vector<std::string> names = lowerings_->names();
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    std::string hint = didYouMean(options_.lowering, names);
    return Status(StatusCode::kInvalidArgument,
                  "unknown lowering path '" + options_.lowering + "'" + (hint.empty() ? "" : "; " + hint) +
                      " (known: " + (known.empty() ? "none" : known) + ")",
                  options_.lowering);
  }
  DiagnosticList errors;
  for (const auto& path : lowerings_->paths) boundLowerings_.push_back(bindLowering(*path, *rules_, errors));
  if (errors.empty()) return Status::ok();
  const size_t n = errors.size();
  loadErrors_ = std::move(errors);
  return Status(StatusCode::kRuleError, std::to_string(n) + " error(s) in lowering files");
}

const BoundLowering* Engine::loweringFor(GraphSource source) const {
  if (options_.lowering == kNoLowering) return nullptr;
  const LoweringPath* path =
      options_.lowering.empty() ? lowerings_->defaultFor(source) : lowerings_->find(options_.lowering);
  for (const BoundLowering& b : boundLowerings_)
    if (b.path == path) return &b;
  return nullptr;
}

Status Engine::resolveBackendOptions() {
  const RuleRegistry::BackendOptionsLoad& options = registry_->backendOptions();
  if (!options.status.isOk()) {
    loadErrors_ = options.errors;
    return options.status;
  }
  optionTable_ = options.table;
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

const QuantConfigTable* Engine::quantConfigs() const {
  if (!ok()) return nullptr;
  const RuleRegistry::QuantConfigLoad& load = registry_->quantConfigs();
  return load.status.isOk() ? load.table.get() : nullptr;
}

AnnotateResult Engine::annotate(Graph& graph, const AnnotateOptions& options) const {
  AnnotateResult result;
  if (!ok()) {  // no rules to annotate by: say why the engine did not open
    result.status = status_;
    result.loadErrors = loadErrors_;
    return result;
  }
  // quant_configs.yaml: an explicit file, else the registry's (the last rules directory that
  // has one, so an overlay can replace the built-in configs).
  QuantConfigTable explicitConfigs;
  const QuantConfigTable* table = &explicitConfigs;
  if (!options.configFile.empty()) {
    loadQuantConfigFile(options.configFile, displayPath(options.configFile), explicitConfigs, result.loadErrors);
    if (!result.loadErrors.empty()) {
      result.status = Status(StatusCode::kRuleError, "the quantization config file has errors", options.configFile);
      return result;
    }
  } else {
    const RuleRegistry::QuantConfigLoad& load = registry_->quantConfigs();
    if (!load.status.isOk()) {
      result.loadErrors = load.errors;
      result.status = load.status;
      return result;
    }
    table = load.table.get();
  }
  const QuantConfigTable& configs = *table;
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
  // The run's first stage (GraphIntake.h), so annotate-then-validate says what run() says: the
  // fold's findings, the annotator's, then the rules'. A Q/DQ graph is folded into a new graph,
  // which replaces the caller's only when annotation succeeds; any other graph is worked on in
  // place (moved in and back, never copied: binding ONNX ops cannot fail).
  const bool folds = isQdqGraph(graph);
  detail::WorkingGraph working = folds ? detail::WorkingGraph(std::as_const(graph)) : detail::WorkingGraph(std::move(graph));
  detail::IntakeResult intake = detail::intakeGraph(working, *rules_);
  if (!intake.status.isOk()) {  // only a fold fails: the caller's graph is untouched
    result.status = std::move(intake.status);
    result.diagnostics = std::move(intake.diagnostics);
    return result;
  }
  // What the graph's lowering path refuses quantized (and nothing else about it) stays float.
  AnnotateOptions withPath = options;
  if (const BoundLowering* lowering = loweringFor(working.get().source))
    for (const CpuForm& f : lowering->path->cpuForms)
      if (f.quantized == true && f.when.empty() && f.ranks.empty() && f.argumentsBelow == 0 && !f.failsLowering &&
          f.op.starts_with("aten."))
        withPath.floatOps.emplace_back(f.op, "the " + lowering->path->name + " lowering refuses it quantized (its cpu form " +
                                                 f.id + "): " + f.message);
  result = annotateGraph(working.mutate(), *rules_, configs, *sel, recipe, withPath);
  if (!folds || result.status.isOk()) graph = working.take();
  result.diagnostics.insert(result.diagnostics.begin(), std::make_move_iterator(intake.diagnostics.begin()),
                            std::make_move_iterator(intake.diagnostics.end()));
  return result;
}

}  // namespace qnnrules
