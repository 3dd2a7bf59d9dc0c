// The registry's data files besides rules and manifests: the SoC table, the quantization
// configs and the backend options, each under its overlay rule (RuleRegistry.h).
#include <algorithm>

#include "qnnrules/rules/RuleRegistry.h"

namespace qnnrules {
namespace fs = std::filesystem;

namespace {

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

const RuleRegistry::SocLoad& RuleRegistry::socs() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!socs_) socs_ = std::make_unique<SocLoad>(loadSocs());
  return *socs_;
}

const RuleRegistry::QuantConfigLoad& RuleRegistry::quantConfigs() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!quantConfigs_) quantConfigs_ = std::make_unique<QuantConfigLoad>(loadQuantConfigs());
  return *quantConfigs_;
}

const RuleRegistry::BackendOptionsLoad& RuleRegistry::backendOptions() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!backendOptions_) backendOptions_ = std::make_unique<BackendOptionsLoad>(loadBackendOptions());
  return *backendOptions_;
}

RuleRegistry::SocLoad RuleRegistry::loadSocs() const {
  SocLoad result;
  std::vector<SocInfo> merged;  // an overlay SoC with a known name replaces it
  bool found = false;
  for (const fs::path& dir : searchPath_) {
    if (dir.empty()) continue;
    fs::path file = dir / "socs.yaml";
    if (!isFile(file)) continue;
    found = true;
    SocTable table;
    loadSocFile(file, displayPath(file), table, result.errors, options_.limits);
    for (const SocInfo& soc : table.all()) {
      auto same = std::find_if(merged.begin(), merged.end(), [&](const SocInfo& s) { return s.name == soc.name; });
      if (same != merged.end()) *same = soc;
      else merged.push_back(soc);
    }
  }
  if (!found) {
    result.status = Status(StatusCode::kNotFound, "no socs.yaml in the rules search path");
    return result;
  }
  if (!result.errors.empty()) {
    result.status = Status(StatusCode::kRuleError, std::to_string(result.errors.size()) + " error(s) in socs.yaml");
    return result;
  }
  auto table = std::make_shared<SocTable>();
  for (SocInfo& soc : merged) table->add(std::move(soc));
  result.table = std::move(table);
  return result;
}

RuleRegistry::QuantConfigLoad RuleRegistry::loadQuantConfigs() const {
  QuantConfigLoad result;
  // The last directory that has one: an overlay replaces the built-in configs as a whole.
  for (auto it = searchPath_.rbegin(); it != searchPath_.rend() && result.file.empty(); ++it)
    if (!it->empty() && isFile(*it / "quant_configs.yaml")) result.file = *it / "quant_configs.yaml";
  if (result.file.empty()) {
    result.status = Status(StatusCode::kNotFound, "no quant_configs.yaml in the rules search path");
    return result;
  }
  auto table = std::make_shared<QuantConfigTable>();
  loadQuantConfigFile(result.file, displayPath(result.file), *table, result.errors, options_.limits);
  if (!result.errors.empty()) {
    result.status =
        Status(StatusCode::kRuleError, "the quantization config file has errors", result.file.string());
    return result;
  }
  result.table = std::move(table);
  return result;
}

RuleRegistry::BackendOptionsLoad RuleRegistry::loadBackendOptions() const {
  BackendOptionsLoad result;
  auto table = std::make_shared<BackendOptionTable>();
  for (const fs::path& dir : searchPath_) {
    if (dir.empty() || !isFile(dir / "backend_options.yaml")) continue;
    const fs::path file = dir / "backend_options.yaml";
    loadBackendOptionsFile(file, displayPath(file), *table, result.errors, options_.limits);
  }
  if (!result.errors.empty()) {
    result.status = Status(StatusCode::kRuleError,
                           std::to_string(result.errors.size()) + " error(s) in backend_options.yaml");
    return result;
  }
  result.table = std::move(table);
  return result;
}

}  // namespace qnnrules
