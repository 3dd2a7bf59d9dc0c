// Recipe YAML against the built-in quant configs (overrides compile their regexes).
#include "FuzzSupport.h"
#include "qnnrules/annotate/Recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  Recipe recipe;
  DiagnosticList errors;
  loadRecipeText(std::string(fuzz::bytes(data, size)), "recipe.yaml", fuzz::builtinConfigs(), recipe, errors);
  return 0;
}
