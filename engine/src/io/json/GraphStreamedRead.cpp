// Node-by-node reading of a JSON graph (GraphStreamedRead.h).
#include "GraphStreamedRead.h"

#include <simdjson.h>

#include <array>
#include <bit>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "GraphSchemaReader.h"
#include "JsonValue.h"

namespace qnnrules {
namespace {

// The document with its node list emptied (the skeleton, which the schema walk reads first:
// format, version, name, unknown and duplicate keys), and where each node's text is.
struct Layout {
  std::string skeleton;
  std::vector<std::string_view> nodes;
};

constexpr std::array<bool, 256> byteSet(std::string_view chars) {
  std::array<bool, 256> t{};
  for (char c : chars) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr std::array<bool, 256> kEndsScalar = byteSet(",}] \n\r\t");

// Which of the kBlock bytes at `p` are quotes, backslashes or brackets: bit i for p[i]. Reads
// kBlock bytes, past the end of the text near its end (the reader's text is padded).
constexpr size_t kBlock = 16;
inline uint32_t specialBytes(const char* p) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i m = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
  m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('{')));
  m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('}')));
  m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('[')));
  m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(']')));
  return static_cast<uint32_t>(_mm_movemask_epi8(m));
#else
  static constexpr std::array<bool, 256> kSpecial = byteSet("\"\\{}[]");
  uint32_t mask = 0;
  for (size_t i = 0; i < kBlock; ++i)
    if (kSpecial[static_cast<unsigned char>(p[i])]) mask |= uint32_t{1} << i;
  return mask;
#endif
}

// The quotes, backslashes, opening and closing brackets among the kWide bytes at `p`, one bit
// per byte. Reads kWide bytes (see specialBytes).
constexpr size_t kWide = 64;
struct WideMasks {
  uint64_t quotes = 0, backslashes = 0, opens = 0, closes = 0;
};
inline WideMasks wideMasks(const char* p) {
  WideMasks m;
#if defined(__SSE2__)
  for (size_t k = 0; k < kWide / 16; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    auto bits = [&](__m128i eq) { return uint64_t(uint32_t(_mm_movemask_epi8(eq))) << (16 * k); };
    m.quotes |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
    m.backslashes |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    // '[' and ']' are '{' and '}' less 0x20, and no other byte becomes a bracket with 0x20 set.
    const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    m.opens |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')));
    m.closes |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('}')));
  }
#else
  for (size_t i = 0; i < kWide; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    const char c = p[i];
    if (c == '"') m.quotes |= bit;
    else if (c == '\\') m.backslashes |= bit;
    else if (c == '{' || c == '[') m.opens |= bit;
    else if (c == '}' || c == ']') m.closes |= bit;
  }
#endif
  return m;
}

// Bit i set when an odd number of the bits 0..i of x are: with x the quotes of a block without
// escapes, the bytes from an opening quote up to (not including) its closing quote.
inline uint64_t prefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The first pass: a scan that finds the extent of each top-level value and of each node, and
// checks the few bytes between them (whitespace, ':', ',', brackets) and that nothing is nested
// deeper than the reader's limit (so that a file too deep is refused before any parse, and the
// whole file is not scanned a second time for it). It validates nothing else: every byte it
// does not check is in the skeleton or in a node, which simdjson parses in full afterwards.
// Anything it does not expect ends the scan, and the whole document is read (whose reading
// reports a nesting too deep with its line and column).
//
// A scan of its own rather than simdjson On-Demand: On-Demand picks its implementation when
// compiled (the portable fallback for a baseline x86-64 build), and its structural index is 4
// bytes per token of the whole file, where this needs none.
class LayoutScanner {
 public:
  LayoutScanner(std::string_view text, int maxDepth) : t_(text), maxDepth_(maxDepth < 0 ? 0 : size_t(maxDepth)) {}

  bool scan(Layout& layout) {
    if (!skipSpace() || t_[i_] != '{' || maxDepth_ < 1) return false;
    ++i_;
    layout.skeleton = "{";
    bool nodesSeen = false;
    if (!skipSpace()) return false;
    if (t_[i_] != '}') {
      for (;;) {
        std::string_view key;
        if (!plainKey(key) || !skipSpace() || t_[i_] != ':') return false;
        ++i_;
        if (!skipSpace()) return false;
        if (layout.skeleton.size() > 1) layout.skeleton += ',';
        layout.skeleton.append("\"").append(key).append("\":");
        if (key == "nodes") {
          if (nodesSeen || !nodeList(layout.nodes)) return false;
          nodesSeen = true;
          layout.skeleton += "[]";
        } else {
          const size_t from = i_;
          if (!skipValue(/*outerDepth=*/1)) return false;
          layout.skeleton.append(t_.substr(from, i_ - from));
        }
        if (!skipSpace()) return false;
        if (t_[i_] == '}') break;
        if (t_[i_] != ',') return false;
        ++i_;
        if (!skipSpace()) return false;
      }
    }
    ++i_;  // the root's '}'
    layout.skeleton += '}';
    return nodesSeen && !skipSpace();  // nothing but whitespace after the root
  }

 private:
  // Past whitespace; false at the end of the text.
  bool skipSpace() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
    return i_ < t_.size();
  }

  // A key without escapes or control characters (which the skeleton can copy as it is).
  bool plainKey(std::string_view& key) {
    if (t_[i_] != '"') return false;
    const size_t from = ++i_;
    while (i_ < t_.size() && t_[i_] != '"') {
      const auto c = static_cast<unsigned char>(t_[i_]);
      if (c < 0x20 || c == '\\') return false;
      ++i_;
    }
    if (i_ == t_.size()) return false;
    key = t_.substr(from, i_ - from);
    ++i_;
    return true;
  }

  // Past the value that starts at i_, inside `outerDepth` brackets: an object or array to its
  // matching bracket (brackets in strings do not count; whether the brackets pair up by kind is
  // the parser's to check), a string to its closing quote, or a scalar to the next separator.
  // False when it nests deeper than the limit.
  bool skipValue(size_t outerDepth) {
    const char c = t_[i_];
    if (c != '"' && c != '{' && c != '[') {
      while (i_ < t_.size() && !kEndsScalar[static_cast<unsigned char>(t_[i_])]) ++i_;
      return true;
    }
    // Sixteen bytes at a time: a mask of the quotes, backslashes and brackets among them, whose
    // bits are visited in order. Inside a string only a quote (its end) or a backslash (which
    // escapes the next byte) matters; outside, quotes and brackets. The value ends where the
    // depth comes back to zero: after its closing bracket, or its closing quote for a string.
    const char* data = t_.data();
    const size_t size = t_.size();
    size_t depth = 0;
    bool inString = false;
    for (size_t at = i_; at < size;) {
      // Inside an object or array, 64 bytes at a time while they hold no backslash: which bytes
      // are inside strings follows from the quotes alone, and only the brackets outside strings
      // are visited (a node of a graph has a dozen brackets and a hundred quotes).
      if (depth > 0 && size - at >= kWide) {
        const WideMasks w = wideMasks(data + at);
        if (w.backslashes == 0) {
          const uint64_t inside = prefixXor(w.quotes) ^ (inString ? ~uint64_t{0} : 0);
          inString = ((std::popcount(w.quotes) & 1) != 0) != inString;
          const uint64_t opens = w.opens & ~inside, closes = w.closes & ~inside;
          for (uint64_t b = opens | closes; b != 0; b &= b - 1) {
            const size_t p = at + static_cast<size_t>(std::countr_zero(b));
            if ((opens >> (p - at)) & 1) {
              if (++depth + outerDepth > maxDepth_) return false;
            } else if (--depth == 0) {
              i_ = p + 1;
              return true;
            }
          }
          at += kWide;
          continue;
        }
      }
      uint32_t mask = specialBytes(data + at);
      if (size - at < kBlock) mask &= (uint32_t{1} << (size - at)) - 1;  // the padding is not text
      size_t next = at + kBlock;
      for (; mask != 0; mask &= mask - 1) {
        const size_t p = at + static_cast<size_t>(std::countr_zero(mask));
        const char d = data[p];
        if (inString) {
          if (d == '"') {
            inString = false;
            if (depth == 0) {  // the value was this string
              i_ = p + 1;
              return true;
            }
          } else if (d == '\\') {
            next = p + 2;  // the escaped byte is not special, whatever it is
            break;
          }
        } else if (d == '"') {
          inString = true;
        } else if (d == '{' || d == '[') {
          if (++depth + outerDepth > maxDepth_) return false;
        } else if (d == '}' || d == ']') {
          if (--depth == 0) {
            i_ = p + 1;
            return true;
          }
        }  // a backslash outside a string: not JSON, which the parser reports
      }
      at = next;
    }
    return false;
  }

  // The node list: objects separated by commas.
  bool nodeList(std::vector<std::string_view>& nodes) {
    if (t_[i_] != '[' || maxDepth_ < 2) return false;
    ++i_;
    if (!skipSpace()) return false;
    if (t_[i_] == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      if (t_[i_] != '{') return false;
      const size_t from = i_;
      if (!skipValue(/*outerDepth=*/2)) return false;
      nodes.push_back(t_.substr(from, i_ - from));
      if (!skipSpace()) return false;
      if (t_[i_] == ']') {
        ++i_;
        return true;
      }
      if (t_[i_] != ',') return false;
      ++i_;
      if (!skipSpace()) return false;
    }
  }

  std::string_view t_;
  size_t maxDepth_;
  size_t i_ = 0;
};

}  // namespace

bool readGraphStreamed(char* buffer, size_t size, int maxDepth, const std::string& displayName, GraphReadResult& r,
                       const std::function<void(size_t)>& consumed) {
  const std::string_view text(buffer, size);
  Layout layout;
  if (!LayoutScanner(text, maxDepth).scan(layout)) return false;
  GraphReadResult out;
  graphschema::Reader<jsonview::Simdjson> reader(displayName, out);
  {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(layout.skeleton).get(root) != simdjson::SUCCESS) return false;
    reader.read(jsonview::Simdjson(root));
    if (!out.errors.empty()) return false;
  }
  reader.reserveStreamedNodes(layout.nodes.size());
  // Nodes are parsed in batches of consecutive nodes, about kBatchBytes of text each: the text
  // from the first node's '{' to the last one's '}' (the commas between them are the file's),
  // parsed where it lies as one JSON array, the byte before it made a '[' and the byte after it
  // a ']' for the parse and then put back (both are separators the scan has checked: '[', ','
  // or whitespace before, ',', ']' or whitespace after; the DOM keeps copies of the strings, so
  // the text may change afterwards). Small enough that the batch's DOM is still in cache when
  // the walk reads it; large enough that a parse call per node (a fixed cost each, a fifth of
  // the reading of a small graph) is not paid. One parser for all: its buffers grow to the
  // largest batch and are reused.
  constexpr size_t kBatchBytes = 64 * 1024;
  simdjson::dom::parser parser;
  for (size_t first = 0; first < layout.nodes.size();) {
    const size_t from = static_cast<size_t>(layout.nodes[first].data() - buffer);
    size_t last = first;
    while (last + 1 < layout.nodes.size() &&
           static_cast<size_t>(layout.nodes[last + 1].data() + layout.nodes[last + 1].size() - buffer) - from <=
               kBatchBytes)
      ++last;
    const size_t to = static_cast<size_t>(layout.nodes[last].data() + layout.nodes[last].size() - buffer);
    const char before = buffer[from - 1];  // from > 0: the root's '{' comes first
    const char after = buffer[to];         // to < size: the node list's ']' comes after
    buffer[from - 1] = '[';
    buffer[to] = ']';
    simdjson::dom::array nodes;
    const simdjson::error_code err = parser.parse(buffer + from - 1, to + 1 - (from - 1), false).get(nodes);
    buffer[from - 1] = before;
    buffer[to] = after;
    if (err != simdjson::SUCCESS || nodes.size() != last - first + 1) return false;
    if (consumed) consumed(to);
    size_t index = first;
    for (simdjson::dom::element node : nodes) {
      reader.readStreamedNode(index++, jsonview::Simdjson(node));
      if (!out.errors.empty()) return false;
    }
    first = last + 1;
  }
  reader.finishStreamedNodes();
  // No Graph::verify: the reader has checked each of its invariants as it read (references to
  // earlier nodes and existing outputs, shared references to existing nodes, outputs and
  // edges), and a pass over a million nodes' references costs 2% of reading them. The test of
  // every JSON file of the tree holds both readings to the same outcome.
  if (!out.errors.empty()) return false;
  r = std::move(out);
  return true;
}

}  // namespace qnnrules
