// Graphs after convert_pt2e carry quantize/dequantize nodes instead of annotations. This
// folds them away: each compute node's input edges take the encoding of the dequantize node
// in front of them, and its outputs the encoding of the quantize node after them, so the
// same rules validate the real scales and zero points.
//
// Folded targets: quantized_decomposed quantize_/dequantize_ per_tensor (with their .tensor
// forms), per_channel and per_channel_group (block-wise along the last axis), and torchao's
// quantize_affine/dequantize_affine, whose block_size becomes per-tensor, per-channel or
// block-wise against the input's shape. Scales and zero points must be literal arguments (the
// .pt2 reader writes lifted scale tensors as literals); tensor-valued ones stay unknown.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/core/Status.h"

namespace qnnrules {

struct QdqFoldResult {
  Graph graph;                   // compute nodes only, annotated; node names unchanged
  DiagnosticList diagnostics;    // inconsistent Q/DQ arguments (kQdqMismatch)
  // Nodes an output of which a quantize node quantizes with a scale that is not a finite number
  // (inf, NaN): the output stays unannotated, and the backend may refuse to compute it
  // (BackendManifest::nonFiniteScales).
  std::vector<std::string> nonFiniteScaleProducers;
  size_t quantizeNodes = 0;
  size_t dequantizeNodes = 0;
  Status status;
};

// Whether the graph has quantized_decomposed quantize/dequantize nodes.
bool isQdqGraph(const Graph& graph);
QdqFoldResult foldQdq(const Graph& graph);

}  // namespace qnnrules
