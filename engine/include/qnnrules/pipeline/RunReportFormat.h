// Renderers of a run report: each is a function of the RunReport only, so qnn-validate, the
// C++ API and the Python package print the same bytes for the same run, and new formats
// (SARIF, HTML) are one more function beside these.
#pragma once

#include <string>

#include "qnnrules/pipeline/RunReport.h"

namespace qnnrules {

struct RenderOptions {
  // Append the per-phase wall and CPU times (qnn-validate --time). The renderer times its own
  // work as the "report" phase.
  bool times = false;
};

// qnn-validate's text report: every diagnostic, the annotation and delegation summaries, the
// rule directories, and the summary line:
//   PATH: N op nodes checked against htp rules for SM8650 (HTP V75), strict mode: 0 error(s), ...
// A run that stopped early renders as its stage errors (what qnn-validate prints to stderr).
std::string formatRunText(const RunReport& report, const RenderOptions& options = {});

// qnn-validate --format json: one JSON document (ends with a newline). A run that stopped
// early is {"valid": false, "error": {kind, code, message}, "diagnostics": [...]}.
std::string formatRunJson(const RunReport& report, const RenderOptions& options = {});

// The --time block of the text report:
//   time: phase       wall ms   cpu ms
//     rule load          3.10     3.05
std::string formatPhaseTimesText(const PhaseTimes& times);

}  // namespace qnnrules
