#include "qnnrules/model/BackendOptions.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <variant>

#include "yaml/StrictYaml.h"

namespace qnnrules {

std::string_view optionTypeName(OptionType t) {
  switch (t) {
    case OptionType::kInt: return "int";
    case OptionType::kMask: return "mask";
    case OptionType::kBool: return "bool";
    case OptionType::kEnum: return "enum";
  }
  return "int";
}

namespace {

constexpr std::string_view kTypeNames[] = {"int", "mask", "bool", "enum"};
constexpr std::string_view kTopKeys[] = {"version", "backends"};
constexpr std::string_view kOptionKeys[] = {"name", "type", "min", "max", "default", "values", "description"};

std::optional<OptionType> parseOptionType(std::string_view s) {
  for (size_t i = 0; i < std::size(kTypeNames); ++i)
    if (s == kTypeNames[i]) return static_cast<OptionType>(i);
  return std::nullopt;
}

std::string hex(int64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string rangeText(const OptionSpec& s) {
  if (s.type == OptionType::kMask) return "a bit mask from " + hex(s.min) + " to " + hex(s.max);
  return "an integer from " + std::to_string(s.min) + " to " + std::to_string(s.max);
}

std::vector<std::string_view> choiceNames(const OptionSpec& s) {
  std::vector<std::string_view> names;
  for (const EnumChoice& c : s.choices) names.push_back(c.name);
  return names;
}

std::optional<int64_t> parseInt(std::string_view s, int base) {
  bool neg = false;
  if (base == 10 && !s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  uint64_t u = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), u, base);
  if (p != s.data() + s.size()) return std::nullopt;
  // Too large for int64: still an integer, so report it as out of range, not as a wrong type.
  if (ec == std::errc::result_out_of_range || u > static_cast<uint64_t>(INT64_MAX))
    return neg ? INT64_MIN : INT64_MAX;
  if (ec != std::errc()) return std::nullopt;
  return neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
}

// Why a value does not fit an option: a diagnostic code and the sentence parts.
struct ValueError {
  DiagCode code = DiagCode::kInvalidValue;
  std::string message, expected, hint;
};

// Parses `text` as a value of `spec`. Shared by the YAML default and the command line so
// both accept exactly the same spellings.
std::variant<int64_t, ValueError> parseValue(const OptionSpec& spec, std::string_view text) {
  const std::string what = "option '" + spec.name + "'";
  switch (spec.type) {
    case OptionType::kInt:
    case OptionType::kMask: {
      std::optional<int64_t> v;
      if (spec.type == OptionType::kMask && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        v = parseInt(text.substr(2), 16);
      else
        v = parseInt(text, 10);
      if (!v) {
        return ValueError{DiagCode::kWrongType,
                          what + (spec.type == OptionType::kMask ? " takes a bit mask" : " takes an integer"),
                          spec.type == OptionType::kMask ? "a decimal or 0x-hexadecimal integer" : "a decimal integer",
                          ""};
      }
      if (*v < spec.min || *v > spec.max)
        return ValueError{DiagCode::kInvalidValue, what + " is out of range", rangeText(spec), ""};
      return *v;
    }
    case OptionType::kBool:
      if (text == "true") return int64_t{1};
      if (text == "false") return int64_t{0};
      return ValueError{DiagCode::kWrongType, what + " takes true or false", "true or false", ""};
    case OptionType::kEnum: {
      std::vector<std::string_view> names = choiceNames(spec);
      for (size_t i = 0; i < spec.choices.size(); ++i)
        if (spec.choices[i].name == text) return static_cast<int64_t>(i);
      ValueError e{DiagCode::kUnknownEnumValue, "unknown value for " + what, strictyaml::oneOf(names),
                   strictyaml::suggest(text, names)};
      // A number is the wrong kind of value; if it is a backend code, name the choice.
      if (auto n = parseInt(text, 10)) {
        e.code = DiagCode::kWrongType;
        e.message = what + " takes a name, not a number";
        for (const EnumChoice& c : spec.choices)
          if (c.code == *n) e.hint = "code " + std::to_string(c.code) + " is '" + c.name + "'";
      }
      return e;
    }
  }
  return ValueError{};
}

// Reads backend_options.yaml with the shared strict-YAML helpers.
class OptionLoader : public strictyaml::StrictYamlReader {
 public:
  using StrictYamlReader::StrictYamlReader;

  void load(const YAML::Node& root, BackendOptionTable& out) {
    using namespace strictyaml;  // NOLINT(google-build-using-namespace)
    Map top = readMap(root, "the top level", kTopKeys, "a mapping with keys version and backends");
    if (!top.valid) return;
    bool fileOk = version(root, top);
    const Entry* backends = top.get("backends");
    if (!backends) {
      missing(root, top, "the top level", "backends");
      return;
    }
    Map bm = readMap(backends->value, "'backends'", {}, "a mapping from backend name to its list of options");
    if (!fileOk) return;
    for (const Entry& b : bm.entries) {
      if (!b.value.IsSequence()) {
        error(DiagCode::kWrongType, mark(b.value), "the options of backend '" + b.key + "' must be a list",
              "a list of options", describe(b.value));
        continue;
      }
      std::vector<std::string> seen;
      for (const YAML::Node& item : b.value) {
        std::optional<OptionSpec> spec = option(item, b.key);
        if (!spec) continue;
        if (std::find(seen.begin(), seen.end(), spec->name) != seen.end()) {
          error(DiagCode::kDuplicateKey, spec->mark, "option '" + spec->name + "' of backend '" + b.key +
                "' is defined twice in this file", "each option once", spec->name);
          continue;
        }
        seen.push_back(spec->name);
        out.put(b.key, std::move(*spec));
      }
    }
  }

 private:
  std::optional<OptionSpec> option(const YAML::Node& node, const std::string& backend) {
    using namespace strictyaml;  // NOLINT(google-build-using-namespace)
    std::string label = peek(node, "name");
    std::string scope = "option '" + (label.empty() ? "?" : label) + "' of backend '" + backend + "'";
    size_t before = errorCount();
    Map m = readMap(node, scope, kOptionKeys);
    if (!m.valid) return std::nullopt;
    OptionSpec s;
    s.mark = mark(node);
    for (std::string_view key : {"name", "type", "default", "description"})
      if (!m.get(key)) missing(node, m, scope, key);
    if (const Entry* e = m.get("name"); e) {
      if (auto v = str(e->value, "'name' of an option")) s.name = *v;
    }
    if (const Entry* e = m.get("description"); e) {
      if (auto v = str(e->value, "'description' of " + scope)) s.description = *v;
    }
    const Entry* typeEntry = m.get("type");
    std::optional<OptionType> type;
    if (typeEntry)
      type = enumValue<OptionType>(typeEntry->value, "'type' of " + scope, "option type", kTypeNames, parseOptionType);
    if (!type) return std::nullopt;
    s.type = *type;
    bool numeric = s.type == OptionType::kInt || s.type == OptionType::kMask;
    for (std::string_view key : {"min", "max"}) {
      const Entry* e = m.get(key);
      if (numeric && !e) missing(node, m, scope, key);
      if (!numeric && e)
        error(DiagCode::kUnknownKey, mark(e->keyNode), "'" + std::string(key) + "' applies only to int and mask options",
              "no '" + std::string(key) + "' for a " + std::string(optionTypeName(s.type)) + " option", e->key);
      if (numeric && e) {
        auto v = integer(e->value, "'" + std::string(key) + "' of " + scope, INT64_MIN, INT64_MAX);
        if (v) (key == "min" ? s.min : s.max) = *v;
      }
    }
    if (numeric && s.type == OptionType::kMask && s.min < 0)
      error(DiagCode::kInvalidValue, mark(m.get("min")->value), "a bit mask cannot be negative", "min >= 0",
            std::to_string(s.min));
    if (numeric && s.min > s.max)
      error(DiagCode::kInvalidValue, mark(node), scope + " has min greater than max", "min <= max",
            std::to_string(s.min) + " > " + std::to_string(s.max));
    const Entry* values = m.get("values");
    if (s.type == OptionType::kEnum) {
      if (!values) missing(node, m, scope, "values");
      else readChoices(values->value, scope, s);
    } else if (values) {
      error(DiagCode::kUnknownKey, mark(values->keyNode), "'values' applies only to enum options",
            "no 'values' for a " + std::string(optionTypeName(s.type)) + " option", "values");
    }
    if (errorCount() != before) return std::nullopt;
    const Entry* def = m.get("default");
    if (!def->value.IsScalar()) {
      error(DiagCode::kWrongType, mark(def->value), "'default' of " + scope + " must be a scalar", "a scalar",
            describe(def->value));
      return std::nullopt;
    }
    auto parsed = parseValue(s, def->value.Scalar());
    if (auto* bad = std::get_if<ValueError>(&parsed)) {
      error(bad->code, mark(def->value), "'default' of " + scope + ": " + bad->message, bad->expected,
            clip(def->value.Scalar()), bad->hint);
      return std::nullopt;
    }
    s.defaultValue = std::get<int64_t>(parsed);
    return s;
  }

  void readChoices(const YAML::Node& node, const std::string& scope, OptionSpec& s) {
    using namespace strictyaml;  // NOLINT(google-build-using-namespace)
    Map vm = readMap(node, "'values' of " + scope, {}, "a mapping from value name to its backend code");
    if (vm.valid && vm.entries.empty())
      error(DiagCode::kInvalidValue, mark(node), "'values' of " + scope + " must not be empty",
            "at least one value", "{}");
    for (const Entry& e : vm.entries) {
      auto code = integer(e.value, "the code of value '" + e.key + "' of " + scope, INT64_MIN, INT64_MAX);
      if (code) s.choices.push_back({e.key, *code});
    }
  }
};

}  // namespace

std::string ResolvedOption::text() const {
  switch (spec->type) {
    case OptionType::kInt: return std::to_string(value);
    case OptionType::kMask: return hex(value);
    case OptionType::kBool: return value ? "true" : "false";
    case OptionType::kEnum: return spec->choices[static_cast<size_t>(value)].name;
  }
  return {};
}

int64_t ResolvedOption::code() const {
  return spec->type == OptionType::kEnum ? spec->choices[static_cast<size_t>(value)].code : value;
}

const std::vector<OptionSpec>& BackendOptionTable::forBackend(std::string_view backend) const {
  static const std::vector<OptionSpec> kNone;
  auto it = byBackend_.find(backend);
  return it == byBackend_.end() ? kNone : it->second;
}

void BackendOptionTable::put(const std::string& backend, OptionSpec spec) {
  std::vector<OptionSpec>& list = byBackend_[backend];
  for (OptionSpec& s : list) {
    if (s.name == spec.name) {
      s = std::move(spec);
      return;
    }
  }
  list.push_back(std::move(spec));
}

void loadBackendOptionsText(const std::string& text, const std::string& displayPath, BackendOptionTable& out,
                            DiagnosticList& errors, const LoadLimits& limits) {
  OptionLoader l(displayPath, errors);
  l.setListKey("backends");
  strictyaml::guarded(l, [&] {
    if (auto root = l.parse(text, limits, "the backend options file")) l.load(*root, out);
  });
}

void loadBackendOptionsFile(const std::filesystem::path& file, const std::string& displayPath,
                            BackendOptionTable& out, DiagnosticList& errors, const LoadLimits& limits) {
  std::optional<std::string> text;
  try {
    text = strictyaml::readFile(file, displayPath, limits, errors, "backend options file");
  } catch (...) {
    OptionLoader l(displayPath, errors);
    l.error(DiagCode::kYamlSyntax, l.fileMark(), "cannot read backend options file '" + displayPath + "'");
    return;
  }
  if (text) loadBackendOptionsText(*text, displayPath, out, errors, limits);
}

OptionResolution resolveBackendOptions(const BackendOptionTable& table, std::string_view backend,
                                       const std::vector<std::string>& settings) {
  OptionResolution r;
  const std::vector<OptionSpec>& specs = table.forBackend(backend);
  for (const OptionSpec& s : specs) r.options.push_back({&s, s.defaultValue, false});
  std::vector<std::string_view> names;
  for (const OptionSpec& s : specs) names.push_back(s.name);

  auto fail = [&](const std::string& setting, DiagCode code, std::string message, std::string expected,
                  std::string actual, std::string hint, const OptionSpec* spec) {
    Diagnostic d;
    d.severity = Severity::kError;
    d.code = code;
    d.message = std::move(message);
    d.port = setting;  // the setting as written, so a front end can point at it
    d.expected = std::move(expected);
    d.actual = std::move(actual);
    d.hint = std::move(hint);
    if (spec) d.mark = spec->mark;
    r.errors.push_back(std::move(d));
  };

  for (const std::string& setting : settings) {
    size_t eq = setting.find('=');
    if (eq == std::string::npos || eq == 0) {
      fail(setting, DiagCode::kInvalidValue, "a backend option must be written name=value", "name=value", setting,
           names.empty() ? "" : "options of " + std::string(backend) + ": " + strictyaml::join(names), nullptr);
      continue;
    }
    std::string name = setting.substr(0, eq);
    std::string text = setting.substr(eq + 1);
    auto it = std::find_if(r.options.begin(), r.options.end(), [&](const ResolvedOption& o) { return o.spec->name == name; });
    if (it == r.options.end()) {
      std::string hint = strictyaml::suggest(name, names);
      if (hint.empty() && !names.empty()) hint = "options of " + std::string(backend) + ": " + strictyaml::join(names);
      fail(setting, DiagCode::kUnknownKey, "unknown option '" + name + "' for backend " + std::string(backend),
           names.empty() ? "no options (backend " + std::string(backend) + " has none)" : strictyaml::oneOf(names),
           name, hint, nullptr);
      continue;
    }
    if (it->fromUser) {
      fail(setting, DiagCode::kDuplicateKey, "option '" + name + "' is given twice", "each option at most once",
           name + "=" + it->text() + " and " + setting, "keep one of them", it->spec);
      continue;
    }
    auto parsed = parseValue(*it->spec, text);
    if (auto* bad = std::get_if<ValueError>(&parsed)) {
      fail(setting, bad->code, bad->message, bad->expected, text.empty() ? "an empty value" : text, bad->hint,
           it->spec);
      continue;
    }
    it->value = std::get<int64_t>(parsed);
    it->fromUser = true;
  }
  return r;
}

}  // namespace qnnrules
