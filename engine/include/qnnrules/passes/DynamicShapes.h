// A lowering path that hands the backend only nodes with static shapes (LoweringPath::
// dynamicShapesMessage; ORT's QNN EP refuses a node when any tensor it builds has a dimension
// the session could not infer, "Cannot get shape", and the node runs on CPU): one error per
// such tensor of a kept node that a rule lowers to a QNN op. Which shapes are known only at run
// time is the reader's finding (TensorMeta::runtimeShape; ONNX: io/onnx/OnnxRuntimeShapes.h), not a
// dimension it does not know: ONNX Runtime folds shape arithmetic the reader does not evaluate.
#pragma once

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/facts/GraphFacts.h"
#include "qnnrules/model/Lowering.h"
#include "qnnrules/passes/Prune.h"

namespace qnnrules {

DiagnosticList checkDynamicShapes(const GraphFacts& facts, const PruneResult& pruned, const LoweringPath& path);

}  // namespace qnnrules
