#include "BoundTensor.h"

namespace qnnrules {

void computeFacts(BoundTensor& t) {
  const QuantSpec* s = t.root();
  t.symmetric = false;
  if (!s || !isSymmetric(s->qscheme)) return;
  const int64_t want = -symmetricOffset(t.type.datatype);  // as a zero point
  bool sym = true;
  for (int64_t zp : s->zeroPoints) sym &= zp == want;
  t.symmetric = sym;
}

}  // namespace qnnrules
