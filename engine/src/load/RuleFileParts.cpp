#include "RuleFileParts.h"

#include <algorithm>

namespace qnnrules {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

void parseTargetList(StrictYamlReader& r, const YAML::Node& v, const std::string& what,
                     std::vector<std::string>& targets) {
  if (!v.IsSequence()) {
    r.error(DiagCode::kWrongType, r.mark(v), what + " must be a list of strings", "a list of ATen target strings",
            describe(v), v.IsScalar() ? "write [" + clip(v.Scalar()) + "]" : "");
    return;
  }
  if (v.size() == 0) {
    r.error(DiagCode::kInvalidValue, r.mark(v), what + " must not be empty", "at least one ATen target", "[]");
    return;
  }
  for (const YAML::Node& t : v) {
    auto s = r.str(t, "an element of " + what);
    if (!s) continue;
    if (std::find(targets.begin(), targets.end(), *s) != targets.end()) {
      r.error(DiagCode::kInvalidValue, r.mark(t), "target '" + clip(*s) + "' is listed twice in " + what,
              "each target once", clip(*s));
      continue;
    }
    targets.push_back(*s);
  }
}

}  // namespace qnnrules
