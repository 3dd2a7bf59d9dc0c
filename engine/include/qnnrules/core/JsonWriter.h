// Writes JSON text straight into a string, formatted byte for byte as nlohmann-json's
// dump(indent, ' ', false, error_handler_t::replace) formats the same document, so reports can
// be written without building a DOM first. Keys are written in the order given: callers write
// them sorted, as nlohmann's std::map-backed objects print them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace qnnrules {

class JsonWriter {
 public:
  // indent < 0: compact ("a":1,"b":2); otherwise that many spaces per level, starting at
  // `level` (for text spliced into an enclosing document at that depth).
  explicit JsonWriter(std::string& out, int indent = 2, int level = 0)
      : out_(out), indent_(indent), level_(level) {}

  // Hands what has been written to `sink` and clears the string whenever a container closes
  // with `pieceBytes` or more in it, so that a document of a million diagnostics is written in
  // pieces instead of being held whole (the string is the writer's scratch from then on).
  void drainInto(const std::function<void(std::string_view)>* sink, size_t pieceBytes) {
    sink_ = sink;
    pieceBytes_ = pieceBytes;
  }

  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }
  void key(std::string_view k);

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(bool b);
  void value(uint64_t v);
  void value(int64_t v);
  void value(uint32_t v) { value(static_cast<uint64_t>(v)); }
  void value(int32_t v) { value(static_cast<int64_t>(v)); }
  void value(double v);  // nlohmann's shortest round-trip form ("0.25", "12.0"); NaN is null
  void null();
  // A value that is JSON text already (an array spliced in whole, formatted for this depth).
  // With a sink, what was written before and the text itself go to it at once.
  void rawValue(std::string_view json);

  // key(k) then value(v).
  template <typename T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

 private:
  void open(char c);
  void close(char c);
  void beforeValue();  // separator and indentation before an array element
  void newline(int level);
  void writeString(std::string_view s);

  std::string& out_;
  const std::function<void(std::string_view)>* sink_ = nullptr;
  size_t pieceBytes_ = 0;
  int indent_;
  int level_;
  std::vector<bool> empty_;   // per open container: nothing written into it yet
  bool afterKey_ = false;     // the next value follows a key on the same line
};

}  // namespace qnnrules
