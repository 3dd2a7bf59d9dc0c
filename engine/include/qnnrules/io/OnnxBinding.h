// Maps the "onnx::<OpType>" call nodes of a graph read from an ONNX model (OnnxReader.h) onto
// a backend's rules, through each rule's `onnx` entries (RuleSet::onnxCandidates): a node that
// an entry matches takes the rule's first ATen target and has its ONNX inputs moved to the
// argument positions of the ports they map to, so validation, annotation and partitioning see
// the same node an ATen graph would give. A node no entry matches keeps its onnx:: target and
// is reported like any op without a rule. Run it after foldQdq, so that a weight behind a
// DequantizeLinear counts as constant.
#pragma once

#include <cstddef>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {

// Whether the graph has an onnx:: node that some rule names (bindOnnxOps would change it).
bool needsOnnxBinding(const Graph& graph, const RuleSet& rules);

// Rewrites the matched nodes in place; returns how many were bound.
size_t bindOnnxOps(Graph& graph, const RuleSet& rules);

}  // namespace qnnrules
