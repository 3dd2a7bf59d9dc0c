// A graph file's bytes with simdjson::SIMDJSON_PADDING readable bytes after them, in an
// anonymous mapping of their own rather than on the heap: the node-by-node reading
// (GraphStreamedRead.h) gives back the pages of text it has read as it goes (releaseBefore), so
// that a large file's text is not resident next to the whole Graph, and that is only clean on
// memory nobody else manages. Internal to the graph reader.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <utility>

#include <simdjson.h>

namespace qnnrules {

class PaddedText {
 public:
  PaddedText() = default;
  PaddedText(const PaddedText&) = delete;
  PaddedText& operator=(const PaddedText&) = delete;
  PaddedText(PaddedText&& o) noexcept { *this = std::move(o); }
  PaddedText& operator=(PaddedText&& o) noexcept {
    if (this != &o) {
      reset();
      std::swap(bytes_, o.bytes_);
      std::swap(length_, o.length_);
      std::swap(mapped_, o.mapped_);
      std::swap(released_, o.released_);
    }
    return *this;
  }
  ~PaddedText() { reset(); }

  // Room for `length` bytes and the padding (spaces), uninitialised until the caller writes
  // them; false when the system has no memory for it. The pages are made present at once
  // (MAP_POPULATE), since the caller is about to write every one of them: one system call
  // instead of a page fault per 4 KB while the file is read in (0.05 - 0.1 s of CPU on a
  // 450 MB graph, benchmarks/scaling.py).
  bool allocate(size_t length) {
    reset();
    mapped_ = length + simdjson::SIMDJSON_PADDING;
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) {
      mapped_ = 0;
      return false;
    }
    bytes_ = static_cast<char*>(p);
    setLength(length);
    return true;
  }
  // The text is `length` bytes (a read may give fewer than allocated); pads after them.
  void setLength(size_t length) {
    length_ = length;
    std::memset(bytes_ + length_, ' ', simdjson::SIMDJSON_PADDING);
  }
  char* data() { return bytes_; }
  size_t size() const { return length_; }
  std::string_view view() const { return {bytes_, length_}; }

  // Gives back to the system the whole pages of text before `offset`; they read as zeros
  // afterwards (so whoever reads the text again must read the file again first: released()).
  void releaseBefore(size_t offset) {
    static const auto kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    static const size_t kStep = size_t{1} << 20;  // a system call per megabyte, not per batch
    const size_t end = offset / kPage * kPage;
    if (end < released_ + kStep) return;
    madvise(bytes_ + released_, end - released_, MADV_DONTNEED);
    released_ = end;
  }
  size_t released() const { return released_; }

  void reset() {
    if (bytes_) munmap(bytes_, mapped_);
    bytes_ = nullptr;
    length_ = mapped_ = released_ = 0;
  }

 private:
  char* bytes_ = nullptr;
  size_t length_ = 0;
  size_t mapped_ = 0;
  size_t released_ = 0;
};

}  // namespace qnnrules
