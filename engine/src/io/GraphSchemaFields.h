// Internal to the graph reader: the values of one JSON object's allowed keys, as the schema
// walk (GraphSchemaReader.h) collects them in one pass over the object.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace qnnrules::graphschema {

template <typename V>
class Reader;

// The values of an object's allowed keys, collected in one pass over its fields rather than
// one scan of the object per key looked up. An object has at most kMaxKeys allowed keys.
template <typename V>
class FieldValues {
 public:
  // Callers name a key with the same string literal as in their fields() list, which the
  // compiler stores once: comparing addresses finds it without comparing characters. They ask
  // for keys in the order of that list, so the search starts after the key found last: one
  // comparison per key instead of up to eight, for every object of the graph.
  [[gnu::always_inline]] std::optional<V> get(std::string_view key) const {
    for (size_t k = 0, i = next_; k < count_; ++k, i = i + 1 == count_ ? 0 : i + 1)
      if (keyData_[i] == key.data() && keySize_[i] == key.size()) {
        next_ = i + 1 == count_ ? 0 : i + 1;
        return values_[i];
      }
    for (size_t i = 0; i < count_; ++i)
      if (sameKey(this->key(i), key)) return values_[i];
    return std::nullopt;
  }
  std::string_view key(size_t i) const { return {keyData_[i], keySize_[i]}; }
  // The allowed keys differ in length almost always, so most comparisons end at once; keys
  // of equal length are 4 to 16 bytes, compared as two overlapping words each rather than
  // byte by byte or by a memcmp call.
  static bool sameKey(std::string_view a, std::string_view b) {
    const size_t n = a.size();
    if (n != b.size()) return false;
    if (n >= 8 && n <= 16) return word<uint64_t>(a, 0) == word<uint64_t>(b, 0) &&
                                  word<uint64_t>(a, n - 8) == word<uint64_t>(b, n - 8);
    if (n >= 4 && n < 8) return word<uint32_t>(a, 0) == word<uint32_t>(b, 0) &&
                                word<uint32_t>(a, n - 4) == word<uint32_t>(b, n - 4);
    return a == b;
  }
  template <typename W>
  static W word(std::string_view s, size_t at) {
    W w;
    std::memcpy(&w, s.data() + at, sizeof(W));
    return w;
  }

 private:
  template <typename>
  friend class Reader;
  static constexpr size_t kMaxKeys = 8;
  // Written for the first count_ keys only, not cleared first: this is built for every object
  // of the graph, and clearing eight keys was a tenth of reading a node.
  void add(std::string_view key) {
    keyData_[count_] = key.data();
    keySize_[count_] = key.size();
    values_[count_].reset();
    ++count_;
  }
  std::array<const char*, kMaxKeys> keyData_;
  std::array<size_t, kMaxKeys> keySize_;
  std::array<std::optional<V>, kMaxKeys> values_;
  size_t count_ = 0;
  mutable size_t next_ = 0;  // where get() starts looking
};

}  // namespace qnnrules::graphschema
