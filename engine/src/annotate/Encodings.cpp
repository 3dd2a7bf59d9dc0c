#include "qnnrules/annotate/Encodings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "qnnrules/annotate/Annotator.h"
#include "qnnrules/core/JsonWriter.h"
#include "qnnrules/facts/GraphFacts.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {
namespace {

// One annotated port: an output, or an input edge.
struct Port {
  const QuantSpec* spec = nullptr;
  TensorRef tensor;              // the tensor it carries (edges: the producer's output)
  uint32_t consumer = UINT32_MAX;  // edges only
  size_t arg = 0;                // edges only: argument position
};

struct Range {
  std::vector<double> lo, hi;
  int axis = -1;
  int64_t blocks = 0;
  bool known = false;
};

class Encoder {
 public:
  Encoder(const GraphFacts& facts, const EncodeOptions& o, EncodingsResult& r)
      : g_(facts.graph()), facts_(facts), opt_(o), r_(r) {}

  void run();

 private:
  const QuantSpec* edgeSpec(const SharedRef& edge) const;
  const QuantSpec* resolve(const QuantSpec* s) const;
  // The declared output a tensor reference reads, or nullptr when the producer declares fewer.
  const TensorMeta* meta(const TensorRef& t) const {
    const Node& n = g_.node(t.node);
    return t.output < n.outputs.size() ? &n.outputs[t.output] : nullptr;
  }
  void unite(Range& into, const TensorStats& s) const;
  bool observe(const QuantSpec& spec, const Range& range, TensorEncoding& e, std::string& why) const;
  std::string tensorName(const TensorRef& t) const {
    const Node& n = g_.node(t.node);
    return t.output == 0 ? n.name : n.name + ":" + std::to_string(t.output);
  }
  void missingStats(const Port& p, const std::string& why);

  // The steps of run(), in order.
  void collectPorts();
  void groupPorts();
  void findDerivedBiases();
  void findRuleFixedScales();
  struct Group;
  Group& compute(const QuantSpec* root);
  void deriveBiases();
  void writeEntries();

  const Graph& g_;
  const GraphFacts& facts_;
  const EncodeOptions& opt_;
  EncodingsResult& r_;

  // Every annotated port, in graph order.
  std::vector<Port> ports_;
  // Shared groups: ports by their root spec, with the union of their tensors' ranges.
  struct Group {
    std::vector<size_t> members;
    Range range;
    TensorEncoding enc;
    bool done = false, failed = false;
  };
  std::unordered_map<const QuantSpec*, Group> groups_;
  std::vector<const QuantSpec*> order_;
  // Conv biases are derived from their input and weight encodings, never observed.
  struct Bias {
    const QuantSpec* bias;
    const QuantSpec* input;
    const QuantSpec* weight;
  };
  std::vector<Bias> biases_;
  std::unordered_set<const QuantSpec*> biasRoots_;
  // Ports whose rule fixes the scale (sigmoid's 8-bit output: 1/256): the lowering uses the
  // rule's value, so an observed range is never written for them.
  std::unordered_map<const QuantSpec*, std::pair<const Rule*, const PortConstraint*>> fixedByRule_;
};

const QuantSpec* Encoder::edgeSpec(const SharedRef& edge) const {
  const Argument* found = edgeArgument(g_, edge);
  if (found && found->qspec) return &*found->qspec;
  const Node& p = g_.node(edge.node);
  uint32_t out = found ? found->tensor.output : 0;
  return out < p.outputs.size() && p.outputs[out].qspec ? &*p.outputs[out].qspec : nullptr;
}

// The concrete spec at the end of a shared chain (nullptr on a dead end or a cycle), from the
// run's one resolver.
const QuantSpec* Encoder::resolve(const QuantSpec* s) const {
  const Resolved r = facts_.roots().resolve(s);
  return r.how == Resolution::kConcrete ? r.root : nullptr;
}

void Encoder::unite(Range& into, const TensorStats& s) const {
  if (!into.known) {
    into.lo = s.min;
    into.hi = s.max;
    into.axis = s.axis;
    into.blocks = s.blocks;
    into.known = true;
    return;
  }
  if (into.lo.size() == s.min.size() && into.axis == s.axis) {
    for (size_t i = 0; i < s.min.size(); ++i) {
      into.lo[i] = std::min(into.lo[i], s.min[i]);
      into.hi[i] = std::max(into.hi[i], s.max[i]);
    }
    return;
  }
  // Different granularity: fold both to one per-tensor range.
  double lo = *std::min_element(into.lo.begin(), into.lo.end());
  double hi = *std::max_element(into.hi.begin(), into.hi.end());
  lo = std::min(lo, *std::min_element(s.min.begin(), s.min.end()));
  hi = std::max(hi, *std::max_element(s.max.begin(), s.max.end()));
  into.lo = {lo};
  into.hi = {hi};
  into.axis = -1;
  into.blocks = 0;
}

// MinMax observer arithmetic (torch.ao.quantization.observer._calculate_qparams): the range
// always includes 0; symmetric uses the larger magnitude over half the levels, with zero
// point 0 for signed and the mid code for unsigned containers; scales are floored at eps.
bool Encoder::observe(const QuantSpec& spec, const Range& range, TensorEncoding& e, std::string& why) const {
  const PortType pt = portTypeOf(spec);
  // Without quant_min/quant_max the dtype's full range (as portTypeOf reads the spec).
  const QuantRange full = fullQuantRange(spec.dtype);
  const double qmin = static_cast<double>(spec.quantMin.value_or(full.min));
  const double qmax = static_cast<double>(spec.quantMax.value_or(full.max));
  const bool sym = isSymmetric(spec.qscheme);
  const double eps = pt.bitwidth <= 8 ? opt_.eps8 : opt_.eps16;
  auto one = [&](double lo, double hi, double floor, double& scale, int64_t& zp) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
    if (sym) {
      scale = std::max(std::max(-lo, hi) / ((qmax - qmin) / 2), floor);
      zp = qmin < 0 ? 0 : static_cast<int64_t>((qmin + qmax + 1) / 2);
    } else {
      scale = std::max((hi - lo) / (qmax - qmin), floor);
      zp = static_cast<int64_t>(std::clamp(qmin - std::nearbyint(lo / scale), qmin, qmax));
    }
  };
  if (!spec.blockSize.empty()) {
    if (range.blocks <= 0) {
      why = "block-wise weights need per-block statistics (stats.blocks)";
      return false;
    }
    const size_t blocks = static_cast<size_t>(range.blocks);
    if (range.lo.size() < blocks || range.lo.size() % blocks != 0) {
      why = "the statistics have " + std::to_string(range.lo.size()) + " min/max values, not a whole number of channels of " +
            std::to_string(blocks) + " blocks (stats.blocks)";
      return false;
    }
    const size_t channels = range.lo.size() / blocks;
    e.blockSize = spec.blockSize.toVector();
    e.blockScaleBitwidth = 4;
    e.axis = spec.chAxis.value_or(0);
    for (size_t c = 0; c < channels; ++c) {
      std::vector<double> bs(static_cast<size_t>(range.blocks));
      double top = 0;
      for (size_t b = 0; b < bs.size(); ++b) {
        int64_t unused = 0;
        const size_t i = c * bs.size() + b;
        one(range.lo[i], range.hi[i], opt_.blockEps, bs[b], unused);
        top = std::max(top, bs[b]);
      }
      const double channelScale = top / opt_.blockSteps;
      std::vector<uint8_t> ints;
      for (double s : bs)
        ints.push_back(static_cast<uint8_t>(std::clamp(std::nearbyint(s / channelScale), 1.0, 16.0)));
      e.scales.push_back(channelScale);
      e.offsets.push_back(0);
      e.blockScales.push_back(std::move(ints));
    }
    return true;
  }
  if (isPerChannel(spec.qscheme)) {
    if (range.axis < 0 || range.axis != spec.chAxis.value_or(0)) {
      why = "per-channel weights need per-channel statistics along axis " + std::to_string(spec.chAxis.value_or(0));
      return false;
    }
    e.axis = range.axis;
  } else if (range.lo.size() != 1 || range.axis >= 0) {
    // Per-tensor encoding from finer statistics: the overall range.
    Range folded;
    TensorStats s{range.lo, range.hi, range.axis, range.blocks};
    unite(folded, s);
    Range whole;
    whole.known = true;
    whole.lo = {*std::min_element(folded.lo.begin(), folded.lo.end())};
    whole.hi = {*std::max_element(folded.hi.begin(), folded.hi.end())};
    return observe(spec, whole, e, why);
  }
  for (size_t i = 0; i < range.lo.size(); ++i) {
    double scale = 0;
    int64_t zp = 0;
    one(range.lo[i], range.hi[i], eps, scale, zp);
    e.scales.push_back(scale);
    e.offsets.push_back(-zp);
  }
  return true;
}

void Encoder::missingStats(const Port& p, const std::string& why) {
  Diagnostic d;
  d.severity = Severity::kWarning;
  d.code = DiagCode::kNoStatistics;
  const Node& n = g_.node(p.consumer != UINT32_MAX ? p.consumer : p.tensor.node);
  d.node = n.name;
  d.op = std::string(g_.target(n));
  d.port = p.consumer != UINT32_MAX ? "in[" + std::to_string(p.arg) + "]" : "out[" + std::to_string(p.tensor.output) + "]";
  d.message = "no encoding for tensor '" + tensorName(p.tensor) + "': " + why + ".";
  d.hint = "record min/max statistics for it in the graph (docs/graph-format.md, Statistics)";
  r_.diagnostics.push_back(std::move(d));
}

void Encoder::run() {
  collectPorts();
  groupPorts();
  findDerivedBiases();
  findRuleFixedScales();
  for (const QuantSpec* root : order_)
    if (!biasRoots_.count(root)) compute(root);
  deriveBiases();
  writeEntries();
}

void Encoder::collectPorts() {
  for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
    const Node& n = g_.node(i);
    for (size_t a = 0; a < n.args.size(); ++a) {
      auto add = [&](const Argument& x) {
        if (x.kind == Argument::Kind::kTensor && x.qspec) ports_.push_back({&*x.qspec, x.tensor, i, a});
      };
      add(n.args[a]);
      for (const Argument& e : n.args[a].list) add(e);
    }
    for (uint32_t o = 0; o < n.outputs.size(); ++o)
      if (n.outputs[o].qspec) ports_.push_back({&*n.outputs[o].qspec, TensorRef{i, o}, UINT32_MAX, 0});
  }
}

void Encoder::groupPorts() {
  for (size_t k = 0; k < ports_.size(); ++k) {
    const QuantSpec* root = resolve(ports_[k].spec);
    if (!root || isFloatType(root->dtype)) continue;
    auto [it, fresh] = groups_.try_emplace(root);
    if (fresh) order_.push_back(root);
    it->second.members.push_back(k);
    const TensorMeta* m = meta(ports_[k].tensor);
    if (m && m->stats) unite(it->second.range, *m->stats);
  }
}

void Encoder::findDerivedBiases() {
  for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
    const Node& n = g_.node(i);
    const Rule* rule = facts_.ruleOf(n);
    if (!rule || rule->pattern != AnnotationPattern::kConv) continue;
    const size_t w = static_cast<size_t>(convWeightArg(*rule)), b = static_cast<size_t>(convBiasArg(*rule));
    auto specAt = [&](size_t a) -> const QuantSpec* {
      return a < n.args.size() && n.args[a].kind == Argument::Kind::kTensor && n.args[a].qspec
                 ? resolve(&*n.args[a].qspec) : nullptr;
    };
    if (const QuantSpec* bs = specAt(b); bs && !isFloatType(bs->dtype) && !bs->scales.size())
      if (biasRoots_.insert(bs).second) biases_.push_back({bs, specAt(0), specAt(w)});
  }
}

void Encoder::findRuleFixedScales() {
  for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
    const Node& n = g_.node(i);
    const Rule* rule = facts_.ruleOf(n);
    if (!rule || rule->kind != RuleKind::kOp) continue;
    for (size_t p = 0; p < rule->ports.size(); ++p) {
      const PortDecl& decl = rule->ports[p];
      const QuantSpec* spec = nullptr;
      if (!decl.isInput && static_cast<size_t>(decl.index) < n.outputs.size() && n.outputs[decl.index].qspec)
        spec = resolve(&*n.outputs[decl.index].qspec);
      else if (decl.isInput && !decl.variadic && static_cast<size_t>(decl.index) < n.args.size() &&
               n.args[decl.index].kind == Argument::Kind::kTensor)
        spec = resolve(edgeSpec(SharedRef{SharedRef::Kind::kEdge, n.args[decl.index].tensor.node, 0, i}));
      if (!spec || isFloatType(spec->dtype) || !spec->scales.empty()) continue;
      const QnnDatatype dt = portTypeOf(*spec).datatype;
      for (const Variant& v : rule->variants)
        if (v.ports[p].scale && v.ports[p].datatypes.contains(dt)) fixedByRule_.try_emplace(spec, rule, &v.ports[p]);
    }
  }
}

// The encoding of one shared group: given (fixed qparams, calibrated), fixed by its rule, or
// observed from the union of its tensors' statistics.
Encoder::Group& Encoder::compute(const QuantSpec* root) {
  Group& gr = groups_[root];
  if (gr.done) return gr;
  gr.done = true;
  const PortType pt = portTypeOf(*root);
  gr.enc.datatype = pt.datatype;
  gr.enc.bitwidth = pt.bitwidth;
  gr.enc.encoding = *pt.encoding;
  if (!root->scales.empty()) {  // fixed qparams, or calibrated already
    gr.enc.scales = root->scales.toVector();
    for (size_t i = 0; i < root->scales.size(); ++i)
      gr.enc.offsets.push_back(-(root->zeroPoints.empty() ? 0 : root->zeroPoints[std::min(i, root->zeroPoints.size() - 1)]));
    if (isPerChannel(root->qscheme)) gr.enc.axis = root->chAxis.value_or(0);
    gr.enc.source = "fixed";
    ++r_.computed;
    return gr;
  }
  if (auto f = fixedByRule_.find(root); f != fixedByRule_.end()) {
    const auto [rule, c] = f->second;
    gr.enc.scales = {*c->scale};
    gr.enc.offsets = {c->offset.value_or(0)};
    gr.enc.source = "fixed by rule " + rule->id;
    ++r_.computed;
    return gr;
  }
  std::string why = "no min/max statistics";
  if (gr.range.known && observe(*root, gr.range, gr.enc, why)) {
    gr.enc.source = gr.members.size() > 1 ? "observed, shared by " + std::to_string(gr.members.size()) + " ports"
                                          : "observed";
    ++r_.computed;
  } else {
    gr.failed = true;
    missingStats(ports_[gr.members.front()], why);
  }
  return gr;
}

void Encoder::deriveBiases() {
  for (const Bias& b : biases_) {
    Group& gr = groups_[b.bias];
    if (gr.done) continue;
    gr.done = true;
    const PortType pt = portTypeOf(*b.bias);
    gr.enc.datatype = pt.datatype;
    gr.enc.bitwidth = pt.bitwidth;
    // A bias sharing its own input's or weight's encoding (an edge shared with the bias edge)
    // cannot be derived from it: that would be a bias scale derived from itself.
    const bool selfDerived = b.input == b.bias || b.weight == b.bias || biasRoots_.count(b.input) ||
                             biasRoots_.count(b.weight);
    auto usable = [&](const QuantSpec* s) {
      auto it = groups_.find(s);
      return it != groups_.end() && !it->second.failed;
    };
    if (!b.input || !b.weight || selfDerived || !usable(b.input) || !usable(b.weight)) {
      gr.failed = true;
      missingStats(ports_[gr.members.front()], selfDerived ? "it shares the encoding of its own input or weight"
                                                           : "its input or weight has no encoding to derive it from");
      continue;
    }
    const TensorEncoding& in = compute(b.input).enc;
    const TensorEncoding& w = compute(b.weight).enc;
    if (in.scales.empty() || w.scales.empty()) {
      gr.failed = true;
      missingStats(ports_[gr.members.front()], "its input or weight has no encoding to derive it from");
      continue;
    }
    for (double ws : w.scales) {
      gr.enc.scales.push_back(in.scales.front() * ws);
      gr.enc.offsets.push_back(0);
    }
    gr.enc.axis = w.scales.size() > 1 ? 0 : -1;
    gr.enc.encoding = gr.enc.axis >= 0 ? Encoding::kAxisScaleOffset : Encoding::kScaleOffset;
    gr.enc.source = "derived bias: input scale x weight scale";
    ++r_.computed;
  }
}

// One entry per tensor: outputs under the node's name, edges under the producer's name when
// the producer has no encoding of its own, else as "producer->consumer".
void Encoder::writeEntries() {
  std::map<std::string, bool> named;
  for (const Port& p : ports_) {
    const QuantSpec* root = resolve(p.spec);
    if (!root || isFloatType(root->dtype)) continue;
    Group& gr = groups_[root];
    if (gr.failed || !gr.done) continue;
    std::string name = tensorName(p.tensor);
    if (p.consumer != UINT32_MAX) {
      const TensorMeta* m = meta(p.tensor);
      const QuantSpec* own = m && m->qspec ? resolve(&*m->qspec) : nullptr;
      if (own == root) continue;  // the producer's output entry covers it
      if (own || named.count(name)) name += "->" + g_.node(p.consumer).name;
    }
    if (named.count(name)) continue;
    named[name] = true;
    TensorEncoding e = gr.enc;
    e.tensor = name;
    r_.tensors.push_back(std::move(e));
  }
}

}  // namespace

EncodingsResult computeEncodings(const Graph& graph, const RuleSet& rules, const EncodeOptions& options) {
  const GraphFacts facts(graph, rules);
  return computeEncodings(facts, options);
}

EncodingsResult computeEncodings(const GraphFacts& facts, const EncodeOptions& options) {
  EncodingsResult r;
  Encoder(facts, options, r).run();
  return r;
}

std::string encodingsToJson(const EncodingsResult& result, const std::string& graphName, const std::string& config,
                            bool qat) {
  // Streamed (core/JsonWriter.h), not built as a DOM: an ordered_json object finds each new key
  // by a linear search, which made 80,000 tensors take 15 s. Tensor names are unique (run()).
  std::string out;
  JsonWriter w(out, 1);
  w.beginObject();
  w.field("version", int64_t{1});
  w.field("graph", graphName);
  if (!config.empty()) w.field("config", config);
  w.field("qat", qat);
  w.key("tensors");
  w.beginObject();
  auto numbers = [&](std::string_view key, const auto& values) {
    w.key(key);
    w.beginArray();
    for (const auto& v : values) w.value(v);
    w.endArray();
  };
  for (const TensorEncoding& e : result.tensors) {
    w.key(e.tensor);
    w.beginObject();
    w.field("dtype", datatypeName(e.datatype));
    w.field("bitwidth", static_cast<int64_t>(e.bitwidth));
    w.field("encoding", encodingName(e.encoding));
    if (e.axis >= 0) w.field("axis", static_cast<int64_t>(e.axis));
    numbers("scale", e.scales);
    numbers("offset", e.offsets);
    if (!e.blockScales.empty()) {
      w.key("block");
      w.beginObject();
      numbers("block_size", e.blockSize);
      w.field("block_scale_bitwidth", static_cast<int64_t>(e.blockScaleBitwidth));
      w.field("block_scale_storage", "uint8");
      w.key("block_scales");
      w.beginArray();
      for (const std::vector<uint8_t>& channel : e.blockScales) {
        w.beginArray();
        for (uint8_t b : channel) w.value(static_cast<uint32_t>(b));
        w.endArray();
      }
      w.endArray();
      w.endObject();
    }
    w.field("source", e.source);
    w.endObject();
  }
  w.endObject();
  w.endObject();
  out += "\n";
  return out;
}

}  // namespace qnnrules
