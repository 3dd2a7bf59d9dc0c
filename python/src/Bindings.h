// Pieces of the _qnnrules extension, one per concept, and the helpers they share.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/Status.h"

namespace qnnrules {
class Engine;
}

namespace qnnrules::python {

namespace py = pybind11;

void bindDiagnostic(py::module_& m);
void bindGraph(py::module_& m);
void bindEngine(py::module_& m);
// RunReport and Engine.run (PyRunReport.cpp), on the Engine class bindEngine made.
void bindRunReport(py::module_& m, py::class_<Engine>& engine);
// RecipeSuggestion, Engine.suggest_recipe and Engine.plan (PyRecipeSearch.cpp).
void bindRecipeSearch(py::module_& m, py::class_<Engine>& engine);

// Diagnostics as a Python list of bound Diagnostic objects.
py::list toPyList(const DiagnosticList& diags);
// The diagnostics of one severity: `errors` and `warnings` are lists on reports and
// exceptions alike; the counts are error_count / warning_count.
py::list ofSeverity(const DiagnosticList& diags, Severity s);

// Raises qnnrules.errors.<errorClass>(message, diagnostics). The exception classes are pure
// Python (python/qnnrules/errors.py) so that users can catch them without the extension.
[[noreturn]] void raise(const char* errorClass, const std::string& message, const DiagnosticList& diags);
// json.loads(text): the engine's JSON forms as Python dicts.
py::object jsonLoads(const std::string& text);
// The message of a failed Status, with its fragment when the message does not already say it.
std::string statusMessage(const Status& status);

}  // namespace qnnrules::python
