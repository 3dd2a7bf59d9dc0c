// A vector of trivially copyable values that keeps one value inline and more on the heap, with
// std::vector's interface as far as the engine uses it.
//
// A port's scales and zero points are one value each unless the port is per channel or
// block-wise, and a graph has two or three annotated ports per node: as std::vector, each
// value was a heap block of its own (32 bytes of heap and a malloc for 8 bytes of data), two
// per spec, 4.4 million of them in a million-node graph. Inline, a per-tensor spec allocates
// nothing for them, and the object is 16 bytes instead of std::vector's 24.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace qnnrules {

template <typename T>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>, "InlineVector holds plain values");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;

  InlineVector() = default;
  InlineVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  InlineVector(const std::vector<T>& values) { assign(values.begin(), values.end()); }  // NOLINT: a drop-in
  InlineVector(size_t count, const T& value) { assign(count, value); }
  template <typename It, typename = decltype(*std::declval<It&>())>
  InlineVector(It first, It last) {
    assign(first, last);
  }
  InlineVector(const InlineVector& o) { assign(o.begin(), o.end()); }
  InlineVector(InlineVector&& o) noexcept : u_(o.u_), size_(o.size_), capacity_(o.capacity_) { o.forget(); }
  InlineVector& operator=(const InlineVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) {
      release();
      u_ = o.u_;
      size_ = o.size_;
      capacity_ = o.capacity_;
      o.forget();
    }
    return *this;
  }
  InlineVector& operator=(std::initializer_list<T> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  InlineVector& operator=(const std::vector<T>& values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~InlineVector() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  T* data() { return onHeap() ? u_.heap : &u_.value; }
  const T* data() const { return onHeap() ? u_.heap : &u_.value; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& at(size_t i) { return data()[checked(i)]; }
  const T& at(size_t i) const { return data()[checked(i)]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > capacity_) grow(n);
  }
  void push_back(const T& v) {
    if (size_ == capacity_) {
      const T copy = v;  // v may be an element of this vector
      grow(std::max<size_t>(size_t{2} * capacity_, 2));
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = v;
  }
  void resize(size_t n, const T& value = T()) {
    reserve(n);
    if (n > size_) std::fill(data() + size_, data() + n, value);
    size_ = checkedSize(n);
  }
  void assign(size_t n, const T& value) {
    const T copy = value;
    size_ = 0;
    resize(n, copy);
  }
  template <typename It, typename = decltype(*std::declval<It&>())>
  void assign(It first, It last) {
    const auto n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    std::copy(first, last, data());
    size_ = checkedSize(n);
  }

  std::vector<T> toVector() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const InlineVector& a, const InlineVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const InlineVector& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool onHeap() const { return capacity_ > 1; }
  size_t checked(size_t i) const {
    if (i >= size_) throw std::out_of_range("InlineVector::at");
    return i;
  }
  static uint32_t checkedSize(size_t n) {
    if (n > std::numeric_limits<uint32_t>::max()) throw std::length_error("InlineVector: too many values");
    return static_cast<uint32_t>(n);
  }
  void grow(size_t n) {
    T* heap = new T[n];
    if (size_ > 0) std::memcpy(heap, data(), size_ * sizeof(T));
    release();
    u_.heap = heap;
    capacity_ = checkedSize(n);
  }
  void release() {
    if (onHeap()) delete[] u_.heap;
  }
  void forget() {
    size_ = 0;
    capacity_ = 1;
  }

  union Storage {
    T value;  // when capacity_ == 1
    T* heap;  // when capacity_ > 1
  } u_{};
  uint32_t size_ = 0;
  uint32_t capacity_ = 1;
};

}  // namespace qnnrules
