#include "qnnrules/load/RuleRegistry.h"

#include "qnnrules/core/Suggest.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "RuleCache.h"
#include "RuleTree.h"
#include "core/RunningObject.h"
#include "yaml/StrictYaml.h"

namespace qnnrules {
namespace fs = std::filesystem;

namespace {

bool isDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
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

namespace {

// The file this code runs from: the executable, or the Python extension module that links
// the engine (core/RunningObject.h).
fs::path runningObject() { return runningObjectPath(); }

bool isUnder(const fs::path& file, const fs::path& dir) {
  std::error_code ec;
  const fs::path d = fs::weakly_canonical(dir, ec);
  if (ec || d.empty()) return false;
  auto [mismatch, unused] = std::mismatch(d.begin(), d.end(), file.begin(), file.end());
  return mismatch == d.end();
}

}  // namespace

fs::path runningObjectFile() { return runningObject(); }

bool runningFromBuildTree() {
  const fs::path self = runningObject();
  return !self.empty() && isUnder(self, QNNRULES_BUILD_DIR);
}

fs::path findBuiltinRulesDir() {
  if (const char* env = std::getenv("QNNRULES_BUILTIN_RULES"); env && *env) return env;
  const fs::path self = runningObject();
  // Installed: <prefix>/bin/tool -> <prefix>/share/qnnrules/rules (the tree may have moved).
  if (!self.empty()) {
    fs::path candidate = self.parent_path().parent_path() / "share" / "qnnrules" / "rules";
    if (isDir(candidate)) return candidate;
    // A wheel: <package>/bin/tool -> <package>/rules, the Python package's own copy.
    candidate = self.parent_path().parent_path() / "rules";
    if (self.parent_path().filename() == "bin" && isDir(candidate)) return candidate;
  }
  // A binary of the build tree reads the source tree it was built from, so edits to rules/
  // take effect without installing, and an installed copy never shadows them.
  if (!self.empty() && isUnder(self, QNNRULES_BUILD_DIR) && isDir(QNNRULES_SOURCE_RULES_DIR))
    return QNNRULES_SOURCE_RULES_DIR;
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
  cache_ = std::make_unique<RuleCache>(options_, searchPath_);
}

RuleRegistry::~RuleRegistry() = default;

std::vector<std::string> RuleRegistry::availableBackends() const {
  std::vector<std::string> names;
  for (const fs::path& dir : searchPath_) {
    if (dir.empty() || !isDir(dir)) continue;
    // A backend is a folder holding YAML files; lowering/ holds lowering paths (Lowering.h). A
    // directory too large to be a rules directory offers none (loading names it as an error).
    for (const fs::path& file : walkRuleTree(dir, options_.limits).yamlFiles) {
      const fs::path rel = file.lexically_relative(dir);
      if (std::distance(rel.begin(), rel.end()) >= 2 && *rel.begin() != kLoweringDir)
        names.push_back(rel.begin()->string());
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

const BackendLoad& RuleRegistry::backend(const std::string& name) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::vector<std::string> chain;
  return backendLocked(name, chain);
}

const BackendLoad& RuleRegistry::backendLocked(const std::string& name, std::vector<std::string>& chain) {
  auto it = backends_.find(name);
  if (it == backends_.end()) {
    spdlog::debug("loading rules for backend '{}'", name);
    std::optional<BackendLoad> cached = cache_->readBackend(name);
    std::unique_ptr<BackendLoad> load;
    if (cached) {
      load = std::make_unique<BackendLoad>(std::move(*cached));
    } else {
      chain.push_back(name);
      load = std::make_unique<BackendLoad>(loadBackend(name, chain));
      chain.pop_back();
      if (load->status.isOk()) cache_->writeBackend(name, *load);
    }
    it = backends_.emplace(name, std::move(load)).first;
  }
  return *it->second;
}

namespace {

// Rules merged from several sources: the parent's (inherited) and each search-path directory.
class Merger {
 public:
  static constexpr size_t kInherited = SIZE_MAX;  // "directory" of inherited rules: any file may replace them

  explicit Merger(DiagnosticList& errors) : errors_(errors) {}

  void add(Rule r, size_t dir) {
    auto existing = byId_.find(r.id);
    if (existing == byId_.end()) {
      byId_.emplace(r.id, Slot{rules_.size(), dir});
      rules_.push_back(std::move(r));
      return;
    }
    Slot& slot = existing->second;
    Rule& old = rules_[slot.index];
    if (slot.dir == dir && dir != kInherited) {
      Diagnostic d = loadError(DiagCode::kDuplicateRuleId,
          "rule id '" + r.id + "' is defined twice; the first definition is at " + old.mark.toString(), r.mark);
      d.ruleId = r.id;
      d.hint = "rule ids must be unique within a backend; rename one of them";
      errors_.push_back(std::move(d));
      return;
    }
    spdlog::debug("rule {} from {} replaces the one from {}", r.id, r.mark.toString(false), old.mark.toString(false));
    slot.dir = dir;
    old = std::move(r);
  }

  std::vector<Rule>& rules() { return rules_; }

 private:
  struct Slot {
    size_t index;
    size_t dir;
  };
  DiagnosticList& errors_;
  std::vector<Rule> rules_;
  std::unordered_map<std::string, Slot> byId_;
};

// Applies the manifest's `exclude` to the inherited rules: excluded targets leave their rule and
// become an `unsupported` rule carrying the exclusion's reason, so a graph using one is told
// why rather than "no rule". A rule that loses every target becomes that unsupported rule
// itself (same id); one that loses some keeps the rest, and "<id>.excluded" holds the others.
std::vector<Rule> applyExclusions(std::vector<Rule> inherited, const BackendManifest& bm, const RuleSet& parent,
                                  DiagnosticList& errors) {
  struct Where {
    const Exclusion* x;
  };
  std::unordered_map<std::string, Where> excluded;
  for (const Exclusion& x : bm.exclude) {
    for (size_t i = 0; i < x.targets.size(); ++i) {
      const std::string& t = x.targets[i];
      if (!parent.findByTarget(t)) {
        std::vector<std::string_view> known;
        for (const Rule& r : parent.rules())
          for (const std::string& pt : r.targets) known.push_back(pt);
        Diagnostic d = loadError(DiagCode::kInvalidValue,
            "exclude names target '" + t + "', which backend " + bm.extends + " does not have", x.targetMarks[i]);
        d.expected = "a target of a rule of backend " + bm.extends;
        d.actual = t;
        d.hint = strictyaml::suggest(t, known);
        errors.push_back(std::move(d));
        continue;
      }
      excluded.emplace(t, Where{&x});
    }
  }
  std::vector<Rule> out;
  for (Rule& r : inherited) {
    std::vector<std::string> kept, gone;
    const Exclusion* first = nullptr;
    for (const std::string& t : r.targets) {
      auto e = excluded.find(t);
      if (e == excluded.end()) {
        kept.push_back(t);
      } else {
        gone.push_back(t);
        if (!first) first = e->second.x;
      }
    }
    if (gone.empty()) {
      out.push_back(std::move(r));
      continue;
    }
    Rule u;
    u.id = kept.empty() ? r.id : r.id + ".excluded";
    u.kind = RuleKind::kUnsupported;
    u.targets = std::move(gone);
    u.description = r.description;
    u.reason = first->why;
    u.mark = first->mark;
    u.origin = r.origin;
    u.inheritedFrom = r.inheritedFrom;
    u.via = first->mark;
    u.noQuantizedTypes = r.noQuantizedTypes;
    if (kept.empty()) u.onnx = std::move(r.onnx);  // the ONNX ops keep reaching the (now unsupported) rule
    if (!kept.empty()) {
      r.targets = std::move(kept);
      out.push_back(std::move(r));
    }
    out.push_back(std::move(u));
  }
  return out;
}

// The manifest `file` of backend `name` in one search directory: it becomes `manifest` when it
// is the first one found, reads without error and names its folder's backend; else `errors` say why.
void readManifest(const fs::path& file, const std::string& name, const LoadLimits& limits,
                  std::shared_ptr<BackendManifest>& manifest, DiagnosticList& errors) {
  if (manifest) {
    errors.push_back(loadError(DiagCode::kInvalidValue,
        "backend " + name + " has a second manifest; the first is " + manifest->mark.toString(false) +
        ". A backend is declared once; change its rules with rule files in the overlay instead",
        SourceMark{std::make_shared<const std::string>(displayPath(file)), 1, 1}));
    return;
  }
  auto m = std::make_shared<BackendManifest>();
  const size_t before = errors.size();
  loadManifestFile(file, displayPath(file), *m, errors, limits);
  if (errors.size() != before) return;
  if (m->backend != name) {
    Diagnostic d = loadError(DiagCode::kInvalidValue,
        "the manifest in folder '" + name + "' declares backend '" + m->backend + "'", m->mark);
    d.expected = name;
    d.actual = m->backend;
    d.hint = "a manifest's 'backend' is the name of its folder";
    errors.push_back(std::move(d));
    return;
  }
  manifest = std::move(m);
}

Status unknownBackendStatus(const std::string& name, const std::vector<std::string>& backends) {
  std::string known;
  for (const std::string& b : backends) known += (known.empty() ? "" : ", ") + b;
  std::string hint = didYouMean(name, backends);
  return Status(StatusCode::kInvalidArgument,
                "unknown backend '" + name + "'" + (hint.empty() ? "" : "; " + hint) +
                    " (available: " + (known.empty() ? "none" : known) + ")",
                name);
}

// The parent's rules under this backend's id prefix, less the manifest's exclusions.
void inheritParentRules(const RuleSet& parent, const BackendManifest& manifest, Merger& merged,
                        DiagnosticList& errors) {
  std::vector<Rule> inherited;
  for (const Rule& r : parent.rules()) inherited.push_back(inheritRule(r, manifest, manifest.extendsMark));
  for (Rule& r : applyExclusions(std::move(inherited), manifest, parent, errors))
    merged.add(std::move(r), Merger::kInherited);
}

// The backend's own rule files, directory by directory of the search path (built-in first), so
// that an overlay's rule replaces an earlier one of the same id.
void loadOwnRuleFiles(const std::vector<fs::path>& searchPath, const std::string& name, const LoadLimits& limits,
                      const RuleFileContext& context, Merger& merged, DiagnosticList& errors) {
  for (size_t di = 0; di < searchPath.size(); ++di) {
    const fs::path& dir = searchPath[di];
    fs::path backendDir = dir / name;
    if (dir.empty() || !isDir(backendDir)) continue;
    std::vector<Rule> rules;
    // Within bounds: a backend folder too large lies in a rules directory loadBackend refused
    // (readableSearchDir).
    for (const fs::path& file : walkRuleTree(backendDir, limits).yamlFiles) {
      if (file == backendDir / kManifestName) continue;
      loadRuleFile(file, displayPath(file), rules, errors, limits, context);
    }
    for (Rule& r : rules) {
      r.origin = originName(di, dir);
      merged.add(std::move(r), di);
    }
  }
}

// An inherited op rule that kept no variant must be overridden (or its targets excluded).
void checkInheritedVariants(const std::vector<Rule>& rules, const std::string& name, DiagnosticList& errors) {
  for (const Rule& r : rules) {
    if (r.kind != RuleKind::kOp || !r.variants.empty() || r.inheritedFrom.empty()) continue;
    std::string why;
    for (const std::string& n : r.notes) why += (why.empty() ? "" : "; ") + n;
    Diagnostic d = loadError(DiagCode::kInvalidValue,
        "rule '" + r.id + "' inherited from '" + r.inheritedFrom + "' has no variant left on " + name + ": " + why,
        r.via);
    d.ruleId = r.id;
    d.hint = "override '" + r.id + "' in rules/" + name + "/ (extends: " + r.inheritedFrom +
             ", with variants) or exclude its targets in backend.yaml";
    errors.push_back(std::move(d));
  }
}

// Each target belongs to one rule.
void checkTargetOwners(const std::vector<Rule>& all, DiagnosticList& errors) {
  std::unordered_map<std::string, size_t> owner;
  for (size_t i = 0; i < all.size(); ++i) {
    for (const std::string& t : all[i].targets) {
      auto [pos, inserted] = owner.emplace(t, i);
      if (inserted) continue;
      const Rule& first = all[pos->second];
      Diagnostic d = loadError(DiagCode::kDuplicateTarget,
          "target '" + t + "' is claimed by rule '" + all[i].id + "' and by rule '" + first.id +
          "' (" + first.mark.toString() + ")", all[i].mark);
      d.ruleId = all[i].id;
      d.hint = "to replace rule '" + first.id + "' from an overlay, reuse its id";
      errors.push_back(std::move(d));
    }
  }
}

// Each ONNX node reaches at most one rule, like each target: entries of one op type in two
// rules must have conditions that separate them.
void checkOnnxOwners(const std::vector<Rule>& all, DiagnosticList& errors) {
  std::unordered_map<std::string_view, std::vector<std::pair<size_t, size_t>>> onnxOwners;
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t k = 0; k < all[i].onnx.size(); ++k) {
      const OnnxMapping& m = all[i].onnx[k];
      auto& owners = onnxOwners[m.opType];
      for (auto [ri, rk] : owners) {
        const OnnxMapping& other = all[ri].onnx[rk];
        if (!onnxConditionsOverlap(m, other)) continue;
        Diagnostic d = loadError(DiagCode::kDuplicateTarget,
            "ONNX '" + describeOnnxMapping(m) + "' is claimed by rule '" + all[i].id + "' and by rule '" +
            all[ri].id + "' as '" + describeOnnxMapping(other) + "' (" + other.mark.toString() + ")", m.mark);
        d.ruleId = all[i].id;
        d.hint = "separate them with 'when' (rank, constant_inputs, activation_inputs)";
        errors.push_back(std::move(d));
        break;
      }
      owners.emplace_back(i, k);
    }
  }
}

}  // namespace

const HardwareColumn* RuleRegistry::hardwareColumn(const BackendManifest& manifest, DiagnosticList& errors) {
  const SocLoad& socs = this->socs();
  const HardwareColumn* column = socs.table ? socs.table->column(manifest.hardware) : nullptr;
  if (column) return column;
  std::vector<std::string_view> declared;
  if (socs.table)
    for (const HardwareColumn& c : socs.table->columns()) declared.push_back(c.name);
  Diagnostic d = loadError(DiagCode::kInvalidValue,
      "the manifest of backend " + manifest.backend + " names hardware column '" + manifest.hardware + "', " +
          (socs.table ? "which socs.yaml does not declare" : "but socs.yaml did not load: " + socs.status.message()),
      manifest.hardwareMark);
  d.expected = "a column of 'hardware' in socs.yaml";
  d.actual = manifest.hardware;
  d.hint = strictyaml::suggest(manifest.hardware, declared);
  errors.push_back(std::move(d));
  return nullptr;
}

bool RuleRegistry::readableSearchDir(size_t index, DiagnosticList& errors) const {
  const fs::path& dir = searchPath_[index];
  if (dir.empty()) return false;
  if (!isDir(dir)) {
    errors.push_back(loadError(DiagCode::kInvalidValue,
        "rules directory " + displayPath(dir) + " does not exist" +
        (index == 0 ? " (built-in rules not found; set QNNRULES_BUILTIN_RULES)" : "")));
    return false;
  }
  const RuleTree tree = walkRuleTree(dir, options_.limits);
  if (tree.tooLarge) {
    errors.push_back(loadError(DiagCode::kInvalidValue, ruleTreeTooLargeMessage(dir, options_.limits)));
    return false;
  }
  // A rule file that cannot be read would silently leave its rules out.
  for (const std::string& why : tree.unreadable)
    errors.push_back(loadError(DiagCode::kInvalidValue, "rules directory " + displayPath(dir) + ": " + why));
  return tree.unreadable.empty();
}

BackendLoad RuleRegistry::loadBackend(const std::string& name, std::vector<std::string>& chain) {
  BackendLoad result;
  if (name.empty() || name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
    result.status = Status(StatusCode::kInvalidArgument, "invalid backend name", name);
    return result;
  }
  // The manifest: the first one in the search path; another one later is an error (a backend
  // is defined once; overlays change it through rule files).
  std::shared_ptr<BackendManifest> manifest;
  bool found = false;
  for (size_t di = 0; di < searchPath_.size(); ++di) {
    const fs::path& dir = searchPath_[di];
    if (!readableSearchDir(di, result.errors)) continue;
    if (isDir(dir / name) && name != kLoweringDir) found = true;
    fs::path file = dir / name / kManifestName;
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) readManifest(file, name, options_.limits, manifest, result.errors);
  }
  if (!found && result.errors.empty()) {
    result.status = unknownBackendStatus(name, availableBackends());
    return result;
  }

  Merger merged(result.errors);
  std::shared_ptr<const RuleSet> parent;
  if (manifest && !manifest->extends.empty()) {
    const std::string& p = manifest->extends;
    if (std::find(chain.begin(), chain.end(), p) != chain.end()) {
      std::string cycle;
      for (const std::string& c : chain) cycle += c + " -> ";
      result.errors.push_back(loadError(DiagCode::kInvalidValue,
          "backend " + name + " extends " + p + ", which extends it back: " + cycle + p, manifest->extendsMark));
    } else {
      const BackendLoad& parentLoad = backendLocked(p, chain);
      if (!parentLoad.status.isOk()) {
        result.errors.insert(result.errors.end(), parentLoad.errors.begin(), parentLoad.errors.end());
        Diagnostic d = loadError(DiagCode::kInvalidValue,
            "backend " + name + " extends " + p + ", which cannot be loaded: " + parentLoad.status.message(),
            manifest->extendsMark);
        result.errors.push_back(std::move(d));
      } else {
        parent = parentLoad.rules;
        inheritParentRules(*parent, *manifest, merged, result.errors);
      }
    }
  }

  RuleFileContext context;
  context.manifest = manifest.get();
  context.parent = parent.get();
  if (manifest && !manifest->hardware.empty()) context.hardware = hardwareColumn(*manifest, result.errors);
  const bool parentMissing = manifest && !manifest->extends.empty() && !parent;
  if (!parentMissing) loadOwnRuleFiles(searchPath_, name, options_.limits, context, merged, result.errors);
  checkInheritedVariants(merged.rules(), name, result.errors);
  std::vector<Rule> all = std::move(merged.rules());
  checkTargetOwners(all, result.errors);
  checkOnnxOwners(all, result.errors);
  if (!result.errors.empty()) {
    result.status = Status(StatusCode::kRuleError,
                           std::to_string(result.errors.size()) + " error(s) in the rules of backend '" + name + "'");
    return result;
  }
  result.manifest = std::move(manifest);
  result.rules = std::make_shared<const RuleSet>(name, std::move(all), result.manifest);
  return result;
}

}  // namespace qnnrules
