// Internal: the dtype a Python number operand takes when it is lifted to a tensor, as ExecuTorch's
// LiftConstantScalarOperands gives it (pytorch/executorch backends/qualcomm/_passes/
// lift_constant_scalar_operands.py): the node's output dtype when that is a float, else its first
// tensor input's, so `positions + 1` stays an integer op. Shared by the annotator, which lifts
// such numbers (annotate/LiftNumbers.h), and the validator, which judges the ones a lowering path
// lifts unquantized (ValidateOptions::numberOperandFloatRules).
#pragma once

#include "qnnrules/graph/Graph.h"

namespace qnnrules {

ScalarType numberOperandType(const Graph& g, const Node& n);

}  // namespace qnnrules
