// Loading a reader module (ReaderModule.h).
#include "ReaderModule.h"

#include <dlfcn.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace qnnrules {
namespace fs = std::filesystem;

namespace {

const char kAnchor = 0;  // an object of this library, whose address dladdr resolves

// Where the module may be, in order: $<envVariable>; beside the running binary or Python
// extension (a wheel); <prefix>/<installSubdir> for an installed tool in <prefix>/bin; the
// build tree's module for a binary of the build tree; the configured install location.
std::vector<fs::path> candidates(const ReaderModuleLocation& where) {
  std::vector<fs::path> out;
  if (const char* env = std::getenv(where.envVariable); env && *env) return {fs::path(env)};
  Dl_info info{};
  fs::path self;
  if (dladdr(&kAnchor, &info) && info.dli_fname && *info.dli_fname) {
    std::error_code ec;
    self = fs::canonical(info.dli_fname, ec);
  }
  const fs::path name = where.fileName;
  if (!self.empty()) {
    out.push_back(self.parent_path() / name);
    out.push_back(self.parent_path().parent_path() / where.installSubdir / name);
    const fs::path build = QNNRULES_BUILD_DIR;
    auto [mismatch, unused] = std::mismatch(build.begin(), build.end(), self.begin(), self.end());
    if (mismatch == build.end()) out.emplace_back(where.buildPath);
  }
  out.emplace_back(where.installPath);
  return out;
}

}  // namespace

void* loadReaderModuleEntry(const ReaderModuleLocation& where, const char* entry, std::string* error) {
  error->clear();
  for (const fs::path& p : candidates(where)) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
      if (const char* env = std::getenv(where.envVariable); env && *env)
        *error = std::string(where.envVariable) + " names " + p.string() + ", which is not a file";
      continue;
    }
    void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      *error = "cannot load " + p.string() + ": " + (why ? why : "unknown error");
      continue;
    }
    if (void* symbol = dlsym(handle, entry)) {
      spdlog::debug("reader module: {}", p.string());
      return symbol;
    }
    *error = p.string() + " is not the qnnrules module it should be (no " + entry + ")";
  }
  if (error->empty())
    *error = std::string("the reader module ") + where.fileName + " is not installed; set " + where.envVariable +
             " to its path";
  return nullptr;
}

}  // namespace qnnrules
