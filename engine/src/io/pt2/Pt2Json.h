// Internal to the .pt2 reader: a checked view of a JSON value that knows its JSON pointer,
// so every schema error names where it is ("/graph_module/graph/nodes/3/inputs/0/arg").
// Accessors throw SchemaError (Pt2Program.h) on a missing key or a value of the wrong type;
// parsePt2File turns that into a status.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "Pt2Program.h"

namespace qnnrules::pt2 {

class Json {
 public:
  Json(const nlohmann::json& j, std::string pointer) : j_(&j), pointer_(std::move(pointer)) {}
  Json(std::nullptr_t, std::string pointer) : pointer_(std::move(pointer)) {}

  const std::string& pointer() const { return pointer_.empty() ? kRoot : pointer_; }
  bool isNull() const { return !j_ || j_->is_null(); }
  bool isString() const { return j_ && j_->is_string(); }

  void expectObject() const {
    if (!j_ || !j_->is_object()) fail("an object");
  }
  Json at(std::string_view key) const {
    std::optional<Json> v = find(key);
    if (!v) throw SchemaError(pointer(), "missing required key '" + std::string(key) + "'");
    return *v;
  }
  std::optional<Json> find(std::string_view key) const {
    expectObject();
    auto it = j_->find(key);
    if (it == j_->end()) return std::nullopt;
    return Json(*it, pointer_ + "/" + std::string(key));
  }
  size_t size() const {
    if (!j_ || !(j_->is_array() || j_->is_object())) fail("a list");
    return j_->size();
  }
  Json operator[](size_t i) const {
    if (!j_ || !j_->is_array()) fail("a list");
    return Json((*j_)[i], pointer_ + "/" + std::to_string(i));
  }
  int64_t integer() const {
    if (!j_ || !j_->is_number_integer()) fail("an integer");
    // Above INT64_MAX nlohmann keeps it unsigned; reading it as int64 would wrap to negative.
    if (j_->is_number_unsigned() && j_->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) fail("a 64-bit integer");
    return j_->get<int64_t>();
  }
  double number() const {
    if (!j_ || !j_->is_number()) fail("a number");
    return j_->get<double>();
  }
  bool boolean() const {
    if (!j_ || !j_->is_boolean()) fail("a boolean");
    return j_->get<bool>();
  }
  std::string_view string() const {
    if (!j_ || !j_->is_string()) fail("a string");
    return j_->get_ref<const std::string&>();
  }
  // A schema union (torch/_export/serde/union.py) is an object with exactly one key, the
  // member's name ("as_tensor"), holding its value.
  std::pair<std::string_view, Json> unionMember() const {
    expectObject();
    if (j_->size() != 1) fail("a union: an object with exactly one key");
    auto it = j_->begin();
    return {std::string_view(it.key()), Json(it.value(), pointer_ + "/" + it.key())};
  }

 private:
  [[noreturn]] void fail(const char* expected) const {
    std::string actual = !j_ ? "nothing" : j_->is_object() ? "an object" : j_->is_array() ? "a list" : j_->dump();
    if (actual.size() > 60) actual = actual.substr(0, 57) + "...";
    throw SchemaError(pointer(), std::string("expected ") + expected + ", got " + actual);
  }

  static inline const std::string kRoot = "/";
  const nlohmann::json* j_ = nullptr;
  std::string pointer_;
};

}  // namespace qnnrules::pt2
