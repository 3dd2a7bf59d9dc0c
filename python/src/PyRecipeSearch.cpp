// Engine.suggest_recipe and Engine.plan (qnnrules/RecipeSearch.h): the recipes qnn-validate's
// --suggest-recipe and --plan write, as a RecipeSuggestion whose .yaml is the same text; and
// Engine.ort_overrides (qnnrules/OrtTensorOverrides.h): a suggestion as the ONNX Runtime tensor
// overrides --suggest-overrides writes.
#include <pybind11/stl.h>

#include "Bindings.h"
#include "qnnrules/Engine.h"
#include "qnnrules/OrtTensorOverrides.h"
#include "qnnrules/RecipeSearch.h"

namespace qnnrules::python {
namespace {

RecipeSearchResult orRaise(RecipeSearchResult r) {
  if (!r.ok()) raise("ConfigError", statusMessage(r.status), {});
  return r;
}

py::dict choiceDict(const NodeChoice& c) {
  py::dict d;
  d["node"] = c.node;
  d["op"] = c.op;
  d["from"] = c.from;
  d["to"] = c.to;
  d["why"] = c.why;
  return d;
}

// ORT's init_overrides with quant_type as the QuantType name (the JSON file's form).
py::dict overridesDict(const OrtTensorOverrides& o) {
  py::dict out;
  for (const OrtTensorOverride& t : o.overrides) {
    py::dict d;
    d["quant_type"] = t.quantType;
    d["symmetric"] = t.symmetric;
    if (t.axis) d["axis"] = *t.axis;
    py::list l;
    l.append(d);
    out[py::str(t.tensor)] = l;
  }
  return out;
}

// The same with onnxruntime.quantization.QuantType members, as get_qnn_qdq_config takes them.
py::dict initOverrides(const OrtTensorOverrides& o) {
  py::object quantType = py::module_::import("onnxruntime.quantization").attr("QuantType");
  py::dict out = overridesDict(o);
  for (auto item : out)
    for (auto d : item.second.cast<py::list>()) d["quant_type"] = quantType.attr("__getitem__")(d["quant_type"]);
  return out;
}

}  // namespace

void bindRecipeSearch(py::module_& m, py::class_<Engine>& engine) {
  py::class_<RecipeSearchResult>(m, "RecipeSuggestion",
                                 "A recipe the engine wrote from its rules: per-node config overrides (the recipe "
                                 "format --recipe reads), the nodes that stay on CPU, and whether it validates clean.")
      .def_readonly("base", &RecipeSearchResult::base, "the config the overrides depart from")
      .def_property_readonly("choices",
                             [](const RecipeSearchResult& r) {
                               py::list out;
                               for (const NodeChoice& c : r.choices) out.append(choiceDict(c));
                               return out;
                             },
                             "one dict per override: node, op, from, to, why")
      .def_property_readonly("on_cpu",
                             [](const RecipeSearchResult& r) {
                               py::list out;
                               for (const NodeOnCpu& n : r.onCpu) out.append(py::make_tuple(n.node, n.op, n.why));
                               return out;
                             },
                             "(node, op, why) of the nodes no candidate config makes valid")
      .def_readonly("nodes_per_config", &RecipeSearchResult::nodesPerConfig, "plan: call nodes per chosen config")
      .def_readonly("validates_clean", &RecipeSearchResult::validatesClean,
                    "with the recipe, no error on any node but those that stay on CPU")
      .def_readonly("runs", &RecipeSearchResult::runs, "annotate + validate runs the search made")
      .def_property_readonly("yaml", &RecipeSearchResult::yaml, "the recipe as qnn-validate writes it")
      .def("__str__", &RecipeSearchResult::text);
  py::class_<OrtTensorOverrides>(m, "OrtOverrides",
                                 "A RecipeSuggestion as ONNX Runtime tensor quantization overrides (qnn-validate "
                                 "--suggest-overrides): the init_overrides of get_qnn_qdq_config.")
      .def_property_readonly("overrides", &overridesDict,
                             "tensor name -> [{quant_type (QuantType name), symmetric, axis?}], the JSON file's content")
      .def_readonly("unexpressed", &OrtTensorOverrides::unexpressed,
                    "parts of the suggestion ORT's overrides cannot carry (activation changes, block-wise weights)")
      .def_property_readonly("json", &OrtTensorOverrides::json, "the overrides as --suggest-overrides writes them")
      .def("init_overrides", &initOverrides,
           "the overrides with onnxruntime.quantization.QuantType values: pass as get_qnn_qdq_config(..., "
           "init_overrides=...)");
  engine
      .def(
          "suggest_recipe",
          [](const Engine& e, const Graph& g, const std::string& config) {
            RecipeSearchResult r;
            {
              py::gil_scoped_release unlocked;
              r = suggestRecipe(e, g, config);
            }
            return orRaise(std::move(r));
          },
          py::arg("graph"), py::arg("config"),
          "qnn-validate --suggest-recipe: for each node that `config` leaves invalid on this SoC, the nearest "
          "config the backend takes, as a RecipeSuggestion (save .yaml and pass it with annotate(recipe=...)).")
      .def(
          "plan",
          [](const Engine& e, const Graph& g) {
            RecipeSearchResult r;
            {
              py::gil_scoped_release unlocked;
              r = planPrecision(e, g);
            }
            return orRaise(std::move(r));
          },
          py::arg("graph"),
          "qnn-validate --plan: each node's most precise config the backend takes on this SoC, as a "
          "RecipeSuggestion (nodes_per_config counts them).")
      .def(
          "ort_overrides",
          [](const Engine& e, const Graph& g, const RecipeSearchResult& s) {
            OrtTensorOverrides r;
            {
              py::gil_scoped_release unlocked;
              r = ortTensorOverrides(e, g, s);
            }
            if (!r.ok()) raise("ConfigError", statusMessage(r.status), {});
            return r;
          },
          py::arg("graph"), py::arg("suggestion"),
          "qnn-validate --suggest-overrides: `suggestion` (of suggest_recipe or plan on `graph`, a graph read from "
          "ONNX) as ONNX Runtime tensor overrides of the ONNX initializers, as OrtOverrides.");
}

}  // namespace qnnrules::python
