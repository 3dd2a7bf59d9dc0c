// Checked arithmetic for every size, count, offset and stride a reader computes from its input
// (issue 24): multiplication, addition and narrowing that say when the result does not fit,
// instead of wrapping (unsigned) or being undefined (signed). Every reader (.pt2, ONNX, JSON
// graph, the rule cache) uses these; an overflow becomes the reader's error (exit 2), never a
// wrapped length that passes a bounds check. Bounds are compared in unsigned arithmetic that
// cannot wrap: `fitsIn(offset, count, width, size)` rather than `(offset + count) * width <= size`.
// Internal to the engine.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>

namespace qnnrules::checked {

// a * b and a + b, or nullopt when the result does not fit in T.
template <typename T>
constexpr std::optional<T> mul(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T r{};
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
template <typename T>
constexpr std::optional<T> add(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T r{};
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// `v` as To, or nullopt when it does not fit (negative into unsigned, too large, ...).
template <typename To, typename From>
constexpr std::optional<To> narrow(From v) {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
  To r{};
  if (__builtin_add_overflow(v, From{0}, &r)) return std::nullopt;
  return r;
}

// The number of elements of a tensor with these dimensions: nullopt when a dimension is
// negative or the product does not fit in 64 bits (an empty list is a scalar: 1).
constexpr std::optional<uint64_t> elementCount(std::span<const int64_t> dims) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    std::optional<uint64_t> next = mul<uint64_t>(n, static_cast<uint64_t>(d));
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

// Whether `count` elements of `width` bytes starting at element `first` lie inside `size`
// bytes, computed so that nothing can wrap.
constexpr bool fitsIn(uint64_t first, uint64_t count, uint64_t width, uint64_t size) {
  std::optional<uint64_t> end = add(first, count);
  if (!end) return false;
  std::optional<uint64_t> bytes = mul(*end, width);
  return bytes && *bytes <= size;
}

}  // namespace qnnrules::checked
