// backend_options.yaml, then resolving a few option values against what was read.
#include "FuzzSupport.h"
#include "qnnrules/model/BackendOptions.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  BackendOptionTable table;
  DiagnosticList errors;
  loadBackendOptionsText(std::string(fuzz::bytes(data, size)), "backend_options.yaml", table, errors);
  for (const char* backend : {"htp", "lpai", "gpu"}) {
    OptionResolution r = resolveBackendOptions(table, backend, {"fps=30", "performance_mode=burst", "x=1"});
    (void)r;
  }
  return 0;
}
