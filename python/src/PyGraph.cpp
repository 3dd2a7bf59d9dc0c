// Graphs for Python. Every way in goes through the engine's strict graph reader (JSON text,
// file, or a dict in graph format v1 that Python code built), so a graph from Python is
// checked exactly like one the CLI reads. to_dict() writes format v1 back, annotations included.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <optional>

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

// One array as a list argument: float32/float64 elements as floats, integer ones as ints,
// what the JSON reader makes of the same numbers.
Argument listOf(const py::buffer& buffer) {
  py::buffer_info info = buffer.request();
  if (info.ndim != 1 || info.strides[0] != info.itemsize)
    throw py::value_error("a graph buffer must be a contiguous 1-D array");
  // Packed, not one Argument per value (Graph.h Argument::Kind::kNumbers); an int64 zero point
  // beyond 2^53 changes in the double, and is refused by the fold's range check either way.
  auto packed = [&](auto* data, bool integers) {
    std::vector<double> values(data, data + info.size);
    return Argument::numbers(values.data(), values.size(), integers);
  };
  std::string format = info.format;
  if (!format.empty() && (format[0] == '<' || format[0] == '=' || format[0] == '@')) format.erase(0, 1);
  const bool real = format == "f" || format == "d";
  const bool integer = format == "i" || format == "l" || format == "q";
  if (real && info.itemsize == 4) return packed(static_cast<const float*>(info.ptr), false);
  if (real && info.itemsize == 8) return packed(static_cast<const double*>(info.ptr), false);
  if (integer && info.itemsize == 4) return packed(static_cast<const int32_t*>(info.ptr), true);
  if (integer && info.itemsize == 8) return packed(static_cast<const int64_t*>(info.ptr), true);
  throw py::value_error("a graph buffer must hold float32, float64, int32 or int64, not '" + info.format + "'");
}

// `buffers`: [(node name, argument position, 1-D array)], each the value of that positional
// argument, put in after the strict reader read the dict (whose argument there is a
// placeholder): the scales and zero points of block-wise quantize/dequantize nodes, millions
// of numbers in an LLM, which would otherwise go through json.dumps and the JSON parser.
Graph fromDict(const py::object& dict, const std::string& name, const std::optional<py::list>& buffers) {
  std::string text = py::str(py::module_::import("json").attr("dumps")(dict, py::arg("allow_nan") = false));
  Graph g = fromJson(text, name);
  if (!buffers) return g;
  for (const py::handle item : *buffers) {
    auto entry = item.cast<py::tuple>();
    if (entry.size() != 3) throw py::value_error("a graph buffer is (node name, argument position, array)");
    auto node = entry[0].cast<std::string>();
    auto position = entry[1].cast<size_t>();
    std::optional<uint32_t> i = g.findNode(node);
    if (!i) throw py::value_error("a graph buffer names no node of the graph: '" + node + "'");
    Node& n = g.mutableNodes()[*i];
    if (position >= n.args.size())
      throw py::value_error("a graph buffer names argument " + std::to_string(position) + " of '" + node +
                            "', which has " + std::to_string(n.args.size()));
    n.args[position] = listOf(entry[2].cast<py::buffer>());
  }
  return g;
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
                  py::arg("buffers") = py::none(),
                  "Reads a dict in graph format v1 (through the same strict reader as files). `buffers`: "
                  "[(node name, argument position, 1-D numpy array)], the values of those arguments "
                  "(placeholders in the dict), passed without JSON.")
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
