// Internal to the graph reader: one read-only view over two JSON DOMs, so the schema walk
// is written once and the parser underneath can be chosen by measurement
// (benchmarks/graph_reader_bench.cpp). simdjson is the default; nlohmann-json is kept as
// the reference implementation the benchmark compares against.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>

namespace qnnrules::jsonview {

enum class Kind : uint8_t { kNull, kBool, kInt, kUInt, kDouble, kString, kArray, kObject };

// nlohmann-json DOM. Objects are sorted maps, so duplicate keys are already gone by the time
// the reader sees them; the simdjson view keeps them and the reader rejects them.
class Nlohmann {
 public:
  explicit Nlohmann(const nlohmann::json& j) : j_(&j) {}

  Kind kind() const {
    switch (j_->type()) {
      case nlohmann::json::value_t::boolean: return Kind::kBool;
      case nlohmann::json::value_t::number_integer: return Kind::kInt;
      case nlohmann::json::value_t::number_unsigned: return Kind::kUInt;
      case nlohmann::json::value_t::number_float: return Kind::kDouble;
      case nlohmann::json::value_t::string: return Kind::kString;
      case nlohmann::json::value_t::array: return Kind::kArray;
      case nlohmann::json::value_t::object: return Kind::kObject;
      default: return Kind::kNull;
    }
  }
  std::string_view str() const { return j_->get_ref<const std::string&>(); }
  int64_t i64() const { return j_->get<int64_t>(); }
  uint64_t u64() const { return j_->get<uint64_t>(); }
  double f64() const { return j_->get<double>(); }
  bool boolean() const { return j_->get<bool>(); }
  size_t size() const { return j_->size(); }
  std::optional<Nlohmann> get(std::string_view key) const {
    auto it = j_->find(key);
    if (it == j_->end()) return std::nullopt;
    return Nlohmann(*it);
  }
  template <typename F>
  void forEach(F&& f) const {
    size_t i = 0;
    for (const auto& e : *j_) f(i++, Nlohmann(e));
  }
  template <typename F>
  void forEachField(F&& f) const {
    for (auto it = j_->begin(); it != j_->end(); ++it) f(std::string_view(it.key()), Nlohmann(it.value()));
  }
  std::string dump() const { return j_->dump(); }

 private:
  const nlohmann::json* j_;
};

// simdjson DOM (dom::parser): parsed several times faster than nlohmann's DOM.
class Simdjson {
 public:
  explicit Simdjson(simdjson::dom::element e) : e_(e) {}

  // simdjson's element types are the characters its tape marks values with ('[', 'l', ...):
  // one table read rather than a search among eight cases, asked several times per value.
  Kind kind() const { return kKinds[static_cast<unsigned char>(e_.type()) & 0x7F]; }
  std::string_view str() const { return std::string_view(e_.get_string().value_unsafe()); }
  int64_t i64() const { return e_.get_int64().value_unsafe(); }
  uint64_t u64() const { return e_.get_uint64().value_unsafe(); }
  double f64() const {
    switch (e_.type()) {
      case simdjson::dom::element_type::INT64: return static_cast<double>(e_.get_int64().value_unsafe());
      case simdjson::dom::element_type::UINT64: return static_cast<double>(e_.get_uint64().value_unsafe());
      default: return e_.get_double().value_unsafe();
    }
  }
  bool boolean() const { return e_.get_bool().value_unsafe(); }
  size_t size() const {
    if (e_.type() == simdjson::dom::element_type::ARRAY) {
      simdjson::dom::array array = e_.get_array().value_unsafe();
      return array.size();
    }
    simdjson::dom::object object = e_.get_object().value_unsafe();
    return object.size();
  }
  std::optional<Simdjson> get(std::string_view key) const {
    simdjson::dom::object object = e_.get_object().value_unsafe();
    simdjson::dom::element v;
    if (object.at_key(key).get(v) != simdjson::SUCCESS) return std::nullopt;
    return Simdjson(v);
  }
  template <typename F>
  void forEach(F&& f) const {
    // Copy the array view out of the simdjson_result first: iterating the temporary directly
    // would read through a reference into a destroyed object.
    simdjson::dom::array array = e_.get_array().value_unsafe();
    size_t i = 0;
    for (simdjson::dom::element v : array) f(i++, Simdjson(v));
  }
  template <typename F>
  void forEachField(F&& f) const {
    simdjson::dom::object object = e_.get_object().value_unsafe();
    for (simdjson::dom::key_value_pair kv : object) f(kv.key, Simdjson(kv.value));
  }
  std::string dump() const { return simdjson::minify(e_); }

 private:
  static constexpr std::array<Kind, 128> kKinds = [] {
    using T = simdjson::dom::element_type;
    std::array<Kind, 128> k{};
    k.fill(Kind::kNull);
    k[static_cast<unsigned char>(T::BOOL)] = Kind::kBool;
    k[static_cast<unsigned char>(T::INT64)] = Kind::kInt;
    k[static_cast<unsigned char>(T::UINT64)] = Kind::kUInt;
    k[static_cast<unsigned char>(T::DOUBLE)] = Kind::kDouble;
    k[static_cast<unsigned char>(T::STRING)] = Kind::kString;
    k[static_cast<unsigned char>(T::ARRAY)] = Kind::kArray;
    k[static_cast<unsigned char>(T::OBJECT)] = Kind::kObject;
    return k;
  }();
  simdjson::dom::element e_;
};

}  // namespace qnnrules::jsonview
