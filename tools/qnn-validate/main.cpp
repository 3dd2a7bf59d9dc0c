// qnn-validate: checks a serialized graph against a backend's rules for one SoC.
//
// One pass through main: parse the command line (CliOptions.h) -> open the engine -> one
// Engine::run (the whole pipeline, pipeline/RunReport.h) -> render the run report (text or
// JSON, pipeline/RunReportFormat.h) -> write the files asked for (OutputFiles.h) -> exit code.
//
// Exit codes: 0 valid (or warn mode), 1 strict mode found violations, 2 usage errors or
// bad input (malformed graph, unknown SoC/backend, rule-file errors).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>

#include "CliOptions.h"
#include "OutputFiles.h"
#include "qnnrules/Engine.h"
#include "qnnrules/pipeline/RunReportFormat.h"

namespace qnnvalidate {
namespace {

int listRules(const qnnrules::Engine& engine) {
  for (const qnnrules::Rule& r : engine.rules().rules()) {
    std::cout << r.id << "  [" << r.origin << "]  " << r.mark.toString(false) << "\n";
    std::cout << "    " << (r.qnnOp.empty() ? "(no QNN op)" : r.qnnOp) << " <- ";
    for (size_t i = 0; i < r.targets.size(); ++i) std::cout << (i ? ", " : "") << r.targets[i];
    std::cout << "\n";
  }
  std::cout << engine.rules().rules().size() << " rules for backend " << engine.rules().backend() << "\n";
  return kExitValid;
}

int listSocs(qnnrules::Engine& engine) {
  const auto& socs = engine.registry().socs();
  for (const qnnrules::SocInfo& s : socs.table->all()) {
    std::cout << s.name << "  HTP " << qnnrules::htpArchName(s.htpArch) << "  VTCM " << s.vtcmMb << " MB";
    if (!s.lpaiVersion.empty()) std::cout << "  LPAI " << s.lpaiVersion;
    if (!s.marketingName.empty()) std::cout << "  (" << s.marketingName << ")";
    std::cout << "\n";
  }
  return kExitValid;
}

int run(const CliOptions& o) {
  qnnrules::Engine engine(engineOptions(o));
  if (engine.ok() && o.listRules) return listRules(engine);
  if (engine.ok() && o.listSocs) return listSocs(engine);

  const qnnrules::RunReport report = engine.run(runOptions(o));
  qnnrules::RenderOptions render;
  render.times = o.time;
  if (!report.ok()) {
    // Stopped before validating: the JSON error on stdout, the errors on stderr; exit 2.
    if (o.format == "json") std::cout << qnnrules::formatRunJson(report);
    return reportError(report.status, report.stageErrors);
  }
  std::cout << (o.format == "json" ? qnnrules::formatRunJson(report, render)
                                   : qnnrules::formatRunText(report, render));
  if (int rc = writeOutputFiles(o, report); rc != kExitValid) return rc;
  return report.failed() ? kExitViolations : kExitValid;
}

}  // namespace
}  // namespace qnnvalidate

int main(int argc, char** argv) {
  using namespace qnnvalidate;
  CliOptions o;
  if (std::optional<int> rc = parseCommandLine(argc, argv, o)) return *rc;
  auto logger = spdlog::stderr_color_mt("qnnrules");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(o.logLevel));
  try {
    return run(o);
  } catch (const std::exception& e) {
    // The engine reports errors as values; reaching here is a bug, but still a defined exit.
    std::cerr << "qnn-validate: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
