// The hardware columns of the built-in rules/socs.yaml, for tests that load rule text directly
// (the registry resolves a manifest's column itself) or build a SoC by hand: the SoC table, a
// rule-file context whose `min_arch` gates name versions of a column, and a SoC at a version.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/model/Soc.h"

namespace qnnrules::testing {

inline const SocTable& builtinSocTable() {
  static const SocTable table = [] {
    SocTable t;
    DiagnosticList errors;
    loadSocFile(QNNRULES_SOURCE_DIR "/rules/socs.yaml", "rules/socs.yaml", t, errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : formatText(errors[0]));
    return t;
  }();
  return table;
}

// Rule files read as the registry reads those of a backend running on `column`.
inline RuleFileContext gatedBy(const std::string& column = "htp", const BackendManifest* manifest = nullptr) {
  RuleFileContext c;
  c.manifest = manifest;
  c.hardware = builtinSocTable().column(column);
  EXPECT_NE(c.hardware, nullptr) << column;
  return c;
}

// A SoC named `name` whose only hardware is `version` of `column`, laid out as the built-in
// table lays out its SoCs (so its levels match rules read with gatedBy).
inline SocInfo socAt(const std::string& version, const std::string& name = "SM8650",
                     const std::string& column = "htp") {
  SocTable t = builtinSocTable();
  SocInfo s;
  s.name = name;
  s.hardware.push_back({column, version, 0});
  t.add(std::move(s));
  const SocInfo& laid = *t.find(name);
  EXPECT_EQ(laid.versionOn(column), version) << "no " << column << " version " << version;
  return laid;
}

}  // namespace qnnrules::testing
