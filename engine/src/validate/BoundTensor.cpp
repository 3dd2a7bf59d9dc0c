#include "BoundTensor.h"

namespace qnnrules {

bool BoundTensor::symmetric() const {
  if (symmetric_ < 0) {
    const QuantSpec* s = root();
    bool sym = s && isSymmetric(s->qscheme);
    if (sym && !s->zeroPoints.empty()) {
      // The range the reader recorded: no pass over a block-wise weight's zero points here.
      const int64_t want = -symmetricOffset(type.datatype);  // as a zero point
      const ZeroPointRange r = zeroPointRange(*s);
      sym = r.min == want && r.max == want;
    }
    symmetric_ = sym ? 1 : 0;
  }
  return symmetric_ == 1;
}

int64_t BoundTensor::elements() const {
  if (!graph) return 1;
  const Node& n = graph->node(producer);
  if (output >= n.outputs.size()) return -1;
  int64_t count = 1;
  for (int64_t d : n.outputs[output].shape) {
    if (d < 0) return -1;
    if (d != 0 && count > INT64_MAX / d) return INT64_MAX;
    count *= d;
  }
  return count;
}

}  // namespace qnnrules
