// Loading a reader module (ReaderModule.h).
#include "ReaderModule.h"
#include "core/RunningObject.h"
#include "qnnrules/io/ReaderModules.h"

#include <dlfcn.h>
#include <link.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace qnnrules {
namespace fs = std::filesystem;

namespace {


std::mutex& directoriesMutex() {
  static std::mutex m;
  return m;
}
std::vector<fs::path>& registeredDirectories() {
  static std::vector<fs::path> dirs;
  return dirs;
}

// Where the module may be, in order (qnnrules/io/ReaderModules.h): $<envVariable> alone; the
// registered directories; beside the running object; <prefix>/<installSubdir> for an installed
// tool in <prefix>/bin, or <package>/ for a wheel's tool in <package>/bin; the build tree's
// module for a program of the build tree; the configured install location.
std::vector<fs::path> candidates(const ReaderModuleLocation& where) {
  if (const char* env = std::getenv(where.envVariable); env && *env) return {fs::path(env)};
  const fs::path name = where.fileName;
  std::vector<fs::path> out;
  {
    std::lock_guard lock(directoriesMutex());
    for (const fs::path& dir : registeredDirectories()) out.push_back(dir / name);
  }
  const fs::path self = runningObjectPath();
  if (!self.empty()) {
    out.push_back(self.parent_path() / name);
    out.push_back(self.parent_path().parent_path() / where.installSubdir / name);
    // A wheel's command, <package>/bin/<tool>: the modules are in <package>/, beside the extension.
    if (self.parent_path().filename() == "bin") out.push_back(self.parent_path().parent_path() / name);
    std::error_code ec;
    const fs::path build = fs::weakly_canonical(QNNRULES_BUILD_DIR, ec);  // self is canonical too
    auto [mismatch, unused] = std::mismatch(build.begin(), build.end(), self.begin(), self.end());
    if (mismatch == build.end()) out.emplace_back(where.buildPath);
  }
  out.emplace_back(where.installPath);
  return out;
}

}  // namespace

void addReaderModuleDirectory(const fs::path& dir) {
  std::lock_guard lock(directoriesMutex());
  registeredDirectories().push_back(dir);
}

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
