// What reading a graph would cost if the Graph were flat arrays (issue 13's last target). Reads
// FILE the way qnn-validate does (one read into a padded buffer, a scan for each node's extent,
// simdjson DOMs of ~64 KB batches of nodes) and builds, instead of Node / Argument / boxed
// QuantSpec objects, a handful of large vectors indexed by node: the floor a flat Graph could
// reach, with no schema checks and no error messages (a measurement, not a reader: it accepts
// the well-formed files benchmarks/make_*_graph.py write). Prints the CPU of each step and
// of benchmarks/parse_floor's work on the same file, side by side:
//
//   ./build/benchmarks/flat_graph_floor FILE
#include <simdjson.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ParseFloor.h"
#include "qnnrules/graph/NameIndex.h"

namespace {

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

constexpr uint32_t kNone = UINT32_MAX;

// The flat graph: every node's parts are ranges of the shared vectors.
struct FlatSpec {
  uint8_t dtype = 0, qscheme = 0;
  int32_t chAxis = -1;
  int64_t quantMin = 0, quantMax = 0;
  uint32_t scalesAt = 0, scalesCount = 0, zeroPointsAt = 0, zeroPointsCount = 0;
  uint32_t sharedNode = kNone, sharedConsumer = kNone, sharedOutput = 0;
};
struct FlatArg {
  uint8_t kind = 0;  // 0 none, 1 bool, 2 int, 3 float, 4 string, 5 list, 6 tensor
  uint32_t a = 0, b = 0;  // list: elements range; tensor: node, output; string: arena range
  int64_t i = 0;
  double f = 0;
  uint32_t spec = kNone;
};
struct FlatOutput {
  uint8_t dtype = 0;
  uint32_t shapeAt = 0, shapeCount = 0, spec = kNone;
};
struct FlatNode {
  uint32_t nameAt = 0, nameLength = 0, target = kNone, module = kNone;
  uint32_t argsAt = 0, argsCount = 0, outputsAt = 0, outputsCount = 0;
  uint8_t kind = 0;
};

struct FlatGraph {
  std::string names;  // every node name, back to back
  std::vector<FlatNode> nodes;
  std::vector<FlatArg> args;
  std::vector<FlatOutput> outputs;
  std::vector<FlatSpec> specs;
  std::vector<int64_t> ints;     // shapes and zero points
  std::vector<double> doubles;   // scales
  std::vector<std::string> targets, modules;
  qnnrules::NameIndex nodeIndex, targetIndex, moduleIndex;

  std::string_view name(uint32_t n) const { return {names.data() + nodes[n].nameAt, nodes[n].nameLength}; }
  uint32_t find(std::string_view s) const {
    return nodeIndex.find(s, [&](uint32_t i) { return name(i); }).value_or(kNone);
  }
  static uint32_t intern(std::vector<std::string>& table, qnnrules::NameIndex& index, std::string_view s) {
    const auto next = static_cast<uint32_t>(table.size());
    const uint32_t id = index.insert(s, next, [&](uint32_t i) { return std::string_view(table[i]); });
    if (id == next) table.emplace_back(s);
    return id;
  }
  size_t bytes() const {
    return names.capacity() + nodes.capacity() * sizeof(FlatNode) + args.capacity() * sizeof(FlatArg) +
           outputs.capacity() * sizeof(FlatOutput) + specs.capacity() * sizeof(FlatSpec) +
           ints.capacity() * sizeof(int64_t) + doubles.capacity() * sizeof(double);
  }
};

uint8_t dtypeCode(std::string_view s) { return static_cast<uint8_t>(s.size() * 31 + static_cast<uint8_t>(s.back())); }

class Builder {
 public:
  explicit Builder(FlatGraph& g) : g_(g) {}

  void node(simdjson::dom::object n) {
    FlatNode fn;
    fn.argsAt = static_cast<uint32_t>(g_.args.size());
    fn.outputsAt = static_cast<uint32_t>(g_.outputs.size());
    self_ = static_cast<uint32_t>(g_.nodes.size());
    simdjson::dom::element args, outputs;
    bool hasArgs = false, hasOutputs = false;
    for (auto [key, value] : n) {
      if (key == "name") {
        current_ = value.get_string().value_unsafe();
        fn.nameAt = static_cast<uint32_t>(g_.names.size());
        fn.nameLength = static_cast<uint32_t>(current_.size());
        g_.names.append(current_);
        g_.nodeIndex.prefetch(current_);
      } else if (key == "kind") {
        fn.kind = static_cast<uint8_t>(value.get_string().value_unsafe()[0]);
      } else if (key == "target") {
        fn.target = FlatGraph::intern(g_.targets, g_.targetIndex, value.get_string().value_unsafe());
      } else if (key == "module") {
        fn.module = FlatGraph::intern(g_.modules, g_.moduleIndex, value.get_string().value_unsafe());
      } else if (key == "args") {
        args = value;
        hasArgs = true;
      } else if (key == "outputs") {
        outputs = value;
        hasOutputs = true;
      }
    }
    if (hasOutputs) {
      // Views copied out of simdjson_result before iterating: iterating the temporary would
      // read through a reference into a destroyed object (as in engine/src/io/json/JsonValue.h).
      const simdjson::dom::array list = outputs.get_array().value_unsafe();
      for (simdjson::dom::element o : list) output(o.get_object().value_unsafe());
    }
    fn.outputsCount = static_cast<uint32_t>(g_.outputs.size()) - fn.outputsAt;
    if (hasArgs) {
      simdjson::dom::array list = args.get_array().value_unsafe();
      fn.argsCount = static_cast<uint32_t>(list.size());
      g_.args.resize(g_.args.size() + fn.argsCount);
      uint32_t at = fn.argsAt;
      for (simdjson::dom::element a : list) value(a, at++);
    }
    g_.nodeIndex.insert(current_, self_, [&](uint32_t i) { return g_.name(i); });
    g_.nodes.push_back(fn);
  }

 private:
  void output(simdjson::dom::object o) {
    FlatOutput fo;
    for (auto [key, value] : o) {
      if (key == "dtype") {
        fo.dtype = dtypeCode(value.get_string().value_unsafe());
      } else if (key == "shape") {
        fo.shapeAt = static_cast<uint32_t>(g_.ints.size());
        const simdjson::dom::array dims = value.get_array().value_unsafe();
        for (simdjson::dom::element d : dims) g_.ints.push_back(d.get_int64().value_unsafe());
        fo.shapeCount = static_cast<uint32_t>(g_.ints.size()) - fo.shapeAt;
      } else if (key == "qspec") {
        fo.spec = spec(value.get_object().value_unsafe());
      }
    }
    g_.outputs.push_back(fo);
  }

  // Arguments are written in place: a list's elements are appended after the arguments of the
  // node, so the argument slot is passed by index (the vector may grow).
  void value(simdjson::dom::element v, uint32_t at) {
    FlatArg fa;
    switch (v.type()) {
      case simdjson::dom::element_type::BOOL: fa.kind = 1; fa.i = v.get_bool().value_unsafe(); break;
      case simdjson::dom::element_type::INT64: fa.kind = 2; fa.i = v.get_int64().value_unsafe(); break;
      case simdjson::dom::element_type::DOUBLE: fa.kind = 3; fa.f = v.get_double().value_unsafe(); break;
      case simdjson::dom::element_type::STRING: {
        std::string_view s = v.get_string().value_unsafe();
        fa.kind = 4;
        fa.a = static_cast<uint32_t>(g_.names.size());
        fa.b = static_cast<uint32_t>(s.size());
        g_.names.append(s);
        break;
      }
      case simdjson::dom::element_type::ARRAY: {
        simdjson::dom::array list = v.get_array().value_unsafe();
        fa.kind = 5;
        fa.a = static_cast<uint32_t>(g_.args.size());
        fa.b = static_cast<uint32_t>(list.size());
        g_.args.resize(g_.args.size() + fa.b);
        uint32_t e = fa.a;
        for (simdjson::dom::element x : list) value(x, e++);
        break;
      }
      case simdjson::dom::element_type::OBJECT: {
        fa.kind = 6;
        const simdjson::dom::object ref = v.get_object().value_unsafe();
        for (auto [key, x] : ref) {
          if (key == "ref") fa.a = g_.find(x.get_string().value_unsafe());
          else if (key == "output") fa.b = static_cast<uint32_t>(x.get_int64().value_unsafe());
          else if (key == "qspec") fa.spec = spec(x.get_object().value_unsafe());
        }
        break;
      }
      default: break;
    }
    g_.args[at] = fa;
  }

  uint32_t resolve(std::string_view name) const { return name == current_ ? self_ : g_.find(name); }

  uint32_t spec(simdjson::dom::object q) {
    FlatSpec s;
    for (auto [key, value] : q) {
      if (key == "shared_with") {
        const simdjson::dom::object shared = value.get_object().value_unsafe();
        for (auto [k, x] : shared) {
          if (k == "node") {
            s.sharedNode = resolve(x.get_string().value_unsafe());
          } else if (k == "output") {
            s.sharedOutput = static_cast<uint32_t>(x.get_int64().value_unsafe());
          } else if (k == "edge") {
            simdjson::dom::array ends = x.get_array().value_unsafe();
            s.sharedNode = resolve(ends.at(0).get_string().value_unsafe());
            s.sharedConsumer = resolve(ends.at(1).get_string().value_unsafe());
          }
        }
      } else if (key == "dtype") {
        s.dtype = dtypeCode(value.get_string().value_unsafe());
      } else if (key == "qscheme") {
        s.qscheme = static_cast<uint8_t>(value.get_string().value_unsafe().size());
      } else if (key == "quant_min") {
        s.quantMin = value.get_int64().value_unsafe();
      } else if (key == "quant_max") {
        s.quantMax = value.get_int64().value_unsafe();
      } else if (key == "ch_axis") {
        s.chAxis = static_cast<int32_t>(value.get_int64().value_unsafe());
      } else if (key == "scale") {
        s.scalesAt = static_cast<uint32_t>(g_.doubles.size());
        if (value.is_array()) {
          const simdjson::dom::array list = value.get_array().value_unsafe();
          for (simdjson::dom::element x : list) g_.doubles.push_back(number(x));
        } else {
          g_.doubles.push_back(number(value));
        }
        s.scalesCount = static_cast<uint32_t>(g_.doubles.size()) - s.scalesAt;
      } else if (key == "zero_point") {
        s.zeroPointsAt = static_cast<uint32_t>(g_.ints.size());
        if (value.is_array()) {
          const simdjson::dom::array list = value.get_array().value_unsafe();
          for (simdjson::dom::element x : list) g_.ints.push_back(x.get_int64().value_unsafe());
        } else {
          g_.ints.push_back(value.get_int64().value_unsafe());
        }
        s.zeroPointsCount = static_cast<uint32_t>(g_.ints.size()) - s.zeroPointsAt;
      }
    }
    g_.specs.push_back(s);
    return static_cast<uint32_t>(g_.specs.size() - 1);
  }

  static double number(simdjson::dom::element x) {
    return x.is_double() ? x.get_double().value_unsafe() : static_cast<double>(x.get_int64().value_unsafe());
  }

  FlatGraph& g_;
  std::string_view current_;
  uint32_t self_ = 0;
};

// The extent of each node of the top-level "nodes" list: brackets outside strings, counted 16
// bytes at a time as qnn-validate's layout scan does (engine/src/io/json/GraphStreamedRead.cpp).
std::vector<std::pair<size_t, size_t>> nodeExtents(std::string_view t) {
  std::vector<std::pair<size_t, size_t>> nodes;
  const size_t list = t.find("\"nodes\"");
  const size_t open = t.find('[', list);
  size_t depth = 0, start = 0;
  bool inString = false;
  for (size_t at = open + 1; at < t.size();) {
    uint32_t mask = 0;
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + at));
    __m128i m = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    for (char c : {'\\', '{', '}', '[', ']'}) m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
    mask = static_cast<uint32_t>(_mm_movemask_epi8(m));
#else
    for (size_t i = 0; i < 16; ++i)
      if (std::strchr("\"\\{}[]", t[at + i]) && t[at + i] != 0) mask |= uint32_t{1} << i;
#endif
    if (t.size() - at < 16) mask &= (uint32_t{1} << (t.size() - at)) - 1;
    size_t next = at + 16;
    for (; mask != 0; mask &= mask - 1) {
      const size_t p = at + static_cast<size_t>(__builtin_ctz(mask));
      const char c = t[p];
      if (inString) {
        if (c == '"') {
          inString = false;
        } else if (c == '\\') {
          next = p + 2;
          break;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '{' || c == '[') {
        if (depth++ == 0) start = p;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return nodes;  // the end of the node list
        if (--depth == 0) nodes.emplace_back(start, p + 1);
      }
    }
    at = next;
  }
  return nodes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: flat_graph_floor FILE\n");
    return 2;
  }
  // 1. parse_floor's work: the file into a padded buffer, simdjson's DOM of all of it.
  double t0 = cpuSeconds();
  size_t bytes = 0;
  if (int rc = parseWholeFile("flat_graph_floor", argv[1], bytes); rc != 0) return rc;
  const double domParse = cpuSeconds() - t0;
  // 2. qnn-validate's way in: read, scan, batches of ~64 KB parsed where they lie.
  t0 = cpuSeconds();
  std::ifstream in(argv[1], std::ios::binary | std::ios::ate);
  const auto size = static_cast<size_t>(in.tellg());
  // Not zero-filled first (a std::vector would be), as qnn-validate's PaddedText is not.
  std::unique_ptr<char[]> buffer(new char[size + simdjson::SIMDJSON_PADDING]);
  std::memset(buffer.get() + size, 0, simdjson::SIMDJSON_PADDING);
  in.seekg(0);
  in.read(buffer.get(), static_cast<std::streamsize>(size));
  const double read = cpuSeconds() - t0;
  t0 = cpuSeconds();
  const std::vector<std::pair<size_t, size_t>> extents = nodeExtents(std::string_view(buffer.get(), size));
  const double scan = cpuSeconds() - t0;
  t0 = cpuSeconds();
  FlatGraph g;
  g.nodes.reserve(extents.size());
  g.nodeIndex.reserve(extents.size());
  Builder builder(g);
  simdjson::dom::parser parser;
  double parse = 0;
  for (size_t first = 0; first < extents.size();) {
    size_t last = first;
    while (last + 1 < extents.size() && extents[last + 1].second - extents[first].first <= 64 * 1024) ++last;
    const size_t from = extents[first].first, to = extents[last].second;
    const char before = buffer[from - 1], after = buffer[to];
    buffer[from - 1] = '[';
    buffer[to] = ']';
    const double p0 = cpuSeconds();
    simdjson::dom::array nodes;
    if (parser.parse(buffer.get() + from - 1, to + 1 - (from - 1), false).get(nodes) != simdjson::SUCCESS) return 1;
    parse += cpuSeconds() - p0;
    buffer[from - 1] = before;
    buffer[to] = after;
    for (simdjson::dom::element n : nodes) builder.node(n.get_object().value_unsafe());
    first = last + 1;
  }
  const double total = cpuSeconds() - t0;
  // That the graph is real: every tensor reference and shared_with name found its node.
  size_t unresolved = 0;
  for (const FlatArg& a : g.args) unresolved += a.kind == 6 && a.a == kNone;
  for (const FlatSpec& sp : g.specs) unresolved += sp.sharedNode == kNone && sp.sharedConsumer != kNone;
  std::printf("%s: %zu nodes, %zu args, %zu outputs, %zu specs, %zu unresolved references; flat graph %.0f MB\n",
              argv[1], g.nodes.size(), g.args.size(), g.outputs.size(), g.specs.size(), unresolved,
              static_cast<double>(g.bytes()) / 1e6);
  std::printf("parse floor (load + DOM of the file)   %.3f s\n", domParse);
  std::printf("read into a buffer                     %.3f s\n", read);
  std::printf("scan for node extents                  %.3f s\n", scan);
  std::printf("batch parses                           %.3f s\n", parse);
  std::printf("flat build (walk, names, index)        %.3f s\n", total - parse);
  std::printf("read + scan + parse + build            %.3f s  (%.2fx the parse floor)\n", read + scan + total,
              (read + scan + total) / domParse);
  return 0;
}
