// qnn-validate: checks a serialized graph against a backend's rules for one SoC.
//
// Exit codes: 0 valid (or warn mode), 1 strict mode found violations, 2 usage errors or
// bad input (malformed graph, unknown SoC/backend, rule-file errors).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "qnnrules/Engine.h"
#include "qnnrules/GraphReader.h"

namespace {

constexpr int kExitValid = 0;
constexpr int kExitViolations = 1;
constexpr int kExitBadInput = 2;

struct CliOptions {
  std::string graphPath;
  std::string backend = "htp";
  std::string soc = "SM8750";
  bool strict = false;
  bool warn = false;
  std::string format = "text";
  std::vector<std::string> ruleDirs;
  bool listRules = false;
  bool listSocs = false;
  std::string logLevel = "warn";
};

void printDiagnostics(const qnnrules::DiagnosticList& diags, std::ostream& os) {
  for (const qnnrules::Diagnostic& d : diags) os << qnnrules::formatText(d);
}

// Errors that stop the run before validation: printed to stderr, exit 2.
int badInput(const std::string& what, const qnnrules::Status& status, const qnnrules::DiagnosticList& errors,
             const std::string& format) {
  if (format == "json") {
    nlohmann::json j = {{"valid", false},
                        {"error", {{"kind", what}, {"code", qnnrules::statusCodeName(status.code())},
                                   {"message", status.message()}}},
                        {"diagnostics", nlohmann::json::parse(qnnrules::formatJsonArray(errors))}};
    std::cout << j.dump(2) << "\n";
  }
  printDiagnostics(errors, std::cerr);
  std::cerr << "qnn-validate: error: " << status.message();
  if (!status.fragment().empty() && status.message().find(status.fragment()) == std::string::npos)
    std::cerr << " (" << status.fragment() << ")";
  std::cerr << "\n";
  return kExitBadInput;
}

int listRules(qnnrules::Engine& engine) {
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
  qnnrules::EngineOptions eo;
  eo.backend = o.backend;
  eo.soc = o.soc;
  eo.mode = o.warn ? qnnrules::Mode::kWarn : qnnrules::Mode::kStrict;
  for (const std::string& d : o.ruleDirs) eo.ruleDirs.emplace_back(d);
  qnnrules::Engine engine(eo);
  if (!engine.ok()) return badInput("rules", engine.status(), engine.loadErrors(), o.format);
  if (o.listRules) return listRules(engine);
  if (o.listSocs) return listSocs(engine);

  qnnrules::GraphReadResult read = qnnrules::readGraphFile(o.graphPath);
  if (!read.ok()) return badInput("graph", read.status, read.errors, o.format);

  qnnrules::ValidationResult result = engine.validate(read.graph);
  const bool failed = !o.warn && !result.ok();
  const std::string mode = o.warn ? "warn" : "strict";
  const std::string arch(qnnrules::htpArchName(engine.soc().htpArch));
  if (o.format == "json") {
    nlohmann::json j = {
        {"graph", read.graph.name.empty() ? o.graphPath : read.graph.name},
        {"backend", o.backend},
        {"soc", engine.soc().name},
        {"htp_arch", arch},
        {"mode", mode},
        {"valid", !failed && result.ok()},
        {"summary", {{"nodes_checked", result.nodesChecked}, {"nodes_with_rule", result.nodesWithRule},
                     {"errors", result.errorCount()}, {"warnings", result.warningCount()}}},
        {"diagnostics", nlohmann::json::parse(qnnrules::formatJsonArray(result.diagnostics))},
    };
    std::cout << j.dump(2) << "\n";
  } else {
    for (const qnnrules::Diagnostic& d : result.diagnostics) std::cout << qnnrules::formatText(d) << "\n";
    std::cout << o.graphPath << ": " << result.nodesChecked << " op nodes checked against " << o.backend
              << " rules for " << engine.soc().name << " (HTP " << arch << "), " << mode << " mode: "
              << result.errorCount() << " error(s), " << result.warningCount() << " warning(s)"
              << (failed ? " - INVALID" : (result.diagnostics.empty() ? " - valid" : "")) << "\n";
  }
  return failed ? kExitViolations : kExitValid;
}

}  // namespace

int main(int argc, char** argv) {
  CliOptions o;
  CLI::App app{"Checks a quantized graph against QNN backend rules before lowering."};
  app.add_option("graph", o.graphPath, "graph file (JSON, qnnrules graph format v1)");
  app.add_option("--backend", o.backend, "backend: htp, lpai, gpu")->capture_default_str();
  app.add_option("--soc", o.soc, "target SoC, e.g. SM8650 (see --list-socs)")->capture_default_str();
  auto* strict = app.add_flag("--strict", o.strict, "violations are errors, exit 1 (default)");
  app.add_flag("--warn", o.warn, "report violations as warnings, exit 0")->excludes(strict);
  app.add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  app.add_option("--rules", o.ruleDirs, "overlay rules directory (repeatable; after QNNRULES_PATH)");
  app.add_flag("--list-rules", o.listRules, "list the backend's rules and where each came from");
  app.add_flag("--list-socs", o.listSocs, "list known SoCs");
  app.add_option("--log-level", o.logLevel, "trace, debug, info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitValid : kExitBadInput;
  }
  auto logger = spdlog::stderr_color_mt("qnnrules");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(o.logLevel));
  if (o.graphPath.empty() && !o.listRules && !o.listSocs) {
    std::cerr << "qnn-validate: error: a graph file is required (or --list-rules / --list-socs)\n"
              << "Run with --help for more information.\n";
    return kExitBadInput;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    // The engine reports errors as values; reaching here is a bug, but still a defined exit.
    std::cerr << "qnn-validate: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
