#include "EnumNames.h"

namespace qnnrules {

const std::vector<std::string_view>& datatypeNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (int i = 0; i < static_cast<int>(QnnDatatype::kCount); ++i)
      v.push_back(datatypeName(static_cast<QnnDatatype>(i)));
    return v;
  }();
  return names;
}

const std::vector<std::string_view>& encodingNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (int i = 0; i < static_cast<int>(Encoding::kCount); ++i)
      v.push_back(encodingName(static_cast<Encoding>(i)));
    return v;
  }();
  return names;
}

}  // namespace qnnrules
