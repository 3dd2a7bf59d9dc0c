// Engine.run for Python: the engine's one pipeline (pipeline/RunReport.h) on a graph or a graph
// file, returned as the RunReport whose to_json() is byte for byte `qnn-validate --format json`
// and whose str() is qnn-validate's text report: the same renderers, not a Python copy of them.
// A run that stops before validating raises (GraphError, ConfigError, RuleError).
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <optional>

#include "Bindings.h"
#include "qnnrules/Engine.h"
#include "qnnrules/pipeline/FallbackDiagnostics.h"
#include "qnnrules/pipeline/RunReportFormat.h"
#include "qnnrules/pipeline/RunBaseline.h"

namespace qnnrules::python {
namespace {

RunOptions runOptions(const std::optional<std::string>& annotate, const std::optional<std::filesystem::path>& recipe,
                      const std::optional<std::string>& explainNode, bool strictAnnotation, bool encodings) {
  RunOptions o;
  o.computeEncodings = encodings;
  if (annotate) {
    AnnotateOptions ao;
    ao.config = *annotate;
    if (recipe) ao.recipeFile = recipe->string();
    if (explainNode) ao.explainNode = *explainNode;
    ao.strict = strictAnnotation;
    o.annotate = ao;
  }
  return o;
}

RunReport raiseIfStopped(RunReport r) {
  switch (r.stoppedAt) {
    case RunStage::kNone: return r;
    case RunStage::kGraph: raise("GraphError", statusMessage(r.status), r.stageErrors);
    case RunStage::kAnnotation: raise("ConfigError", statusMessage(r.status), r.stageErrors);
    case RunStage::kRules:
    case RunStage::kBackendOption: raise("RuleError", statusMessage(r.status), r.stageErrors);
  }
  return r;
}

// `graph`: a Graph (copied into the report, since the Python object may change while the report
// lives), or the path of a graph file, read by the engine.
RunReport run(const Engine& e, const py::object& graph, const std::optional<std::string>& annotate,
              const std::optional<std::filesystem::path>& recipe, const std::optional<std::string>& explainNode,
              bool strictAnnotation, const std::optional<std::filesystem::path>& baselineFile, bool encodings) {
  RunOptions o = runOptions(annotate, recipe, explainNode, strictAnnotation, encodings);
  // qnn-validate --baseline: read first, so that a bad file raises before the run.
  std::optional<Baseline> baseline;
  if (baselineFile) {
    baseline.emplace();
    if (Status st = readBaseline(*baselineFile, *baseline); !st.isOk()) raise("GraphError", statusMessage(st), {});
  }
  RunReport r;
  if (py::isinstance<Graph>(graph)) {
    const Graph& g = graph.cast<const Graph&>();
    py::gil_scoped_release unlocked;
    r = e.run(g, o);
    if (r.ok() && r.graph.get() == &g) r.graph = std::make_shared<const Graph>(g);
  } else {
    o.graphPath = graph.cast<std::filesystem::path>();
    py::gil_scoped_release unlocked;
    r = e.run(o);
  }
  if (baseline) applyBaseline(r, *baseline);
  return raiseIfStopped(std::move(r));
}

py::dict timesDict(const PhaseTimes& times) {
  py::dict d;
  for (size_t i = 0; i < times.phases.size(); ++i) {
    const PhaseTime& t = times.phases[i];
    if (t.ran) d[py::str(std::string(phaseKey(static_cast<Phase>(i))))] = py::make_tuple(t.wallMs, t.cpuMs);
  }
  return d;
}

}  // namespace

void bindRunReport(py::module_& m, py::class_<Engine>& engine) {
  py::class_<RunReport>(m, "RunReport",
                        "One run of the engine's pipeline: fold, annotate, validate, partition, as qnn-validate runs it.")
      .def_property_readonly("graph_name", [](const RunReport& r) { return r.graph->name; })
      .def_property_readonly("diagnostics", [](const RunReport& r) { return toPyList(r.validation.diagnostics); },
                             "every diagnostic in report order, mode applied")
      .def_readonly("validation", &RunReport::validation)
      .def_property_readonly(
          "fallbacks", [](const RunReport& r) { return toPyList(fallbackDiagnostics(*r.graph, r.delegation)); },
          "compute nodes on CPU, as Diagnostic objects (node, code, message, rule, notes)")
      .def_property_readonly("errors", [](const RunReport& r) { return ofSeverity(r.validation.diagnostics, Severity::kError); },
                             "the error diagnostics (a list, as on ValidationReport and ValidationError)")
      .def_property_readonly("warnings",
                             [](const RunReport& r) { return ofSeverity(r.validation.diagnostics, Severity::kWarning); })
      .def_property_readonly("error_count", [](const RunReport& r) { return r.validation.errorCount(); })
      .def_property_readonly("warning_count", [](const RunReport& r) { return r.validation.warningCount(); })
      .def_property_readonly("valid", &RunReport::valid, "no error, and full delegation satisfied when required")
      .def_property_readonly("failed", &RunReport::failed, "strict mode and not valid: qnn-validate exits 1")
      .def_readonly("qdq_nodes_folded", &RunReport::qdqNodesFolded)
      .def_property_readonly("delegation_summary", [](const RunReport& r) { return delegationSummaryLine(r.delegation); })
      .def_property_readonly("times", [](const RunReport& r) { return timesDict(r.times); },
                             "{phase: (wall ms, cpu ms)} of the phases that ran")
      .def(
          "to_json",
          [](const RunReport& r, bool times) {
            RenderOptions o;
            o.times = times;
            return formatRunJson(r, o);
          },
          py::arg("times") = false, "qnn-validate --format json for this run, byte for byte")
      .def("to_dict", [](const RunReport& r) { return jsonLoads(formatRunJson(r)); }, "to_json() as a dict")
      // The other files qnn-validate writes, from the same renderers (pipeline/RunReportFormat.h).
      .def("to_text", [](const RunReport& r) { return formatRunText(r); }, "qnn-validate's text report (as str())")
      .def("to_sarif", [](const RunReport& r) { return formatRunSarif(r); },
           "qnn-validate --format sarif for this run, byte for byte (with its invocation: exit code 0 or 1)")
      .def("to_html", &formatRunHtml, "qnn-validate --html FILE: the self-contained HTML report, byte for byte")
      .def("to_dot", &formatRunDot, "qnn-validate --dot FILE: the Graphviz picture of the delegation")
      .def(
          "to_encodings",
          [](const RunReport& r) -> py::object {
            if (!r.encodings) return py::none();
            return py::str(formatRunEncodings(r));
          },
          "qnn-validate --encodings FILE (run with encodings=True), or None when they were not computed")
      .def_property_readonly("exit_code", &runExitCode, "qnn-validate's exit code for this run: 0 or 1")
      .def_property_readonly(
          "baseline",
          [](const RunReport& r) -> py::object {
            if (!r.baseline) return py::none();
            py::dict d;
            d["file"] = r.baseline->file;
            d["unchanged"] = toPyList(r.baseline->unchanged);
            py::list absent;
            for (const BaselineFinding& f : r.baseline->absent) {
              py::dict a;
              a["code"] = f.id.code;
              a["node"] = f.id.node;
              a["port"] = f.id.port;
              a["rule"] = f.id.ruleId;
              a["message"] = f.message;
              absent.append(a);
            }
            d["absent"] = absent;
            return d;
          },
          "with baseline=FILE: {file, unchanged: [Diagnostic], absent: [{code, node, port, rule, message}]}; "
          "`diagnostics` holds the new findings only")
      .def("__str__", [](const RunReport& r) { return formatRunText(r); }, "qnn-validate's text report")
      .def("__repr__", [](const RunReport& r) {
        return "<RunReport " + r.graph->name + ": " + std::to_string(r.validation.errorCount()) + " error(s), " +
               std::to_string(r.validation.warningCount()) + " warning(s)" + (r.valid() ? ", valid>" : ">");
      });

  engine.def("run", &run, py::arg("graph"), py::arg("annotate") = py::none(), py::arg("recipe") = py::none(),
             py::arg("explain_node") = py::none(), py::arg("strict_annotation") = false,
             py::arg("baseline") = py::none(), py::arg("encodings") = false,
             "The whole pipeline as qnn-validate runs it, on `graph` (a Graph, or the path of a .pt2, ONNX "
             "or JSON graph file): fold Q/DQ, annotate with the `annotate` config if given, validate, check "
             "quantization parameters, partition. `baseline`: an earlier JSON or SARIF report (qnn-validate "
             "--baseline): only findings not in it stay in .diagnostics. `encodings`: compute encodings "
             "(to_encodings()). Returns the RunReport; never raises for violations (see "
             ".valid); raises GraphError / ConfigError when the run cannot start.");
}

}  // namespace qnnrules::python
