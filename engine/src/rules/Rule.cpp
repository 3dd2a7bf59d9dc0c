#include "qnnrules/rules/Rule.h"

namespace qnnrules {

int Rule::findPort(std::string_view name) const {
  for (size_t i = 0; i < ports.size(); ++i)
    if (ports[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace qnnrules
