// A toy backend for loader and cache tests: one rule file's text, and registry options that
// read a temporary rules directory with a cache directory of the test's.
#pragma once

#include <filesystem>
#include <string>

#include "TestUtil.h"
#include "qnnrules/load/RuleRegistry.h"

namespace qnnrules::testing {

// A rule file of backend `toy` whose one rule has this description.
inline std::string relu(const std::string& description) {
  return "version: 1\nrules:\n  - id: toy.relu\n    targets: [aten.relu.default]\n    qnn_op: Relu\n"
         "    pattern: siso\n    description: " + description + "\n"
         "    inputs: [{name: input}]\n    outputs: [{name: output}]\n"
         "    variants:\n      - name: a8\n        ports:\n"
         "          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n"
         "          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}\n";
}

// The built-in directory is `rules`; no environment; the cache in `cacheDir`.
inline RegistryOptions toy(const TempDir& rules, const std::filesystem::path& cacheDir) {
  RegistryOptions o;
  o.builtinDir = rules.path();
  o.useEnvironment = false;
  o.cacheDir = cacheDir;
  return o;
}

}  // namespace qnnrules::testing
