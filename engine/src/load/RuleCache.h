// The compiled rule cache: what the registry loaded (a backend's rule table with its manifest,
// the SoC table, the quantization configs, the backend options, the default backend's name),
// stored in binary form so the next process reads it instead of parsing YAML.
//
// Keyed by a digest of the search path: every directory and rule file under it (names, sizes
// and the content of every YAML file, so an edit that keeps size and mtime counts too), the
// search path's directories as spelled and as absolute paths (not the working directory: a
// rule set has one entry wherever the tool runs), the load limits, the engine version, the
// format version, and the running binary's size and modification time (a rebuilt engine may
// read rules differently at the same version). A file whose digest differs is ignored and
// rewritten by the next load, so editing YAML takes effect on the next run with no extra step.
// At most 256 files are kept (the least recently written are evicted, once per rule set loaded;
// only files named as the cache names them and starting with its header: a shared directory's
// other files are never touched). A cache directory that
// cannot be written is said once per process (a warning), then the run goes on without it.
// Cache files are read only when regular and at most 64 MiB (a FIFO there never blocks).
// Directories are walked within LoadLimits' bounds (RuleTree.h); a search path holding one
// too large to be a rules directory is not cached (its load reports the error).
//
// One file per backend (plus one per shared table), so a backend never asked for is never
// parsed; the digest itself only reads bytes. Files are written to a temporary name and
// renamed (concurrent processes each write a complete file; the last rename wins). A file
// that is truncated, corrupt (payload checksum), from another format, or another slot's (its
// header names the backend or table it holds: a file copied under another backend's name is
// refused) is ignored; a cache
// directory that cannot be written means no cache. Loads with errors are never stored, so
// their errors are reported on every run.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "qnnrules/load/RuleRegistry.h"

namespace qnnrules {

class RuleCache {
 public:
  RuleCache(const RegistryOptions& options, const std::vector<std::filesystem::path>& searchPath);

  bool enabled() const { return !dir_.empty(); }
  const std::filesystem::path& directory() const { return dir_; }

  std::optional<BackendLoad> readBackend(const std::string& name);
  void writeBackend(const std::string& name, const BackendLoad& load);
  std::optional<RuleRegistry::SocLoad> readSocs();
  void writeSocs(const RuleRegistry::SocLoad& load);
  std::optional<RuleRegistry::QuantConfigLoad> readQuantConfigs();
  void writeQuantConfigs(const RuleRegistry::QuantConfigLoad& load);
  std::optional<RuleRegistry::BackendOptionsLoad> readBackendOptions();
  void writeBackendOptions(const RuleRegistry::BackendOptionsLoad& load);
  std::optional<RuleRegistry::LoweringLoad> readLowerings();
  void writeLowerings(const RuleRegistry::LoweringLoad& load);
  std::optional<std::string> readDefaultBackend();
  void writeDefaultBackend(const std::string& name);

 private:
  uint64_t digest();  // computed on first use
  std::filesystem::path fileFor(const std::string& slot) const;
  std::optional<std::string> readPayload(const std::string& slot);
  void writePayload(const std::string& slot, const std::string& payload);
  void evictOldEntries(const std::filesystem::path& keep) const;

  std::filesystem::path dir_;  // empty: disabled
  std::vector<std::filesystem::path> searchPath_;
  LoadLimits limits_;
  std::string identity_;  // names the files: the search path, as spelled and as absolute paths
  std::optional<uint64_t> digest_;
  bool uncacheable_ = false;  // a search-path directory too large to be a rules directory
  std::atomic<bool> evicted_{false};  // old entries looked for once per rule set
};

// Where the cache lives for these options; empty when it is disabled (see RegistryOptions).
std::filesystem::path ruleCacheDir(const RegistryOptions& options);

// The running binary or Python extension (RuleRegistry.cpp), and whether it belongs to the
// build tree.
std::filesystem::path runningObjectFile();
bool runningFromBuildTree();

}  // namespace qnnrules
