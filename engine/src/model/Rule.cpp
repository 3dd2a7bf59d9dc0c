#include "qnnrules/model/Rule.h"

namespace qnnrules {

const Variant* Rule::findVariant(std::string_view name) const {
  for (const Variant& v : variants)
    if (v.name == name) return &v;
  return nullptr;
}

int Rule::findPort(std::string_view name) const {
  for (size_t i = 0; i < ports.size(); ++i)
    if (ports[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace qnnrules
