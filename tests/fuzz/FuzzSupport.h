// Shared by the libFuzzer targets: the built-in tables they need, loaded once per process, and
// a check that aborts (so libFuzzer saves the input) when an invariant does not hold.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "qnnrules/Engine.h"
#include "qnnrules/model/QuantConfig.h"

namespace qnnrules::fuzz {

inline std::string sourcePath(const std::string& rel) { return std::string(QNNRULES_SOURCE_DIR) + "/" + rel; }

inline std::string_view bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void violated(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n%s\n", what, detail.c_str());
  std::abort();
}

inline const QuantConfigTable& builtinConfigs() {
  static const QuantConfigTable table = [] {
    QuantConfigTable t;
    DiagnosticList errors;
    loadQuantConfigFile(sourcePath("rules/quant_configs.yaml"), "quant_configs.yaml", t, errors);
    return t;
  }();
  return table;
}

inline const Engine& builtinEngine() {
  static const Engine engine = [] {
    EngineOptions o;
    o.useEnvironment = false;
    o.builtinRulesDir = sourcePath("rules");
    return Engine(o);
  }();
  if (!engine.ok()) violated("the built-in htp engine loads", engine.status().message());
  return engine;
}

}  // namespace qnnrules::fuzz
