// Graphs for Python. Every way in goes through the engine's strict graph reader (JSON text,
// file, or a dict in graph format v1 that Python code built), so a graph from Python is
// checked exactly like one the CLI reads. to_dict() writes format v1 back, annotations included.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "Bindings.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"

namespace qnnrules::python {
namespace {

Graph readOrRaise(GraphReadResult r) {
  if (!r.ok()) raise("GraphError", statusMessage(r.status), r.errors);
  return std::move(r.graph);
}

Graph fromJson(const std::string& text, const std::string& name) {
  GraphReadResult r;
  {
    py::gil_scoped_release unlocked;
    r = readGraphText(text, name);
  }
  return readOrRaise(std::move(r));
}

Graph fromDict(const py::object& dict, const std::string& name) {
  std::string text = py::str(py::module_::import("json").attr("dumps")(dict, py::arg("allow_nan") = false));
  return fromJson(text, name);
}

// The engine's writer (the one qnn-validate's --annotate output uses), so Python and CLI
// files are the same text.
std::string toJsonText(const Graph& g, int indent) {
  GraphWriteOptions o;
  o.indent = indent;
  return writeGraphText(g, o);
}

}  // namespace

void bindGraph(py::module_& m) {
  py::class_<Graph>(m, "Graph",
                    "A graph in qnnrules graph format v1 (docs/graph-format.md). Create one with "
                    "Graph.from_json / from_file / from_dict, or qnnrules.GraphBuilder, or qnnrules.torch.")
      .def_static("from_json", &fromJson, py::arg("text"), py::arg("name") = "<string>",
                  "Reads JSON text; raises qnnrules.GraphError listing every schema error.")
      .def_static(
          "from_file",
          [](const std::filesystem::path& path) {
            GraphReadResult r;
            {
              py::gil_scoped_release unlocked;
              r = readGraphFile(path);
            }
            return readOrRaise(std::move(r));
          },
          py::arg("path"), "Reads a graph file; raises qnnrules.GraphError.")
      .def_static("from_dict", &fromDict, py::arg("graph"), py::arg("name") = "<dict>",
                  "Reads a dict in graph format v1 (through the same strict reader as files).")
      .def("to_dict", [](const Graph& g) { return jsonLoads(toJsonText(g, -1)); },
           "The graph, annotations included, as a dict in graph format v1.")
      .def("to_json", &toJsonText, py::arg("indent") = 1,
           "The graph as JSON text in graph format v1 (indent -1: one line), for qnn-validate.")
      .def(
          "save",
          [](const Graph& g, const std::filesystem::path& path, int indent) {
            GraphWriteOptions o;
            o.indent = indent;
            Status st = writeGraphFile(g, path, o);
            if (!st.isOk()) raise("GraphError", statusMessage(st), {});
          },
          py::arg("path"), py::arg("indent") = 1, "Writes the graph as a JSON file (atomically) for qnn-validate.")
      .def_readwrite("name", &Graph::name)
      .def("__len__", [](const Graph& g) { return g.nodes().size(); })
      .def_property_readonly("node_names",
                             [](const Graph& g) {
                               std::vector<std::string> names;
                               names.reserve(g.nodes().size());
                               for (const Node& n : g.nodes()) names.push_back(n.name);
                               return names;
                             })
      .def(
          "node",
          [](const Graph& g, const std::string& name) -> py::object {
            std::optional<uint32_t> i = g.findNode(name);
            if (!i) throw py::key_error("no node named '" + name + "'");
            return jsonLoads(writeNodeText(g, *i));  // this node only: O(1) in the graph's size
          },
          py::arg("name"), "One node as a format v1 dict (found by name in constant time).")
      .def("__repr__", [](const Graph& g) {
        return "<qnnrules.Graph '" + g.name + "' with " + std::to_string(g.nodes().size()) + " nodes>";
      });
}

}  // namespace qnnrules::python
