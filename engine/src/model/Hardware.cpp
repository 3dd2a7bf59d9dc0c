#include "qnnrules/model/Hardware.h"

#include <cctype>

namespace qnnrules {

HardwareLevel HardwareColumn::levelOf(std::string_view version) const {
  for (size_t i = 0; i < versions.size(); ++i)
    if (versions[i] == version) return static_cast<HardwareLevel>(i + 1);
  return 0;
}

std::string hardwareLabel(std::string_view column) {
  std::string s(column);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace qnnrules
