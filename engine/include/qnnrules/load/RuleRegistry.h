// Finds rule directories, loads a backend's rules on first use, merges overlays, caches.
//
// Search path, in order: the built-in rules directory, then each directory of the
// QNNRULES_PATH environment variable (colon-separated), then RegistryOptions::overlayDirs
// (the CLI's --rules). Each directory holds <backend>/**/*.yaml and may hold socs.yaml.
// An overlay rule whose id already exists replaces that rule; a new id adds a rule.
//
// A backend folder may hold a manifest, <backend>/backend.yaml (BackendManifest.h). When it
// `extends` another backend, that backend is loaded first (with all its overlays), its rules
// are inherited under this backend's id prefix and narrowed by the manifest, the manifest's
// `exclude` entries turn the targets they name into `unsupported` rules, and then this
// backend's own files (built-in, then overlays) replace inherited rules by id or add new ones.
// Asking for the parent never reads the child.
//
// Which backend opens when none is named is data too: the one whose manifest says
// `default: true` (defaultBackend()). Exactly one backend of the search path may say it.
//
// The registry owns every data file of the search path, each kind under one overlay rule, so
// that `qnn-rules lint` checks exactly what `qnn-validate` reads:
//   <backend>/**/*.yaml      rules: a rule with a known id replaces it, a new id adds one
//   <backend>/backend.yaml   manifest: the last directory's manifest of a backend is used
//   socs.yaml                SoCs: a SoC with a known name replaces it, a new name adds one
//   quant_configs.yaml       quantization configs: the last directory's file replaces the others
//   backend_options.yaml     backend options: an option with a known (backend, name) replaces it
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "qnnrules/model/QuantConfig.h"
#include "qnnrules/model/BackendOptions.h"
#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/model/Soc.h"
#include "qnnrules/core/Status.h"

namespace qnnrules {

struct RegistryOptions {
  std::filesystem::path builtinDir;                 // empty: discover (see findBuiltinRulesDir)
  std::vector<std::filesystem::path> overlayDirs;   // searched after QNNRULES_PATH
  bool useEnvironment = true;                       // read QNNRULES_PATH
  LoadLimits limits;
  // The compiled rule cache (RuleCache.h): loads that succeeded are stored in binary form,
  // keyed by a digest of the search path's files, and read back instead of the YAML while
  // those files are unchanged. Off when false or when the environment has QNNRULES_CACHE=0.
  bool useCache = true;
  // Where cache files go; empty: $QNNRULES_CACHE_DIR, else <build dir>/rule-cache for a
  // binary of the build tree, else $XDG_CACHE_HOME/qnnrules, else ~/.cache/qnnrules.
  std::filesystem::path cacheDir;
};

// The built-in rules: $QNNRULES_BUILTIN_RULES if set; else the rules installed next to the
// running binary (<prefix>/bin -> <prefix>/share/qnnrules/rules); else, for a binary (or
// Python extension) of the build tree, the source tree it was built from; else the configured
// install location, the source tree. So an installed copy never shadows the source tree's
// rules for the build tree's tools. Empty when none exists.
std::filesystem::path findBuiltinRulesDir();

// The result of loading one backend: the rules, or the errors that prevented it.
struct BackendLoad {
  std::shared_ptr<const RuleSet> rules;  // null on failure
  std::shared_ptr<const BackendManifest> manifest;  // null when the backend has none
  Status status;
  DiagnosticList errors;                 // every rule-file error found
};

class RuleCache;

class RuleRegistry {
 public:
  explicit RuleRegistry(RegistryOptions options = {});
  ~RuleRegistry();

  // The directories searched, in order (built-in first). Missing overlay directories are
  // an error reported by backend()/socs().
  const std::vector<std::filesystem::path>& searchPath() const { return searchPath_; }

  // Loads on first call, then returns the cached result. Thread-safe; a backend that is
  // never asked for is never read.
  const BackendLoad& backend(const std::string& name);
  // Backends found in the search path (directory names that contain YAML files).
  std::vector<std::string> availableBackends() const;

  // The backend whose manifest says `default: true`: the one an engine opens when none is
  // named. Every manifest of the search path is read (the first of each backend counts, as in
  // backend()); two saying it are an error naming both, none an error asking for a backend
  // (kInvalidArgument). Loaded on first call, cached, thread-safe.
  struct DefaultBackendLoad {
    std::string name;  // empty on failure
    Status status;
    DiagnosticList errors;
  };
  const DefaultBackendLoad& defaultBackend();

  struct SocLoad {
    std::shared_ptr<const SocTable> table;
    Status status;
    DiagnosticList errors;
  };
  const SocLoad& socs();

  // quant_configs.yaml (the annotator's configs). Loaded on first call, cached, thread-safe.
  struct QuantConfigLoad {
    std::shared_ptr<const QuantConfigTable> table;  // null on failure
    std::filesystem::path file;                     // the file read
    Status status;
    DiagnosticList errors;
  };
  const QuantConfigLoad& quantConfigs();

  // Every backend_options.yaml of the search path, merged. Loaded on first call, cached.
  struct BackendOptionsLoad {
    std::shared_ptr<const BackendOptionTable> table;  // null on failure; empty when no file exists
    Status status;
    DiagnosticList errors;
  };
  const BackendOptionsLoad& backendOptions();

  // Every lowering/<name>.yaml of the search path (rules/lowering/: the paths a graph takes to
  // the backend, Lowering.h); a later directory's path of the same name replaces it. Loaded on
  // first call, cached, thread-safe. Not in the rule cache: two small files.
  struct LoweringLoad {
    std::shared_ptr<const LoweringTable> table;  // null on failure
    Status status;
    DiagnosticList errors;
  };
  const LoweringLoad& lowerings();

 private:
  // `chain` holds the backends whose loading is under way (to report `extends` cycles).
  const BackendLoad& backendLocked(const std::string& name, std::vector<std::string>& chain);
  BackendLoad loadBackend(const std::string& name, std::vector<std::string>& chain);
  DefaultBackendLoad loadDefaultBackend() const;
  // Whether searchPath_[index] can be read as a rules directory; if not, says why in `errors`.
  bool readableSearchDir(size_t index, DiagnosticList& errors) const;
  // The SoC table's column the manifest's `hardware` names (its gates' versions), or null with
  // an error in `errors`.
  const HardwareColumn* hardwareColumn(const BackendManifest& manifest, DiagnosticList& errors);
  SocLoad loadSocs() const;
  QuantConfigLoad loadQuantConfigs() const;
  BackendOptionsLoad loadBackendOptions() const;
  LoweringLoad loadLowerings() const;

  RegistryOptions options_;
  std::vector<std::filesystem::path> searchPath_;
  // Recursive: loading a backend loads the backend it extends under the same lock. Loading is
  // once per backend, so serializing it costs nothing measurable.
  std::recursive_mutex mu_;
  std::map<std::string, std::unique_ptr<BackendLoad>> backends_;  // guarded by mu_
  std::unique_ptr<SocLoad> socs_;                                 // guarded by mu_
  std::unique_ptr<QuantConfigLoad> quantConfigs_;                 // guarded by mu_
  std::unique_ptr<BackendOptionsLoad> backendOptions_;            // guarded by mu_
  std::unique_ptr<LoweringLoad> lowerings_;                       // guarded by mu_
  std::unique_ptr<DefaultBackendLoad> defaultBackend_;            // guarded by mu_
  std::unique_ptr<RuleCache> cache_;                              // guarded by mu_
};

}  // namespace qnnrules
