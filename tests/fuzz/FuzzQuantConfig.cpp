// quant_configs.yaml, then every config selection text the table parses.
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  QuantConfigTable table;
  DiagnosticList errors;
  loadQuantConfigText(std::string(fuzz::bytes(data, size)), "quant_configs.yaml", table, errors);
  for (const char* sel : {"8a8w", "16a8w:per_channel", "16a4w:per_block,sym", "8a8w,qat"}) {
    StatusOr<ConfigSelection> s = parseConfigSelection(table, sel);
    if (s.isOk()) (void)checkSelection(*s);
  }
  return 0;
}
