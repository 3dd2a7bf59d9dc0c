// Validation throughput on synthetic graphs built in memory (no parsing), so the figure is
// the per-node cost of rule lookup, port binding, shared-reference resolution and checks.
//
//   ./build/benchmarks/validator_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "qnnrules/Engine.h"
#include "qnnrules/graph/Graph.h"

namespace {

using namespace qnnrules;

// A float32 output of this shape, annotated with `q` when given.
TensorMeta tensor(std::vector<int64_t> shape, OptionalBox<QuantSpec> q = std::nullopt) {
  TensorMeta m;
  m.shape = std::move(shape);
  m.qspec = std::move(q);
  return m;
}

QuantSpec act8(double scale = 0.05) {
  QuantSpec s;
  s.dtype = ScalarType::kUInt8;
  s.quantMin = 0;
  s.quantMax = 255;
  s.scales = {scale};
  s.zeroPoints = {0};
  return s;
}

QuantSpec weight8() {
  QuantSpec s;
  s.dtype = ScalarType::kInt8;
  s.quantMin = -127;
  s.quantMax = 127;
  s.qscheme = QScheme::kPerChannelSymmetric;
  s.chAxis = 0;
  return s;
}

QuantSpec sharedWith(uint32_t node) {
  QuantSpec s;
  s.sharedWith = SharedRef{SharedRef::Kind::kNodeOutput, node, 0, 0};
  return s;
}

uint32_t add(Graph& g, Node n) {
  auto r = g.addNode(std::move(n));
  if (!r.isOk()) {
    std::fprintf(stderr, "addNode: %s\n", r.status().toString().c_str());
    std::abort();
  }
  return *r;
}

// Blocks of conv -> relu -> view (shared) -> add, each fully annotated 8a8w.
Graph makeGraph(int blocks) {
  Graph g;
  Node x;
  x.name = "x";
  x.kind = NodeKind::kInput;
  x.outputs.push_back(tensor({1, 64, 56, 56}, act8()));
  uint32_t prev = add(g, std::move(x));
  for (int i = 0; i < blocks; ++i) {
    std::string id = std::to_string(i);
    Node w;
    w.name = "w" + id;
    w.kind = NodeKind::kParameter;
    w.outputs.push_back(tensor({64, 64, 3, 3}));
    uint32_t wi = add(g, std::move(w));

    Node conv;
    conv.name = "conv" + id;
    conv.targetId = g.internTarget("aten.conv2d.default");
    Argument in = Argument::tensorRef(prev);
    in.qspec = act8();
    Argument wt = Argument::tensorRef(wi);
    wt.qspec = weight8();
    conv.args = {in, wt, Argument{}};
    conv.outputs.push_back(tensor({1, 64, 56, 56}, act8()));
    uint32_t ci = add(g, std::move(conv));

    Node relu;
    relu.name = "relu" + id;
    relu.targetId = g.internTarget("aten.relu.default");
    Argument rin = Argument::tensorRef(ci);
    rin.qspec = act8();
    relu.args = {rin};
    relu.outputs.push_back(tensor({1, 64, 56, 56}, act8()));
    uint32_t ri = add(g, std::move(relu));

    Node view;
    view.name = "view" + id;
    view.targetId = g.internTarget("aten.view.default");
    Argument vin = Argument::tensorRef(ri);
    vin.qspec = sharedWith(ri);
    view.args = {vin, Argument::integer(-1)};
    view.outputs.push_back(tensor({1, 64, 56, 56}, sharedWith(ri)));
    uint32_t vi = add(g, std::move(view));

    Node sum;
    sum.name = "add" + id;
    sum.targetId = g.internTarget("aten.add.Tensor");
    Argument a0 = Argument::tensorRef(vi);
    a0.qspec = act8();
    Argument a1 = Argument::tensorRef(prev);
    a1.qspec = act8();
    sum.args = {a0, a1};
    sum.outputs.push_back(tensor({1, 64, 56, 56}, act8()));
    prev = add(g, std::move(sum));
  }
  return g;
}

const Engine& engine() {
  static const Engine* e = [] {
    EngineOptions o;
    o.builtinRulesDir = QNNRULES_SOURCE_DIR "/rules";
    o.useEnvironment = false;
    o.soc = "SM8650";
    auto* eng = new Engine(o);
    if (!eng->ok()) {
      std::fprintf(stderr, "engine: %s\n", eng->status().toString().c_str());
      std::abort();
    }
    return eng;
  }();
  return *e;
}

void BM_ValidateGraph(benchmark::State& state) {
  Graph g = makeGraph(static_cast<int>(state.range(0)));
  const Engine& e = engine();
  size_t ops = 0;
  for (auto _ : state) {
    ValidationResult r = e.validate(g);
    ops = r.nodesChecked;
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * ops));
  state.counters["op_nodes"] = static_cast<double>(ops);
}
BENCHMARK(BM_ValidateGraph)->Arg(250)->Arg(25000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
