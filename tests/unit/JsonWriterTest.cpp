// The streaming JSON writer against the DOM dump it replaces: the same document walked into
// JsonWriter must print byte for byte as nlohmann's dump (indented, compact, spliced at a
// depth), escapes and invalid UTF-8 included.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "qnnrules/core/JsonWriter.h"

namespace qnnrules {
namespace {

void walk(JsonWriter& w, const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      w.beginObject();
      for (auto it = j.begin(); it != j.end(); ++it) {
        w.key(it.key());
        walk(w, it.value());
      }
      w.endObject();
      break;
    case nlohmann::json::value_t::array:
      w.beginArray();
      for (const auto& e : j) walk(w, e);
      w.endArray();
      break;
    case nlohmann::json::value_t::string: w.value(j.get_ref<const std::string&>()); break;
    case nlohmann::json::value_t::boolean: w.value(j.get<bool>()); break;
    case nlohmann::json::value_t::number_unsigned: w.value(j.get<uint64_t>()); break;
    case nlohmann::json::value_t::number_integer: w.value(j.get<int64_t>()); break;
    case nlohmann::json::value_t::number_float: w.value(j.get<double>()); break;
    default: w.null(); break;
  }
}

std::string written(const nlohmann::json& j, int indent, int level = 0) {
  std::string s;
  JsonWriter w(s, indent, level);
  walk(w, j);
  return s;
}

nlohmann::json sample() {
  nlohmann::json j;
  j["plain"] = "relu";
  j["quotes"] = "expected \"a\" got 'b'";
  j["controls"] = std::string("tab\there\nnew\x01line\\");
  j["utf8"] = "caf\xC3\xA9 \xE2\x86\x92 ok";
  j["invalid_utf8"] = std::string("bad \xC3( and \xFF end \xE2\x86");
  j["numbers"] = {0, 7, -3, uint64_t{18446744073709551615ull}, int64_t{-9223372036854775807ll}};
  // Phase times in the run report: whole, tiny, huge, negative zero and NaN (printed null).
  j["floats"] = {0.5, 12.0, 1e-05, 1234.5678, 0.1 + 0.2, -0.0, 1e300, std::nan("")};
  j["flags"] = {true, false, nullptr};
  j["empty_object"] = nlohmann::json::object();
  j["empty_array"] = nlohmann::json::array();
  j["nested"] = {{"location", {{"file", "a.yaml"}, {"line", 3}, {"column", 9}}}, {"none", nullptr},
                 {"list", {nlohmann::json::array(), nlohmann::json::object(), {{"k", "v"}}}}};
  return j;
}

TEST(JsonWriter, MatchesTheDomDumpIndentedAndCompact) {
  const nlohmann::json j = sample();
  EXPECT_EQ(written(j, 2), j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  EXPECT_EQ(written(j, -1), j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  for (const auto& scalar : {nlohmann::json("x"), nlohmann::json(1), nlohmann::json(nullptr),
                             nlohmann::json::array(), nlohmann::json::object()})
    EXPECT_EQ(written(scalar, 2), scalar.dump(2));
}

// Text written at depth 1 is what the enclosing document's dump prints for that member, so a
// report can splice a directly written part into a small envelope.
TEST(JsonWriter, WritesAtADepthForSplicing) {
  const nlohmann::json part = sample();
  const nlohmann::json doc = {{"part", part}};
  const std::string expected = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  EXPECT_EQ("{\n  \"part\": " + written(part, 2, 1) + "\n}", expected);
}

}  // namespace
}  // namespace qnnrules
