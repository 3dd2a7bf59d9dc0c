// Backend options as data: each backend's options (LPAI fps, affinity, ...; GPU performance
// mode, precision, ...) with type, range and default, read from rules/backend_options.yaml.
// A user's "name=value" settings are checked against it and resolved with defaults filled.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/LoadLimits.h"
#include "qnnrules/core/SourceMark.h"

namespace qnnrules {

enum class OptionType : uint8_t {
  kInt,   // decimal integer within [min, max]
  kMask,  // unsigned bit mask within [min, max]; decimal or 0x hexadecimal
  kBool,  // true / false
  kEnum,  // one of a list of names, each carrying the backend's numeric code
};
std::string_view optionTypeName(OptionType t);  // "int", "mask", "bool", "enum"

struct EnumChoice {
  std::string name;  // "real_time"
  int64_t code = 0;  // the QNN / ExecuTorch enum value (kRealTime = 1)
};

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::kInt;
  int64_t min = 0, max = 0;          // kInt / kMask
  std::vector<EnumChoice> choices;   // kEnum
  int64_t defaultValue = 0;          // kInt / kMask value, kBool 0/1, kEnum index into choices
  std::string description;
  SourceMark mark;
};

// One option with its value: given by the user or the default.
struct ResolvedOption {
  const OptionSpec* spec = nullptr;  // points into the BackendOptionTable, which must outlive it
  int64_t value = 0;                 // as OptionSpec::defaultValue
  bool fromUser = false;
  std::string text() const;          // "30", "0x3", "true", "hard"
  int64_t code() const;              // the numeric value the backend receives (enum code)
};

class BackendOptionTable {
 public:
  // Options of a backend, in file order; empty when the backend has none.
  const std::vector<OptionSpec>& forBackend(std::string_view backend) const;
  // Adds or replaces (by name) an option of a backend: later files override earlier ones.
  void put(const std::string& backend, OptionSpec spec);
  const std::map<std::string, std::vector<OptionSpec>, std::less<>>& all() const { return byBackend_; }

 private:
  std::map<std::string, std::vector<OptionSpec>, std::less<>> byBackend_;
};

// Strict reading of backend_options.yaml; errors carry file:line:column. An option with an
// error is not added.
void loadBackendOptionsText(const std::string& text, const std::string& displayPath, BackendOptionTable& out,
                            DiagnosticList& errors, const LoadLimits& limits = {});
void loadBackendOptionsFile(const std::filesystem::path& file, const std::string& displayPath,
                            BackendOptionTable& out, DiagnosticList& errors, const LoadLimits& limits = {});

struct OptionResolution {
  std::vector<ResolvedOption> options;  // every option of the backend, in table order
  DiagnosticList errors;                // unknown-key, wrong-type, invalid-value, unknown-enum-value
  bool ok() const { return errors.empty(); }
};

// Checks "name=value" settings against a backend's options and fills in defaults. Every bad
// setting is reported (unknown names with a did-you-mean, wrong types, out-of-range values,
// bad enum names, settings given twice); `port` of each error holds the setting as written.
OptionResolution resolveBackendOptions(const BackendOptionTable& table, std::string_view backend,
                                       const std::vector<std::string>& settings);

}  // namespace qnnrules
