// Byte-level reading and writing of the compiled rule cache (RuleCache.h). One field list per
// type (RuleCacheFields.h) drives both directions, so a field cannot be written and forgotten
// on reading. The reader is bounded: a truncated or corrupt payload makes it fail (ok() false),
// never read past the end or allocate more elements than bytes remain.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "qnnrules/core/QnnTypes.h"
#include "qnnrules/core/SourceMark.h"

namespace qnnrules::rulecache {

// Appends fields to a byte string. File names of SourceMarks go to a table once each, so a
// mark costs three integers.
class Writer {
 public:
  template <typename T>
  void operator()(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      byte(v ? 1 : 0);
    } else if constexpr (std::is_enum_v<T>) {
      u64(static_cast<uint64_t>(static_cast<std::underlying_type_t<T>>(v)));
    } else if constexpr (std::is_integral_v<T>) {
      u64(static_cast<uint64_t>(v));
    } else if constexpr (std::is_same_v<T, double>) {
      uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      u64(bits);
    } else {
      fields(*this, v);  // a struct: its field list (RuleCacheFields.h)
    }
  }
  void operator()(const std::string& s) {
    u64(s.size());
    body_.append(s);
  }
  template <typename T>
  void operator()(const std::vector<T>& v) {
    u64(v.size());
    for (const T& e : v) (*this)(e);
  }
  template <typename T>
  void operator()(const std::optional<T>& v) {
    (*this)(v.has_value());
    if (v) (*this)(*v);
  }
  template <typename E>
  void operator()(const EnumSet<E>& s) { u64(s.bits()); }
  void operator()(const SourceMark& m);

  // The file-name table followed by the fields.
  std::string finish() const;

 private:
  void byte(uint8_t b) { body_.push_back(static_cast<char>(b)); }
  void u64(uint64_t v);  // LEB128: small numbers (most of them) take one byte

  std::string body_;
  // The names point into the marks being written, which outlive the writer's use.
  std::vector<std::string_view> files_;
  std::unordered_map<std::string_view, uint64_t> fileIndex_;
};

class Reader {
 public:
  // `data` must outlive the reader. Reads the file-name table first.
  explicit Reader(std::string_view data);
  bool ok() const { return ok_; }
  bool atEnd() const { return pos_ == data_.size(); }

  template <typename T>
  void operator()(T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      v = u64() != 0;
    } else if constexpr (std::is_enum_v<T>) {
      v = static_cast<T>(static_cast<std::underlying_type_t<T>>(u64()));
    } else if constexpr (std::is_integral_v<T>) {
      v = static_cast<T>(u64());
    } else if constexpr (std::is_same_v<T, double>) {
      uint64_t bits = u64();
      std::memcpy(&v, &bits, sizeof bits);
    } else {
      fields(*this, v);
    }
  }
  void operator()(std::string& s);
  template <typename T>
  void operator()(std::vector<T>& v) {
    const uint64_t n = count();
    v.clear();
    v.reserve(n);
    for (uint64_t i = 0; i < n && ok_; ++i) (*this)(v.emplace_back());
  }
  template <typename T>
  void operator()(std::optional<T>& v) {
    bool has = false;
    (*this)(has);
    v.reset();
    if (has) (*this)(v.emplace());
  }
  template <typename E>
  void operator()(EnumSet<E>& s) {
    const uint64_t bits = u64();
    s = EnumSet<E>();
    for (uint32_t i = 0; i < static_cast<uint32_t>(E::kCount); ++i)
      if (bits & (1ull << i)) s.insert(static_cast<E>(i));
    if (bits >> static_cast<uint32_t>(E::kCount)) fail();
  }
  void operator()(SourceMark& m);

  // An element count, refused when more elements than bytes remain (each takes at least one).
  uint64_t count();
  void fail() { ok_ = false; }

 private:
  uint64_t u64();

  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
  std::vector<std::shared_ptr<const std::string>> files_;
};

}  // namespace qnnrules::rulecache
