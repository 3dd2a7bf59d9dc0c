// The text report (qnn-validate's default output), a function of the run report only.
#include <fmt/format.h>

#include "qnnrules/core/TerminalText.h"
#include "qnnrules/model/BackendManifest.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/report/Baseline.h"
#include "qnnrules/report/DelegatedViolations.h"
#include "qnnrules/report/OpSummary.h"
#include "qnnrules/report/TextStyle.h"
#include "qnnrules/report/Verdict.h"

namespace qnnrules {
namespace {

void appendExplanation(const NodeExplanation& e, std::string& s) {
  const bool bound = !e.sourceOp.empty() && e.sourceOp != e.op;  // an ONNX node: its own op type first
  s += "node '" + e.node + "' (" + (bound ? e.sourceOp + " as " : std::string()) + e.op + ")\n";
  s += "  rule:       " + e.rule + "\n  pattern:    " + e.pattern + "\n  config:     " + e.config +
       "\n  decided by: " + e.decidedBy + "\n";
  for (const PortDecision& p : e.ports) s += "  " + p.port + ": " + p.spec + "\n      from " + p.source + "\n";
}

void appendBackendOptions(const RunReport& r, std::string& s) {
  std::string set;
  for (const ResolvedOption& o : r.backendOptions)
    if (o.fromUser) set += (set.empty() ? "" : ", ") + o.spec->name + "=" + o.text();
  if (!set.empty()) s += "backend options: " + set + " (others default)\n";
}

// "lowering: ort-qnn (ONNX Runtime's QNN execution provider; the default for ONNX input)", then
// the encodings it rewrote before the rules judged them.
void appendLowering(const RunReport& r, std::string& s) {
  if (!r.lowering) return;
  s += "lowering: " + r.lowering->name + " (" + r.lowering->description +
       (r.loweringDefaulted ? "; default for this input, choose with --lowering)\n" : ")\n");
  for (const AppliedRewrite& a : r.rewrites)
    s += fmt::format("  rewritten before the backend judges them: {} port(s): {}\n", a.ports, a.rewrite->says);
  if (r.mergedConversions)
    s += fmt::format("  merged encodings across {} removed no-op conversion(s) (the path's Q/DQ pair merging)\n",
                     r.mergedConversions);
  if (r.floatUngroupedNodes)
    s += fmt::format("  judged as float32: {} node(s) ONNX Runtime does not group with their Q/DQ nodes (an input or "
                     "output without one); QNN HTP runs them in FP16\n",
                     r.floatUngroupedNodes);
}

// "PATH: 12 op nodes checked against htp rules for SM8650 (HTP V75), strict mode: ..."
void appendSummaryLine(const RunReport& r, std::string& s) {
  const ValidationResult& v = r.validation;
  const std::string hardware = hardwareText(r.rules ? r.rules->manifest() : nullptr, r.soc);
  std::string notes = hardware;
  if (r.socDefaulted) notes += (notes.empty() ? "" : "; ") + std::string("default SoC, choose with --soc");
  s += fmt::format("{}: {} op nodes checked against {} rules for {}{}, {} mode: {} error(s), {} warning(s)",
                   r.graphLabel(), v.nodesChecked, r.backend, r.soc.name, notes.empty() ? "" : " (" + notes + ")",
                   r.mode == Mode::kWarn ? "warn" : "strict", v.errorCount(), v.warningCount());
  if (!r.delegation.ok()) s += ", full delegation not satisfied";
  if (r.failed())
    s += " - INVALID";
  else if (v.diagnostics.empty())
    s += " - valid";
  s += '\n';
}

std::string stoppedText(const RunReport& r) {
  std::string s;
  for (const Diagnostic& d : r.stageErrors) s += formatText(d);
  return s;
}

}  // namespace

std::string formatPhaseTimesText(const PhaseTimes& times) {
  std::string s = fmt::format("time: {:<10} {:>9} {:>9}\n", "phase", "wall ms", "cpu ms");
  for (size_t i = 0; i < times.phases.size(); ++i) {
    const PhaseTime& t = times.phases[i];
    if (t.ran) s += fmt::format("  {:<14} {:>9.2f} {:>9.2f}\n", phaseName(static_cast<Phase>(i)), t.wallMs, t.cpuMs);
  }
  const PhaseTime total = times.total();
  s += fmt::format("  {:<14} {:>9.2f} {:>9.2f}\n", "total", total.wallMs, total.cpuMs);
  return s;
}

void writeRunText(const RunReport& r, const RenderOptions& options, const OutputSink& sink) {
  if (!r.ok()) {
    sink(stoppedText(r));
    return;
  }
  PhaseTimes times = r.times;
  PhaseTimer timer(times, Phase::kReport);
  std::string s;
  auto passOnIfLarge = [&] {
    if (s.size() < kOutputPieceBytes) return;
    sink(s);
    s.clear();
  };
  for (const Diagnostic& d : r.validation.diagnostics) {
    s += styleDiagnostic(d, options.color);
    s += '\n';
    passOnIfLarge();
  }
  // The sections below name nodes, ops, files and configs from the input: escaped (their own
  // line feeds kept) before they join the coloured text (core/TerminalText.h).
  std::string plain;
  auto passOnPlain = [&] {
    s += escapeControlsKeepingLines(plain);
    plain.clear();
    passOnIfLarge();
  };
  if (r.annotation && r.annotation->explanation) appendExplanation(*r.annotation->explanation, plain);
  if (r.annotation)
    plain += fmt::format("annotated with {}: {} node(s) annotated, {} kept, {} discarded\n", r.annotation->config,
                         r.annotation->nodesAnnotated, r.annotation->nodesKept, r.annotation->nodesDiscarded);
  passOnPlain();
  plain += formatDelegationText(*r.graph, r.delegation);  // a line or two per partition and fallback run
  plain += formatDelegatedViolations(*r.graph, delegatedWithViolations(*r.graph, r.delegation, r.validation.diagnostics));
  passOnPlain();
  appendBackendOptions(r, plain);
  plain += formatOpTable(summarizeOps(*r.graph, r.delegation, r.validation.diagnostics));
  std::string dirs;
  for (const std::string& d : r.ruleDirs) dirs += (dirs.empty() ? "" : ", ") + d;
  plain += "rules from: " + dirs + "\n";
  appendLowering(r, plain);
  if (r.baseline)
    plain += fmt::format("baseline {}: {} finding(s) unchanged (not shown), {} absent\n", r.baseline->file,
                         r.baseline->unchanged.size(), r.baseline->absent.size());
  appendSummaryLine(r, plain);
  passOnPlain();
  s += "verdict: " + styleVerdict(judge(r.failed(), r.delegation), options.color) + "\n";
  timer.stop();
  if (options.times) s += formatPhaseTimesText(times);
  sink(s);
}

std::string formatRunText(const RunReport& r, const RenderOptions& options) {
  std::string out;
  writeRunText(r, options, [&out](std::string_view piece) { out += piece; });
  return out;
}

}  // namespace qnnrules
