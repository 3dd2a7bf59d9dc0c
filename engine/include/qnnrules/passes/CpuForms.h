// A lowering path's own refusals (LoweringPath::cpuForms): a node whose ONNX op type and
// attributes meet one of the path's CPU forms is refused before the backend is asked — ORT's QNN
// EP's op builders check attributes in IsOpSupported (LayerNormalization over an axis that is not
// the last, Gemm with alpha != 1, the Einsum equations it cannot build as a MatMul, Resize modes)
// and the node runs on CPU. One `lowering-check` error per such node of the kept graph that a
// rule lowers to a QNN op, with the path's sentence and the attribute values that met it.
#pragma once

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/facts/GraphFacts.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/passes/Prune.h"

namespace qnnrules {

DiagnosticList checkCpuForms(const GraphFacts& facts, const PruneResult& pruned, const LoweringPath& path);

}  // namespace qnnrules
