// Backend options: the built-in table (rules/backend_options.yaml) and, for every option of
// every backend, a valid value, an out-of-range value, a wrong type and an unknown name;
// then the loader's strictness on bad option files.
#include <gtest/gtest.h>

#include <algorithm>

#include "qnnrules/model/BackendOptions.h"

namespace qnnrules {
namespace {

const BackendOptionTable& builtin() {
  static const BackendOptionTable* table = [] {
    auto* t = new BackendOptionTable();
    DiagnosticList errors;
    loadBackendOptionsFile(QNNRULES_SOURCE_DIR "/rules/backend_options.yaml", "rules/backend_options.yaml", *t, errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : formatText(errors[0]));
    return t;
  }();
  return *table;
}

OptionResolution resolve(const std::string& backend, std::vector<std::string> settings) {
  return resolveBackendOptions(builtin(), backend, settings);
}

const ResolvedOption& find(const OptionResolution& r, const std::string& name) {
  auto it = std::find_if(r.options.begin(), r.options.end(), [&](const ResolvedOption& o) { return o.spec->name == name; });
  EXPECT_NE(it, r.options.end()) << name;
  return *it;
}

std::string codeOf(const OptionResolution& r) {
  return r.errors.size() == 1 ? std::string(diagCodeName(r.errors[0].code)) : std::to_string(r.errors.size()) + " errors";
}

TEST(BackendOptions, BuiltinTableHasTheReferenceOptionsAndDefaults) {
  OptionResolution lpai = resolve("lpai", {});
  ASSERT_TRUE(lpai.ok());
  std::vector<std::string> names;
  for (const ResolvedOption& o : lpai.options) names.push_back(o.spec->name);
  EXPECT_EQ(names, (std::vector<std::string>{"fps", "ftrt_ratio", "client_perf_type", "affinity", "core_selection",
                                             "target_env"}));
  EXPECT_EQ(find(lpai, "fps").text(), "1");
  EXPECT_EQ(find(lpai, "ftrt_ratio").text(), "10");
  EXPECT_EQ(find(lpai, "client_perf_type").text(), "real_time");
  EXPECT_EQ(find(lpai, "client_perf_type").code(), 1);
  EXPECT_EQ(find(lpai, "affinity").text(), "soft");
  EXPECT_EQ(find(lpai, "affinity").code(), 1);
  EXPECT_EQ(find(lpai, "core_selection").text(), "0x0");
  EXPECT_EQ(find(lpai, "target_env").text(), "arm");
  EXPECT_FALSE(find(lpai, "fps").fromUser);

  OptionResolution gpu = resolve("gpu", {});
  EXPECT_EQ(find(gpu, "performance_mode").text(), "high");
  EXPECT_EQ(find(gpu, "performance_mode").code(), 0);
  EXPECT_EQ(find(gpu, "precision").text(), "user_provided");
  EXPECT_EQ(find(gpu, "precision").code(), 3);
  EXPECT_EQ(find(gpu, "use_weight_sharing").text(), "false");
  EXPECT_EQ(find(gpu, "use_queue_recording").text(), "true");
}

TEST(BackendOptions, UserValuesReplaceDefaults) {
  OptionResolution r = resolve("lpai", {"fps=30", "affinity=hard", "core_selection=0x3", "target_env=adsp"});
  ASSERT_TRUE(r.ok()) << formatText(r.errors[0]);
  EXPECT_EQ(find(r, "fps").value, 30);
  EXPECT_TRUE(find(r, "fps").fromUser);
  EXPECT_EQ(find(r, "affinity").text(), "hard");
  EXPECT_EQ(find(r, "affinity").code(), 2);
  EXPECT_EQ(find(r, "core_selection").value, 3);
  EXPECT_EQ(find(r, "target_env").code(), 2);
  EXPECT_EQ(find(r, "ftrt_ratio").value, 10);  // untouched: default
}

// For every option of every backend in the built-in file: one valid value, one out of range
// (a bad name for enums), one of the wrong type, and a misspelt name.
TEST(BackendOptions, EveryOptionIsChecked) {
  size_t checked = 0;
  for (const auto& [backend, specs] : builtin().all()) {
    for (const OptionSpec& s : specs) {
      SCOPED_TRACE(backend + "." + s.name);
      std::string valid, outOfRange, wrongType, outCode = "invalid-value";
      switch (s.type) {
        case OptionType::kInt:
          valid = std::to_string(s.max);
          outOfRange = std::to_string(s.min - 1);
          wrongType = "1.5";
          break;
        case OptionType::kMask:
          valid = "0x1";
          outOfRange = std::to_string(s.max) + "0";
          wrongType = "0xZZ";
          break;
        case OptionType::kBool:
          valid = "false";
          outOfRange = "2";  // no range: anything but true/false is the wrong type
          outCode = "wrong-type";
          wrongType = "yes";
          break;
        case OptionType::kEnum:
          valid = s.choices.back().name;
          outOfRange = s.choices.back().name + "_x";
          outCode = "unknown-enum-value";
          wrongType = std::to_string(s.choices.back().code);
          break;
      }
      OptionResolution ok = resolve(backend, {s.name + "=" + valid});
      EXPECT_TRUE(ok.ok()) << formatText(ok.errors[0]);
      EXPECT_TRUE(find(ok, s.name).fromUser);
      EXPECT_EQ(find(ok, s.name).text(), s.type == OptionType::kMask ? "0x1" : valid);

      OptionResolution range = resolve(backend, {s.name + "=" + outOfRange});
      EXPECT_EQ(codeOf(range), outCode);
      EXPECT_FALSE(range.errors.empty() || range.errors[0].expected.empty());
      EXPECT_FALSE(find(range, s.name).fromUser);  // the default stays

      OptionResolution type = resolve(backend, {s.name + "=" + wrongType});
      EXPECT_EQ(codeOf(type), "wrong-type");
      EXPECT_EQ(type.errors.empty() ? "" : type.errors[0].port, s.name + "=" + wrongType);

      std::string typo = s.name.substr(0, s.name.size() - 1);
      OptionResolution unknown = resolve(backend, {typo + "=" + valid});
      EXPECT_EQ(codeOf(unknown), "unknown-key");
      EXPECT_EQ(unknown.errors.empty() ? "" : unknown.errors[0].hint, "did you mean '" + s.name + "'?");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 12u);  // 6 LPAI + 6 GPU options
}

TEST(BackendOptions, MessagesSayWhatWasExpected) {
  OptionResolution r = resolve("lpai", {"fps=0"});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "option 'fps' is out of range");
  EXPECT_EQ(r.errors[0].expected, "an integer from 1 to 4294967295");
  EXPECT_EQ(r.errors[0].actual, "0");
  EXPECT_TRUE(r.errors[0].mark.known());  // points at the option in backend_options.yaml

  OptionResolution e = resolve("lpai", {"affinity=hrad"});
  EXPECT_EQ(e.errors[0].expected, "one of: soft, hard");
  EXPECT_EQ(e.errors[0].hint, "did you mean 'hard'?");

  OptionResolution n = resolve("lpai", {"affinity=2"});
  EXPECT_EQ(n.errors[0].hint, "code 2 is 'hard'");
}

TEST(BackendOptions, EveryBadSettingIsReportedAtOnce) {
  OptionResolution r = resolve("lpai", {"fps=0", "affinity=hard", "bogus=1", "novalue", "fps=3", "fps=4"});
  std::vector<std::string> codes;
  for (const Diagnostic& d : r.errors) codes.emplace_back(diagCodeName(d.code));
  EXPECT_EQ(codes, (std::vector<std::string>{"invalid-value", "unknown-key", "invalid-value", "duplicate-key"}));
  EXPECT_EQ(find(r, "affinity").text(), "hard");
}

TEST(BackendOptions, BackendWithoutOptionsRejectsAnySetting) {
  OptionResolution r = resolve("htp", {"fps=30"});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].code, DiagCode::kUnknownKey);
  EXPECT_NE(r.errors[0].expected.find("has none"), std::string::npos);
  EXPECT_TRUE(resolve("htp", {}).ok());
}

TEST(BackendOptions, LaterFilesReplaceOptionsByName) {
  BackendOptionTable t;
  DiagnosticList errors;
  loadBackendOptionsText("version: 1\nbackends:\n  lpai:\n    - {name: fps, type: int, min: 1, max: 60, default: 1, "
                         "description: d}\n    - {name: extra, type: bool, default: true, description: e}\n",
                         "a.yaml", t, errors);
  loadBackendOptionsText("version: 1\nbackends:\n  lpai:\n    - {name: fps, type: int, min: 1, max: 120, default: 5, "
                         "description: d}\n",
                         "b.yaml", t, errors);
  ASSERT_TRUE(errors.empty()) << formatText(errors[0]);
  ASSERT_EQ(t.forBackend("lpai").size(), 2u);
  EXPECT_EQ(t.forBackend("lpai")[0].max, 120);
  EXPECT_EQ(t.forBackend("lpai")[0].defaultValue, 5);
  EXPECT_EQ(*t.forBackend("lpai")[0].mark.file, "b.yaml");
}

// Loader strictness: each bad file gives the listed code at the listed line.
struct BadFile {
  const char* name;
  const char* body;  // under "backends:\n  lpai:\n"
  const char* code;
  uint32_t line;
  size_t kept = 0;  // options of the file still added (the good ones)
};

class BackendOptionsLoader : public ::testing::TestWithParam<BadFile> {};

TEST_P(BackendOptionsLoader, RejectsWithFileLineAndCode) {
  const BadFile& c = GetParam();
  BackendOptionTable t;
  DiagnosticList errors;
  loadBackendOptionsText(std::string("version: 1\nbackends:\n  lpai:\n") + c.body, "opts.yaml", t, errors);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(diagCodeName(errors[0].code), c.code) << formatText(errors[0]);
  EXPECT_EQ(errors[0].mark.line, c.line) << formatText(errors[0]);
  EXPECT_EQ(t.forBackend("lpai").size(), c.kept);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BackendOptionsLoader,
    ::testing::Values(
        BadFile{"UnknownKey", "    - {name: a, type: int, min: 0, max: 1, default: 0, description: d, unit: s}\n",
                "unknown-key", 4},
        BadFile{"UnknownType", "    - {name: a, type: float, default: 0, description: d}\n", "unknown-enum-value", 4},
        BadFile{"DefaultOutOfRange", "    - name: a\n      type: int\n      min: 1\n      max: 5\n      default: 9\n"
                                     "      description: d\n", "invalid-value", 8},
        BadFile{"EnumWithoutValues", "    - {name: a, type: enum, default: x, description: d}\n", "missing-key", 4},
        BadFile{"DefaultNotAChoice", "    - {name: a, type: enum, values: {x: 0}, default: y, description: d}\n",
                "unknown-enum-value", 4},
        BadFile{"RangeOnBool", "    - {name: a, type: bool, min: 0, default: true, description: d}\n", "unknown-key", 4},
        BadFile{"MinAboveMax", "    - {name: a, type: int, min: 5, max: 1, default: 3, description: d}\n",
                "invalid-value", 4},
        BadFile{"DefinedTwice", "    - {name: a, type: bool, default: true, description: d}\n"
                                "    - {name: a, type: bool, default: true, description: d}\n", "duplicate-key", 5, 1},
        BadFile{"NotAList", "    fps: 1\n", "wrong-type", 4}),
    [](const ::testing::TestParamInfo<BadFile>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace qnnrules
