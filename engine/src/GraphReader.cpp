// Graph format v1 (docs/graph-format.md) read with nlohmann-json's DOM.
//
// The reader is strict the same way the rule loader is: unknown keys, wrong types and
// dangling references are schema errors that name the JSON pointer of the offending value,
// and every such error of the file is reported, not only the first.
#include "qnnrules/GraphReader.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "qnnrules/PortType.h"

namespace qnnrules {
namespace {

using json = nlohmann::json;

// Nesting depth of JSON text, measured before parsing so that hostile input ("[[[[…")
// never reaches a parser or a recursive destructor. Returns the byte offset where `limit`
// is exceeded, or npos.
size_t findExcessiveNesting(std::string_view text, int limit) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

void lineColumnOf(std::string_view text, size_t offset, uint32_t& line, uint32_t& column) {
  line = 1;
  column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

std::string typeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "a list";
    case json::value_t::object: return "an object";
    default: return "an unsupported value";
  }
}

// A JSON pointer, built only when an error needs it.
class Path {
 public:
  void push(std::string_view key) { parts_.emplace_back(std::string(key)); }
  void push(size_t index) { parts_.emplace_back(std::to_string(index)); }
  void pop() { parts_.pop_back(); }
  std::string str() const {
    if (parts_.empty()) return "/";
    std::string s;
    for (const std::string& p : parts_) {
      s += '/';
      for (char c : p) s += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    }
    return s;
  }

 private:
  std::vector<std::string> parts_;
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
  std::string pointer;        // JSON pointer, for messages
  std::string producer;
  std::string consumer;       // empty: a node-output reference
  uint32_t output = 0;
};

class Reader {
 public:
  Reader(std::string displayName, GraphReadResult& out) : name_(std::move(displayName)), out_(out) {}

  void read(const json& root) {
    if (!root.is_object()) {
      error("the top level must be an object", "an object with format, version and nodes", typeName(root));
      return;
    }
    checkKeys(root, {"format", "version", "name", "nodes", "meta"});
    const json* format = find(root, "format");
    if (!format) {
      missing("format", "\"qnnrules-graph\"");
    } else if (!format->is_string() || format->get_ref<const std::string&>() != "qnnrules-graph") {
      PathScope s(path_, "format");
      error("this is not a qnnrules graph", "\"qnnrules-graph\"", format->dump());
    }
    const json* version = find(root, "version");
    if (!version) {
      missing("version", "1");
    } else if (!version->is_number_integer() || version->get<int64_t>() != 1) {
      PathScope s(path_, "version");
      error("unsupported graph format version", "1 (the only version this reader knows)", version->dump());
      return;  // a different version may mean anything below; stop here
    }
    if (const json* name = find(root, "name")) {
      PathScope s(path_, "name");
      if (name->is_string()) out_.graph.name = name->get<std::string>();
      else wrongType("a string", *name);
    }
    const json* nodes = find(root, "nodes");
    if (!nodes) {
      missing("nodes", "a list of nodes");
      return;
    }
    PathScope s(path_, "nodes");
    if (!nodes->is_array()) {
      wrongType("a list of nodes", *nodes);
      return;
    }
    // Names first, so that references to later nodes can say "not before it" rather than "unknown".
    for (const json& n : *nodes) {
      if (!n.is_object()) continue;
      auto it = n.find("name");
      if (it != n.end() && it->is_string()) allNames_.try_emplace(it->get<std::string>(), allNames_.size());
    }
    out_.graph.mutableNodes().reserve(nodes->size());
    for (size_t i = 0; i < nodes->size(); ++i) {
      PathScope ns(path_, i);
      readNode((*nodes)[i]);
    }
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
    error("missing required key '" + std::string(key) + "' at " + path_.str(), std::move(expected), "nothing");
  }
  void wrongType(std::string expected, const json& v) {
    std::string actual = typeName(v);
    if (!v.is_object() && !v.is_array()) actual += " " + v.dump();
    error("wrong type at " + path_.str(), std::move(expected), std::move(actual));
  }

  const json* find(const json& obj, std::string_view key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  void checkKeys(const json& obj, std::initializer_list<std::string_view> allowed) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool ok = false;
      for (std::string_view a : allowed) ok = ok || a == it.key();
      if (ok) continue;
      PathScope s(path_, it.key());
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      error("unknown key '" + it.key() + "' at " + path_.str(), "one of: " + list, "'" + it.key() + "'");
    }
  }

  template <typename T>
  std::optional<T> integer(const json& v, int64_t lo, int64_t hi, const char* what) {
    if (!v.is_number_integer()) {
      wrongType(what, v);
      return std::nullopt;
    }
    int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)
                    ? INT64_MAX
                    : v.get<int64_t>();
    if (x < lo || x > hi) {
      error("value out of range at " + path_.str(), std::string(what) + " in " + std::to_string(lo) + ".." +
                                                        std::to_string(hi),
            v.dump());
      return std::nullopt;
    }
    return static_cast<T>(x);
  }

  std::optional<std::string> string(const json& v, const char* what) {
    if (!v.is_string()) {
      wrongType(what, v);
      return std::nullopt;
    }
    return v.get<std::string>();
  }

  // --- nodes ---
  void readNode(const json& n) {
    if (!n.is_object()) {
      wrongType("a node object", n);
      return;
    }
    checkKeys(n, {"name", "kind", "target", "args", "kwargs", "outputs", "module", "meta"});
    Node node;
    const json* name = find(n, "name");
    if (!name) {
      missing("name", "a unique node name");
      return;
    }
    {
      PathScope s(path_, "name");
      auto nm = string(*name, "a string");
      if (!nm) return;
      if (nm->empty()) {
        error("node names must not be empty", "a non-empty string", "\"\"");
        return;
      }
      node.name = std::move(*nm);
      currentNode_ = node.name;
    }
    if (const json* kind = find(n, "kind")) {
      PathScope s(path_, "kind");
      auto k = kind->is_string() ? parseNodeKind(kind->get_ref<const std::string&>()) : std::nullopt;
      if (!k) {
        error("unknown node kind", "input, parameter, constant, call or output", kind->dump());
        return;
      }
      node.kind = *k;
    } else {
      missing("kind", "input, parameter, constant, call or output");
      return;
    }
    const json* target = find(n, "target");
    if (node.kind == NodeKind::kCall) {
      if (!target) {
        missing("target", "the ATen target of the call, e.g. \"aten.conv2d.default\"");
        return;
      }
      PathScope s(path_, "target");
      auto t = string(*target, "a string such as \"aten.conv2d.default\"");
      if (!t) return;
      if (t->empty()) {
        error("a call's target must not be empty", "an ATen target", "\"\"");
        return;
      }
      node.targetId = out_.graph.internTarget(*t);
    } else if (target) {
      PathScope s(path_, "target");
      error("only call nodes have a target", "no target for kind " + std::string(nodeKindName(node.kind)),
            target->dump());
    }
    if (const json* module = find(n, "module")) {
      PathScope s(path_, "module");
      if (auto m = string(*module, "a module path string")) node.modulePath = std::move(*m);
    }
    self_ = static_cast<uint32_t>(out_.graph.nodes().size());
    const size_t errorsBefore = out_.errors.size();
    const size_t pendingBefore = pending_.size();
    if (const json* outputs = find(n, "outputs")) {
      PathScope s(path_, "outputs");
      if (!outputs->is_array()) {
        wrongType("a list of outputs", *outputs);
      } else {
        for (size_t o = 0; o < outputs->size(); ++o) {
          PathScope os(path_, o);
          section_ = Section::kOutputs;
          where_.assign(1, o);
          readOutput((*outputs)[o], node);
        }
      }
    }
    if (const json* args = find(n, "args")) {
      PathScope s(path_, "args");
      if (!args->is_array()) {
        wrongType("a list of arguments", *args);
      } else {
        node.args.reserve(args->size());
        for (size_t a = 0; a < args->size(); ++a) {
          PathScope as(path_, a);
          section_ = Section::kArgs;
          where_.assign(1, a);
          node.args.push_back(readValue((*args)[a]));
        }
      }
    }
    if (const json* kwargs = find(n, "kwargs")) {
      PathScope s(path_, "kwargs");
      if (!kwargs->is_object()) {
        wrongType("an object of keyword arguments", *kwargs);
      } else {
        for (auto it = kwargs->begin(); it != kwargs->end(); ++it) {
          PathScope ks(path_, it.key());
          section_ = Section::kKwargs;
          where_.assign(1, node.kwargs.size());
          node.kwargs.emplace_back(it.key(), readValue(it.value()));
        }
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

  void readOutput(const json& o, Node& node) {
    if (!o.is_object()) {
      wrongType("an output object {dtype, shape, qspec}", o);
      return;
    }
    checkKeys(o, {"dtype", "shape", "qspec", "meta"});
    TensorMeta meta;
    if (const json* dt = find(o, "dtype")) {
      PathScope s(path_, "dtype");
      auto t = dt->is_string() ? parseScalarType(dt->get_ref<const std::string&>()) : std::nullopt;
      if (!t) error("unknown tensor dtype", "a PyTorch dtype name such as \"float32\"", dt->dump());
      else meta.dtype = *t;
    } else {
      missing("dtype", "the tensor's dtype");
    }
    if (const json* shape = find(o, "shape")) {
      PathScope s(path_, "shape");
      if (!shape->is_array()) {
        wrongType("a list of dimensions", *shape);
      } else {
        meta.shape.reserve(shape->size());
        for (size_t i = 0; i < shape->size(); ++i) {
          PathScope ds(path_, i);
          // -1 marks a dynamic dimension.
          if (auto d = integer<int64_t>((*shape)[i], -1, INT64_MAX, "a dimension (integer >= -1)")) meta.shape.push_back(*d);
        }
      }
    }
    if (const json* q = find(o, "qspec")) {
      PathScope s(path_, "qspec");
      if (!q->is_null()) meta.qspec = readQSpec(*q);
    }
    node.outputs.push_back(std::move(meta));
  }

  // Argument values: null, bool, int, float, string, lists, and tensor references.
  Argument readValue(const json& v) {
    Argument a;
    switch (v.type()) {
      case json::value_t::null: a.kind = Argument::Kind::kNone; break;
      case json::value_t::boolean: a.kind = Argument::Kind::kBool; a.b = v.get<bool>(); break;
      case json::value_t::number_integer: a.kind = Argument::Kind::kInt; a.i = v.get<int64_t>(); break;
      case json::value_t::number_unsigned:
        a.kind = Argument::Kind::kInt;
        a.i = v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : v.get<int64_t>();
        break;
      case json::value_t::number_float: a.kind = Argument::Kind::kFloat; a.f = v.get<double>(); break;
      case json::value_t::string: a.kind = Argument::Kind::kString; a.s = v.get<std::string>(); break;
      case json::value_t::array:
        a.kind = Argument::Kind::kList;
        a.list.reserve(v.size());
        for (size_t i = 0; i < v.size(); ++i) {
          PathScope s(path_, i);
          where_.push_back(i);
          a.list.push_back(readValue(v[i]));
          where_.pop_back();
        }
        break;
      case json::value_t::object: readTensorRef(v, a); break;
      default: wrongType("an argument value", v); break;
    }
    return a;
  }

  void readTensorRef(const json& v, Argument& a) {
    checkKeys(v, {"ref", "output", "qspec"});
    const json* ref = find(v, "ref");
    if (!ref) {
      missing("ref", "a tensor reference {\"ref\": \"<node>\"}");
      return;
    }
    std::string producer;
    {
      PathScope s(path_, "ref");
      auto r = string(*ref, "the name of an earlier node");
      if (!r) return;
      producer = std::move(*r);
      auto idx = out_.graph.findNode(producer);
      if (!idx) {
        if (producer == currentNode_)
          error("node '" + producer + "' uses its own output", "a node that comes before it", "\"" + producer + "\"");
        else if (allNames_.count(producer))
          error("node uses '" + producer + "', which comes after it (nodes must be in topological order)",
                "a node that comes before it", "\"" + producer + "\"");
        else
          error("unknown node '" + producer + "'", "the name of an earlier node", "\"" + producer + "\"");
        return;
      }
      a.kind = Argument::Kind::kTensor;
      a.tensor.node = *idx;
    }
    if (const json* output = find(v, "output")) {
      PathScope s(path_, "output");
      if (auto o = integer<uint32_t>(*output, 0, UINT32_MAX - 1, "an output index")) a.tensor.output = *o;
      const Node& p = out_.graph.node(a.tensor.node);
      if (!p.outputs.empty() && a.tensor.output >= p.outputs.size())
        error("node '" + producer + "' has no output " + std::to_string(a.tensor.output),
              "an index below " + std::to_string(p.outputs.size()), output->dump());
    }
    if (const json* q = find(v, "qspec")) {
      PathScope s(path_, "qspec");
      if (!q->is_null()) a.qspec = readQSpec(*q);
    }
  }

  std::optional<QuantSpec> readQSpec(const json& q) {
    if (!q.is_object()) {
      wrongType("a quant spec object", q);
      return std::nullopt;
    }
    QuantSpec spec;
    if (const json* sw = find(q, "shared_with")) {
      checkKeys(q, {"shared_with"});
      PathScope s(path_, "shared_with");
      if (!sw->is_object()) {
        wrongType("{\"node\": name} or {\"edge\": [producer, consumer]}", *sw);
        return std::nullopt;
      }
      checkKeys(*sw, {"node", "output", "edge"});
      PendingShared p;
      p.node = self_;
      p.section = section_;
      p.where = where_;
      p.pointer = path_.str();
      const json* node = find(*sw, "node");
      const json* edge = find(*sw, "edge");
      if ((node != nullptr) == (edge != nullptr)) {
        error("shared_with needs exactly one of 'node' and 'edge'", "{\"node\": name} or {\"edge\": [producer, consumer]}",
              sw->dump());
        return std::nullopt;
      }
      if (node) {
        PathScope ns(path_, "node");
        auto n = string(*node, "a node name");
        if (!n) return std::nullopt;
        p.producer = std::move(*n);
        if (const json* output = find(*sw, "output")) {
          PathScope os(path_, "output");
          auto o = integer<uint32_t>(*output, 0, UINT32_MAX - 1, "an output index");
          if (!o) return std::nullopt;
          p.output = *o;
        }
      } else {
        PathScope es(path_, "edge");
        if (!edge->is_array() || edge->size() != 2 || !(*edge)[0].is_string() || !(*edge)[1].is_string()) {
          wrongType("[\"<producer>\", \"<consumer>\"]", *edge);
          return std::nullopt;
        }
        p.producer = (*edge)[0].get<std::string>();
        p.consumer = (*edge)[1].get<std::string>();
      }
      spec.sharedWith = SharedRef{};
      pending_.push_back(std::move(p));
      return spec;
    }
    checkKeys(q, {"dtype", "quant_min", "quant_max", "qscheme", "ch_axis", "block_size", "scale", "zero_point"});
    size_t errorsBefore = out_.errors.size();
    if (const json* dt = find(q, "dtype")) {
      PathScope s(path_, "dtype");
      auto t = dt->is_string() ? parseScalarType(dt->get_ref<const std::string&>()) : std::nullopt;
      if (!t) error("unknown quantization dtype", "uint8, int8, uint16, int16, int32, float16, ...", dt->dump());
      else spec.dtype = *t;
    } else {
      missing("dtype", "the storage dtype, e.g. \"uint8\"");
    }
    constexpr int64_t kLo = INT32_MIN, kHi = static_cast<int64_t>(UINT32_MAX);
    if (const json* v = find(q, "quant_min")) {
      PathScope s(path_, "quant_min");
      spec.quantMin = integer<int64_t>(*v, kLo, kHi, "an integer");
    }
    if (const json* v = find(q, "quant_max")) {
      PathScope s(path_, "quant_max");
      spec.quantMax = integer<int64_t>(*v, kLo, kHi, "an integer");
    }
    if (spec.quantMin && spec.quantMax && *spec.quantMin >= *spec.quantMax) {
      PathScope s(path_, "quant_max");
      error("quant_max must be greater than quant_min", "quant_max > " + std::to_string(*spec.quantMin),
            std::to_string(*spec.quantMax));
    }
    if (const json* v = find(q, "qscheme")) {
      PathScope s(path_, "qscheme");
      auto qs = v->is_string() ? parseQScheme(v->get_ref<const std::string&>()) : std::nullopt;
      if (!qs)
        error("unknown qscheme", "per_tensor_affine, per_tensor_symmetric, per_channel_affine or per_channel_symmetric",
              v->dump());
      else spec.qscheme = *qs;
    }
    if (const json* v = find(q, "ch_axis")) {
      PathScope s(path_, "ch_axis");
      spec.chAxis = integer<int32_t>(*v, -64, 64, "an axis");
    }
    if (const json* v = find(q, "block_size")) {
      PathScope s(path_, "block_size");
      if (!v->is_array() || v->empty()) {
        wrongType("a non-empty list of block sizes", *v);
      } else {
        for (size_t i = 0; i < v->size(); ++i) {
          PathScope bs(path_, i);
          if (auto b = integer<int64_t>((*v)[i], 1, INT32_MAX, "a block size (>= 1)")) spec.blockSize.push_back(*b);
        }
      }
    }
    if (const json* v = find(q, "scale")) {
      PathScope s(path_, "scale");
      auto one = [&](const json& x) {
        if (!x.is_number()) {
          wrongType("a positive number", x);
          return;
        }
        double d = x.get<double>();
        if (!(d > 0) || !std::isfinite(d)) {
          error("scales must be positive and finite", "a number > 0", x.dump());
          return;
        }
        spec.scales.push_back(d);
      };
      if (v->is_array()) {
        for (size_t i = 0; i < v->size(); ++i) {
          PathScope is(path_, i);
          one((*v)[i]);
        }
      } else {
        one(*v);
      }
    }
    if (const json* v = find(q, "zero_point")) {
      PathScope s(path_, "zero_point");
      auto one = [&](const json& x) {
        if (auto z = integer<int64_t>(x, kLo, kHi, "an integer zero point")) spec.zeroPoints.push_back(*z);
      };
      if (v->is_array()) {
        for (size_t i = 0; i < v->size(); ++i) {
          PathScope is(path_, i);
          one((*v)[i]);
        }
      } else {
        one(*v);
      }
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
        d.port = p.pointer;
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
  std::unordered_map<std::string, size_t> allNames_;
  std::vector<PendingShared> pending_;
  // Where the value being read lives, for pending shared references.
  uint32_t self_ = 0;
  std::string currentNode_;
  Section section_ = Section::kArgs;
  std::vector<size_t> where_;
};

}  // namespace

GraphReadResult readGraphText(std::string_view text, const std::string& displayName, const GraphReadLimits& limits) {
  GraphReadResult r;
  if (text.size() > limits.maxFileBytes) {
    r.status = Status(StatusCode::kLimitExceeded,
                      displayName + ": the graph is " + std::to_string(text.size()) + " bytes, above the limit of " +
                          std::to_string(limits.maxFileBytes),
                      displayName);
    return r;
  }
  if (size_t at = findExcessiveNesting(text, limits.maxDepth); at != std::string_view::npos) {
    uint32_t line, column;
    lineColumnOf(text, at, line, column);
    r.status = Status(StatusCode::kLimitExceeded,
                      displayName + ":" + std::to_string(line) + ":" + std::to_string(column) +
                          ": JSON nested deeper than " + std::to_string(limits.maxDepth) + " levels",
                      displayName);
    return r;
  }
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    uint32_t line, column;
    lineColumnOf(text, e.byte > 0 ? e.byte - 1 : 0, line, column);
    std::string what = e.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line …: ";
    // keep the part after the position, which says what was expected.
    if (size_t colon = what.find(": ", what.find("parse error")); colon != std::string::npos) what = what.substr(colon + 2);
    r.status = Status(StatusCode::kParseError,
                      displayName + ":" + std::to_string(line) + ":" + std::to_string(column) + ": malformed JSON: " + what,
                      displayName);
    return r;
  }
  Reader reader(displayName, r);
  reader.read(root);
  if (!r.errors.empty()) {
    const Diagnostic& first = r.errors.front();
    r.status = Status(StatusCode::kSchemaError,
                      displayName + ": " + std::to_string(r.errors.size()) + " schema error(s); first: " + first.message +
                          " (expected " + first.expected + ", got " + first.actual + ")",
                      first.port);
    r.graph = Graph();
    return r;
  }
  if (Status st = r.graph.verify(); !st.isOk()) {
    r.status = Status(st.code(), displayName + ": " + st.message(), st.fragment());
    r.graph = Graph();
  }
  return r;
}

GraphReadResult readGraphFile(const std::filesystem::path& path, const GraphReadLimits& limits) {
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
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > limits.maxFileBytes) {
    r.status = Status(StatusCode::kLimitExceeded,
                      name + ": the graph is " + std::to_string(size) + " bytes, above the limit of " +
                          std::to_string(limits.maxFileBytes),
                      name);
    return r;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.status = Status(StatusCode::kIoError, name + ": cannot be read", name);
    return r;
  }
  std::string text;
  if (!ec) text.reserve(size);
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    r.status = Status(StatusCode::kIoError, name + ": read error", name);
    return r;
  }
  if (text.empty()) {
    r.status = Status(StatusCode::kParseError, name + ": the file is empty (expected a JSON graph)", name);
    return r;
  }
  return readGraphText(text, name, limits);
}

}  // namespace qnnrules
