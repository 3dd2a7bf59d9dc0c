// Internal to the graph reader: what the schema walk needs besides the JSON view: value
// kinds in words, the JSON pointer of the value being read, and shared references that wait
// until every node is known.
#pragma once

#include "qnnrules/core/InlineVector.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "JsonValue.h"

namespace qnnrules::graphschema {

using jsonview::Kind;


template <typename V>
std::string typeName(const V& v) {
  switch (v.kind()) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kInt:
    case Kind::kUInt: return "an integer";
    case Kind::kDouble: return "a number";
    case Kind::kString: return "a string";
    case Kind::kArray: return "a list";
    case Kind::kObject: return "an object";
  }
  return "a value";
}

template <typename V>
bool isInteger(const V& v) { return v.kind() == Kind::kInt || v.kind() == Kind::kUInt; }
// An integer value clamped to int64 (nlohmann stores non-negative integers as unsigned).
template <typename V>
int64_t asInt64(const V& v) {
  if (v.kind() == Kind::kInt) return v.i64();
  return v.u64() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v.u64());
}
template <typename V>
bool isNumber(const V& v) { return isInteger(v) || v.kind() == Kind::kDouble; }
template <typename V>
bool isString(const V& v, std::string_view want) { return v.kind() == Kind::kString && v.str() == want; }

// A JSON pointer, built only when an error needs it. Keys are views into the parsed document
// (or string literals), so descending into a value costs no allocation.
//
// Reading node by node (GraphStreamedRead.h) keeps no pointer: an error there makes the whole
// document be read again, which says where. So a streamed reading switches the path off, and
// descending into a value costs one predictable branch instead of a push and a pop (3% of the
// instructions of reading a large graph).
class Path {
 public:
  struct Part {
    std::string_view key;
    size_t index = 0;
    bool isIndex = false;
  };
  void push(std::string_view key) {
    if (on_) parts_.push_back({key, 0, false});
  }
  void push(size_t index) {
    if (on_) parts_.push_back({{}, index, true});
  }
  void pop() {
    if (on_) parts_.pop_back();
  }
  // Off: push and pop do nothing and str() is "/" (call with no part pushed).
  void setOn(bool on) { on_ = on; }
  const std::vector<Part>& parts() const { return parts_; }
  std::string str() const { return str(parts_); }
  static std::string str(const std::vector<Part>& parts) {
    if (parts.empty()) return "/";
    std::string s;
    for (const Part& p : parts) {
      s += '/';
      if (p.isIndex) {
        s += std::to_string(p.index);
        continue;
      }
      for (char c : p.key) s += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    }
    return s;
  }

 private:
  std::vector<Part> parts_;
  bool on_ = true;
};

struct PathScope {
  PathScope(Path& p, std::string_view key) : path(p) { p.push(key); }
  PathScope(Path& p, size_t index) : path(p) { p.push(index); }
  ~PathScope() { path.pop(); }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;
  Path& path;
};

// A shared_with reference by name, resolved once every node is known. It records where the
// spec lives (node, section, index path) rather than a pointer, since specs move while a node
// is being built.
enum class Section : uint8_t { kArgs, kKwargs, kOutputs };
//
// A graph has one of these per shared port (a million in a large decoder), all alive until the
// last node is read, so reading node by node keeps them small: it resolves names to nodes as it
// reads them when it can (the producer read before, the consumer the node being read), and
// keeps no JSON pointer (an error there makes the whole document be read, which reports it).
struct PendingShared {
  static constexpr uint32_t kByName = UINT32_MAX;  // not resolved yet: look the name up
  uint32_t node = 0;
  Section section = Section::kArgs;
  bool edge = false;           // an edge reference (producer -> consumer), else a node output
  uint32_t output = 0;
  uint32_t producerIndex = kByName;
  uint32_t consumerIndex = kByName;
  InlineVector<size_t> where;  // argument index, then list element indices; or the output index
  std::vector<Path::Part> pointer;  // where it was written, for messages (views into the document)
  std::string producer;        // when producerIndex is kByName
  std::string consumer;        // when an edge's consumerIndex is kByName
};

}  // namespace qnnrules::graphschema
