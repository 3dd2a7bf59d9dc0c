#include "CliOptions.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <iostream>

#include "qnnrules/core/Suggest.h"
#include "qnnrules/report/SarifWriter.h"

namespace qnnvalidate {
namespace {

constexpr const char* kExitCodeTable =
    "Exit codes:\n"
    "  0  valid, or warn mode\n"
    "  1  strict mode (the default) found violations, or full delegation is required and not met\n"
    "  2  usage error or bad input: unknown flag, SoC, backend or option; malformed graph; rule-file errors\n"
    "Environment: QNNRULES_PATH (rule overlays), SPDLOG_LEVEL (log level), NO_COLOR (no colour)";

// "--frobnicate" -> "unknown option '--frobnicate'; did you mean '--format'?" for each flag of
// argv the app does not know, so a typo is answered with the flag that was meant.
void suggestFlags(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  for (const CLI::Option* opt : app.get_options())
    for (const std::string& n : opt->get_lnames()) known.push_back("--" + n);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (!arg.starts_with("--")) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), arg) != known.end()) continue;
    std::string hint = qnnrules::didYouMean(arg, known);
    std::cerr << "qnn-validate: error: unknown option '" << arg << "'"
              << (hint.empty() ? "; see --help for the options" : "; " + hint) << "\n";
  }
}

std::string lowerCase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// An enumerated option's check: the value, any case, is one of `names` (written back as listed);
// otherwise "jsn is not one of {text, json, sarif, html}; did you mean 'json'?".
CLI::Validator oneOf(std::vector<std::string> names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return CLI::Validator(
      [names, list](std::string& value) -> std::string {
        const std::string lower = lowerCase(value);
        for (const std::string& n : names)
          if (n == lower) {
            value = n;
            return {};
          }
        std::string hint = qnnrules::didYouMean(lower, names);
        return value + " is not one of {" + list + "}" + (hint.empty() ? "" : "; " + hint);
      },
      "{" + list + "}");
}

// A usage error of a run asked for SARIF (`--format sarif` anywhere on the command line) still
// prints a SARIF log, one that says the run did not happen, so CI never reads silence as clean.
void usageErrorSarif(int argc, char** argv, const std::string& error) {
  bool sarif = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (lowerCase(arg) == "--format=sarif" || (arg == "--format" && i + 1 < argc && lowerCase(argv[i + 1]) == "sarif"))
      sarif = true;
  }
  if (!sarif) return;
  qnnrules::SarifRun run;
  run.toolVersion = QNNRULES_VERSION;
  run.invocation = qnnrules::SarifInvocation{false, kExitBadInput, {"usage error: " + error}};
  std::cout << qnnrules::formatSarif({}, run);
}

}  // namespace

std::optional<int> parseCommandLine(int argc, char** argv, CliOptions& o) {
  CLI::App app{"Checks a quantized graph against QNN backend rules before lowering."};
  app.set_version_flag("--version", "qnn-validate " QNNRULES_VERSION);
  app.add_option("graph", o.graphPath,
                 "graph file: a torch.export archive (.pt2), an ONNX model, or a JSON graph (format v1)");
  app.footer(kExitCodeTable);
  // Names are case-insensitive, like --soc: backends are folder names in lower case.
  app.add_option("--backend", o.backend,
                 "backend, a folder of the rules directories (htp, lpai, gpu in the bundled rules); default: the "
                 "backend whose manifest says `default: true` (htp in the bundled rules)")
      ->transform(lowerCase);
  auto* soc = app.add_option("--soc", o.soc,
                             "target SoC, e.g. SM8650 (see --list-socs); 'all' or a comma list for a "
                             "compatibility matrix")
                  ->capture_default_str();
  app.add_option("--lowering", o.lowering,
                 "the path the graph takes to the backend: ort-qnn (ONNX Runtime's QNN EP; default for .onnx), "
                 "executorch (default for .pt2 and JSON), none (the graph as the backend sees it); rules/lowering/")
      ->transform(lowerCase);
  auto* strict = app.add_flag("--strict", o.strict, "violations are errors, exit 1 (default)");
  app.add_flag("--warn", o.warn, "report violations as warnings, exit 0")->excludes(strict);
  app.add_option("--format", o.format,
                 "report format: text, json (docs/schemas/report.schema.json), sarif (SARIF 2.1.0); html for a "
                 "compatibility matrix")
      ->transform(oneOf({"text", "json", "sarif", "html"}))
      ->capture_default_str();
  app.add_option("--html", o.html, "also write a self-contained HTML report here (open it in any browser)");
  app.add_option("--baseline", o.baseline,
                 "an earlier report of qnn-validate (--format json or sarif): report and fail only on findings "
                 "not in it (a finding is its code, node, port and rule)");
  app.add_option("--color", o.color, "colour the text report: auto (when stdout is a terminal), always, never")
      ->transform(oneOf({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_option("--rules", o.ruleDirs, "overlay rules directory (repeatable, one per --rules; after QNNRULES_PATH)")
      ->expected(1)
      ->allow_extra_args(false)  // `--rules DIR graph.json`: the graph stays the graph
      ->take_all();
  app.add_flag("--list-rules", o.listRules, "list the backend's rules and where each came from");
  app.add_flag("--list-socs", o.listSocs, "list known SoCs");
  auto* annotate = app.add_option("--annotate", o.annotate,
                                  "annotate first with CONFIG (NAME[:per_tensor|per_channel|per_block][,sym][,qat])");
  app.add_option("--recipe", o.recipe, "recipe YAML of overrides (with --annotate)")->needs(annotate);
  app.add_option("--output", o.output, "write the annotated graph here (atomically; not on violations)");
  app.add_option("--explain-node", o.explainNode, "say which config, override and rule decided each port of NAME")
      ->needs(annotate);
  app.add_option("--encodings", o.encodings, "write encodings computed from the graph's min/max statistics");
  auto* suggest = app.add_option("--suggest-recipe", o.suggestRecipe,
                                 "write a recipe of per-node overrides that makes the --annotate config valid on the SoC")
                      ->needs(annotate);
  auto* overrides = app.add_option("--suggest-overrides", o.suggestOverrides,
                 "ONNX input: write that repair as ONNX Runtime tensor overrides (get_qnn_qdq_config's init_overrides)")
      ->needs(annotate);
  app.add_option("--plan", o.plan, "write a recipe giving each node the most precise config the SoC takes")
      ->excludes(suggest)
      ->excludes(overrides);
  app.add_option("--configs", o.configs,
                 "a compatibility matrix over these configs ('all', or names) and the --soc list")
      ->expected(1, 64)
      ->excludes(annotate);
  app.add_option("--backend-option", o.backendOptions, "backend option NAME=VALUE (repeatable), e.g. fps=30")
      ->expected(1)
      ->allow_extra_args(false)  // one NAME=VALUE per flag, so a following graph path is not swallowed
      ->take_all();
  auto* full = app.add_flag("--require-full-delegation", o.requireFull,
                            "fail unless the graph is one partition with no compute on CPU (default for lpai)");
  app.add_flag("--no-require-full-delegation", o.noRequireFull, "allow partial delegation")->excludes(full);
  app.add_option("--dot", o.dot, "write a Graphviz picture of the delegation (partitions, fallbacks) here");
  app.add_flag("--time", o.time, "print the wall and CPU time of each phase (rule load, read, ..., report)");
  auto* logLevel =
      app.add_option("--log-level", o.logLevel, "trace, debug, info, warn, error, off (default: $SPDLOG_LEVEL, else warn)")
          ->transform(oneOf({"trace", "debug", "info", "warn", "error", "off"}))
          ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) suggestFlags(app, argc, argv);
    int rc = app.exit(e);
    if (rc != 0) usageErrorSarif(argc, argv, e.what());
    return rc == 0 ? kExitValid : kExitBadInput;
  }
  o.socGiven = soc->count() > 0;
  o.logLevelGiven = logLevel->count() > 0;
  if (o.graphPath.empty() && !o.listRules && !o.listSocs) {
    std::cerr << "qnn-validate: error: a graph file is required (or --list-rules / --list-socs)\n"
              << "Run with --help for more information.\n";
    usageErrorSarif(argc, argv, "a graph file is required (or --list-rules / --list-socs)");
    return kExitBadInput;
  }
  return std::nullopt;
}

qnnrules::EngineOptions engineOptions(const CliOptions& o) {
  qnnrules::EngineOptions eo;
  eo.backend = o.backend;
  if (o.socGiven) eo.soc = o.soc;  // empty: the default SoC, and the summary line says so
  eo.mode = o.warn ? qnnrules::Mode::kWarn : qnnrules::Mode::kStrict;
  for (const std::string& d : o.ruleDirs) eo.ruleDirs.emplace_back(d);
  eo.backendOptions = o.backendOptions;
  eo.lowering = o.lowering;
  if (o.requireFull) eo.requireFullDelegation = true;
  if (o.noRequireFull) eo.requireFullDelegation = false;
  return eo;
}

qnnrules::RunOptions runOptions(const CliOptions& o) {
  qnnrules::RunOptions ro;
  ro.graphPath = o.graphPath;
  if (!o.annotate.empty()) {
    qnnrules::AnnotateOptions ao;
    ao.config = o.annotate;
    ao.recipeFile = o.recipe;
    ao.strict = !o.warn;
    ao.explainNode = o.explainNode;
    ro.annotate = ao;
  }
  ro.computeEncodings = !o.encodings.empty();
  return ro;
}

}  // namespace qnnvalidate
