// Which backend an engine opens when none is named: the one whose manifest says `default: true`
// (the bundled rules/htp/backend.yaml does). The name is data, so no code spells a backend, and
// a rules directory of other backends (a toy one, a vendor's) chooses its own default.
#include <algorithm>
#include <iterator>

#include "qnnrules/load/RuleRegistry.h"
#include "RuleCache.h"
#include "RuleTree.h"

namespace qnnrules {
namespace fs = std::filesystem;

const RuleRegistry::DefaultBackendLoad& RuleRegistry::defaultBackend() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!defaultBackend_) {
    DefaultBackendLoad load;
    // Cached by name only: the cache's key covers every manifest, so the answer is the same.
    if (std::optional<std::string> cached = cache_->readDefaultBackend()) {
      load.name = std::move(*cached);
    } else {
      load = loadDefaultBackend();
      if (load.status.isOk()) cache_->writeDefaultBackend(load.name);
    }
    defaultBackend_ = std::make_unique<DefaultBackendLoad>(std::move(load));
  }
  return *defaultBackend_;
}

RuleRegistry::DefaultBackendLoad RuleRegistry::loadDefaultBackend() const {
  DefaultBackendLoad result;
  // Why a directory or manifest could not be read. They matter only when no manifest that did
  // load says `default: true`: otherwise loading the backend concerned reports them, as it
  // would with a backend named (`qnn-rules lint` reports them all).
  DiagnosticList unread;
  std::vector<std::string> read;           // backends whose manifest counts (the first in the search path)
  std::vector<BackendManifest> defaults;   // the manifests that say `default: true`, in search order
  for (size_t di = 0; di < searchPath_.size(); ++di) {
    if (!readableSearchDir(di, unread)) continue;
    const fs::path& dir = searchPath_[di];
    for (const fs::path& file : walkRuleTree(dir, options_.limits).yamlFiles) {
      const fs::path rel = file.lexically_relative(dir);
      if (std::distance(rel.begin(), rel.end()) != 2 || rel.filename() != kManifestName) continue;
      const std::string backend = rel.begin()->string();
      // A later manifest of the same backend is an error that loading the backend reports.
      if (backend == kLoweringDir || std::find(read.begin(), read.end(), backend) != read.end()) continue;
      read.push_back(backend);
      BackendManifest m;
      const size_t before = unread.size();
      loadManifestFile(file, displayPath(file), m, unread, options_.limits);
      if (unread.size() == before && m.isDefault) defaults.push_back(std::move(m));
    }
  }
  if (defaults.size() > 1) {
    std::string all;
    for (const BackendManifest& m : defaults)
      all += (all.empty() ? "" : ", ") + m.backend + " (" + m.defaultMark.toString() + ")";
    for (size_t i = 1; i < defaults.size(); ++i) {
      Diagnostic d;
      d.severity = Severity::kError;
      d.code = DiagCode::kInvalidValue;
      d.mark = defaults[i].defaultMark;
      d.message = "backend " + defaults[i].backend + " says `default: true`, but backend " + defaults[0].backend +
                  " already does at " + defaults[0].defaultMark.toString();
      d.expected = "one manifest of the rules search path with `default: true`";
      d.actual = all;
      d.hint = "remove `default: true` from all but one of them, or name the backend with --backend";
      result.errors.push_back(std::move(d));
    }
    result.status = Status(StatusCode::kRuleError, std::to_string(defaults.size()) +
                                                       " backends say `default: true`, where one may: " + all);
    return result;
  }
  if (defaults.empty() && !unread.empty()) {
    // The manifest that says it may be among those that did not load.
    result.errors = std::move(unread);
    result.status = Status(StatusCode::kRuleError,
                           "no backend given, and " + std::to_string(result.errors.size()) +
                               " error(s) in the rules search path hide which manifest says `default: true`");
    return result;
  }
  if (defaults.empty()) {
    result.status = Status(StatusCode::kInvalidArgument,
                           "no backend given and no manifest says `default: true`; name one with --backend");
    return result;
  }
  result.name = defaults.front().backend;
  return result;
}

}  // namespace qnnrules
