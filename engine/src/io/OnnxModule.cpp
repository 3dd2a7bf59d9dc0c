// readOnnxModel in the engine: loads the ONNX reader module on first use (OnnxModule.h).
#include "OnnxModule.h"

#include <dlfcn.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "qnnrules/io/OnnxReader.h"

namespace qnnrules {
namespace fs = std::filesystem;

namespace {

const char kAnchor = 0;  // an object of this library, whose address dladdr resolves

// Where the module may be, in order: $QNNRULES_ONNX_MODULE; beside the running binary or
// Python extension (a wheel); <prefix>/lib/qnnrules for an installed tool in <prefix>/bin;
// the build tree's module for a binary of the build tree; the configured install location.
std::vector<fs::path> candidates() {
  std::vector<fs::path> out;
  if (const char* env = std::getenv("QNNRULES_ONNX_MODULE"); env && *env) return {fs::path(env)};
  Dl_info info{};
  fs::path self;
  if (dladdr(&kAnchor, &info) && info.dli_fname && *info.dli_fname) {
    std::error_code ec;
    self = fs::canonical(info.dli_fname, ec);
  }
  const fs::path name = QNNRULES_ONNX_MODULE_NAME;
  if (!self.empty()) {
    out.push_back(self.parent_path() / name);
    out.push_back(self.parent_path().parent_path() / QNNRULES_ONNX_MODULE_INSTALL_SUBDIR / name);
    const fs::path build = QNNRULES_BUILD_DIR;
    auto [mismatch, unused] = std::mismatch(build.begin(), build.end(), self.begin(), self.end());
    if (mismatch == build.end()) out.emplace_back(QNNRULES_ONNX_MODULE_BUILD_PATH);
  }
  out.emplace_back(QNNRULES_ONNX_MODULE_INSTALL_PATH);
  return out;
}

struct Module {
  QnnrulesOnnxReadModel read = nullptr;
  std::string error;  // why it could not be loaded
};

Module load() {
  Module m;
  for (const fs::path& p : candidates()) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) continue;
    // Never closed: the graphs it returns hold its code's data (vtables, allocators) for the
    // rest of the process.
    void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      m.error = "cannot load " + p.string() + ": " + (why ? why : "unknown error");
      continue;
    }
    m.read = reinterpret_cast<QnnrulesOnnxReadModel>(dlsym(handle, QNNRULES_ONNX_MODULE_ENTRY));
    if (m.read) {
      spdlog::debug("ONNX reader module: {}", p.string());
      return m;
    }
    m.error = p.string() + " is not the qnnrules ONNX module";
  }
  if (m.error.empty())
    m.error = "the ONNX reader module (" + std::string(QNNRULES_ONNX_MODULE_NAME) +
              ") is not installed; set QNNRULES_ONNX_MODULE to its path";
  return m;
}

}  // namespace

GraphReadResult readOnnxModel(std::string_view bytes, const std::string& displayName) {
  static const Module module = load();
  GraphReadResult out;
  if (!module.read) {
    out.status = Status(StatusCode::kIoError, "cannot read ONNX models: " + module.error, displayName);
    return out;
  }
  module.read(&bytes, &displayName, &out);
  return out;
}

}  // namespace qnnrules
