#include "YamlScan.h"

#include <vector>

namespace qnnrules::yamlscan {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

// YAML 1.2's c-printable excludes the C0 controls other than tab, LF and CR, and DEL.
bool isForbiddenControl(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F; }

std::optional<ScanProblem> findControlChar(std::string_view text) {
  uint32_t line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (isForbiddenControl(c)) {
      ScanProblem p{ScanProblem::Kind::kControlChar, line, static_cast<uint32_t>(i - lineStart + 1), 0};
      p.byte = c;
      return p;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ScanProblem> findUnsafeYaml(std::string_view text, int maxDepth) {
  if (auto p = findControlChar(text)) return p;
  struct Level {
    size_t column;
    char kind;  // 's' block sequence, 'm' block mapping
  };
  std::vector<Level> block;  // open block collections, innermost last
  int flow = 0;              // open flow collections
  char quote = 0;            // inside a quoted scalar that spans lines
  bool atStart = true;       // the next non-blank character begins a node
  bool afterNode = false;    // a quoted scalar or flow collection just ended: a token follows
  bool inBlockScalar = false;
  long blockScalarParent = -1;   // content must be indented more than this
  long blockScalarContent = -1;  // the content's indentation, once known
  uint32_t lineNo = 0;

  auto depth = [&] { return static_cast<int>(block.size()) + flow; };
  auto violation = [&](size_t column) {
    return ScanProblem{ScanProblem::Kind::kNesting, lineNo, static_cast<uint32_t>(column + 1), depth()};
  };

  size_t pos = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // UTF-8 byte order mark
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    size_t indent = line.find_first_not_of(' ');
    const bool blank = indent == std::string_view::npos || line.find_first_not_of(" \t") == std::string_view::npos;
    if (indent == std::string_view::npos) indent = line.size();

    if (inBlockScalar) {
      if (blank) continue;
      if (blockScalarContent < 0 && static_cast<long>(indent) > blockScalarParent) {
        blockScalarContent = static_cast<long>(indent);
        continue;
      }
      if (blockScalarContent >= 0 && static_cast<long>(indent) >= blockScalarContent) continue;
      inBlockScalar = false;
    }

    size_t i = 0;
    size_t contentColumn = 0;
    afterNode = false;
    bool keySeen = false;
    if (quote == 0 && flow == 0) {
      // Block context: the line's indentation closes deeper collections.
      if (blank || line[indent] == '#') continue;
      if (indent == 0 && line[0] == '%') continue;  // directive
      if (indent == 0 && (line.substr(0, 3) == "---" || line.substr(0, 3) == "...") &&
          (line.size() == 3 || isBlank(line[3]))) {
        block.clear();  // document marker
        i = 3;
        contentColumn = 3;
        keySeen = true;  // `--- key: v` is not valid; never push a mapping here
        atStart = true;
      } else {
        size_t c = indent;
        while (!block.empty() && block.back().column > c) block.pop_back();
        // `- `, `? ` and `: ` indicators at the start of the line, possibly chained (`- - x`).
        while (c < line.size() && (line[c] == '-' || line[c] == '?' || line[c] == ':') &&
               (c + 1 == line.size() || isBlank(line[c + 1]))) {
          char kind = line[c] == '-' ? 's' : 'm';
          if (line[c] == ':') keySeen = true;  // explicit value of a `? key`
          if (block.empty() || block.back().column != c || block.back().kind != kind) {
            block.push_back({c, kind});
            if (depth() > maxDepth) return violation(c);
          }
          ++c;
          while (c < line.size() && isBlank(line[c])) ++c;
        }
        contentColumn = c;
        i = c;
        atStart = true;
      }
    }

    for (; i < line.size(); ++i) {
      char ch = line[i];
      if (quote != 0) {
        if (quote == '\'') {
          if (ch == '\'') {
            if (i + 1 < line.size() && line[i + 1] == '\'') ++i;  // '' is an escaped quote
            else { quote = 0; atStart = false; afterNode = true; }
          }
        } else if (ch == '\\') {
          ++i;
        } else if (ch == '"') {
          quote = 0;
          atStart = false;
          afterNode = true;
        }
        continue;
      }
      if (isBlank(ch)) continue;
      if (ch == ',' && flow == 0 && (atStart || afterNode))
        return ScanProblem{ScanProblem::Kind::kStrayComma, lineNo, static_cast<uint32_t>(i + 1), depth()};
      afterNode = false;
      if (ch == '#' && (i == 0 || isBlank(line[i - 1]))) break;  // comment
      if (atStart && (ch == '"' || ch == '\'')) {
        quote = ch;
        continue;
      }
      if (atStart && (ch == '&' || ch == '!')) {  // anchor or tag: the node follows
        while (i + 1 < line.size() && !isBlank(line[i + 1])) ++i;
        continue;
      }
      if ((ch == '[' || ch == '{') && (flow > 0 || atStart)) {
        ++flow;
        if (depth() > maxDepth) return violation(i);
        atStart = true;
        continue;
      }
      if (flow > 0 && (ch == ']' || ch == '}')) {
        --flow;
        atStart = false;
        afterNode = flow == 0;
        continue;
      }
      if (flow > 0 && ch == ',') {
        atStart = true;
        continue;
      }
      if (ch == ':' && (i + 1 == line.size() || isBlank(line[i + 1]) ||
                        (flow > 0 && std::string_view(",[]{}").find(line[i + 1]) != std::string_view::npos))) {
        if (flow == 0 && !keySeen) {
          // A block mapping key: a sequence at the same column has ended.
          keySeen = true;
          while (!block.empty() && block.back().column == contentColumn && block.back().kind == 's')
            block.pop_back();
          if (block.empty() || block.back().column != contentColumn || block.back().kind != 'm') {
            block.push_back({contentColumn, 'm'});
            if (depth() > maxDepth) return violation(contentColumn);
          }
        }
        atStart = true;
        continue;
      }
      if (flow == 0 && atStart && (ch == '|' || ch == '>')) {
        inBlockScalar = true;
        // At document level yaml-cpp ends the scalar at column 0 (a ',' there is a token).
        blockScalarParent = block.empty() ? 0 : static_cast<long>(block.back().column);
        blockScalarContent = -1;
        break;
      }
      atStart = false;
    }
  }
  return std::nullopt;
}

}  // namespace qnnrules::yamlscan
