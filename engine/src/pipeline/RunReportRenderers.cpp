// SARIF and HTML renderers of a run report: each a function of the report only, like the text
// and JSON ones (pipeline/RunReportFormat.h).
#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/annotate/Encodings.h"
#include "qnnrules/report/DotWriter.h"
#include "qnnrules/report/HtmlReport.h"
#include "qnnrules/report/SarifWriter.h"

namespace qnnrules {

int runExitCode(const RunReport& report) { return !report.ok() ? 2 : report.failed() ? 1 : 0; }

std::string formatRunSarif(const RunReport& report, const SarifInvocation* invocation) {
  SarifRun run;
  run.toolVersion = QNNRULES_VERSION;
  run.graphPath = report.graphPath;
  run.rules = report.rules.get();
  run.baseline = report.baseline.get();
  if (invocation) {
    run.invocation = *invocation;
  } else {
    run.invocation = SarifInvocation{report.ok(), runExitCode(report), {}};
    if (!report.ok()) {
      std::string message = report.status.message();
      const std::string& fragment = report.status.fragment();
      if (!fragment.empty() && message.find(fragment) == std::string::npos) message += " (" + fragment + ")";
      run.invocation->errors.push_back(std::move(message));
    }
  }
  return formatSarif(report.ok() ? report.validation.diagnostics : report.stageErrors, run);
}

std::string formatRunHtml(const RunReport& report) { return formatHtmlReport(formatRunJson(report)); }

std::string formatRunDot(const RunReport& report) { return formatDot(*report.graph, report.delegation); }

std::string formatRunEncodings(const RunReport& report) {
  if (!report.encodings) return {};
  const bool annotated = report.annotation.has_value();
  return encodingsToJson(*report.encodings, report.graph->name, annotated ? report.annotation->config : "",
                         annotated && report.annotation->qat);
}

}  // namespace qnnrules
