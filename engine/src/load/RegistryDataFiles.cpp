// The registry's data files besides rules and manifests: the SoC table, the quantization
// configs and the backend options, each under its overlay rule (RuleRegistry.h).
#include <algorithm>

#include "qnnrules/load/RuleRegistry.h"

#include "RuleCache.h"
#include "RuleTree.h"

namespace qnnrules {
namespace fs = std::filesystem;

namespace {

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The cache's copy when it has a current one; else a fresh load, stored when it succeeded.
template <typename Load, typename Fresh, typename Store>
std::unique_ptr<Load> cachedOrFresh(std::optional<Load> cached, Fresh&& fresh, Store&& store) {
  if (cached) return std::make_unique<Load>(std::move(*cached));
  auto load = std::make_unique<Load>(fresh());
  if (load->status.isOk()) store(*load);
  return load;
}

}  // namespace

const RuleRegistry::SocLoad& RuleRegistry::socs() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!socs_)
    socs_ = cachedOrFresh(cache_->readSocs(), [&] { return loadSocs(); },
                          [&](const SocLoad& l) { cache_->writeSocs(l); });
  return *socs_;
}

const RuleRegistry::QuantConfigLoad& RuleRegistry::quantConfigs() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!quantConfigs_)
    quantConfigs_ = cachedOrFresh(cache_->readQuantConfigs(), [&] { return loadQuantConfigs(); },
                                  [&](const QuantConfigLoad& l) { cache_->writeQuantConfigs(l); });
  return *quantConfigs_;
}

const RuleRegistry::BackendOptionsLoad& RuleRegistry::backendOptions() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!backendOptions_)
    backendOptions_ = cachedOrFresh(cache_->readBackendOptions(), [&] { return loadBackendOptions(); },
                                    [&](const BackendOptionsLoad& l) { cache_->writeBackendOptions(l); });
  return *backendOptions_;
}

const RuleRegistry::LoweringLoad& RuleRegistry::lowerings() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!lowerings_)
    lowerings_ = cachedOrFresh(cache_->readLowerings(), [&] { return loadLowerings(); },
                               [&](const LoweringLoad& l) { cache_->writeLowerings(l); });
  return *lowerings_;
}

RuleRegistry::LoweringLoad RuleRegistry::loadLowerings() const {
  LoweringLoad result;
  auto table = std::make_shared<LoweringTable>();
  for (const fs::path& dir : searchPath_) {
    if (dir.empty()) continue;
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir / kLoweringDir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".yaml" && isFile(it->path())) files.push_back(it->path());
    std::sort(files.begin(), files.end());  // directory order is the file system's: sort for one answer
    for (const fs::path& file : files) {
      std::optional<LoweringPath> p = loadLoweringFile(file, displayPath(file), result.errors, options_.limits);
      if (!p) continue;
      p->origin = dir == searchPath_.front() ? "builtin" : displayPath(dir);
      auto same = std::find_if(table->paths.begin(), table->paths.end(),
                               [&](const auto& x) { return x->name == p->name; });
      auto shared = std::make_shared<const LoweringPath>(std::move(*p));
      if (same != table->paths.end()) *same = std::move(shared);
      else table->paths.push_back(std::move(shared));
    }
  }
  if (!result.errors.empty()) {
    result.status = Status(StatusCode::kRuleError, std::to_string(result.errors.size()) + " error(s) in lowering files");
    return result;
  }
  result.table = std::move(table);
  return result;
}

RuleRegistry::SocLoad RuleRegistry::loadSocs() const {
  SocLoad result;
  // One table read file after file: a later file's SoC with a known name replaces it, and its
  // SoCs may name the columns an earlier file declared (or that it adds versions to).
  auto table = std::make_shared<SocTable>();
  bool found = false;
  for (const fs::path& dir : searchPath_) {
    if (dir.empty()) continue;
    fs::path file = dir / "socs.yaml";
    if (!isFile(file)) continue;
    found = true;
    loadSocFile(file, displayPath(file), *table, result.errors, options_.limits);
  }
  if (!found) {
    result.status = Status(StatusCode::kNotFound, "no socs.yaml in the rules search path");
    return result;
  }
  if (!result.errors.empty()) {
    result.status = Status(StatusCode::kRuleError, std::to_string(result.errors.size()) + " error(s) in socs.yaml");
    return result;
  }
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
