#include "qnnrules/model/Soc.h"

#include <algorithm>
#include <cctype>

namespace qnnrules {

const SocInfo* SocTable::find(std::string_view name) const {
  auto eq = [&](const std::string& s) {
    return s.size() == name.size() &&
           std::equal(s.begin(), s.end(), name.begin(), [](char a, char b) {
             return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
           });
  };
  for (const SocInfo& soc : socs_)
    if (eq(soc.name)) return &soc;
  return nullptr;
}

}  // namespace qnnrules
