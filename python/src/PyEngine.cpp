// The engine for Python: open once for (backend, SoC, mode, rule directories, backend
// options), then annotate, validate and partition graphs. Statuses become exceptions here
// (qnnrules.errors); strict mode raises ValidationError with every violation in its message,
// warn mode returns the same diagnostics as warnings.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <memory>
#include <optional>

#include "Bindings.h"
#include "qnnrules/Engine.h"
#include "qnnrules/annotate/Recipe.h"
#include "qnnrules/model/QuantConfig.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules::python {
namespace {

std::unique_ptr<Engine> openEngine(const std::optional<std::string>& backend, const std::optional<std::string>& soc,
                                   bool strict, const std::vector<std::filesystem::path>& rules, bool useEnvironment,
                                   const std::optional<std::filesystem::path>& builtinRulesDir,
                                   const std::vector<std::string>& backendOptions,
                                   std::optional<bool> requireFullDelegation, const std::optional<std::string>& lowering) {
  EngineOptions o;
  if (backend) o.backend = *backend;  // None: the backend whose manifest says `default: true`
  if (soc) o.soc = *soc;  // None: the default SoC, and reports say so
  o.mode = strict ? Mode::kStrict : Mode::kWarn;
  o.ruleDirs = rules;
  o.useEnvironment = useEnvironment;
  if (builtinRulesDir) o.builtinRulesDir = *builtinRulesDir;
  o.backendOptions = backendOptions;
  o.requireFullDelegation = requireFullDelegation;
  if (lowering) o.lowering = *lowering;  // None: the graph's default path (ONNX: ort-qnn, else executorch)
  std::unique_ptr<Engine> e;
  {
    py::gil_scoped_release unlocked;
    e = std::make_unique<Engine>(std::move(o));
  }
  // A name the caller chose (SoC, backend, option) is a ConfigError; rule files that do not load a RuleError.
  if (!e->ok())
    raise(e->status().code() == StatusCode::kInvalidArgument ? "ConfigError" : "RuleError", statusMessage(e->status()),
          e->loadErrors());
  return e;
}

bool isStrict(const Engine& e) { return e.options().mode == Mode::kStrict; }

ValidationResult check(const Engine& e, const Graph& g) {
  py::gil_scoped_release unlocked;
  return e.validate(g);
}

std::string verdict(const Engine& e, const Graph& g, const ValidationResult& r) {
  return "graph '" + g.name + "' is not valid for " + e.options().backend + " on " + e.soc().name + ": " +
         std::to_string(r.errorCount()) + " error(s), " + std::to_string(r.warningCount()) + " warning(s)";
}

py::list validate(const Engine& e, const Graph& g) {
  ValidationResult r = check(e, g);
  if (isStrict(e) && !r.ok()) raise("ValidationError", verdict(e, g, r), r.diagnostics);
  return toPyList(r.diagnostics);
}

// --- annotate ------------------------------------------------------------------------------

struct AnnotationReport {
  Graph graph;  // the annotated copy; the caller's graph is left as it was
  AnnotateResult result;
};

// A recipe given as YAML text (the Quantizer's, built in memory), read by the engine's recipe
// parser against the configs the annotation uses: `config_file`'s, else the engine's.
// `configs` keeps the table the recipe's selections point into alive for the call.
void loadTextRecipe(const Engine& e, const std::string& text, const std::optional<std::filesystem::path>& configFile,
                    QuantConfigTable& configs, Recipe& recipe) {
  DiagnosticList errors;
  const QuantConfigTable* table = e.quantConfigs();
  if (configFile) {
    loadQuantConfigFile(*configFile, configFile->string(), configs, errors);
    if (!errors.empty()) raise("ConfigError", "the quantization config file has errors: " + configFile->string(), errors);
    table = &configs;
  }
  if (table == nullptr) return;  // the engine's configs have errors: annotate() says which
  loadRecipeText(text, "<recipe_text>", *table, recipe, errors);
  if (!errors.empty()) raise("ConfigError", "the recipe text has errors", errors);
}

AnnotationReport annotateReport(const Engine& e, const Graph& g, const std::string& config,
                                const std::optional<std::filesystem::path>& recipe,
                                const std::optional<std::filesystem::path>& configFile, bool strict,
                                const std::optional<std::string>& recipeText) {
  if (recipe && recipeText) throw py::value_error("pass recipe (a file) or recipe_text, not both");
  AnnotationReport out{g, {}};
  AnnotateOptions o;
  o.config = config;
  if (recipe) o.recipeFile = recipe->string();
  if (configFile) o.configFile = configFile->string();
  o.strict = strict;
  QuantConfigTable textConfigs;
  Recipe textRecipe;
  if (recipeText) {
    loadTextRecipe(e, *recipeText, configFile, textConfigs, textRecipe);
    o.recipe = &textRecipe;
  }
  {
    py::gil_scoped_release unlocked;
    out.result = e.annotate(out.graph, o);
  }
  if (!out.result.status.isOk()) raise("ConfigError", statusMessage(out.result.status), out.result.loadErrors);
  return out;
}

Graph annotate(const Engine& e, const Graph& g, const std::string& config,
               const std::optional<std::filesystem::path>& recipe,
               const std::optional<std::filesystem::path>& configFile, bool strict,
               const std::optional<std::string>& recipeText) {
  AnnotationReport r = annotateReport(e, g, config, recipe, configFile, strict, recipeText);
  if (!r.result.ok())
    raise("AnnotationError",
          "graph '" + g.name + "' could not be annotated with " + config + ": " +
              std::to_string(countSeverity(r.result.diagnostics, Severity::kError)) + " error(s)",
          r.result.diagnostics);
  return std::move(r.graph);
}

// --- delegation ----------------------------------------------------------------------------

// The report with node names resolved and its text/JSON forms made while the graph is at hand.
struct PyDelegation {
  DelegationReport report;
  ValidationResult validation;
  std::string text;
  std::string json;
  std::vector<std::vector<std::string>> partitions;
  py::list fallbacks;
};

PyDelegation delegation(const Engine& e, const Graph& in) {
  GraphAnalysis a;
  {
    py::gil_scoped_release unlocked;
    a = e.analyze(in);
  }
  // Names come from the graph the engine analysed (the folded one for a QDQ graph), not `in`.
  const Graph& g = *a.graph;
  PyDelegation d;
  d.text = a.delegationText();
  d.json = a.delegationJson();
  for (const Partition& p : a.delegation.partitions) {
    std::vector<std::string> names;
    for (uint32_t i : p.nodes) names.push_back(g.node(i).name);
    d.partitions.push_back(std::move(names));
  }
  for (const Fallback& f : a.delegation.fallbacks) {
    py::dict fd;
    fd["node"] = g.node(f.node).name;
    fd["op"] = std::string(g.target(g.node(f.node)));
    fd["source_op"] = std::string(g.sourceOp(g.node(f.node)));  // "onnx::Gemm" for an ONNX node
    fd["reason"] = std::string(fallbackReasonName(f.reason));
    fd["code"] = f.code ? py::object(py::str(std::string(diagCodeName(*f.code)))) : py::object(py::none());
    fd["message"] = f.message;
    fd["rule_id"] = f.ruleId;
    fd["location"] = f.mark.known() ? f.mark.toString() : std::string();
    fd["hint"] = f.hint;
    d.fallbacks.append(fd);
  }
  d.report = std::move(a.delegation);
  d.validation = std::move(a.validation);
  return d;
}

// --- introspection -------------------------------------------------------------------------

py::list ruleList(const Engine& e) {
  py::list out;
  for (const Rule& r : e.rules().rules()) {
    py::dict d;
    d["id"] = r.id;
    d["qnn_op"] = r.qnnOp;
    d["targets"] = r.targets;
    d["origin"] = r.origin;
    d["location"] = r.mark.known() ? r.mark.toString() : std::string();
    d["description"] = r.description;
    out.append(d);
  }
  return out;
}

py::dict socDict(const SocInfo& s) {
  py::dict d;
  d["name"] = s.name;
  d["chipset_id"] = s.chipsetId;
  d["vtcm_mb"] = s.vtcmMb;
  // Every hardware column the SoC has (socs.yaml): {"htp": "V81", "lpai": "V6"}.
  py::dict hardware;
  for (const SocHardware& h : s.hardware)
    if (!h.version.empty()) hardware[py::str(h.column)] = h.version;
  d["hardware"] = hardware;
  d["marketing_name"] = s.marketingName;
  return d;
}

// Typed values: int and mask options as int, bool as bool, enum as its name (str).
py::dict backendOptionDict(const Engine& e) {
  py::dict d;
  for (const ResolvedOption& o : e.backendOptions()) {
    py::object value;
    switch (o.spec->type) {
      case OptionType::kInt:
      case OptionType::kMask: value = py::int_(o.value); break;
      case OptionType::kBool: value = py::bool_(o.value != 0); break;
      case OptionType::kEnum: value = py::str(o.text()); break;
    }
    d[py::str(o.spec->name)] = value;
  }
  return d;
}

}  // namespace

void bindEngine(py::module_& m) {
  py::class_<ValidationResult>(m, "ValidationReport", "Every diagnostic of one validation, with counts.")
      .def_property_readonly("diagnostics", [](const ValidationResult& r) { return toPyList(r.diagnostics); })
      .def_readonly("nodes_checked", &ValidationResult::nodesChecked, "call nodes looked at")
      .def_readonly("nodes_with_rule", &ValidationResult::nodesWithRule)
      .def_property_readonly("errors", [](const ValidationResult& r) { return ofSeverity(r.diagnostics, Severity::kError); },
                             "the error diagnostics (a list, as on ValidationError)")
      .def_property_readonly("warnings",
                             [](const ValidationResult& r) { return ofSeverity(r.diagnostics, Severity::kWarning); })
      .def_property_readonly("error_count", &ValidationResult::errorCount)
      .def_property_readonly("warning_count", &ValidationResult::warningCount)
      .def_property_readonly("ok", &ValidationResult::ok, "no errors")
      .def("__repr__", [](const ValidationResult& r) {
        return "<ValidationReport " + std::to_string(r.errorCount()) + " error(s), " +
               std::to_string(r.warningCount()) + " warning(s), " + std::to_string(r.nodesChecked) +
               " node(s) checked>";
      });

  py::class_<AnnotationReport>(m, "AnnotationReport", "An annotated copy of a graph and what the annotator said.")
      .def_readonly("graph", &AnnotationReport::graph)
      .def_property_readonly("diagnostics", [](const AnnotationReport& r) { return toPyList(r.result.diagnostics); })
      .def_property_readonly("nodes_annotated", [](const AnnotationReport& r) { return r.result.nodesAnnotated; })
      .def_property_readonly("nodes_kept", [](const AnnotationReport& r) { return r.result.nodesKept; },
                             "nodes that were already annotated and kept their annotation")
      .def_property_readonly("nodes_discarded", [](const AnnotationReport& r) { return r.result.nodesDiscarded; })
      .def_property_readonly("config", [](const AnnotationReport& r) { return r.result.config; })
      .def_property_readonly("qat", [](const AnnotationReport& r) { return r.result.qat; })
      .def_property_readonly("ok", [](const AnnotationReport& r) { return r.result.ok(); });

  py::class_<PyDelegation>(m, "DelegationReport",
                           "Which nodes the backend runs and which fall back to CPU, in which partitions, and why.")
      .def_property_readonly("backend", [](const PyDelegation& d) { return d.report.backend; })
      .def_property_readonly("strict", [](const PyDelegation& d) { return d.report.strict; })
      .def_property_readonly("compute_nodes", [](const PyDelegation& d) { return d.report.computeNodes; })
      .def_property_readonly("delegated_compute_nodes",
                             [](const PyDelegation& d) { return d.report.delegatedComputeNodes; })
      .def_readonly("partitions", &PyDelegation::partitions, "node names of each partition, in graph order")
      .def_readonly("fallbacks", &PyDelegation::fallbacks,
                    "compute nodes on CPU: node, op, reason, code, message, rule_id, location, hint")
      .def_property_readonly("full_delegation_required",
                             [](const PyDelegation& d) { return d.report.fullDelegationRequired; })
      .def_property_readonly("full_delegation_problems",
                             [](const PyDelegation& d) { return d.report.fullDelegationProblems; })
      .def_property_readonly("ok", [](const PyDelegation& d) { return d.report.ok(); },
                             "full delegation is satisfied or not required")
      .def_readonly("validation", &PyDelegation::validation, "the validation the partition was built from")
      .def_property_readonly("summary", [](const PyDelegation& d) { return delegationSummaryLine(d.report); })
      .def("to_dict", [](const PyDelegation& d) { return jsonLoads(d.json); }, "the CLI's JSON report, as a dict")
      .def("__str__", [](const PyDelegation& d) { return d.text; });

  py::class_<Engine> engine(m, "Engine",
                     "Rules of one backend for one SoC. Raises qnnrules.RuleError when rules, SoC, backend or "
                     "backend options are wrong. `rules` are overlay directories (after QNNRULES_PATH): a rule "
                     "with an existing id replaces it, a new id adds an op.");
  engine.def(py::init(&openEngine), py::arg("backend") = py::none(), py::arg("soc") = py::none(), py::arg("strict") = true,
           py::arg("rules") = std::vector<std::filesystem::path>{}, py::arg("use_environment") = true,
           py::arg("builtin_rules_dir") = py::none(), py::arg("backend_options") = std::vector<std::string>{},
           py::arg("require_full_delegation") = py::none(), py::arg("lowering") = py::none())
      .def("validate", &validate, py::arg("graph"),
           "Checks every node. Strict mode: raises qnnrules.ValidationError listing every violation when "
           "there is an error. Returns the list of Diagnostic objects (warnings and notes; in warn mode, "
           "every violation as a warning).")
      .def("check", &check, py::arg("graph"), "Like validate, never raises: the full ValidationReport.")
      .def("annotate", &annotate, py::arg("graph"), py::arg("config") = "8a8w", py::arg("recipe") = py::none(),
           py::arg("config_file") = py::none(), py::arg("strict") = false, py::arg("recipe_text") = py::none(),
           "An annotated copy of `graph`: every port gets a spec from `config` (e.g. '8a8w', "
           "'16a8w:per_channel') following this backend's rules, with an optional recipe: a file "
           "(`recipe`) or its YAML text (`recipe_text`). Raises RuleError for a bad config/recipe, "
           "AnnotationError when a port cannot be annotated as asked.")
      .def("annotate_report", &annotateReport, py::arg("graph"), py::arg("config") = "8a8w",
           py::arg("recipe") = py::none(), py::arg("config_file") = py::none(), py::arg("strict") = false,
           py::arg("recipe_text") = py::none(),
           "Like annotate, but returns the AnnotationReport (graph, diagnostics, counts) instead of raising "
           "on annotation diagnostics.")
      .def("delegation", &delegation, py::arg("graph"),
           "Validates and partitions as the backend's delegate would: the DelegationReport.")
      .def_property_readonly("backend", [](const Engine& e) { return e.options().backend; })
      .def_property_readonly("strict", &isStrict)
      .def_property_readonly("soc", [](const Engine& e) { return socDict(e.soc()); })
      .def_property_readonly("rules", &ruleList, "The backend's rules after overlays: id, targets, origin, location.")
      .def_property_readonly("backend_options", &backendOptionDict, "every backend option and its value")
      .def_property_readonly("search_path", [](const Engine& e) { return e.searchPath(); },
                             "Rule directories searched, built-in first.")
      .def("__repr__", [](const Engine& e) {
        return "<qnnrules.Engine backend=" + e.options().backend + " soc=" + e.soc().name +
               (isStrict(e) ? " strict>" : " warn>");
      });
  bindRunReport(m, engine);
  bindRecipeSearch(m, engine);
}

}  // namespace qnnrules::python
