// Hardware as data. rules/socs.yaml declares hardware columns (`hardware: {htp: [V68, ...],
// lpai: [V6]}`): a column names a kind of accelerator and lists its versions once, oldest
// first. Each SoC gives its version in the columns it has; a backend's manifest names the
// column it runs on (`hardware: htp`), which its variants' `min_arch` gates compare against.
// No engine code names a column or a version: a new version or accelerator is YAML only.
//
// Versions are compared as levels, their 1-based position in the column's order, resolved when
// the files are loaded, so checking a gate on a node is one integer comparison.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/core/SourceMark.h"

namespace qnnrules {

// 0: none (a SoC without the column; a variant without a gate); k: the column's k-th version.
using HardwareLevel = uint8_t;

struct HardwareColumn {
  std::string name;                   // "htp", as socs.yaml and manifests spell it
  std::vector<std::string> versions;  // oldest first ("V68", "V69", ...); at most 255
  uint8_t index = 0;                  // its position among the SoC table's columns
  SourceMark mark;

  // The level of `version`, 0 when the column has no such version.
  HardwareLevel levelOf(std::string_view version) const;
};

// How reports name a column: its name in capitals ("htp" -> "HTP").
std::string hardwareLabel(std::string_view column);

// A variant's `min_arch`, resolved against the column of its backend's manifest.
struct HardwareGate {
  uint8_t column = 0;         // HardwareColumn::index
  HardwareLevel level = 0;    // 0: not gated
  std::string columnName;     // "htp", for messages and docs
  std::string version;        // "V73", as written
  bool gated() const { return level != 0; }
};

// A SoC's version on one column of the table.
struct SocHardware {
  std::string column;         // "htp"
  std::string version;        // "V75"; empty when the SoC does not have the column
  HardwareLevel level = 0;    // 0 when it does not
};

}  // namespace qnnrules
