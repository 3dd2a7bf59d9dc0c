#include "graph/NumberOperand.h"

namespace qnnrules {

ScalarType numberOperandType(const Graph& g, const Node& n) {
  if (!n.outputs.empty() && isFloatType(n.outputs[0].dtype)) return n.outputs[0].dtype;
  for (const Argument& a : n.args)
    if (a.kind == Argument::Kind::kTensor) {
      const Node& p = g.node(a.tensor.node);
      if (a.tensor.output < p.outputs.size()) return p.outputs[a.tensor.output].dtype;
    }
  return ScalarType::kFloat32;
}

}  // namespace qnnrules
