#include "StrictYaml.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qnnrules/core/Suggest.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace qnnrules::strictyaml {
std::string join(Names names) {
  std::string s;
  for (std::string_view n : names) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

std::string oneOf(Names names) { return "one of: " + join(names); }

// "did you mean 'X'?" for the nearest candidate, or "" when none is close (core/Suggest.h).
std::string suggest(std::string_view word, Names candidates) { return didYouMean(word, candidates); }

// --- scalar classification (YAML 1.2 core schema) ---------------------------------------

bool isPlain(const YAML::Node& n) { return n.IsScalar() && n.Tag() == "?"; }

namespace {
bool allDigits(std::string_view s, bool hex = false) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool looksDecimalInt(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return allDigits(s);
}

bool looksInt(std::string_view s) {
  if (looksDecimalInt(s)) return true;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) return allDigits(s.substr(2), s[1] == 'x');
  return false;
}

bool looksFloat(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  size_t i = 0, digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!allDigits(s.substr(i))) return false;
    return true;
  }
  return i == s.size();
}

bool looksBool(std::string_view s) {
  return s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE";
}

std::optional<double> parseNumber(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// "1/256", "1/32768": both parts unsigned decimal numbers.
std::optional<double> parseFraction(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view a = s.substr(0, slash), b = s.substr(slash + 1);
  auto unsignedNumber = [](std::string_view t) -> std::optional<double> {
    if (t.empty() || t[0] == '-' || t[0] == '+' || !looksFloat(t) || t[0] == '.') return std::nullopt;
    return parseNumber(t);
  };
  auto x = unsignedNumber(a), y = unsignedNumber(b);
  if (!x || !y || *y == 0) return std::nullopt;
  double v = *x / *y;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::string clip(std::string s) {
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// What a node is, for `actual`.
std::string describe(const YAML::Node& n) {
  if (!n.IsDefined()) return "nothing";
  switch (n.Type()) {
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar:
      if (isPlain(n)) return clip(n.Scalar());
      return "\"" + clip(n.Scalar()) + "\"";
    case YAML::NodeType::Undefined: break;
  }
  return "nothing";
}


std::optional<std::string> readFile(const std::filesystem::path& file, const std::string& displayPath,
                                    const LoadLimits& limits, DiagnosticList& errors, std::string_view what) {
  StrictYamlReader l(displayPath, errors);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    std::string why = ec ? ec.message() : std::filesystem::exists(file, ec) ? "not a regular file" : "no such file";
    l.error(DiagCode::kYamlSyntax, l.fileMark(), "cannot read " + std::string(what) + " '" + displayPath + "': " + why,
            "a readable YAML file", why);
    return std::nullopt;
  }
  uint64_t size = std::filesystem::file_size(file, ec);
  if (!ec && size > limits.maxFileBytes) {
    l.error(DiagCode::kYamlSyntax, l.fileMark(),
            std::string(what) + " is " + std::to_string(size) + " bytes, more than the limit of " +
                std::to_string(limits.maxFileBytes) + " bytes",
            "at most " + std::to_string(limits.maxFileBytes) + " bytes", std::to_string(size) + " bytes");
    return std::nullopt;
  }
  // A file with holes (a sparse file: what is not on disk reads as NUL bytes, which YAML text
  // never holds) is refused before it is read: a thousand 16 MB holes must not cost a minute.
  if (hasHoles(file)) {
    l.error(DiagCode::kYamlSyntax, l.fileMark(),
            std::string(what) + " '" + displayPath + "' is a sparse file (holes that read as NUL bytes); not YAML text",
            "a YAML text file", "a sparse file");
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    l.error(DiagCode::kYamlSyntax, l.fileMark(), "cannot read " + std::string(what) + " '" + displayPath + "'",
            "a readable YAML file", "a read error");
    return std::nullopt;
  }
  return std::move(text).str();
}

namespace {

// Counts `root` and what it holds against `left`; false once the count would pass it. With an
// explicit stack: a deeply nested document (garbage, or the depth scan not run yet) must not
// exhaust the call stack.
bool countNodes(const YAML::Node& root, uint64_t& left) {
  std::vector<YAML::Node> pending{root};
  while (!pending.empty()) {
    if (left == 0) return false;
    --left;
    const YAML::Node n = std::move(pending.back());
    pending.pop_back();
    if (n.IsSequence()) {
      for (const YAML::Node& x : n) pending.push_back(x);
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        pending.push_back(kv.first);
        pending.push_back(kv.second);
      }
    }
    // The stack holds nodes not yet counted: bounded by the budget as well.
    if (pending.size() > left) return false;
  }
  return true;
}

}  // namespace

bool expandsWithin(const YAML::Node& root, uint64_t budget) { return countNodes(root, budget); }

bool hasHoles(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return false;
  const off_t hole = ::lseek(fd, 0, SEEK_HOLE);
  ::lseek(fd, 0, SEEK_SET);
  return hole >= 0 && hole < st.st_size;
}

bool hasHoles(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool holes = hasHoles(fd);
  ::close(fd);
  return holes;
}

}  // namespace qnnrules::strictyaml
