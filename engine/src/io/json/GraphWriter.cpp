#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/core/OutputFile.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "qnnrules/io/GraphReader.h"

namespace qnnrules {
namespace {

using ojson = nlohmann::ordered_json;

class Writer {
 public:
  explicit Writer(const Graph& g) : g_(g) {}

  ojson graph(const GraphWriteOptions& opt) const {
    ojson j;
    j["format"] = "qnnrules-graph";
    j["version"] = 1;
    if (!g_.name.empty()) j["name"] = g_.name;
    ojson nodes = ojson::array();
    for (uint32_t i = 0; i < g_.nodes().size(); ++i) nodes.push_back(node(i));
    j["nodes"] = std::move(nodes);
    if (!opt.annotatedWith.empty())
      j["meta"] = {{"qnnrules", {{"annotated_with", opt.annotatedWith}, {"qat", opt.qat}}}};
    return j;
  }

  ojson node(uint32_t idx) const {
    const Node& n = g_.node(idx);
    ojson j;
    j["name"] = n.name;
    j["kind"] = std::string(nodeKindName(n.kind));
    if (n.kind == NodeKind::kCall) j["target"] = std::string(g_.target(n));
    if (n.sourceId != Node::kNoTarget) j["source_op"] = std::string(g_.sourceOp(n));
    if (std::string_view module = g_.modulePath(n); !module.empty()) j["module"] = std::string(module);
    if (!n.args.empty()) {
      ojson args = ojson::array();
      for (const Argument& a : n.args) args.push_back(value(a, idx));
      j["args"] = std::move(args);
    }
    if (!n.kwargs.empty()) {
      ojson kw = ojson::object();
      for (const auto& [k, v] : n.kwargs) kw[k] = value(v, idx);
      j["kwargs"] = std::move(kw);
    }
    if (!n.outputs.empty()) {
      ojson outs = ojson::array();
      for (const TensorMeta& m : n.outputs) {
        // The reader refuses dimensions below -1 (unknown); such a graph is not written.
        for (int64_t d : m.shape)
          if (d < -1)
            throw std::invalid_argument("node '" + n.name + "' has an output of dimension " + std::to_string(d) +
                                        ", which the graph format cannot hold (a dimension is >= -1)");
        ojson o;
        o["dtype"] = std::string(scalarTypeName(m.dtype));
        o["shape"] = m.shape;
        if (m.runtimeShape) o["runtime_shape"] = true;
        if (m.runtimeValue) o["runtime_value"] = true;
        if (m.qspec) o["qspec"] = spec(*m.qspec);
        if (m.stats) o["stats"] = stats(*m.stats);
        outs.push_back(std::move(o));
      }
      j["outputs"] = std::move(outs);
    }
    return j;
  }

 private:  // a node's parts
  ojson value(const Argument& a, uint32_t consumer) const {
    switch (a.kind) {
      case Argument::Kind::kNone: return nullptr;
      case Argument::Kind::kBool: return a.b;
      case Argument::Kind::kInt: return a.i;
      case Argument::Kind::kFloat: return a.f;
      case Argument::Kind::kString: return a.s;
      case Argument::Kind::kList: {
        ojson l = ojson::array();
        for (const Argument& e : a.list) l.push_back(value(e, consumer));
        return l;
      }
      case Argument::Kind::kNumbers: {
        ojson l = ojson::array();
        for (size_t i = 0; i < a.numberCount(); ++i) {
          if (a.b) l.push_back(static_cast<int64_t>(a.numberAt(i)));
          else l.push_back(a.numberAt(i));
        }
        return l;
      }
      case Argument::Kind::kTensor: {
        ojson r;
        r["ref"] = g_.node(a.tensor.node).name;
        if (a.tensor.output != 0) r["output"] = a.tensor.output;
        if (a.qspec) r["qspec"] = spec(*a.qspec);
        return r;
      }
    }
    return nullptr;
  }

  ojson spec(const QuantSpec& s) const {
    ojson j;
    if (s.sharedWith) {
      const SharedRef& r = *s.sharedWith;
      if (r.kind == SharedRef::Kind::kNodeOutput) {
        ojson ref = {{"node", g_.node(r.node).name}};
        if (r.output != 0) ref["output"] = r.output;
        j["shared_with"] = std::move(ref);
      } else {
        j["shared_with"] = {{"edge", {g_.node(r.node).name, g_.node(r.consumer).name}}};
      }
      return j;
    }
    j["dtype"] = std::string(scalarTypeName(s.dtype));
    if (s.quantMin) j["quant_min"] = *s.quantMin;
    if (s.quantMax) j["quant_max"] = *s.quantMax;
    if (!isFloatType(s.dtype)) j["qscheme"] = std::string(qschemeName(s.qscheme));
    if (s.chAxis) j["ch_axis"] = *s.chAxis;
    if (!s.blockSize.empty()) j["block_size"] = s.blockSize;
    if (s.scales.size() == 1) j["scale"] = s.scales[0];
    else if (!s.scales.empty()) j["scale"] = s.scales;
    if (s.zeroPoints.size() == 1) j["zero_point"] = s.zeroPoints[0];
    else if (!s.zeroPoints.empty()) j["zero_point"] = s.zeroPoints;
    return j;
  }

  static ojson stats(const TensorStats& t) {
    ojson j;
    if (t.min.size() == 1 && t.axis < 0) {
      j["min"] = t.min[0];
      j["max"] = t.max[0];
    } else {
      j["min"] = t.min;
      j["max"] = t.max;
    }
    if (t.axis >= 0) j["axis"] = t.axis;
    if (t.blocks > 0) j["blocks"] = t.blocks;
    return j;
  }

  const Graph& g_;
};

}  // namespace

std::string writeGraphText(const Graph& graph, const GraphWriteOptions& options) {
  return Writer(graph).graph(options).dump(options.indent) + "\n";
}

std::string writeNodeText(const Graph& graph, uint32_t node) { return Writer(graph).node(node).dump(-1); }

Status writeGraphFile(const Graph& graph, const std::filesystem::path& path, const GraphWriteOptions& options) {
  std::string text;
  try {
    text = writeGraphText(graph, options);
  } catch (const std::exception& e) {
    // nlohmann refuses invalid UTF-8 in names; nothing has been written.
    return Status(StatusCode::kInvalidArgument, std::string("cannot serialize the graph: ") + e.what());
  }
  // Nor a file the reader would refuse for its size (round trip: what is written reads back).
  if (const uint64_t limit = GraphReadOptions{}.maxFileBytes; text.size() > limit)
    return Status(StatusCode::kLimitExceeded, "cannot write " + path.string() + ": the graph is " +
                                                  std::to_string(text.size()) + " bytes of JSON, above the limit of " +
                                                  std::to_string(limit) + " a graph file is read with",
                  path.string());
  return saveOutputFile(path, text);
}

}  // namespace qnnrules
