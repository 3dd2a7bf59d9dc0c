// qnn-validate: checks a serialized graph against a backend's rules for one SoC.
//
// One pass through main: parse the command line (CliOptions.h) -> open the engine -> one
// Engine::run (the whole pipeline, pipeline/RunReport.h) -> render the run report (text or
// JSON or SARIF, pipeline/RunReportFormat.h) -> write the files asked for (--dot, --html,
// --output, --encodings: OutputFiles.h) -> exit code.
//
// Exit codes: 0 valid (or warn mode), 1 strict mode found violations, 2 usage errors or
// bad input (malformed graph, unknown SoC/backend, rule-file errors).
#include <nlohmann/json.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>
#include <optional>

#include "CliOptions.h"
#include "Progress.h"
#include "OutputFiles.h"
#include "MatrixRun.h"
#include "RecipeFiles.h"
#include "qnnrules/Engine.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/load/RuleRegistry.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/pipeline/RunBaseline.h"
#include "qnnrules/core/TerminalText.h"
#include "qnnrules/report/SarifWriter.h"
#include "qnnrules/report/TextStyle.h"

namespace qnnvalidate {
namespace {

using ojson = nlohmann::ordered_json;  // listings keep their keys in the order written

void printJson(const ojson& j) { std::cout << j.dump(2, ' ', false, ojson::error_handler_t::replace) << "\n"; }

// The run's report (with its graph and diagnostics), kept until the process exits and never
// destroyed: tearing down a large graph and a million diagnostics (millions of frees, then
// unmapping their pages) costs CPU and changes nothing, since the process ends right after (as
// clang's -disable-free keeps its AST). Held by a global, so it stays reachable and leak
// checkers do not report it.
const qnnrules::RunReport* keptReport = nullptr;
const qnnrules::RunReport& keepUntilExit(qnnrules::RunReport report) {
  auto* kept = new qnnrules::RunReport(std::move(report));
  keptReport = kept;
  return *kept;
}

int listRules(const qnnrules::Engine& engine, const std::string& format) {
  if (format == "json") {
    ojson rules = ojson::array();
    for (const qnnrules::Rule& r : engine.rules().rules())
      rules.push_back({{"id", r.id},
                       {"qnn_op", r.qnnOp},
                       {"targets", r.targets},
                       {"description", r.description},
                       {"origin", r.origin},
                       {"location", r.mark.known() ? ojson{{"file", *r.mark.file}, {"line", r.mark.line}} : ojson()}});
    printJson({{"tool", "qnn-validate"}, {"version", QNNRULES_VERSION}, {"backend", engine.rules().backend()},
               {"rules", std::move(rules)}});
    return kExitValid;
  }
  using qnnrules::escapeControls;  // names from rule files, shown escaped
  for (const qnnrules::Rule& r : engine.rules().rules()) {
    std::cout << escapeControls(r.id) << "  [" << escapeControls(r.origin) << "]  "
              << escapeControls(r.mark.toString(false)) << "\n";
    std::cout << "    " << (r.qnnOp.empty() ? "(no QNN op)" : escapeControls(r.qnnOp)) << " <- ";
    for (size_t i = 0; i < r.targets.size(); ++i) std::cout << (i ? ", " : "") << escapeControls(r.targets[i]);
    std::cout << "\n";
  }
  std::cout << engine.rules().rules().size() << " rules for backend " << escapeControls(engine.rules().backend()) << "\n";
  return kExitValid;
}

int listSocs(qnnrules::Engine& engine, const std::string& format) {
  const auto& socs = engine.registry().socs();
  if (format == "json") {
    ojson list = ojson::array();
    for (const qnnrules::SocInfo& s : socs.table->all()) {
      ojson hardware = ojson::object();
      for (const qnnrules::SocHardware& h : s.hardware)
        if (!h.version.empty()) hardware[h.column] = h.version;
      list.push_back({{"name", s.name},
                      {"hardware", std::move(hardware)},
                      {"vtcm_mb", s.vtcmMb},
                      {"marketing_name", s.marketingName}});
    }
    printJson({{"tool", "qnn-validate"}, {"version", QNNRULES_VERSION}, {"socs", std::move(list)}});
    return kExitValid;
  }
  // "SM8850  HTP V81  LPAI V6  VTCM 8 MB  (Snapdragon 8 Elite Gen 5)": every column the SoC has.
  // Names from the SoC table (an overlay's): shown escaped.
  for (const qnnrules::SocInfo& s : socs.table->all()) {
    std::cout << qnnrules::escapeControls(s.name);
    for (const qnnrules::SocHardware& h : s.hardware)
      if (!h.version.empty())
        std::cout << "  " << qnnrules::escapeControls(qnnrules::hardwareLabel(h.column)) << " "
                  << qnnrules::escapeControls(h.version);
    std::cout << "  VTCM " << s.vtcmMb << " MB";
    if (!s.marketingName.empty()) std::cout << "  (" << qnnrules::escapeControls(s.marketingName) << ")";
    std::cout << "\n";
  }
  return kExitValid;
}

// Prints the report in the chosen format: text (the default), json or sarif. Text and JSON are
// written as they are rendered, a megabyte at a time (a million diagnostics are half a gigabyte
// of text, which need not be held whole).
void printReport(const CliOptions& o, const qnnrules::RunReport& report,
                 const qnnrules::SarifInvocation* invocation = nullptr) {
  qnnrules::RenderOptions options;
  options.times = o.time;
  const qnnrules::OutputSink toStdout = [](std::string_view piece) {
    std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
  };
  if (o.format == "json") return qnnrules::writeRunJson(report, options, toStdout);
  if (o.format == "sarif") {
    std::cout << qnnrules::formatRunSarif(report, invocation);
    return;
  }
  options.color = qnnrules::useColor(qnnrules::parseColorMode(o.color).value_or(qnnrules::ColorMode::kAuto), stdout);
  qnnrules::writeRunText(report, options, toStdout);
}

// --baseline FILE, read before the run so that a bad baseline stops it early; exit 2 (with a
// SARIF log saying so when SARIF was asked for).
std::optional<int> readBaseline(const CliOptions& o, qnnrules::Baseline& baseline) {
  if (o.baseline.empty()) return std::nullopt;
  qnnrules::Status st = qnnrules::readBaseline(o.baseline, baseline);
  if (st.isOk()) return std::nullopt;
  if (o.format == "sarif") {
    qnnrules::SarifRun run;
    run.toolVersion = QNNRULES_VERSION;
    run.graphPath = o.graphPath;
    run.invocation = qnnrules::SarifInvocation{false, kExitBadInput, {st.message()}};
    std::cout << qnnrules::formatSarif({}, run);
  }
  return reportError(st, {});
}

int run(const CliOptions& o) {
  if (std::optional<int> rc = runMatrix(o)) return *rc;
  qnnrules::Engine engine(engineOptions(o));
  if (engine.ok() && o.listRules) return listRules(engine, o.format);
  if (engine.ok() && o.listSocs) return listSocs(engine, o.format);
  qnnrules::Baseline baseline;
  if (std::optional<int> rc = readBaseline(o, baseline)) return *rc;

  // A recipe search starts from the graph as read, so with one the file is read here, once, and
  // the run judges that graph; a file that does not read is left to the run, which reports it
  // as every run does.
  std::optional<qnnrules::Graph> input;
  qnnrules::RunReport fresh = [&] {
    qnnrules::ProgressLine meter(std::cerr, "qnn-validate:", stderrProgress());  // erased before the report
    showReading(meter, o.graphPath);
    if (wantsRecipeSearch(o) && engine.ok())
      if (qnnrules::GraphReadResult read = qnnrules::readGraphFile(o.graphPath); read.ok())
        input = std::move(read.graph);
    return input ? engine.run(*input, runOptions(o)) : engine.run(runOptions(o));
  }();
  if (!o.baseline.empty()) qnnrules::applyBaseline(fresh, baseline);
  const qnnrules::RunReport& report = keepUntilExit(std::move(fresh));
  if (!report.ok()) {
    // Stopped before validating: the JSON or SARIF error on stdout, the errors on stderr; exit 2.
    if (o.format != "text") printReport(o, report);
    return reportError(report.status, report.stageErrors, report.stoppedAt);
  }
  if (o.format == "sarif") {
    // The SARIF log says how the run ended, so the files are written first.
    int rc = writeOutputFiles(o, report);
    if (rc == kExitValid && input) rc = writeRecipeFiles(o, engine, *input);
    const qnnrules::SarifInvocation invocation{
        rc != kExitBadInput, rc != kExitValid ? rc : qnnrules::runExitCode(report),
        rc == kExitBadInput ? std::vector<std::string>{"an output file (--html, --dot, --output, --encodings, "
                                                       "--suggest-recipe or --plan) could not be written; see the "
                                                       "standard error"}
                            : std::vector<std::string>{}};
    printReport(o, report, &invocation);
    return invocation.exitCode;
  }
  printReport(o, report);
  if (int rc = writeOutputFiles(o, report); rc != kExitValid) return rc;
  if (input)
    if (int rc = writeRecipeFiles(o, engine, *input); rc != kExitValid) return rc;
  return report.failed() ? kExitViolations : kExitValid;
}

}  // namespace
}  // namespace qnnvalidate

int main(int argc, char** argv) {
  using namespace qnnvalidate;
  installOutOfMemoryHandler();
  CliOptions o;
  if (std::optional<int> rc = parseCommandLine(argc, argv, o)) return *rc;
  auto logger = spdlog::stderr_color_mt("qnnrules");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(o.logLevel));
  if (!o.logLevelGiven) spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug, unless --log-level
  try {
    return run(o);
  } catch (const std::exception& e) {
    // The engine reports errors as values; reaching here is a bug, but still a defined exit.
    std::cerr << "qnn-validate: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
