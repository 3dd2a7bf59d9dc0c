#include "RuleCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string_view>
#include <thread>

#include "CacheArchive.h"
#include "RuleCacheFields.h"
#include "RuleTree.h"
#include "yaml/StrictYaml.h"
#include "validate/constraints/ConstraintKind.h"
#include "qnnrules/core/SourceMark.h"

namespace qnnrules {
namespace fs = std::filesystem;

namespace {

// Bump when a stored type or the layout changes: files of another version are ignored.
constexpr uint32_t kFormatVersion = 13;  // 13: number_operands_float32, session_failure ops, ATen cpu_forms; 12: the slot (which backend or table) in the header; 4: hardware columns (SoC versions, gates) as data; 5: kind values; 6: a manifest's `default`, the default backend; 7: lowering paths; 8: rank limits, rewrite targets; 9: empty tensors; 10: non-finite scales, a path computing quantized constants; 11: cpu_forms
constexpr char kMagic[8] = {'Q', 'N', 'N', 'R', 'C', 'A', 'C', 'H'};
// magic, format version, digest, payload checksum, payload size, then the slot's name (its
// length, then its bytes: "backend-htp", "socs"), so a file copied under another slot's name
// (one backend's rules under another's) is refused on load.
constexpr size_t kHeaderBytes = sizeof kMagic + 4 + 8 + 8 + 8;
constexpr size_t kMaxSlotBytes = 256;

uint64_t hashBytes(std::string_view bytes) { return std::hash<std::string_view>{}(bytes); }

std::string hex(uint64_t v) { return fmt::format("{:016x}", v); }

// The largest cache file read (docs/rule-format.md, "Rule cache"): the compiled tables of every
// shipped backend together take well under a megabyte.
constexpr uint64_t kMaxCacheFileBytes = 64ull << 20;

// Entries kept in the cache directory (a rule set takes one per backend loaded plus three).
constexpr size_t kMaxCacheFiles = 256;

// Reads `file` whole when it is a regular file of at most `maxBytes`; false for anything else.
// A FIFO or device is opened without blocking and refused, never read: a FIFO put where a
// cache file belongs must not hang every run, nor /dev/zero be read forever.
bool readRegularFile(const fs::path& file, uint64_t maxBytes, std::string& out) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  // A sparse file (a rule file made of holes) is not read: its load refuses it unread too.
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) <= maxBytes &&
            !strictyaml::hasHoles(fd);
  if (ok) {
    out.assign(static_cast<size_t>(st.st_size), '\0');
    size_t done = 0;
    while (ok && done < out.size()) {
      const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR) continue;
      ok = n > 0;  // a file that shrank while read is not used
      if (ok) done += static_cast<size_t>(n);
    }
    char probe = 0;
    ok = ok && ::read(fd, &probe, 1) == 0;  // nor one that grew
  }
  ::close(fd);
  return ok;
}

void putU32(std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
void putU64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
uint64_t getU64(std::string_view s, size_t at) {
  uint64_t v = 0;
  std::memcpy(&v, s.data() + at, sizeof v);
  return v;
}

}  // namespace

fs::path ruleCacheDir(const RegistryOptions& options) {
  if (!options.useCache) return {};
  if (const char* off = std::getenv("QNNRULES_CACHE"); off && std::string_view(off) == "0") return {};
  if (!options.cacheDir.empty()) return options.cacheDir;
  if (const char* env = std::getenv("QNNRULES_CACHE_DIR"); env && *env) return env;
  // The build tree's tools and tests keep their cache in the build tree, never the user's home.
  if (runningFromBuildTree()) return fs::path(QNNRULES_BUILD_DIR) / "rule-cache";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "qnnrules";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "qnnrules";
  return {};
}

RuleCache::RuleCache(const RegistryOptions& options, const std::vector<fs::path>& searchPath)
    : dir_(ruleCacheDir(options)), searchPath_(searchPath), limits_(options.limits) {
  if (dir_.empty()) return;
  // The rule set: each directory as spelled and where it is, and how its files are shown. Marks
  // hold a file as displayPath() gave it at load time, relative to the working directory when
  // the file lies below it, so that display is part of the key: a cache written from another
  // directory must not print absolute paths here (nor ours there). The working directory
  // itself is not: the built-in rules have one entry wherever the tool runs outside them.
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  for (const fs::path& d : searchPath_) {
    const fs::path abs = fs::absolute(d, ec).lexically_normal();
    // Below the directory (cwd inside the rules), every file's display depends on where.
    const fs::path inside = cwd.lexically_relative(abs);
    const bool cwdInside = !inside.empty() && *inside.begin() != "..";
    identity_ += d.string() + " -> " + abs.string() + " shown as " + displayPath(d) +
                 (cwdInside ? " from " + cwd.string() : std::string()) + '\n';
  }
}

uint64_t RuleCache::digest() {
  if (digest_) return *digest_;
  std::string key = fmt::format("qnnrules {} cache {} limits {} {}\n{}", QNNRULES_VERSION, kFormatVersion,
                                limits_.maxFileBytes, limits_.maxDepth, identity_);
  // The constraint kinds decide which keys parse and what kindValues index: a kind registered
  // by an embedder (registerConstraintKind) makes another cache.
  key += "kinds";
  for (const ConstraintKind* k : constraintKinds()) key += fmt::format(" {}", k->key);
  key += '\n';
  std::error_code ec;
  const fs::path self = runningObjectFile();
  if (!self.empty()) {
    const auto size = fs::file_size(self, ec);
    const auto mtime = fs::last_write_time(self, ec).time_since_epoch().count();
    key += fmt::format("engine {} {} {}\n", self.string(), ec ? 0 : size, ec ? 0 : mtime);
  }
  std::string content;
  for (const fs::path& dir : searchPath_) {
    key += "dir ";
    key += dir.string();
    key += '\n';
    const RuleTree tree = walkRuleTree(dir, limits_);
    if (tree.tooLarge || !tree.unreadable.empty()) {
      // Not a rules directory, or one with files that cannot be read: the load refuses it
      // (RuleTree.h); nothing is cached for it.
      uncacheable_ = true;
      spdlog::debug("rule cache: {} is too large to be a rules directory; not cached", dir.string());
    }
    for (const fs::path& d : tree.directories) key += d.lexically_relative(dir).generic_string() + '\n';
    for (const fs::path& f : tree.yamlFiles) {
      key += f.lexically_relative(dir).generic_string();
      if (readRegularFile(f, limits_.maxFileBytes, content))
        key += fmt::format(" {} {}", content.size(), hex(hashBytes(content)));
      key += '\n';
    }
  }
  digest_ = hashBytes(key);
  return *digest_;
}

fs::path RuleCache::fileFor(const std::string& slot) const {
  return dir_ / (slot + "-" + hex(hashBytes(identity_)) + ".bin");
}

std::optional<std::string> RuleCache::readPayload(const std::string& slot) {
  if (!enabled()) return std::nullopt;
  digest();
  if (uncacheable_) return std::nullopt;
  const fs::path file = fileFor(slot);
  std::string bytes;
  if (!readRegularFile(file, kMaxCacheFileBytes, bytes)) {
    spdlog::debug("rule cache {}: missing, not a regular file or above {} bytes; not used", file.string(),
                  kMaxCacheFileBytes);
    return std::nullopt;
  }
  uint32_t version = 0, slotBytes = 0;
  if (bytes.size() >= kHeaderBytes + 4) {
    std::memcpy(&version, bytes.data() + sizeof kMagic, sizeof version);
    std::memcpy(&slotBytes, bytes.data() + kHeaderBytes, sizeof slotBytes);
  }
  const size_t payloadAt = kHeaderBytes + 4 + slotBytes;
  const bool valid = bytes.size() >= kHeaderBytes + 4 && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0 &&
                     version == kFormatVersion && getU64(bytes, 12) == digest() && slotBytes <= kMaxSlotBytes &&
                     bytes.size() >= payloadAt && std::string_view(bytes).substr(kHeaderBytes + 4, slotBytes) == slot &&
                     getU64(bytes, 28) == bytes.size() - payloadAt &&
                     getU64(bytes, 20) == hashBytes(std::string_view(bytes).substr(payloadAt));
  if (!valid) {
    spdlog::debug("rule cache {}: stale, another slot's or not a cache file, rebuilding", file.string());
    return std::nullopt;
  }
  spdlog::debug("rule cache {}: hit", file.string());
  return bytes.substr(payloadAt);
}

void RuleCache::writePayload(const std::string& slot, const std::string& payload) {
  if (!enabled()) return;
  digest();
  if (uncacheable_ || slot.size() > kMaxSlotBytes) return;
  std::string bytes(kMagic, sizeof kMagic);
  putU32(bytes, kFormatVersion);
  putU64(bytes, digest());
  putU64(bytes, hashBytes(payload));
  putU64(bytes, payload.size());
  putU32(bytes, static_cast<uint32_t>(slot.size()));
  bytes += slot;
  bytes += payload;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  // A name no other writer uses: the process, the thread, and a counter within the thread.
  static std::atomic<uint64_t> counter{0};
  const fs::path file = fileFor(slot);
  const fs::path temp = dir_ / fmt::format(".{}.{}.{}.{}.tmp", file.filename().string(), ::getpid(),
                                           std::hash<std::thread::id>{}(std::this_thread::get_id()), counter++);
  std::FILE* f = std::fopen(temp.c_str(), "wbx");
  if (!f) {
    // Once per process: each run then parses the YAML again (tens of milliseconds).
    static std::atomic<bool> warned{false};
    const int err = errno;
    if (!warned.exchange(true))
      spdlog::warn("rule cache: cannot write in {} ({}); every run parses the rules again. Set QNNRULES_CACHE_DIR "
                   "to a writable directory, or QNNRULES_CACHE=0 to turn the cache off",
                   dir_.string(), std::strerror(err));
    return;
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !written) {
    fs::remove(temp, ec);
    return;
  }
  fs::rename(temp, file, ec);
  if (ec) fs::remove(temp, ec);
  // Once per rule set loaded, not per write: a cold load writes a file per table, and the
  // directory may be shared with a hundred thousand files of others.
  if (!evicted_.exchange(true)) evictOldEntries(file);
}

namespace {

// A name this cache writes: SLOT-HHHHHHHHHHHHHHHH.bin (16 hex digits), SLOT one of the tables
// or "backend-" and a backend's folder name; and a temporary of one, "." NAME ".P.T.N.tmp".
bool isCacheName(std::string_view name) {
  constexpr std::string_view kBin = ".bin";
  if (name.size() <= 17 + kBin.size() || !name.ends_with(kBin)) return false;
  const std::string_view stem = name.substr(0, name.size() - kBin.size());
  const std::string_view hash = stem.substr(stem.size() - 16), slot = stem.substr(0, stem.size() - 17);
  if (stem[stem.size() - 17] != '-') return false;
  for (char c : hash)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return slot == "socs" || slot == "quant_configs" || slot == "backend_options" || slot == "lowerings" ||
         slot == "default_backend" || (slot.starts_with("backend-") && slot.size() > 8);
}

bool isCacheTempName(std::string_view name) {
  if (name.size() < 2 || name.front() != '.' || !name.ends_with(".tmp")) return false;
  const size_t bin = name.find(".bin.");
  return bin != std::string_view::npos && isCacheName(name.substr(1, bin + 3));
}

// The file starts with the cache's magic: it is one this cache wrote (a user's "x-0123456789abcdef.bin"
// in a shared directory is not).
bool hasCacheMagic(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  char magic[sizeof kMagic] = {};
  struct stat st {};
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::read(fd, magic, sizeof magic) == sizeof magic &&
                  std::memcmp(magic, kMagic, sizeof kMagic) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

// At most kMaxCacheFiles entries: past that, the least recently written go first (an entry is
// rewritten whenever its rule set changes), and temporary files a killed writer left behind
// are removed once an hour old. Only files with the cache's own names are looked at, and only
// those with its header are removed: a cache directory may be shared with other files.
void RuleCache::evictOldEntries(const fs::path& keep) const {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const std::string name = p.filename().string();
    const bool temp = isCacheTempName(name);
    if (!temp && !isCacheName(name)) continue;  // by name first: no stat of other files
    std::error_code e2;
    if (!it->is_regular_file(e2)) continue;
    const auto mtime = it->last_write_time(e2);
    if (e2) continue;
    if (temp) {
      if (now - mtime > std::chrono::hours(1) && hasCacheMagic(p)) fs::remove(p, e2);
    } else if (p != keep) {
      entries.emplace_back(mtime, p);
    }
  }
  if (entries.size() < kMaxCacheFiles) return;
  std::sort(entries.begin(), entries.end());
  for (size_t i = 0; i + kMaxCacheFiles <= entries.size(); ++i)
    if (hasCacheMagic(entries[i].second)) fs::remove(entries[i].second, ec);
}

namespace {

// Decodes with `read(reader)` and checks that it consumed exactly the payload.
template <typename T, typename F>
std::optional<T> decode(const std::optional<std::string>& payload, F&& read) {
  if (!payload) return std::nullopt;
  rulecache::Reader r(*payload);
  T out = read(r);
  if (!r.ok() || !r.atEnd()) return std::nullopt;
  return out;
}

}  // namespace

std::optional<BackendLoad> RuleCache::readBackend(const std::string& name) {
  return decode<BackendLoad>(readPayload("backend-" + name), [&](rulecache::Reader& r) {
    BackendLoad load;
    std::optional<BackendManifest> manifest;
    std::vector<Rule> rules;
    r(manifest), r(rules);
    if (!r.ok()) return load;
    if (manifest) load.manifest = std::make_shared<const BackendManifest>(std::move(*manifest));
    load.rules = std::make_shared<const RuleSet>(name, std::move(rules), load.manifest);
    return load;
  });
}

void RuleCache::writeBackend(const std::string& name, const BackendLoad& load) {
  if (!enabled() || !load.rules || !load.errors.empty()) return;
  rulecache::Writer w;
  std::optional<BackendManifest> manifest;
  if (load.manifest) manifest = *load.manifest;
  w(manifest), w(load.rules->rules());
  writePayload("backend-" + name, w.finish());
}

std::optional<RuleRegistry::SocLoad> RuleCache::readSocs() {
  return decode<RuleRegistry::SocLoad>(readPayload("socs"), [](rulecache::Reader& r) {
    std::vector<HardwareColumn> columns;
    std::vector<SocInfo> socs;
    r(columns), r(socs);
    auto table = std::make_shared<SocTable>();
    for (HardwareColumn& c : columns) table->declare(std::move(c));  // in order: their indexes stay
    for (SocInfo& s : socs) table->add(std::move(s));
    RuleRegistry::SocLoad load;
    load.table = std::move(table);
    return load;
  });
}

void RuleCache::writeSocs(const RuleRegistry::SocLoad& load) {
  if (!enabled() || !load.table || !load.errors.empty()) return;
  rulecache::Writer w;
  w(load.table->columns()), w(load.table->all());
  writePayload("socs", w.finish());
}

std::optional<RuleRegistry::QuantConfigLoad> RuleCache::readQuantConfigs() {
  return decode<RuleRegistry::QuantConfigLoad>(readPayload("quant_configs"), [](rulecache::Reader& r) {
    std::string file;
    std::vector<QuantConfig> configs;
    r(file), r(configs);
    auto table = std::make_shared<QuantConfigTable>();
    for (QuantConfig& c : configs) table->add(std::move(c));
    for (uint64_t i = 0, n = r.count(); i < n && r.ok(); ++i) {
      std::string target;
      int axis = 0;
      r(target), r(axis);
      table->setWeightAxis(std::move(target), axis);
    }
    RuleRegistry::QuantConfigLoad load;
    load.file = file;
    load.table = std::move(table);
    return load;
  });
}

void RuleCache::writeQuantConfigs(const RuleRegistry::QuantConfigLoad& load) {
  if (!enabled() || !load.table || !load.errors.empty()) return;
  rulecache::Writer w;
  w(load.file.string()), w(load.table->all());
  w(load.table->weightAxes().size());
  for (const auto& [target, axis] : load.table->weightAxes()) w(target), w(axis);
  writePayload("quant_configs", w.finish());
}

std::optional<RuleRegistry::BackendOptionsLoad> RuleCache::readBackendOptions() {
  return decode<RuleRegistry::BackendOptionsLoad>(readPayload("backend_options"), [](rulecache::Reader& r) {
    auto table = std::make_shared<BackendOptionTable>();
    for (uint64_t i = 0, n = r.count(); i < n && r.ok(); ++i) {
      std::string backend;
      std::vector<OptionSpec> specs;
      r(backend), r(specs);
      for (OptionSpec& s : specs) table->put(backend, std::move(s));
    }
    RuleRegistry::BackendOptionsLoad load;
    load.table = std::move(table);
    return load;
  });
}

void RuleCache::writeBackendOptions(const RuleRegistry::BackendOptionsLoad& load) {
  if (!enabled() || !load.table || !load.errors.empty()) return;
  rulecache::Writer w;
  w(load.table->all().size());
  for (const auto& [backend, specs] : load.table->all()) w(backend), w(specs);
  writePayload("backend_options", w.finish());
}

// The lowering paths (rules/lowering/), read on every run that validates: parsing their YAML
// was two thirds of a small graph's run.
std::optional<RuleRegistry::LoweringLoad> RuleCache::readLowerings() {
  return decode<RuleRegistry::LoweringLoad>(readPayload("lowerings"), [](rulecache::Reader& r) {
    auto table = std::make_shared<LoweringTable>();
    for (uint64_t i = 0, n = r.count(); i < n && r.ok(); ++i) {
      LoweringPath p;
      r(p);
      table->paths.push_back(std::make_shared<const LoweringPath>(std::move(p)));
    }
    RuleRegistry::LoweringLoad load;
    load.table = std::move(table);
    return load;
  });
}

void RuleCache::writeLowerings(const RuleRegistry::LoweringLoad& load) {
  if (!enabled() || !load.table || !load.errors.empty()) return;
  rulecache::Writer w;
  w(load.table->paths.size());
  for (const auto& p : load.table->paths) w(*p);
  writePayload("lowerings", w.finish());
}

std::optional<std::string> RuleCache::readDefaultBackend() {
  return decode<std::string>(readPayload("default_backend"), [](rulecache::Reader& r) {
    std::string name;
    r(name);
    return name;
  });
}

void RuleCache::writeDefaultBackend(const std::string& name) {
  if (!enabled()) return;
  rulecache::Writer w;
  w(name);
  writePayload("default_backend", w.finish());
}

}  // namespace qnnrules
