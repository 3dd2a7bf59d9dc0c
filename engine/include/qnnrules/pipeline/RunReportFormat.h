// Renderers of a run report: each is a function of the RunReport only, so qnn-validate, the
// C++ API and the Python package print the same bytes for the same run, and new formats
// (SARIF, HTML) are one more function beside these.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "qnnrules/pipeline/RunReport.h"

namespace qnnrules {

struct SarifInvocation;  // report/SarifWriter.h

struct RenderOptions {
  // Append the per-phase wall and CPU times (qnn-validate --time). The renderer times its own
  // work as the "report" phase.
  bool times = false;
  // Colour the text report's diagnostic heads and verdict (report/TextStyle.h; qnn-validate
  // --color). Never set for goldens, pipes and files.
  bool color = false;
};

// Where writeRunText / writeRunJson put their output: consecutive pieces of it, each about
// kOutputPieceBytes or less, so that the report of a million diagnostics (half a gigabyte of
// text) is never one string in memory. qnn-validate writes the pieces to stdout.
using OutputSink = std::function<void(std::string_view)>;
inline constexpr size_t kOutputPieceBytes = size_t{1} << 20;

// qnn-validate's text report: every diagnostic, the annotation and delegation summaries, the
// rule directories, and the summary line:
//   PATH: N op nodes checked against htp rules for SM8650 (HTP V75), strict mode: 0 error(s), ...
// A run that stopped early renders as its stage errors (what qnn-validate prints to stderr).
std::string formatRunText(const RunReport& report, const RenderOptions& options = {});
void writeRunText(const RunReport& report, const RenderOptions& options, const OutputSink& sink);

// qnn-validate --format json: one JSON document (ends with a newline), keys in the order of
// docs/schemas/report.schema.json. A run that stopped early is
// {"tool", "version", "valid": false, "error": {kind, code, message}, "diagnostics": [...]}.
std::string formatRunJson(const RunReport& report, const RenderOptions& options = {});
void writeRunJson(const RunReport& report, const RenderOptions& options, const OutputSink& sink);

// qnn-validate --format sarif: the run's diagnostics (or a stopped run's stage errors) as one
// SARIF 2.1.0 log (report/SarifWriter.h), with its invocation: executionSuccessful false,
// exit code 2 and the error for a run that stopped; else the run's exit code (runExitCode).
// `invocation` replaces that when the caller knows better (qnn-validate, when an output file
// could not be written).
std::string formatRunSarif(const RunReport& report, const SarifInvocation* invocation = nullptr);

// qnn-validate's exit code for a run: 2 when it stopped, 1 when it failed (strict mode with
// violations, or full delegation required and not met), else 0.
int runExitCode(const RunReport& report);

// qnn-validate --html FILE: the self-contained HTML page drawing the JSON report
// (report/HtmlReport.h).
std::string formatRunHtml(const RunReport& report);

// qnn-validate --dot FILE: the Graphviz picture of the delegation (report/DotWriter.h).
std::string formatRunDot(const RunReport& report);

// qnn-validate --encodings FILE: the encodings JSON of a run that computed them
// (RunOptions::computeEncodings, annotate/Encodings.h); "" when it did not.
std::string formatRunEncodings(const RunReport& report);

// The --time block of the text report:
//   time: phase       wall ms   cpu ms
//     rule load          3.10     3.05
std::string formatPhaseTimesText(const PhaseTimes& times);

}  // namespace qnnrules
