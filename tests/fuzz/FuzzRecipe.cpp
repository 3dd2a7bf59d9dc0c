// Recipe YAML against the built-in quant configs (overrides compile their regexes; exact node
// names round-trip through exactNamePattern).
#include "FuzzSupport.h"
#include "qnnrules/annotate/Recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  Recipe recipe;
  DiagnosticList errors;
  loadRecipeText(std::string(fuzz::bytes(data, size)), "recipe.yaml", fuzz::builtinConfigs(), recipe, errors);
  // An override naming one node exactly (issue 36) names it again when written back out.
  for (const Override& o : recipe.overrides) {
    if (!o.exactName) continue;
    Override again = o;
    again.pattern = exactNamePattern(*o.exactName);
    if (!compileOverride(again).isOk() || again.exactName != o.exactName) __builtin_trap();
  }
  return 0;
}
