// Graph format v1 (docs/graph-format.md) -> Graph, over either JSON DOM (JsonValue.h).
//
// The reader is strict the same way the rule loader is: unknown keys, wrong types and
// dangling references are schema errors that name the JSON pointer of the offending value,
// and every such error of the file is reported, not only the first.
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/OnnxReader.h"

#include <cmath>
#include <fstream>
#include <algorithm>
#include <unordered_set>

#include "JsonValue.h"
#include "JsonText.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/io/Pt2Reader.h"

namespace qnnrules {
namespace {

using jsonview::Kind;

using jsontext::findExcessiveNesting;
using jsontext::lineColumnOf;

template <typename V>
std::string typeName(const V& v) {
  switch (v.kind()) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kInt:
    case Kind::kUInt: return "an integer";
    case Kind::kDouble: return "a number";
    case Kind::kString: return "a string";
    case Kind::kArray: return "a list";
    case Kind::kObject: return "an object";
  }
  return "a value";
}

template <typename V>
bool isInteger(const V& v) { return v.kind() == Kind::kInt || v.kind() == Kind::kUInt; }
// An integer value clamped to int64 (nlohmann stores non-negative integers as unsigned).
template <typename V>
int64_t asInt64(const V& v) {
  if (v.kind() == Kind::kInt) return v.i64();
  return v.u64() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v.u64());
}
template <typename V>
bool isNumber(const V& v) { return isInteger(v) || v.kind() == Kind::kDouble; }
template <typename V>
bool isString(const V& v, std::string_view want) { return v.kind() == Kind::kString && v.str() == want; }

// A JSON pointer, built only when an error needs it. Keys are views into the parsed document
// (or string literals), so descending into a value costs no allocation.
class Path {
 public:
  struct Part {
    std::string_view key;
    size_t index = 0;
    bool isIndex = false;
  };
  void push(std::string_view key) { parts_.push_back({key, 0, false}); }
  void push(size_t index) { parts_.push_back({{}, index, true}); }
  void pop() { parts_.pop_back(); }
  const std::vector<Part>& parts() const { return parts_; }
  std::string str() const { return str(parts_); }
  static std::string str(const std::vector<Part>& parts) {
    if (parts.empty()) return "/";
    std::string s;
    for (const Part& p : parts) {
      s += '/';
      if (p.isIndex) {
        s += std::to_string(p.index);
        continue;
      }
      for (char c : p.key) s += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    }
    return s;
  }

 private:
  std::vector<Part> parts_;
};

struct PathScope {
  PathScope(Path& p, std::string_view key) : path(p) { p.push(key); }
  PathScope(Path& p, size_t index) : path(p) { p.push(index); }
  ~PathScope() { path.pop(); }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;
  Path& path;
};

// A shared_with reference by name, resolved once every node is known. It records where the
// spec lives (node, section, index path) rather than a pointer, since specs move while a node
// is being built.
enum class Section : uint8_t { kArgs, kKwargs, kOutputs };
struct PendingShared {
  uint32_t node = 0;
  Section section = Section::kArgs;
  std::vector<size_t> where;  // argument index, then list element indices; or the output index
  std::vector<Path::Part> pointer;  // where it was written, for messages (views into the document)
  std::string producer;
  std::string consumer;       // empty: a node-output reference
  uint32_t output = 0;
};

template <typename V>
class Reader {
 public:
  Reader(std::string displayName, GraphReadResult& out) : name_(std::move(displayName)), out_(out) {}

  void read(const V& root) {
    if (root.kind() != Kind::kObject) {
      error("the top level must be an object", "an object with format, version and nodes", typeName(root));
      return;
    }
    checkKeys(root, {"format", "version", "name", "nodes", "meta"});
    std::optional<V> format = find(root, "format");
    if (!format) {
      missing("format", "\"qnnrules-graph\"");
    } else if (!isString(*format, "qnnrules-graph")) {
      PathScope s(path_, "format");
      error("this is not a qnnrules graph", "\"qnnrules-graph\"", format->dump());
    }
    std::optional<V> version = find(root, "version");
    if (!version) {
      missing("version", "1");
    } else if (!isInteger(*version) || asInt64(*version) != 1) {
      PathScope s(path_, "version");
      error("unsupported graph format version", "1 (the only version this reader knows)", version->dump());
      return;  // a different version may mean anything below; stop here
    }
    if (std::optional<V> name = find(root, "name")) {
      PathScope s(path_, "name");
      if (name->kind() == Kind::kString) out_.graph.name = std::string(name->str());
      else wrongType("a string", *name);
    }
    std::optional<V> nodes = find(root, "nodes");
    if (!nodes) {
      missing("nodes", "a list of nodes");
      return;
    }
    PathScope s(path_, "nodes");
    if (nodes->kind() != Kind::kArray) {
      wrongType("a list of nodes", *nodes);
      return;
    }
    nodes_ = &*nodes;
    out_.graph.reserve(nodes->size());
    nodes->forEach([&](size_t i, const V& n) {
      PathScope ns(path_, i);
      readNode(n);
    });
    resolveShared();
  }

 private:
  // --- errors ---
  void error(std::string message, std::string expected, std::string actual) {
    Diagnostic d;
    d.severity = Severity::kError;
    d.code = DiagCode::kGraphSchema;
    d.message = std::move(message);
    d.expected = std::move(expected);
    d.actual = std::move(actual);
    d.port = path_.str();  // the JSON pointer of the offending value
    d.mark.file = file_;
    out_.errors.push_back(std::move(d));
  }
  void missing(std::string_view key, std::string expected) {
    error("missing required key '" + std::string(key) + "'", std::move(expected), "nothing");
  }
  void wrongType(std::string expected, const V& v) {
    std::string actual = typeName(v);
    if (v.kind() != Kind::kObject && v.kind() != Kind::kArray) actual += " " + v.dump();
    error("wrong type", std::move(expected), std::move(actual));
  }

  std::optional<V> find(const V& obj, std::string_view key) const { return obj.get(key); }

  // Unknown and duplicate keys are errors (JSON parsers keep one of two duplicates silently).
  void checkKeys(const V& obj, std::initializer_list<std::string_view> allowed, bool anyKey = false) {
    seenKeys_.clear();
    obj.forEachField([&](std::string_view key, const V&) {
      // Objects here have a handful of keys: a linear scan beats hashing.
      if (std::find(seenKeys_.begin(), seenKeys_.end(), key) != seenKeys_.end()) {
        PathScope s(path_, key);
        error("duplicate key '" + std::string(key) + "'", "each key once per object",
              "'" + std::string(key) + "' twice");
        return;
      }
      seenKeys_.push_back(key);
      if (anyKey) return;
      for (std::string_view a : allowed)
        if (a == key) return;
      PathScope s(path_, key);
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      error("unknown key '" + std::string(key) + "'", "one of: " + list,
            "'" + std::string(key) + "'");
    });
  }

  template <typename T>
  std::optional<T> integer(const V& v, int64_t lo, int64_t hi, const char* what) {
    if (!isInteger(v)) {
      wrongType(what, v);
      return std::nullopt;
    }
    int64_t x = asInt64(v);
    if (x < lo || x > hi) {
      error("value out of range", std::string(what) + " in " + std::to_string(lo) + ".." +
                                                        std::to_string(hi),
            v.dump());
      return std::nullopt;
    }
    return static_cast<T>(x);
  }

  std::optional<std::string_view> nonEmptyString(const V& v, const char* what) {
    if (v.kind() != Kind::kString || v.str().empty()) {
      if (v.kind() == Kind::kString) error("an empty string", what, "\"\"");
      else wrongType(what, v);
      return std::nullopt;
    }
    return v.str();
  }

  std::optional<std::string> string(const V& v, const char* what) {
    if (v.kind() != Kind::kString) {
      wrongType(what, v);
      return std::nullopt;
    }
    return std::string(v.str());
  }

  // --- nodes ---
  void readNode(const V& n) {
    if (n.kind() != Kind::kObject) {
      wrongType("a node object", n);
      return;
    }
    checkKeys(n, {"name", "kind", "target", "args", "kwargs", "outputs", "module", "meta"});
    Node node;
    std::optional<V> name = find(n, "name");
    if (!name) {
      missing("name", "a unique node name");
      return;
    }
    {
      PathScope s(path_, "name");
      auto nm = nonEmptyString(*name, "a non-empty node name");
      if (!nm) return;
      node.name = std::string(*nm);
      currentNode_ = node.name;
    }
    if (std::optional<V> kind = find(n, "kind")) {
      PathScope s(path_, "kind");
      auto k = kind->kind() == Kind::kString ? parseNodeKind(kind->str()) : std::nullopt;
      if (!k) {
        error("unknown node kind", "input, parameter, constant, call or output", kind->dump());
        return;
      }
      node.kind = *k;
    } else {
      missing("kind", "input, parameter, constant, call or output");
      return;
    }
    std::optional<V> target = find(n, "target");
    if (node.kind == NodeKind::kCall) {
      if (!target) {
        missing("target", "the ATen target of the call, e.g. \"aten.conv2d.default\"");
        return;
      }
      PathScope s(path_, "target");
      auto t = nonEmptyString(*target, "an ATen target such as \"aten.conv2d.default\"");
      if (!t) return;
      node.targetId = out_.graph.internTarget(*t);
    } else if (target) {
      PathScope s(path_, "target");
      error("only call nodes have a target", "no target for kind " + std::string(nodeKindName(node.kind)),
            target->dump());
    }
    if (std::optional<V> module = find(n, "module")) {
      PathScope s(path_, "module");
      if (auto m = string(*module, "a module path string")) node.modulePath = std::move(*m);
    }
    self_ = static_cast<uint32_t>(out_.graph.nodes().size());
    const size_t errorsBefore = out_.errors.size();
    const size_t pendingBefore = pending_.size();
    if (std::optional<V> outputs = find(n, "outputs")) {
      PathScope s(path_, "outputs");
      if (outputs->kind() != Kind::kArray) {
        wrongType("a list of outputs", *outputs);
      } else {
        node.outputs.reserve(outputs->size());
        outputs->forEach([&](size_t o, const V& out) {
          PathScope os(path_, o);
          section_ = Section::kOutputs;
          where_.assign(1, o);
          readOutput(out, node);
        });
      }
    }
    if (std::optional<V> args = find(n, "args")) {
      PathScope s(path_, "args");
      if (args->kind() != Kind::kArray) {
        wrongType("a list of arguments", *args);
      } else {
        node.args.reserve(args->size());
        args->forEach([&](size_t a, const V& arg) {
          PathScope as(path_, a);
          section_ = Section::kArgs;
          where_.assign(1, a);
          node.args.push_back(readValue(arg));
        });
      }
    }
    if (std::optional<V> kwargs = find(n, "kwargs")) {
      PathScope s(path_, "kwargs");
      if (kwargs->kind() != Kind::kObject) {
        wrongType("an object of keyword arguments", *kwargs);
      } else {
        checkKeys(*kwargs, {}, /*anyKey=*/true);  // any keyword name, but each once
        kwargs->forEachField([&](std::string_view key, const V& value) {
          PathScope ks(path_, key);
          section_ = Section::kKwargs;
          where_.assign(1, node.kwargs.size());
          node.kwargs.emplace_back(std::string(key), readValue(value));
        });
      }
    }
    bool added = out_.errors.size() == errorsBefore;
    if (added) {
      StatusOr<uint32_t> index = out_.graph.addNode(std::move(node));
      if (!index.isOk()) {
        PathScope s(path_, "name");
        error(index.status().message(), "a name no other node has", name->dump());
        added = false;
      }
    }
    if (!added) pending_.resize(pendingBefore);  // the node is not in the graph
  }

  void readOutput(const V& o, Node& node) {
    if (o.kind() != Kind::kObject) {
      wrongType("an output object {dtype, shape, qspec}", o);
      return;
    }
    checkKeys(o, {"dtype", "shape", "qspec", "stats", "meta"});
    TensorMeta meta;
    if (std::optional<V> dt = find(o, "dtype")) {
      PathScope s(path_, "dtype");
      auto t = dt->kind() == Kind::kString ? parseScalarType(dt->str()) : std::nullopt;
      if (!t) error("unknown tensor dtype", "a PyTorch dtype name such as \"float32\"", dt->dump());
      else meta.dtype = *t;
    } else {
      missing("dtype", "the tensor's dtype");
    }
    if (std::optional<V> shape = find(o, "shape")) {
      PathScope s(path_, "shape");
      if (shape->kind() != Kind::kArray) {
        wrongType("a list of dimensions", *shape);
      } else {
        meta.shape.reserve(shape->size());
        shape->forEach([&](size_t i, const V& dim) {
          PathScope ds(path_, i);
          // -1 marks a dynamic dimension.
          if (auto d = integer<int64_t>(dim, -1, INT64_MAX, "a dimension (integer >= -1)")) meta.shape.push_back(*d);
        });
      }
    }
    if (std::optional<V> q = find(o, "qspec")) {
      PathScope s(path_, "qspec");
      if (q->kind() != Kind::kNull) meta.qspec = readQSpec(*q);
    }
    if (std::optional<V> st = find(o, "stats")) {
      PathScope s(path_, "stats");
      meta.stats = readStats(*st);
    }
    node.outputs.push_back(std::move(meta));
  }

  // Calls one(x) for a value, or for each element (with its JSON pointer) of a list.
  template <typename F>
  void oneOrMany(const V& v, F&& one) {
    if (v.kind() != Kind::kArray) {
      one(v);
      return;
    }
    v.forEach([&](size_t i, const V& e) {
      PathScope is(path_, i);
      one(e);
    });
  }

  // Calibration statistics (docs/graph-format.md "Statistics"): min/max as numbers or lists.
  std::optional<TensorStats> readStats(const V& st) {
    if (st.kind() != Kind::kObject) {
      wrongType("a statistics object {min, max, axis?, blocks?}", st);
      return std::nullopt;
    }
    checkKeys(st, {"min", "max", "axis", "blocks"});
    TensorStats t;
    size_t errorsBefore = out_.errors.size();
    auto numbers = [&](const char* key, std::vector<double>& out) {
      std::optional<V> v = find(st, key);
      if (!v) {
        missing(key, "the observed range");
        return;
      }
      PathScope s(path_, key);
      oneOrMany(*v, [&](const V& x) {
        if (!isNumber(x) || !std::isfinite(x.f64())) wrongType("a finite number", x);
        else out.push_back(x.f64());
      });
    };
    numbers("min", t.min);
    numbers("max", t.max);
    if (std::optional<V> v = find(st, "axis")) {
      PathScope s(path_, "axis");
      if (auto a = integer<int32_t>(*v, 0, 64, "a channel axis")) t.axis = *a;
    }
    if (std::optional<V> v = find(st, "blocks")) {
      PathScope s(path_, "blocks");
      if (auto b = integer<int64_t>(*v, 1, INT32_MAX, "a block count (>= 1)")) t.blocks = *b;
    }
    if (t.min.size() != t.max.size() || t.min.empty())
      error("stats min and max need the same, non-zero number of values", "as many max values as min values",
            std::to_string(t.min.size()) + " min, " + std::to_string(t.max.size()) + " max");
    if (out_.errors.size() != errorsBefore) return std::nullopt;
    return t;
  }

  // Argument values: null, bool, int, float, string, lists, and tensor references.
  Argument readValue(const V& v) {
    Argument a;
    switch (v.kind()) {
      case Kind::kNull: a.kind = Argument::Kind::kNone; break;
      case Kind::kBool: a.kind = Argument::Kind::kBool; a.b = v.boolean(); break;
      case Kind::kInt:
      case Kind::kUInt: a.kind = Argument::Kind::kInt; a.i = asInt64(v); break;
      case Kind::kDouble: a.kind = Argument::Kind::kFloat; a.f = v.f64(); break;
      case Kind::kString: a.kind = Argument::Kind::kString; a.s = std::string(v.str()); break;
      case Kind::kArray:
        a.kind = Argument::Kind::kList;
        a.list.reserve(v.size());
        v.forEach([&](size_t i, const V& e) {
          PathScope s(path_, i);
          where_.push_back(i);
          a.list.push_back(readValue(e));
          where_.pop_back();
        });
        break;
      case Kind::kObject: readTensorRef(v, a); break;
    }
    return a;
  }

  void readTensorRef(const V& v, Argument& a) {
    checkKeys(v, {"ref", "output", "qspec"});
    std::optional<V> ref = find(v, "ref");
    if (!ref) {
      missing("ref", "a tensor reference {\"ref\": \"<node>\"}");
      return;
    }
    std::string_view producer;
    {
      PathScope s(path_, "ref");
      if (ref->kind() != Kind::kString) {
        wrongType("the name of an earlier node", *ref);
        return;
      }
      producer = ref->str();
      auto idx = out_.graph.findNode(producer);
      if (!idx) {
        const std::string who(producer);
        if (producer == currentNode_)
          error("node '" + who + "' uses its own output", "a node that comes before it", "\"" + who + "\"");
        else if (namedLater(producer))
          error("node uses '" + who + "', which comes after it (nodes must be in topological order)",
                "a node that comes before it", "\"" + who + "\"");
        else
          error("unknown node '" + who + "'", "the name of an earlier node", "\"" + who + "\"");
        return;
      }
      a.kind = Argument::Kind::kTensor;
      a.tensor.node = *idx;
    }
    if (std::optional<V> output = find(v, "output")) {
      PathScope s(path_, "output");
      if (auto o = integer<uint32_t>(*output, 0, UINT32_MAX - 1, "an output index")) a.tensor.output = *o;
      const Node& p = out_.graph.node(a.tensor.node);
      if (!p.outputs.empty() && a.tensor.output >= p.outputs.size())
        error("node '" + std::string(producer) + "' has no output " + std::to_string(a.tensor.output),
              "an index below " + std::to_string(p.outputs.size()), output->dump());
    }
    if (std::optional<V> q = find(v, "qspec")) {
      PathScope s(path_, "qspec");
      if (q->kind() != Kind::kNull) a.qspec = readQSpec(*q);
    }
  }

  // Whether some node of the document has this name. Only asked on the error path, so the
  // set of all names is built then rather than for every graph.
  bool namedLater(std::string_view name) {
    if (allNames_.empty() && nodes_)
      nodes_->forEach([&](size_t, const V& n) {
        if (n.kind() != Kind::kObject) return;
        if (auto nm = n.get("name"); nm && nm->kind() == Kind::kString) allNames_.emplace(nm->str());
      });
    return allNames_.count(name) != 0;
  }

  std::optional<QuantSpec> readQSpec(const V& q) {
    if (q.kind() != Kind::kObject) {
      wrongType("a quant spec object", q);
      return std::nullopt;
    }
    QuantSpec spec;
    if (std::optional<V> sw = find(q, "shared_with")) {
      checkKeys(q, {"shared_with"});
      PathScope s(path_, "shared_with");
      if (sw->kind() != Kind::kObject) {
        wrongType("{\"node\": name} or {\"edge\": [producer, consumer]}", *sw);
        return std::nullopt;
      }
      checkKeys(*sw, {"node", "output", "edge"});
      PendingShared p;
      p.node = self_;
      p.section = section_;
      p.where = where_;
      p.pointer = path_.parts();
      std::optional<V> node = find(*sw, "node");
      std::optional<V> edge = find(*sw, "edge");
      if (node.has_value() == edge.has_value()) {
        error("shared_with needs exactly one of 'node' and 'edge'", "{\"node\": name} or {\"edge\": [producer, consumer]}",
              sw->dump());
        return std::nullopt;
      }
      if (node) {
        PathScope ns(path_, "node");
        auto n = string(*node, "a node name");
        if (!n) return std::nullopt;
        p.producer = std::move(*n);
        if (std::optional<V> output = find(*sw, "output")) {
          PathScope os(path_, "output");
          auto o = integer<uint32_t>(*output, 0, UINT32_MAX - 1, "an output index");
          if (!o) return std::nullopt;
          p.output = *o;
        }
      } else {
        PathScope es(path_, "edge");
        std::vector<std::string> ends;
        if (edge->kind() == Kind::kArray)
          edge->forEach([&](size_t, const V& e) {
            if (e.kind() == Kind::kString) ends.emplace_back(e.str());
          });
        if (edge->kind() != Kind::kArray || edge->size() != 2 || ends.size() != 2) {
          wrongType("[\"<producer>\", \"<consumer>\"]", *edge);
          return std::nullopt;
        }
        p.producer = std::move(ends[0]);
        p.consumer = std::move(ends[1]);
      }
      spec.sharedWith = SharedRef{};
      pending_.push_back(std::move(p));
      return spec;
    }
    checkKeys(q, {"dtype", "quant_min", "quant_max", "qscheme", "ch_axis", "block_size", "scale", "zero_point"});
    size_t errorsBefore = out_.errors.size();
    if (std::optional<V> dt = find(q, "dtype")) {
      PathScope s(path_, "dtype");
      auto t = dt->kind() == Kind::kString ? parseScalarType(dt->str()) : std::nullopt;
      if (!t) error("unknown quantization dtype", "uint8, int8, uint16, int16, int32, float16, ...", dt->dump());
      else spec.dtype = *t;
    } else {
      missing("dtype", "the storage dtype, e.g. \"uint8\"");
    }
    constexpr int64_t kLo = INT32_MIN, kHi = static_cast<int64_t>(UINT32_MAX);
    if (std::optional<V> v = find(q, "quant_min")) {
      PathScope s(path_, "quant_min");
      spec.quantMin = integer<int64_t>(*v, kLo, kHi, "an integer");
    }
    if (std::optional<V> v = find(q, "quant_max")) {
      PathScope s(path_, "quant_max");
      spec.quantMax = integer<int64_t>(*v, kLo, kHi, "an integer");
    }
    if (spec.quantMin && spec.quantMax && *spec.quantMin >= *spec.quantMax) {
      PathScope s(path_, "quant_max");
      error("quant_max must be greater than quant_min", "quant_max > " + std::to_string(*spec.quantMin),
            std::to_string(*spec.quantMax));
    }
    if (std::optional<V> v = find(q, "qscheme")) {
      PathScope s(path_, "qscheme");
      auto qs = v->kind() == Kind::kString ? parseQScheme(v->str()) : std::nullopt;
      if (!qs)
        error("unknown qscheme", "per_tensor_affine, per_tensor_symmetric, per_channel_affine or per_channel_symmetric",
              v->dump());
      else spec.qscheme = *qs;
    }
    if (std::optional<V> v = find(q, "ch_axis")) {
      PathScope s(path_, "ch_axis");
      spec.chAxis = integer<int32_t>(*v, -64, 64, "an axis");
    }
    if (std::optional<V> v = find(q, "block_size")) {
      PathScope s(path_, "block_size");
      if (v->kind() != Kind::kArray || v->size() == 0) {
        wrongType("a non-empty list of block sizes", *v);
      } else {
        v->forEach([&](size_t i, const V& e) {
          PathScope bs(path_, i);
          if (auto b = integer<int64_t>(e, 1, INT32_MAX, "a block size (>= 1)")) spec.blockSize.push_back(*b);
        });
      }
    }
    if (std::optional<V> v = find(q, "scale")) {
      PathScope s(path_, "scale");
      auto one = [&](const V& x) {
        if (!isNumber(x)) {
          wrongType("a positive number", x);
          return;
        }
        double d = x.f64();
        if (!(d > 0) || !std::isfinite(d)) {
          error("scales must be positive and finite", "a number > 0", x.dump());
          return;
        }
        spec.scales.push_back(d);
      };
      oneOrMany(*v, one);
    }
    if (std::optional<V> v = find(q, "zero_point")) {
      PathScope s(path_, "zero_point");
      auto one = [&](const V& x) {
        if (auto z = integer<int64_t>(x, kLo, kHi, "an integer zero point")) spec.zeroPoints.push_back(*z);
      };
      oneOrMany(*v, one);
    }
    if (out_.errors.size() != errorsBefore) return std::nullopt;
    return spec;
  }

  // The spec a pending reference was read into, now that its node is in the graph.
  QuantSpec* locate(const PendingShared& p) {
    Node& n = out_.graph.mutableNodes()[p.node];
    if (p.section == Section::kOutputs) {
      auto& q = n.outputs[p.where[0]].qspec;
      return q ? &*q : nullptr;
    }
    Argument* a = p.section == Section::kArgs ? &n.args[p.where[0]] : &n.kwargs[p.where[0]].second;
    for (size_t i = 1; i < p.where.size(); ++i) a = &a->list[p.where[i]];
    return a->qspec ? &*a->qspec : nullptr;
  }

  void resolveShared() {
    for (PendingShared& p : pending_) {
      QuantSpec* spec = locate(p);
      if (!spec || !spec->sharedWith) continue;
      auto fail = [&](const std::string& message, const std::string& expected, const std::string& actual) {
        Diagnostic d;
        d.code = DiagCode::kGraphSchema;
        d.message = message;
        d.expected = expected;
        d.actual = actual;
        d.port = Path::str(p.pointer);
        d.mark.file = file_;
        out_.errors.push_back(std::move(d));
      };
      auto producer = out_.graph.findNode(p.producer);
      if (!producer) {
        fail("shared_with names unknown node '" + p.producer + "'", "the name of a node of the graph",
             "\"" + p.producer + "\"");
        continue;
      }
      SharedRef& ref = *spec->sharedWith;
      ref.node = *producer;
      ref.output = p.output;
      if (p.consumer.empty()) {
        ref.kind = SharedRef::Kind::kNodeOutput;
        const Node& n = out_.graph.node(*producer);
        if (p.output >= n.outputs.size())
          fail("shared_with names output " + std::to_string(p.output) + " of '" + p.producer + "', which has " +
                   std::to_string(n.outputs.size()) + " output(s)",
               "an existing output", std::to_string(p.output));
        continue;
      }
      auto consumer = out_.graph.findNode(p.consumer);
      if (!consumer) {
        fail("shared_with edge names unknown node '" + p.consumer + "'", "the name of a node of the graph",
             "\"" + p.consumer + "\"");
        continue;
      }
      ref.kind = SharedRef::Kind::kEdge;
      ref.consumer = *consumer;
    }
  }

  std::string name_;
  std::shared_ptr<const std::string> file_ = std::make_shared<const std::string>(name_);
  GraphReadResult& out_;
  Path path_;
  std::unordered_set<std::string_view> allNames_;  // views into the parsed document
  std::vector<std::string_view> seenKeys_;
  std::vector<PendingShared> pending_;
  // Where the value being read lives, for pending shared references.
  uint32_t self_ = 0;
  std::string currentNode_;
  const V* nodes_ = nullptr;  // the document's node list, while reading it
  Section section_ = Section::kArgs;
  std::vector<size_t> where_;
};

}  // namespace

namespace {

Status parseError(std::string_view text, const std::string& displayName, const std::string& fallback) {
  // simdjson reports what broke but not where; nlohmann's parser finds the position. This
  // second parse only runs on input that is already known to be malformed.
  uint32_t line = 1, column = 1;
  std::string what = fallback;
  try {
    nlohmann::json ignored = nlohmann::json::parse(text);
    (void)ignored;
  } catch (const nlohmann::json::parse_error& e) {
    lineColumnOf(text, e.byte > 0 ? e.byte - 1 : 0, line, column);
    what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." ->
    // keep what follows the position, which says what was expected.
    if (size_t colon = what.find(": ", what.find("parse error")); colon != std::string::npos)
      what = what.substr(colon + 2);
  }
  return Status(StatusCode::kParseError,
                displayName + ":" + std::to_string(line) + ":" + std::to_string(column) + ": malformed JSON: " + what,
                displayName);
}

// Walks a parsed document into `r`; the document must outlive the call.
template <typename V>
void readDocument(const V& root, const std::string& displayName, GraphReadResult& r) {
  Reader<V> reader(displayName, r);
  reader.read(root);
  if (!r.errors.empty()) {
    const Diagnostic& first = r.errors.front();
    r.status = Status(StatusCode::kSchemaError,
                      displayName + ": " + std::to_string(r.errors.size()) + " schema error(s); first: " +
                          first.message + " (expected " + first.expected + ", got " + first.actual + ")",
                      first.port);
    r.graph = Graph();
    return;
  }
  if (Status st = r.graph.verify(); !st.isOk()) {
    r.status = Status(st.code(), displayName + ": " + st.message(), st.fragment());
    r.graph = Graph();
  }
}

// `text` must have simdjson::SIMDJSON_PADDING readable bytes after its end when `padded`.
GraphReadResult readText(std::string_view text, bool padded, const std::string& displayName,
                         const GraphReadOptions& options) {
  GraphReadResult r;
  if (text.size() > options.maxFileBytes) {
    r.status = Status(StatusCode::kLimitExceeded,
                      displayName + ": the graph is " + std::to_string(text.size()) + " bytes, above the limit of " +
                          std::to_string(options.maxFileBytes),
                      displayName);
    return r;
  }
  if (size_t at = findExcessiveNesting(text, options.maxDepth); at != std::string_view::npos) {
    uint32_t line, column;
    lineColumnOf(text, at, line, column);
    r.status = Status(StatusCode::kLimitExceeded,
                      displayName + ":" + std::to_string(line) + ":" + std::to_string(column) +
                          ": JSON nested deeper than " + std::to_string(options.maxDepth) + " levels",
                      displayName);
    return r;
  }
  if (options.parser == JsonParser::kNlohmann) {
    nlohmann::json root;
    try {
      root = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error&) {
      r.status = parseError(text, displayName, "");
      return r;
    }
    readDocument(jsonview::Nlohmann(root), displayName, r);
    return r;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::error_code err =
      padded ? parser.parse(text.data(), text.size(), /*realloc_if_needed=*/false).get(root)
             : parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root);
  if (err != simdjson::SUCCESS) {
    if (err == simdjson::MEMALLOC || err == simdjson::CAPACITY)
      r.status = Status(StatusCode::kLimitExceeded, displayName + ": " + simdjson::error_message(err), displayName);
    else
      r.status = parseError(text, displayName, simdjson::error_message(err));
    return r;
  }
  readDocument(jsonview::Simdjson(root), displayName, r);
  return r;
}

}  // namespace

GraphReadResult readGraphText(std::string_view text, const std::string& displayName, const GraphReadOptions& options) {
  return readText(text, /*padded=*/false, displayName, options);
}

// torch.export archives (.pt2) are zip files: "PK\3\4" at the start, whatever the name.
static std::optional<GraphReadResult> readIfPt2Archive(const std::filesystem::path& path, const GraphReadOptions& options) {
  if (!isZipFile(path)) return std::nullopt;
  return readPt2File(path, options);
}

// ONNX models (io/OnnxReader.h), chosen by content: a JSON graph starts with '{' after
// whitespace and a BOM, a torch .pt2 archive with the ZIP magic; anything else is tried as an
// ONNX protobuf. Text that does not parse as one goes to the JSON reader, whose error names a
// line and column.
static std::optional<GraphReadResult> readIfOnnx(std::string_view bytes, const std::string& name) {
  std::string_view head = bytes;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  while (!head.empty() && (head[0] == ' ' || head[0] == '\t' || head[0] == '\n' || head[0] == '\r')) head.remove_prefix(1);
  if (head.empty() || head[0] == '{' || bytes.substr(0, 4) == std::string_view("PK\x03\x04", 4)) return std::nullopt;
  GraphReadResult r = readOnnxModel(bytes, name);
  const bool printable = static_cast<unsigned char>(head[0]) >= 0x20 && static_cast<unsigned char>(head[0]) < 0x7f;
  if (!r.ok() && r.status.code() == StatusCode::kParseError && printable) return std::nullopt;
  return r;
}

GraphReadResult readGraphFile(const std::filesystem::path& path, const GraphReadOptions& options) {
  GraphReadResult r;
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    r.status = Status(StatusCode::kNotFound, name + ": no such file", name);
    return r;
  }
  if (std::filesystem::is_directory(path, ec)) {
    r.status = Status(StatusCode::kIoError, name + ": is a directory, not a graph file", name);
    return r;
  }
  // A device has no size to check against the limit (/dev/zero never ends) and a FIFO with no
  // writer blocks the read forever: only regular files (or symlinks to them) are graphs.
  if (!std::filesystem::is_regular_file(path, ec)) {
    r.status = Status(StatusCode::kIoError,
                      name + ": is not a regular file (a device, FIFO or socket); give the path of a graph file", name);
    return r;
  }
  if (std::optional<GraphReadResult> pt2 = readIfPt2Archive(path, options)) return std::move(*pt2);
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > options.maxFileBytes) {
    r.status = Status(StatusCode::kLimitExceeded,
                      name + ": the graph is " + std::to_string(size) + " bytes, above the limit of " +
                          std::to_string(options.maxFileBytes),
                      name);
    return r;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.status = Status(StatusCode::kIoError, name + ": cannot be read", name);
    return r;
  }
  // Read into a buffer with simdjson's padding after the text, so the parser needs no copy.
  std::string text;
  if (!ec) text.reserve(size + simdjson::SIMDJSON_PADDING);
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const size_t length = text.size();
  text.append(simdjson::SIMDJSON_PADDING, ' ');
  if (in.bad()) {
    r.status = Status(StatusCode::kIoError, name + ": read error", name);
    return r;
  }
  if (length == 0) {
    r.status = Status(StatusCode::kParseError, name + ": the file is empty (expected a JSON graph)", name);
    return r;
  }
  if (std::optional<GraphReadResult> onnx = readIfOnnx(std::string_view(text.data(), length), name)) return std::move(*onnx);
  return readText(std::string_view(text.data(), length), /*padded=*/true, name, options);
}

}  // namespace qnnrules
