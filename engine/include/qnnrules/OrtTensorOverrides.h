// A repair recipe (RecipeSearch.h) as ONNX Runtime's tensor quantization overrides (issue 26):
// for ONNX input, an ORT user re-quantizes directly with
//   get_qnn_qdq_config(model, reader, ..., init_overrides=OVERRIDES)
// (onnxruntime/python/tools/quantization/execution_providers/qnn/quant_config.py) instead of
// going through a recipe. The format is ORT's TensorQuantOverrides (tensor_quant_overrides.py):
// tensor name -> list of dicts with quant_type (a QuantType name: "QInt8", "QUInt16", ...),
// symmetric and, for per-channel weights, axis.
//
// What the overrides carry: each overridden node's initializer inputs (weights) as the recipe
// annotates them, since an initializer keeps its ONNX name in the graph as read. Biases are
// left out: ORT derives a bias's int32 encoding from its input's and weight's scales, as QNN
// wants. A change to a node's activations (16a16w -> 8a8w) names an activation tensor, which
// ORT's format keys by the ONNX tensor name the graph as read does not keep, and block-wise or
// 2-bit weights have no QuantType: those parts are listed in `unexpressed`, not written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qnnrules/Engine.h"
#include "qnnrules/RecipeSearch.h"

namespace qnnrules {

struct OrtTensorOverride {
  std::string tensor;     // the ONNX initializer
  std::string node;       // the overridden node it feeds
  std::string quantType;  // onnxruntime.quantization.QuantType name
  bool symmetric = false;
  std::optional<int32_t> axis;  // per-channel weights: the channel axis of the ONNX tensor
};

struct OrtTensorOverrides {
  Status status;                              // not ok: the search failed, or annotating with its recipe did
  std::vector<OrtTensorOverride> overrides;   // graph order of the nodes, then input order
  std::vector<std::string> unexpressed;       // "node: what the overrides cannot say", graph order

  bool ok() const { return status.isOk(); }
  // {"tensor": [{"quant_type": "QInt8", "symmetric": true[, "axis": 0]}], ...} in the order above.
  std::string json() const;
};

// The choices of `search` (a suggestRecipe or planPrecision result on `graph`, a graph read
// from ONNX) as ORT tensor overrides, judged by annotating `graph` with the search's recipe.
OrtTensorOverrides ortTensorOverrides(const Engine& engine, const Graph& graph, const RecipeSearchResult& search);

}  // namespace qnnrules
