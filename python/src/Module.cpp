// The _qnnrules extension module: the C++ engine as seen from Python. Users import the
// `qnnrules` package (python/qnnrules/__init__.py), which re-exports these classes.
#include <pybind11/pybind11.h>
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>

#include "Bindings.h"

PYBIND11_MODULE(_qnnrules, m) {
  m.doc() = "qnnrules engine bindings (use the `qnnrules` package)";
  qnnrules::python::bindDiagnostic(m);
  qnnrules::python::bindGraph(m);
  qnnrules::python::bindEngine(m);
  // The engine's log level: SPDLOG_LEVEL when the module loads (as the CLIs), then
  // qnnrules.set_log_level (python/qnnrules/log.py checks the name).
  spdlog::set_level(spdlog::level::warn);
  spdlog::cfg::load_env_levels();
  m.def("_set_log_level", [](const std::string& level) { spdlog::set_level(spdlog::level::from_str(level)); },
        pybind11::arg("level"));
  m.def("_log_level", [] { return std::string(spdlog::level::to_string_view(spdlog::get_level()).data()); });
}
