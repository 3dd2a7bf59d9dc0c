// Diagnostic values for Python: every field, the CLI's text form as str(), and the CLI's JSON
// object as to_dict(), so a Python result compares equal to `qnn-validate --format json`.
#include <pybind11/stl.h>

#include "Bindings.h"

namespace qnnrules::python {

py::list toPyList(const DiagnosticList& diags) {
  py::list out;
  for (const Diagnostic& d : diags) out.append(py::cast(d));
  return out;
}

py::list ofSeverity(const DiagnosticList& diags, Severity s) {
  DiagnosticList picked;
  for (const Diagnostic& d : diags)
    if (d.severity == s) picked.push_back(d);
  return toPyList(picked);
}

void raise(const char* errorClass, const std::string& message, const DiagnosticList& diags) {
  py::object cls = py::module_::import("qnnrules.errors").attr(errorClass);
  py::object exc = cls(message, toPyList(diags));
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

py::object jsonLoads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

std::string statusMessage(const Status& status) {
  std::string msg = status.message();
  if (!status.fragment().empty() && msg.find(status.fragment()) == std::string::npos)
    msg += " (" + status.fragment() + ")";
  return msg;
}

void bindDiagnostic(py::module_& m) {
  py::class_<Diagnostic>(m, "Diagnostic", "One problem found: where, which rule, expected vs actual, how to fix.")
      .def_property_readonly("severity", [](const Diagnostic& d) { return std::string(severityName(d.severity)); },
                             "'error', 'warning' or 'note'")
      .def_property_readonly("code", [](const Diagnostic& d) { return std::string(diagCodeName(d.code)); },
                             "stable code name, e.g. 'fixed-scale', 'no-rule', 'arch-gate'")
      .def_readonly("message", &Diagnostic::message)
      .def_readonly("node", &Diagnostic::node)
      .def_readonly("op", &Diagnostic::op, "ATen target of the node")
      .def_readonly("source_op", &Diagnostic::sourceOp,
                    "the op type the model file names ('onnx::Gemm' for an ONNX node; the ATen target of a .pt2)")
      .def_readonly("port", &Diagnostic::port, "e.g. 'in[1] weight', 'out[0] output'")
      .def_readonly("rule_id", &Diagnostic::ruleId)
      .def_readonly("variant", &Diagnostic::variant)
      .def_property_readonly("file", [](const Diagnostic& d) { return d.mark.known() ? *d.mark.file : std::string(); },
                             "rule file the constraint is written in (empty when none)")
      .def_property_readonly("line", [](const Diagnostic& d) { return d.mark.line; })
      .def_property_readonly("column", [](const Diagnostic& d) { return d.mark.column; })
      .def_property_readonly("location", [](const Diagnostic& d) { return d.mark.known() ? d.mark.toString() : ""; },
                             "'file:line:column' of the rule (empty when none)")
      .def_property_readonly("primary", &primaryLocation,
                             "where the problem is: the node and port, or the file:line:column of a file error")
      .def_property_readonly(
          "notes",
          [](const Diagnostic& d) {
            py::list out;
            for (const DiagnosticNote& n : notesOf(d)) {
              py::dict note;
              note["message"] = n.message;
              note["location"] = n.mark.known() ? n.mark.toString() : std::string();
              out.append(note);
            }
            return out;
          },
          "the notes: the rule's file:line with its id and variant, expected, actual, hint")
      .def_readonly("expected", &Diagnostic::expected)
      .def_readonly("actual", &Diagnostic::actual)
      .def_readonly("hint", &Diagnostic::hint)
      .def_readonly("module", &Diagnostic::module,
                    "the node's module path (.pt2 nn_module_stack) or ONNX name namespace; '' when unknown")
      .def("to_json", [](const Diagnostic& d) { return formatJson(d); }, "the CLI's JSON object for it")
      .def("to_dict", [](const Diagnostic& d) { return jsonLoads(formatJson(d)); },
           "the CLI's JSON object for it, as a dict")
      .def("__str__", [](const Diagnostic& d) { return formatText(d); })
      .def("__repr__", [](const Diagnostic& d) {
        return "<Diagnostic " + std::string(severityName(d.severity)) + "[" + std::string(diagCodeName(d.code)) +
               "] node='" + d.node + "' port='" + d.port + "' rule='" + d.ruleId + "'>";
      });
}

}  // namespace qnnrules::python
