// Baselines (--baseline, report/Baseline.h): any bytes are read as they stream by, into
// findings or a clear error; never a crash, an exception or memory beyond the findings.
#include "FuzzSupport.h"
#include "qnnrules/report/Baseline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  Baseline baseline;
  const Status st = readBaselineText(fuzz::bytes(data, size), "baseline.json", baseline);
  if (!st.isOk() && !baseline.findings.empty()) __builtin_trap();  // an error keeps nothing
  return 0;
}
