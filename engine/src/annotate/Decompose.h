// Ops decomposed before annotation, as ExecuTorch's QnnQuantizer does in its annotation pipeline
// (pytorch/executorch backends/qualcomm/_passes/: DecomposeSilu, DecomposeAddmm, and
// LiftConstantScalarOperands turning leaky_relu into prelu): ExecuTorch's lowering decomposes them
// anyway, after quantization, and the pieces' tensors then carry no encoding, so QNN refuses the
// quantized ones (rules/lowering/executorch.yaml, the *-decomposed-after-quantization forms).
// Annotated after decomposition, each piece gets its own encoding and the lowering delegates it.
#pragma once

#include <cstddef>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules::annotator_detail {

// silu(x) -> mul(x, sigmoid(x)); addmm(b, x, w) (no beta, alpha) -> add(mm(x, w), b);
// leaky_relu(x[, s]) -> prelu(x, c) with a 0-d constant c = s (0.01 by default). The node keeps
// its name and outputs (its users read the last piece); a new piece is named "<node>_<piece>".
// A decomposition whose pieces have no rule in `rules` is not made, nor one of a node nothing reads.
// Returns how many were made.
size_t decomposeForAnnotation(Graph& graph, const RuleSet& rules);

}  // namespace qnnrules::annotator_detail
