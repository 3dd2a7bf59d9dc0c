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

}  // namespace qnnrules
