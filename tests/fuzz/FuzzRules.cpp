// The YAML rule loaders: rule files, backend manifests and the SoC table (the first byte
// picks which), under the same YAML pre-scan the registry uses.
#include "FuzzSupport.h"
#include "qnnrules/load/RuleLoader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  if (size == 0) return 0;
  const std::string text(fuzz::bytes(data + 1, size - 1));
  DiagnosticList errors;
  switch (data[0] % 3) {
    case 0: {
      std::vector<Rule> rules;
      loadRuleText(text, "fuzz.yaml", rules, errors);
      break;
    }
    case 1: {
      BackendManifest m;
      loadManifestText(text, "backend.yaml", m, errors);
      break;
    }
    default: {
      SocTable socs;
      loadSocText(text, "socs.yaml", socs, errors);
      break;
    }
  }
  return 0;
}
