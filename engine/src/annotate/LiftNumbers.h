// Python numbers as operands of binary ops, lifted to constant tensors before annotation, as
// ExecuTorch's QnnQuantizer does (pytorch/executorch backends/qualcomm/_passes/
// lift_constant_scalar_operands.py, in its annotation pipeline): `x * 0.25` becomes `x * c` with a
// 0-d constant `c`, which the binary pattern then quantizes like the other operand. A number left
// in place reaches ExecuTorch's lowering unquantized and QNN refuses the mix (rules/lowering/
// executorch.yaml, number_operands_float32).
#pragma once

#include <cstddef>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules::annotator_detail {

// Lifts every number (an int or float argument, not a bool) at args[0] or args[1] of a call whose
// rule has the binary pattern and declares an input port there, when the call's output is a float
// (an integer op's number would get no encoding). The constant, named
// "<node>_<port>" (a suffix added if taken), comes right before its consumer, holds the number's
// value in TensorStats (min = max = value) and the dtype ExecuTorch gives it: the consumer's output
// dtype when that is a float, else its first tensor input's. Returns how many were lifted; the
// graph is rebuilt (node indices move) only when there is one.
size_t liftNumberOperands(Graph& graph, const RuleSet& rules);

}  // namespace qnnrules::annotator_detail
