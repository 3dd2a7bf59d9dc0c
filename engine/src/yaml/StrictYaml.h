// Strict YAML reading shared by every YAML format of the engine (rules, SoCs, quantization
// configs, recipes): mappings are read pair by pair so duplicate keys are seen, keys are
// checked against the ones a place allows (with "did you mean"), scalars are typed by YAML 1.2
// core rules, and every error carries file:line:column. Internal to the engine.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "YamlDocuments.h"
#include "YamlScan.h"
#include "qnnrules/core/LoadLimits.h"

namespace qnnrules::strictyaml {

using Names = std::span<const std::string_view>;

std::string join(Names names);
std::string oneOf(Names names);
// "did you mean 'X'?" for the nearest candidate, or "" when none is close.
std::string suggest(std::string_view word, Names candidates);
bool isPlain(const YAML::Node& n);
bool looksDecimalInt(std::string_view s);
bool looksInt(std::string_view s);
bool looksFloat(std::string_view s);
bool looksBool(std::string_view s);
std::optional<double> parseNumber(std::string_view s);
// "1/256", "1/32768": both parts unsigned decimal numbers.
std::optional<double> parseFraction(std::string_view s);
std::string clip(std::string s);
// What a node is, for `actual`.
std::string describe(const YAML::Node& n);

struct Entry {
  std::string key;
  YAML::Node keyNode;
  YAML::Node value;
};

struct Map {
  bool valid = false;
  std::vector<Entry> entries;
  const Entry* get(std::string_view key) const {
    for (const Entry& e : entries)
      if (e.key == key) return &e;
    return nullptr;
  }
  std::string keyList() const {
    std::string s;
    for (const Entry& e : entries) s += (s.empty() ? "" : ", ") + e.key;
    return s.empty() ? "no keys" : "keys: " + s;
  }
};

// The nodes a document of `bytes` bytes may expand to through its aliases: twice its size
// (a node takes at least two bytes written out, "a," or "- "), and never less than 100000.
inline uint64_t expansionBudget(uint64_t bytes) { return std::max<uint64_t>(2 * bytes, 100000); }
// Whether walking `root` with every alias expanded visits at most `budget` nodes (the walk
// stops as soon as it would visit more).
bool expandsWithin(const YAML::Node& root, uint64_t budget);

// The reader of one file: typed values, strict mappings, and the error list they append to.
class StrictYamlReader {
 public:
  StrictYamlReader(const std::string& displayPath, DiagnosticList& errors)
      : file_(std::make_shared<const std::string>(displayPath)), errors_(errors) {}

  SourceMark fileMark(uint32_t line = 0, uint32_t column = 0) const {
    SourceMark m;
    m.file = file_;
    m.line = line;
    m.column = column;
    return m;
  }
  SourceMark mark(const YAML::Mark& m) const {
    return fileMark(m.line >= 0 ? static_cast<uint32_t>(m.line) + 1 : 0,
                    m.column >= 0 ? static_cast<uint32_t>(m.column) + 1 : 0);
  }
  SourceMark mark(const YAML::Node& n) const { return mark(n.Mark()); }

  Diagnostic& error(DiagCode code, SourceMark at, std::string message, std::string expected = {},
                    std::string actual = {}, std::string hint = {}) {
    Diagnostic d;
    d.severity = Severity::kError;
    d.code = code;
    d.message = std::move(message);
    d.mark = std::move(at);
    d.expected = std::move(expected);
    d.actual = std::move(actual);
    d.hint = std::move(hint);
    d.ruleId = ruleId_;
    d.variant = variant_;
    errors_.push_back(std::move(d));
    return errors_.back();
  }
  size_t errorCount() const { return errors_.size(); }

  // Reads YAML text into one document root; nullopt (with an error) when it cannot.
  std::optional<YAML::Node> parse(const std::string& text, const LoadLimits& limits, std::string_view what) {
    if (text.size() > limits.maxFileBytes) {
      error(DiagCode::kYamlSyntax, fileMark(),
            std::string(what) + " is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                std::to_string(limits.maxFileBytes) + " bytes",
            "at most " + std::to_string(limits.maxFileBytes) + " bytes", std::to_string(text.size()) + " bytes");
      return std::nullopt;
    }
    if (auto v = yamlscan::findUnsafeYaml(text, limits.maxDepth)) {
      if (v->kind == yamlscan::ScanProblem::Kind::kControlChar) {
        const std::string code = fmt::format("U+{:04X}", v->byte);
        error(DiagCode::kYamlSyntax, fileMark(v->line, v->column),
              "YAML syntax error: control character " + code + " is not allowed in YAML text (is this a binary file?)",
              "printable characters, tab, line feed or carriage return", code);
      } else if (v->kind == yamlscan::ScanProblem::Kind::kStrayComma) {
        error(DiagCode::kYamlSyntax, fileMark(v->line, v->column),
              "YAML syntax error: ',' outside a flow collection ([...] or {...}); quote the value if it "
              "starts with a comma",
              "a value, or ',' between the items of [...] or {...}", "','");
      } else {
        error(DiagCode::kYamlSyntax, fileMark(v->line, v->column),
              "YAML nesting deeper than " + std::to_string(limits.maxDepth) + " levels; the file is refused",
              "at most " + std::to_string(limits.maxDepth) + " nested collections",
              "more than " + std::to_string(limits.maxDepth) + " nested collections");
      }
      return std::nullopt;
    }
    YAML::Node root;
    yamldocs::DocumentCount docs;
    try {
      docs = yamldocs::countDocuments(text);  // bounded: yaml-cpp 0.7's LoadAll can loop forever
      if (docs.count == 1) root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      error(DiagCode::kYamlSyntax, mark(e.mark), "YAML syntax error: " + e.msg, "valid YAML", clip(e.msg));
      return std::nullopt;
    }
    if (docs.count > 1) {
      error(DiagCode::kYamlSyntax, mark(docs.second),
            std::string(what) + " holds more than one YAML document (a second begins here); it must hold exactly one",
            "one YAML document", "more than one document");
      return std::nullopt;
    }
    // Aliases share a node; every reader walks it once per alias. A document that expands
    // beyond its own size (a "billion laughs", or a valid 258 KB overlay aliasing lists of
    // lists) is refused: reading must stay linear in the file's size.
    if (const uint64_t budget = expansionBudget(text.size()); !expandsWithin(root, budget)) {
      error(DiagCode::kYamlSyntax, fileMark(1, 1),
            std::string(what) + " uses YAML aliases (*name) that expand it to more than " + std::to_string(budget) +
                " nodes, beyond its size of " + std::to_string(text.size()) +
                " bytes; write the repeated parts out or alias fewer of them",
            "at most " + std::to_string(budget) + " nodes once aliases are expanded",
            "more than " + std::to_string(budget) + " nodes");
      return std::nullopt;
    }
    if (docs.count == 0 || root.IsNull()) {
      error(DiagCode::kMissingKey, fileMark(1, 1),
            "the file is empty; expected a mapping with keys 'version' and '" + std::string(listKey_) + "'",
            "version, " + std::string(listKey_), "an empty document");
      return std::nullopt;
    }
    return root;
  }

  // Iterates a mapping: checks that it is one, that keys are strings, unique and allowed
  // (`allowed` empty = any key). Reports problems; returns the good entries.
  Map readMap(const YAML::Node& node, const std::string& scope, Names allowed, std::string_view expectedWhat = {}) {
    Map m;
    if (!node.IsMap()) {
      error(DiagCode::kWrongType, mark(node), scope + " must be a mapping",
            expectedWhat.empty() ? "a mapping with keys " + join(allowed) : std::string(expectedWhat),
            describe(node));
      return m;
    }
    m.valid = true;
    // Every key as first written (where), to report each repeat: a hash map, so a mapping of
    // 100k keys costs 100k steps, not 100k^2 (issue 24; the list scan took a minute).
    std::unordered_map<std::string, YAML::Mark> firstAt;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node k = it->first;  // a copy: it->first is a temporary
      if (!k.IsScalar()) {
        error(DiagCode::kWrongType, mark(k), "a key in " + scope + " is not a string", "a string key", describe(k));
        continue;
      }
      std::string key = k.Scalar();
      auto [first, isNew] = firstAt.try_emplace(key, k.Mark());
      if (!isNew) {
        error(DiagCode::kDuplicateKey, mark(k),
              "duplicate key '" + clip(key) + "' in " + scope + "; it is first given at " + mark(first->second).toString(),
              "each key at most once", "'" + clip(key) + "' given again",
              "remove one of the two; YAML would silently keep only one of them");
        continue;
      }
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        error(DiagCode::kUnknownKey, mark(k), "unknown key '" + clip(key) + "' in " + scope, oneOf(allowed),
              clip(key), suggest(key, allowed));
        continue;
      }
      m.entries.push_back({std::move(key), k, it->second});
    }
    return m;
  }

  void missing(const YAML::Node& at, const Map& m, const std::string& scope, std::string_view key) {
    error(DiagCode::kMissingKey, mark(at), scope + " is missing required key '" + std::string(key) + "'",
          std::string(key), m.keyList());
  }

  // --- typed values. `what` names the value in messages ("'qnn_op' in rule 'x'"). ---

  // A string: quoted, or plain text that YAML does not read as null, bool or number.
  std::optional<std::string> str(const YAML::Node& v, const std::string& what) {
    if (!v.IsScalar() || (isPlain(v) && (looksBool(v.Scalar()) || looksInt(v.Scalar()) || looksFloat(v.Scalar())))) {
      error(DiagCode::kWrongType, mark(v), what + " must be a string", "a string", describe(v),
            v.IsScalar() ? "quote the value to make it a string" : "");
      return std::nullopt;
    }
    if (v.Scalar().empty()) {
      error(DiagCode::kInvalidValue, mark(v), what + " must not be empty", "a non-empty string", "\"\"");
      return std::nullopt;
    }
    return v.Scalar();
  }

  std::optional<bool> boolean(const YAML::Node& v, const std::string& what) {
    if (isPlain(v) && v.Scalar() == "true") return true;
    if (isPlain(v) && v.Scalar() == "false") return false;
    error(DiagCode::kWrongType, mark(v), what + " must be true or false", "true or false", describe(v),
          v.IsScalar() ? "only the plain words true and false are booleans (not yes/no/on/off or quoted text)" : "");
    return std::nullopt;
  }

  std::optional<int64_t> integer(const YAML::Node& v, const std::string& what, int64_t min, int64_t max,
                                 std::string_view range = {}) {
    if (!isPlain(v) || !looksDecimalInt(v.Scalar())) {
      error(DiagCode::kWrongType, mark(v), what + " must be an integer", "a decimal integer", describe(v));
      return std::nullopt;
    }
    std::string_view s = v.Scalar();
    if (s[0] == '+') s.remove_prefix(1);
    int64_t x = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec != std::errc() || p != s.data() + s.size() || x < min || x > max) {
      std::string r = range.empty() ? "an integer from " + std::to_string(min) + " to " + std::to_string(max)
                                    : std::string(range);
      error(DiagCode::kInvalidValue, mark(v), what + " must be " + r, r, describe(v));
      return std::nullopt;
    }
    return x;
  }

  // One enum name; nullopt with kUnknownEnumValue (or kWrongType) otherwise.
  template <typename T, typename Parse>
  std::optional<T> enumValue(const YAML::Node& v, const std::string& what, std::string_view kindName, Names names,
                             Parse parse, DiagCode unknownCode = DiagCode::kUnknownEnumValue) {
    if (!v.IsScalar() || (isPlain(v) && (looksBool(v.Scalar()) || looksInt(v.Scalar()) || looksFloat(v.Scalar())))) {
      error(DiagCode::kWrongType, mark(v), what + " must be a " + std::string(kindName) + " name",
            oneOf(names), describe(v));
      return std::nullopt;
    }
    const std::string& s = v.Scalar();
    std::optional<T> r = parse(s);
    if (!r) {
      error(unknownCode, mark(v), "unknown " + std::string(kindName) + " '" + clip(s) + "' for " + what,
            oneOf(names), clip(s), suggest(s, names));
    }
    return r;
  }

  // A scalar or a list of enum names (`dtype`, `encoding`): calls add(value) for each.
  template <typename T, typename Parse, typename Add>
  bool enumList(const YAML::Node& v, const std::string& what, std::string_view kindName, Names names, Parse parse,
                Add add) {
    if (v.IsSequence()) {
      if (v.size() == 0) {
        error(DiagCode::kInvalidValue, mark(v), what + " must not be an empty list",
              "a " + std::string(kindName) + " or a non-empty list of them", "[]");
        return false;
      }
      bool ok = true;
      for (const YAML::Node& item : v) {
        if (auto r = enumValue<T>(item, what, kindName, names, parse)) add(*r);
        else ok = false;
      }
      return ok;
    }
    if (!v.IsScalar()) {
      error(DiagCode::kWrongType, mark(v), what + " must be a " + std::string(kindName) + " or a list of them",
            "a " + std::string(kindName) + " name or a list of them", describe(v));
      return false;
    }
    if (auto r = enumValue<T>(v, what, kindName, names, parse)) {
      add(*r);
      return true;
    }
    return false;
  }

  // Format version: must be the integer 1. Returns true when it is.
  bool version(const YAML::Node& root, const Map& top) {
    const Entry* e = top.get("version");
    if (!e) {
      missing(root, top, "the top level", "version");
      return false;
    }
    auto v = integer(e->value, "'version'", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    if (!v) return false;
    if (*v != 1) {
      error(DiagCode::kInvalidValue, mark(e->value), "unsupported format version " + std::to_string(*v) +
            "; the only version is 1", "1", std::to_string(*v));
      return false;
    }
    return true;
  }


  // The value of `key` when `node` is a mapping holding it as a scalar (for naming scopes).
  static std::string peek(const YAML::Node& node, std::string_view key) {
    if (!node.IsMap()) return {};
    for (auto it = node.begin(); it != node.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key)
        return it->second.IsScalar() ? clip(it->second.Scalar()) : std::string();
    return {};
  }

  void setListKey(std::string_view k) { listKey_ = k; }

 protected:
  std::shared_ptr<const std::string> file_;
  DiagnosticList& errors_;
  std::string ruleId_;   // context of the rule being read, for Diagnostic::ruleId
  std::string variant_;  // and of the variant
  std::string_view listKey_ = "rules";
};

// Reads a whole file, refusing it (one error) when it is missing or over the size limit.
std::optional<std::string> readFile(const std::filesystem::path& file, const std::string& displayPath,
                                    const LoadLimits& limits, DiagnosticList& errors, std::string_view what);

// A regular file with a hole (sparse: the hole reads as NUL bytes), which no YAML text is.
bool hasHoles(int fd);
bool hasHoles(const std::filesystem::path& file);

// Runs f, turning an escaping exception into one error of the file.
template <typename F>
void guarded(StrictYamlReader& l, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    l.error(DiagCode::kYamlSyntax, l.fileMark(), std::string("internal error while loading the file: ") + e.what());
  } catch (...) {
    l.error(DiagCode::kYamlSyntax, l.fileMark(), "internal error while loading the file");
  }
}

// Reads a file and hands its text to loadText; a file that cannot be read is one error.
template <typename LoadText>
void loadFileWith(const std::filesystem::path& file, const std::string& displayPath, const LoadLimits& limits,
                  DiagnosticList& errors, std::string_view what, LoadText&& loadText) {
  std::optional<std::string> text;
  try {
    text = readFile(file, displayPath, limits, errors, what);
  } catch (...) {
    StrictYamlReader l(displayPath, errors);
    l.error(DiagCode::kYamlSyntax, l.fileMark(), "cannot read " + std::string(what) + " '" + displayPath + "'");
    return;
  }
  if (text) loadText(*text);
}

}  // namespace qnnrules::strictyaml
