// SARIF and HTML renderers of a run report: each a function of the report only, like the text
// and JSON ones (pipeline/RunReportFormat.h).
#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/report/HtmlReport.h"
#include "qnnrules/report/SarifWriter.h"

namespace qnnrules {

std::string formatRunSarif(const RunReport& report) {
  SarifRun run;
  run.toolVersion = QNNRULES_VERSION;
  run.graphPath = report.graphPath;
  run.rules = report.rules.get();
  return formatSarif(report.ok() ? report.validation.diagnostics : report.stageErrors, run);
}

std::string formatRunHtml(const RunReport& report) { return formatHtmlReport(formatRunJson(report)); }

}  // namespace qnnrules
