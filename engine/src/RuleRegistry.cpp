#include "qnnrules/RuleRegistry.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <unordered_map>

namespace qnnrules {
namespace fs = std::filesystem;

namespace {

// What marks and messages show for a file: relative to the working directory when the file
// is below it ("rules/htp/ops/conv.yaml"), else absolute.
std::string displayPath(const fs::path& file) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (!ec) {
    fs::path rel = fs::relative(file, cwd, ec);
    if (!ec && !rel.empty() && *rel.begin() != "..") return rel.generic_string();
  }
  return fs::absolute(file, ec).lexically_normal().generic_string();
}

bool isDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::vector<fs::path> yamlFilesUnder(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && (it->path().extension() == ".yaml" || it->path().extension() == ".yml"))
      files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string originName(size_t dirIndex, const fs::path& dir) {
  return dirIndex == 0 ? "builtin" : displayPath(dir);
}

Diagnostic loadError(DiagCode code, std::string message, SourceMark mark = {}) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.code = code;
  d.message = std::move(message);
  d.mark = std::move(mark);
  return d;
}

}  // namespace

fs::path findBuiltinRulesDir() {
  if (const char* env = std::getenv("QNNRULES_BUILTIN_RULES"); env && *env) return env;
  // Installed next to the binary: <prefix>/bin/tool -> <prefix>/share/qnnrules/rules.
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path candidate = exe.parent_path().parent_path() / "share" / "qnnrules" / "rules";
    if (isDir(candidate)) return candidate;
  }
  if (isDir(QNNRULES_INSTALL_RULES_DIR)) return QNNRULES_INSTALL_RULES_DIR;
  if (isDir(QNNRULES_SOURCE_RULES_DIR)) return QNNRULES_SOURCE_RULES_DIR;
  return {};
}

RuleRegistry::RuleRegistry(RegistryOptions options) : options_(std::move(options)) {
  searchPath_.push_back(options_.builtinDir.empty() ? findBuiltinRulesDir() : options_.builtinDir);
  if (options_.useEnvironment) {
    if (const char* env = std::getenv("QNNRULES_PATH"); env && *env) {
      std::string s = env;
      size_t start = 0;
      while (start <= s.size()) {
        size_t end = s.find(':', start);
        if (end == std::string::npos) end = s.size();
        if (end > start) searchPath_.emplace_back(s.substr(start, end - start));
        start = end + 1;
      }
    }
  }
  for (const fs::path& p : options_.overlayDirs) searchPath_.push_back(p);
}

std::vector<std::string> RuleRegistry::availableBackends() const {
  std::vector<std::string> names;
  for (const fs::path& dir : searchPath_) {
    std::error_code ec;
    if (dir.empty() || !isDir(dir)) continue;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec) && !yamlFilesUnder(it->path()).empty())
        names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

const BackendLoad& RuleRegistry::backend(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = backends_.find(name);
  if (it == backends_.end()) {
    spdlog::debug("loading rules for backend '{}'", name);
    it = backends_.emplace(name, std::make_unique<BackendLoad>(loadBackend(name))).first;
  }
  return *it->second;
}

const RuleRegistry::SocLoad& RuleRegistry::socs() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!socs_) socs_ = std::make_unique<SocLoad>(loadSocs());
  return *socs_;
}

BackendLoad RuleRegistry::loadBackend(const std::string& name) const {
  BackendLoad result;
  if (name.empty() || name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
    result.status = Status(StatusCode::kInvalidArgument, "invalid backend name", name);
    return result;
  }
  std::vector<Rule> merged;
  std::unordered_map<std::string, size_t> byId;       // id -> index in merged
  std::unordered_map<std::string, size_t> dirOfRule;  // id -> search path index that defined it
  bool found = false;
  for (size_t di = 0; di < searchPath_.size(); ++di) {
    const fs::path& dir = searchPath_[di];
    if (dir.empty()) continue;
    if (!isDir(dir)) {
      result.errors.push_back(loadError(DiagCode::kInvalidValue,
          "rules directory " + displayPath(dir) + " does not exist" +
          (di == 0 ? " (built-in rules not found; set QNNRULES_BUILTIN_RULES)" : "")));
      continue;
    }
    fs::path backendDir = dir / name;
    if (!isDir(backendDir)) continue;
    found = true;
    std::vector<Rule> rules;
    for (const fs::path& file : yamlFilesUnder(backendDir))
      loadRuleFile(file, displayPath(file), rules, result.errors, options_.limits);
    for (Rule& r : rules) {
      r.origin = originName(di, dir);
      auto existing = byId.find(r.id);
      if (existing == byId.end()) {
        byId.emplace(r.id, merged.size());
        dirOfRule[r.id] = di;
        merged.push_back(std::move(r));
      } else if (dirOfRule[r.id] == di) {
        Diagnostic d = loadError(DiagCode::kDuplicateRuleId,
            "rule id '" + r.id + "' is defined twice; the first definition is at " +
            merged[existing->second].mark.toString(), r.mark);
        d.ruleId = r.id;
        d.hint = "rule ids must be unique within a backend; rename one of them";
        result.errors.push_back(std::move(d));
      } else {
        spdlog::info("rule {} from {} replaces the one from {}", r.id, r.origin, merged[existing->second].origin);
        dirOfRule[r.id] = di;
        merged[existing->second] = std::move(r);
      }
    }
  }
  // Each target belongs to one rule.
  std::unordered_map<std::string, size_t> owner;
  for (size_t i = 0; i < merged.size(); ++i) {
    for (const std::string& t : merged[i].targets) {
      auto [pos, inserted] = owner.emplace(t, i);
      if (inserted) continue;
      const Rule& first = merged[pos->second];
      Diagnostic d = loadError(DiagCode::kDuplicateTarget,
          "target '" + t + "' is claimed by rule '" + merged[i].id + "' and by rule '" + first.id +
          "' (" + first.mark.toString() + ")", merged[i].mark);
      d.ruleId = merged[i].id;
      d.hint = "to replace rule '" + first.id + "' from an overlay, reuse its id";
      result.errors.push_back(std::move(d));
    }
  }
  if (!found && result.errors.empty()) {
    std::string known;
    for (const std::string& b : availableBackends()) known += (known.empty() ? "" : ", ") + b;
    result.status = Status(StatusCode::kInvalidArgument,
                           "unknown backend '" + name + "'; available: " + (known.empty() ? "none" : known), name);
    return result;
  }
  if (!result.errors.empty()) {
    result.status = Status(StatusCode::kRuleError,
                           std::to_string(result.errors.size()) + " error(s) in the rules of backend '" + name + "'");
    return result;
  }
  result.rules = std::make_shared<const RuleSet>(name, std::move(merged));
  return result;
}

RuleRegistry::SocLoad RuleRegistry::loadSocs() const {
  SocLoad result;
  std::vector<SocInfo> merged;  // an overlay SoC with a known name replaces it
  bool found = false;
  for (const fs::path& dir : searchPath_) {
    if (dir.empty()) continue;
    fs::path file = dir / "socs.yaml";
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
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

}  // namespace qnnrules
