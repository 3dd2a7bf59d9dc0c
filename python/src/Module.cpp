// The _qnnrules extension module: the C++ engine as seen from Python. Users import the
// `qnnrules` package (python/qnnrules/__init__.py), which re-exports these classes.
#include <pybind11/pybind11.h>

#include "Bindings.h"

PYBIND11_MODULE(_qnnrules, m) {
  m.doc() = "qnnrules engine bindings (use the `qnnrules` package)";
  qnnrules::python::bindDiagnostic(m);
  qnnrules::python::bindGraph(m);
  qnnrules::python::bindEngine(m);
}
