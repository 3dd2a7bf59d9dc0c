// Internal to the graph reader: the values of one JSON object's allowed keys, as the schema
// walk (GraphSchemaReader.h) collects them in one pass over the object.
//
// An object's allowed keys are a type, `Keys<"name", "kind", ...>`, and a value is asked for
// by its key as a template argument, `field<"name">(values)`: the key's slot is found when
// compiling, so asking costs an array read rather than a search (a graph asks a dozen times
// per node), and a key its object does not allow is a compile error rather than a value that
// is never there.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace qnnrules::graphschema {

// A key spelled as a template argument: `Keys<"dtype">`, `field<"dtype">(values)`.
template <size_t N>
struct KeyName {
  char text[N]{};
  consteval KeyName(const char (&key)[N]) { std::copy_n(key, N, text); }  // NOLINT(google-explicit-constructor)
  constexpr std::string_view view() const { return {text, N - 1}; }
};

// The keys an object may have, in the order files usually write them.
template <KeyName... Names>
struct Keys {
  static constexpr size_t kCount = sizeof...(Names);
  static constexpr std::array<std::string_view, kCount> kNames{Names.view()...};
  template <KeyName Name>
  static consteval size_t indexOf() {
    for (size_t i = 0; i < kCount; ++i)
      if (kNames[i] == Name.view()) return i;
    throw "this key is not among the object's allowed keys";  // not a constant: a compile error
  }
};

// The first value of each allowed key of one object (none: the key is absent).
template <typename V, typename K>
class FieldValues {
 public:
  std::optional<V>& at(size_t slot) { return values_[slot]; }
  const std::optional<V>& at(size_t slot) const { return values_[slot]; }

 private:
  std::array<std::optional<V>, K::kCount> values_{};
};

// The value of key `Name` in `values`, which must be among its object's allowed keys.
template <KeyName Name, typename V, typename K>
const std::optional<V>& field(const FieldValues<V, K>& values) {
  return values.at(K::template indexOf<Name>());
}

// The allowed keys differ in length almost always, so most comparisons end at once; keys of
// equal length are 4 to 16 bytes, compared as two overlapping words each rather than byte by
// byte or by a memcmp call.
template <typename W>
W keyWord(std::string_view s, size_t at) {
  W w;
  std::memcpy(&w, s.data() + at, sizeof(W));
  return w;
}
inline bool sameKey(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n >= 8 && n <= 16)
    return keyWord<uint64_t>(a, 0) == keyWord<uint64_t>(b, 0) && keyWord<uint64_t>(a, n - 8) == keyWord<uint64_t>(b, n - 8);
  if (n >= 4 && n < 8)
    return keyWord<uint32_t>(a, 0) == keyWord<uint32_t>(b, 0) && keyWord<uint32_t>(a, n - 4) == keyWord<uint32_t>(b, n - 4);
  return a == b;
}

}  // namespace qnnrules::graphschema
