#include "CacheArchive.h"

namespace qnnrules::rulecache {

void Writer::u64(uint64_t v) {
  while (v >= 0x80) {
    byte(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  byte(static_cast<uint8_t>(v));
}

// A mark is (file index + 1, line, column); 0 = no file.
void Writer::operator()(const SourceMark& m) {
  uint64_t index = 0;
  if (m.file) {
    auto [it, added] = fileIndex_.emplace(*m.file, files_.size() + 1);
    if (added) files_.push_back(*m.file);
    index = it->second;
  }
  u64(index);
  u64(m.line);
  u64(m.column);
}

std::string Writer::finish() const {
  Writer table;
  table.u64(files_.size());
  for (std::string_view f : files_) {
    table.u64(f.size());
    table.body_.append(f);
  }
  return table.body_ + body_;
}

Reader::Reader(std::string_view data) : data_(data) {
  const uint64_t n = count();
  files_.reserve(n);
  for (uint64_t i = 0; i < n && ok_; ++i) {
    std::string name;
    (*this)(name);
    files_.push_back(std::make_shared<const std::string>(std::move(name)));
  }
}

uint64_t Reader::u64() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) {
      fail();
      return 0;
    }
    const auto b = static_cast<uint8_t>(data_[pos_++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  fail();  // more than ten bytes: not a number this writer wrote
  return 0;
}

uint64_t Reader::count() {
  const uint64_t n = u64();
  if (n > data_.size() - pos_) {
    fail();
    return 0;
  }
  return n;
}

void Reader::operator()(std::string& s) {
  const uint64_t n = count();
  s.assign(data_.substr(pos_, n));
  pos_ += n;
}

void Reader::operator()(SourceMark& m) {
  const uint64_t index = u64();
  m.line = static_cast<uint32_t>(u64());
  m.column = static_cast<uint32_t>(u64());
  if (index == 0) {
    m.file.reset();
  } else if (index <= files_.size()) {
    m.file = files_[index - 1];
  } else {
    fail();
  }
}

}  // namespace qnnrules::rulecache
