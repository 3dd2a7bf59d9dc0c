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

const std::vector<std::string_view>& archNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (HtpArch a : kGateArchs) v.push_back(htpArchName(a));
    return v;
  }();
  return names;
}

std::optional<HtpArch> parseCanonicalHtpArch(std::string_view s) {
  std::optional<HtpArch> a = parseHtpArch(s);
  if (a && htpArchName(*a) != s) a.reset();
  return a;
}

}  // namespace qnnrules
