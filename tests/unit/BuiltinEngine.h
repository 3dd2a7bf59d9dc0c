// An engine over the source tree's rules only (no QNNRULES_PATH, no installed copy), as the
// tests that check the real rule tables open it.
#pragma once

#include <string>

#include "qnnrules/Engine.h"

namespace qnnrules::testing {

inline EngineOptions builtinOptions(const std::string& backend, const std::string& soc = {},
                                    Mode mode = Mode::kStrict) {
  EngineOptions o;
  o.backend = backend;
  o.soc = soc;
  o.mode = mode;
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  return o;
}

inline Engine builtinEngine(const std::string& backend, const std::string& soc, Mode mode = Mode::kStrict) {
  return Engine(builtinOptions(backend, soc, mode));
}

}  // namespace qnnrules::testing
