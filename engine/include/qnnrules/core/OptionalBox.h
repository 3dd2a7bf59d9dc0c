// An optional value kept on the heap, with std::optional's interface and value semantics.
//
// Graph arguments and outputs each may carry a QuantSpec (144 bytes) but most literal arguments
// never do; inline std::optional made every Argument 240 bytes and a 40 MB graph ~10x its size
// in memory. Boxed, an absent spec costs one pointer.
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <utility>

namespace qnnrules {

template <typename T>
class OptionalBox {
 public:
  OptionalBox() = default;
  OptionalBox(std::nullopt_t) {}                                        // NOLINT(google-explicit-constructor)
  OptionalBox(const T& v) : p_(std::make_unique<T>(v)) {}               // NOLINT(google-explicit-constructor)
  OptionalBox(T&& v) : p_(std::make_unique<T>(std::move(v))) {}         // NOLINT(google-explicit-constructor)
  OptionalBox(const std::optional<T>& v) {                              // NOLINT(google-explicit-constructor)
    if (v) p_ = std::make_unique<T>(*v);
  }
  OptionalBox(std::optional<T>&& v) {                                   // NOLINT(google-explicit-constructor)
    if (v) p_ = std::make_unique<T>(std::move(*v));
  }
  OptionalBox(const OptionalBox& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  OptionalBox(OptionalBox&&) noexcept = default;
  OptionalBox& operator=(const OptionalBox& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  OptionalBox& operator=(OptionalBox&&) noexcept = default;
  OptionalBox& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }
  OptionalBox& operator=(const T& v) { return *this = OptionalBox(v); }
  OptionalBox& operator=(T&& v) { return *this = OptionalBox(std::move(v)); }
  OptionalBox& operator=(const std::optional<T>& v) { return *this = OptionalBox(v); }
  OptionalBox& operator=(std::optional<T>&& v) { return *this = OptionalBox(std::move(v)); }

  bool has_value() const { return p_ != nullptr; }                     // NOLINT(readability-identifier-naming)
  explicit operator bool() const { return p_ != nullptr; }
  T& operator*() {
    assert(p_);
    return *p_;
  }
  const T& operator*() const {
    assert(p_);
    return *p_;
  }
  T* operator->() { return &**this; }
  const T* operator->() const { return &**this; }
  T& value() { return **this; }                                         // NOLINT(readability-identifier-naming)
  const T& value() const { return **this; }                             // NOLINT(readability-identifier-naming)
  template <typename U>
  T value_or(U&& fallback) const {                                      // NOLINT(readability-identifier-naming)
    return p_ ? *p_ : static_cast<T>(std::forward<U>(fallback));
  }
  template <typename... Args>
  T& emplace(Args&&... args) {
    p_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace qnnrules
