#include "BoundTensor.h"

namespace qnnrules {

bool BoundTensor::symmetric() const {
  if (symmetric_ < 0) {
    const QuantSpec* s = root();
    bool sym = s && isSymmetric(s->qscheme);
    if (sym) {
      const int64_t want = -symmetricOffset(type.datatype);  // as a zero point
      for (int64_t zp : s->zeroPoints) sym &= zp == want;
    }
    symmetric_ = sym ? 1 : 0;
  }
  return symmetric_ == 1;
}

}  // namespace qnnrules
