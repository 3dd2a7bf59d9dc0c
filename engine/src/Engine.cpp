#include "qnnrules/Engine.h"

namespace qnnrules {

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
    for (const SocInfo& s : socs.table->all()) known += (known.empty() ? "" : ", ") + s.name;
    status_ = Status(StatusCode::kInvalidArgument, "unknown SoC '" + options_.soc + "'; known SoCs: " + known,
                     options_.soc);
    return;
  }
  soc_ = *soc;
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
}

ValidationResult Engine::validate(const Graph& graph) const {
  ValidationResult r = validateGraph(graph, *rules_, soc_, options_.validate);
  applyMode(r, options_.mode);
  return r;
}

}  // namespace qnnrules
