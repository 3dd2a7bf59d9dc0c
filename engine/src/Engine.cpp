#include "qnnrules/Engine.h"

#include <utility>

#include "qnnrules/annotate/Recipe.h"
#include "qnnrules/core/Suggest.h"
#include "qnnrules/model/QuantConfig.h"
#include "EngineImpl.h"
#include "GraphIntake.h"
#include "qnnrules/passes/QdqFold.h"

namespace qnnrules {

Engine::Engine(EngineOptions options) : Engine(std::move(options), nullptr) {}

Engine::Engine(EngineOptions options, std::shared_ptr<RuleRegistry> registry) {
  auto impl = std::make_shared<Impl>();
  impl->options = std::move(options);
  impl->registry = std::move(registry);
  PhaseTimes times;
  {
    PhaseTimer timer(times, Phase::kRuleLoad);
    impl->open();
  }
  impl->loadTime = times[Phase::kRuleLoad];
  impl_ = std::move(impl);
}

Engine Engine::withSoc(const std::string& soc) const {
  EngineOptions o = impl_->options;
  o.soc = soc;
  return Engine(std::move(o), impl_->registry);
}

bool Engine::ok() const { return impl_->status.isOk(); }
const Status& Engine::status() const { return impl_->status; }
const DiagnosticList& Engine::loadErrors() const { return impl_->loadErrors; }
const EngineOptions& Engine::options() const { return impl_->options; }
const RuleSet& Engine::rules() const { return *impl_->rules; }
const SocInfo& Engine::soc() const { return impl_->soc; }
RuleRegistry& Engine::registry() { return *impl_->registry; }
const std::vector<ResolvedOption>& Engine::backendOptions() const { return impl_->backendOptions; }

void Engine::Impl::open() {
  if (!registry) {
    RegistryOptions ro;
    ro.builtinDir = options.builtinRulesDir;
    ro.overlayDirs = options.ruleDirs;
    ro.useEnvironment = options.useEnvironment;
    registry = std::make_shared<RuleRegistry>(std::move(ro));
  }
  // No backend named: the rules say which (a manifest's `default: true`). Resolved first, so that
  // every report, even of a run that stops at the SoC, names the backend.
  if (options.backend.empty()) {
    const RuleRegistry::DefaultBackendLoad& chosen = registry->defaultBackend();
    if (!chosen.status.isOk()) {
      status = chosen.status;
      loadErrors = chosen.errors;
      return;
    }
    options.backend = chosen.name;
  }

  const RuleRegistry::SocLoad& socs = registry->socs();
  if (!socs.status.isOk()) {
    status = socs.status;
    loadErrors = socs.errors;
    return;
  }
  const std::string socName = options.soc.empty() ? std::string(kDefaultSoc) : options.soc;
  const SocInfo* found = socs.table->find(socName);
  if (!found) {
    std::string known;
    std::vector<std::string> names;
    for (const SocInfo& s : socs.table->all()) {
      known += (known.empty() ? "" : ", ") + s.name;
      names.push_back(s.name);
    }
    std::string hint = didYouMean(socName, names);
    status = Status(StatusCode::kInvalidArgument,
                    "unknown SoC '" + socName + "'" + (hint.empty() ? "" : "; " + hint) + " (known SoCs: " + known +
                        "; see --list-socs)",
                    socName);
    return;
  }
  soc = *found;
  // Backend names are case-insensitive, like SoC names ("HTP" is htp).
  if (std::optional<std::string> b = findIgnoringCase(options.backend, registry->availableBackends()))
    options.backend = *b;
  const BackendLoad& load = registry->backend(options.backend);
  if (!load.status.isOk()) {
    status = load.status;
    loadErrors = load.errors;
    return;
  }
  // What the backend needs of the SoC is in its manifest (its hardware column), not here.
  if (Status s = checkSocRequirement(load.manifest.get(), options.backend, soc, *socs.table); !s.isOk()) {
    status = s;
    return;
  }
  rules = load.rules;
  status = resolveBackendOptions();
  if (status.isOk()) status = openLowerings();
}

namespace {
constexpr std::string_view kNoLowering = "none";  // EngineOptions::lowering: judge the graph as the backend sees it
}  // namespace

Status Engine::Impl::openLowerings() {
  const RuleRegistry::LoweringLoad& load = registry->lowerings();
  if (!load.status.isOk()) {
    loadErrors = load.errors;
    return load.status;
  }
  lowerings = load.table;
  if (!options.lowering.empty() && options.lowering != kNoLowering && !lowerings->find(options.lowering)) {
    const std::vector<std::string> names = lowerings->names();
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    std::string hint = didYouMean(options.lowering, names);
    return Status(StatusCode::kInvalidArgument,
                  "unknown lowering path '" + options.lowering + "'" + (hint.empty() ? "" : "; " + hint) +
                      " (known: " + (known.empty() ? "none" : known) + ")",
                  options.lowering);
  }
  DiagnosticList errors;
  for (const auto& path : lowerings->paths) boundLowerings.push_back(bindLowering(*path, *rules, errors));
  if (errors.empty()) return Status::ok();
  const size_t n = errors.size();
  loadErrors = std::move(errors);
  return Status(StatusCode::kRuleError, std::to_string(n) + " error(s) in lowering files");
}

const BoundLowering* Engine::Impl::loweringFor(GraphSource source) const {
  if (options.lowering == kNoLowering) return nullptr;
  const LoweringPath* path =
      options.lowering.empty() ? lowerings->defaultFor(source) : lowerings->find(options.lowering);
  for (const BoundLowering& b : boundLowerings)
    if (b.path == path) return &b;
  return nullptr;
}

Status Engine::Impl::resolveBackendOptions() {
  const RuleRegistry::BackendOptionsLoad& load = registry->backendOptions();
  if (!load.status.isOk()) {
    loadErrors = load.errors;
    return load.status;
  }
  optionTable = load.table;
  OptionResolution r = qnnrules::resolveBackendOptions(*optionTable, options.backend, options.backendOptions);
  backendOptions = std::move(r.options);
  if (r.ok()) return Status::ok();
  loadErrors = std::move(r.errors);
  return Status(StatusCode::kInvalidArgument,
                std::to_string(loadErrors.size()) + " bad backend option(s) for " + options.backend);
}

std::vector<std::filesystem::path> Engine::searchPath() const { return impl_->registry->searchPath(); }

std::vector<std::string> Engine::ruleDirs() const {
  std::vector<std::string> dirs;
  for (const std::filesystem::path& d : impl_->registry->searchPath()) dirs.push_back(displayPath(d));
  return dirs;
}

std::string GraphAnalysis::delegationText() const { return formatDelegationText(*graph, delegation); }
std::string GraphAnalysis::delegationJson() const { return formatDelegationJson(*graph, delegation); }

const QuantConfigTable* Engine::quantConfigs() const {
  if (!ok()) return nullptr;
  const RuleRegistry::QuantConfigLoad& load = impl_->registry->quantConfigs();
  return load.status.isOk() ? load.table.get() : nullptr;
}

AnnotateResult Engine::annotate(Graph& graph, const AnnotateOptions& options) const {
  AnnotateResult result;
  if (!ok()) {  // no rules to annotate by: say why the engine did not open
    result.status = impl_->status;
    result.loadErrors = impl_->loadErrors;
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
    const RuleRegistry::QuantConfigLoad& load = impl_->registry->quantConfigs();
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
  detail::IntakeResult intake = detail::intakeGraph(working, *impl_->rules);
  if (!intake.status.isOk()) {  // only a fold fails: the caller's graph is untouched
    result.status = std::move(intake.status);
    result.diagnostics = std::move(intake.diagnostics);
    return result;
  }
  // What the graph's lowering path refuses quantized (and nothing else about it) stays float.
  AnnotateOptions withPath = options;
  if (const BoundLowering* lowering = impl_->loweringFor(working.get().source))
    for (const CpuForm& f : lowering->path->cpuForms)
      if (f.quantized == true && f.when.empty() && f.ranks.empty() && f.argumentsBelow == 0 && !f.failsLowering &&
          f.op.starts_with("aten."))
        withPath.floatOps.emplace_back(f.op, "the " + lowering->path->name + " lowering refuses it quantized (its cpu form " +
                                                 f.id + "): " + f.message);
  result = annotateGraph(working.mutate(), *impl_->rules, configs, *sel, recipe, withPath);
  if (!folds || result.status.isOk()) graph = working.take();
  result.diagnostics.insert(result.diagnostics.begin(), std::make_move_iterator(intake.diagnostics.begin()),
                            std::make_move_iterator(intake.diagnostics.end()));
  return result;
}

}  // namespace qnnrules
