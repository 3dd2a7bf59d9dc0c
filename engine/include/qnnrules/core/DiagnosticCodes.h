// Every diagnostic code with its group and meaning: the table behind docs/diagnostics.md
// (`qnn-rules docs`), the SARIF rule descriptions and the HTML report's legend.
#pragma once

#include <span>
#include <string_view>

#include "qnnrules/core/Diagnostic.h"

namespace qnnrules {

struct DiagCodeInfo {
  DiagCode code;
  std::string_view group;    // "graph validation", "quantization parameters", "rule files", ...
  std::string_view meaning;  // one sentence
};

// In enum order; every DiagCode appears exactly once (a unit test checks it).
std::span<const DiagCodeInfo> diagCodeTable();
const DiagCodeInfo& diagCodeInfo(DiagCode code);

// docs/diagnostics.md: one table per group, code and meaning.
std::string diagnosticCodesMarkdown();

}  // namespace qnnrules
