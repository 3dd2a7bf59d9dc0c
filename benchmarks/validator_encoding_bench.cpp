// Validation throughput by weight encoding: chains of linear layers whose weights are
// calibrated per tensor, per channel or block-wise (LPBQ). A weight with many zero points must
// cost about as much as a per-tensor one: the range of its zero points is recorded when the
// spec is filled (as the graph reader and the QDQ fold do), so validation never walks them.
// The "Unrecorded" case is a spec built in memory without that record: validation falls back
// to one pass over its zero points per tensor.
//
//   ./build/benchmarks/validator_encoding_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "qnnrules/Engine.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/validate/Validator.h"

namespace {

using namespace qnnrules;

constexpr int kOutFeatures = 256;
constexpr int kBlocksPerRow = 4;  // in_features 256, block size 64

enum class WeightKind { kPerTensor, kPerChannel, kBlockwise };
enum class ZeroPoints { kRecorded, kUnrecorded };

// A float32 output of this shape, annotated with `q` when given.
TensorMeta tensor(std::vector<int64_t> shape, OptionalBox<QuantSpec> q = std::nullopt) {
  TensorMeta m;
  m.shape = std::move(shape);
  m.qspec = std::move(q);
  return m;
}

QuantSpec act16() {
  QuantSpec s;
  s.dtype = ScalarType::kUInt16;
  s.quantMin = 0;
  s.quantMax = 65535;
  s.scales = {0.001};
  s.zeroPoints = {0};
  return s;
}

QuantSpec weight(WeightKind kind, ZeroPoints zps) {
  QuantSpec s;
  s.dtype = ScalarType::kInt8;
  if (kind == WeightKind::kPerTensor) {
    s.quantMin = -127;
    s.quantMax = 127;
    s.qscheme = QScheme::kPerTensorSymmetric;
    s.scales = {0.01};
    s.zeroPoints = {0};
    return s;
  }
  s.qscheme = QScheme::kPerChannelSymmetric;
  s.chAxis = 0;
  size_t n = kOutFeatures;
  if (kind == WeightKind::kBlockwise) {
    s.quantMin = -8;
    s.quantMax = 7;
    s.blockSize = {1, 64};
    n *= kBlocksPerRow;
  } else {
    s.quantMin = -127;
    s.quantMax = 127;
  }
  s.scales.assign(n, 0.01);
  s.zeroPoints.assign(n, 0);
  if (zps == ZeroPoints::kRecorded) recordZeroPointRange(s);
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

Graph makeGraph(int layers, WeightKind kind, ZeroPoints zps) {
  Graph g;
  Node x;
  x.name = "x";
  x.kind = NodeKind::kInput;
  x.outputs.push_back(tensor({1, kOutFeatures}, act16()));
  uint32_t prev = add(g, std::move(x));
  const uint32_t target = g.internTarget("aten.linear.default");
  for (int i = 0; i < layers; ++i) {
    const std::string id = std::to_string(i);
    Node w;
    w.name = "w" + id;
    w.kind = NodeKind::kParameter;
    w.outputs.push_back(tensor({kOutFeatures, kOutFeatures}));
    const uint32_t wi = add(g, std::move(w));
    Node fc;
    fc.name = "fc" + id;
    fc.targetId = target;
    Argument in = Argument::tensorRef(prev);
    in.qspec = act16();
    Argument wt = Argument::tensorRef(wi);
    wt.qspec = weight(kind, zps);
    fc.args = {in, wt};
    fc.outputs.push_back(tensor({1, kOutFeatures}, act16()));
    prev = add(g, std::move(fc));
  }
  return g;
}

const Engine& engine() {
  static const Engine* e = [] {
    EngineOptions o;
    o.builtinRulesDir = QNNRULES_SOURCE_DIR "/rules";
    o.useEnvironment = false;
    o.soc = "SM8650";  // V75: the block-wise variant (V69+) is available
    auto* eng = new Engine(o);
    if (!eng->ok()) {
      std::fprintf(stderr, "engine: %s\n", eng->status().toString().c_str());
      std::abort();
    }
    return eng;
  }();
  return *e;
}

void run(benchmark::State& state, WeightKind kind, ZeroPoints zps = ZeroPoints::kRecorded) {
  const Graph g = makeGraph(static_cast<int>(state.range(0)), kind, zps);
  const Engine& e = engine();
  size_t ops = 0, problems = 0;
  for (auto _ : state) {
    // The validator alone: Engine::validate also runs the numeric checks (passes/), which
    // look at every scale once per tensor whatever the rules say.
    ValidationResult r = validateGraph(g, e.rules(), e.soc());
    ops = r.nodesChecked;
    problems = r.diagnostics.size();
    benchmark::DoNotOptimize(r);
  }
  if (problems != 0) state.SkipWithError("the synthetic graph should validate clean");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * ops));
  state.counters["op_nodes"] = static_cast<double>(ops);
}

void BM_PerTensorWeights(benchmark::State& s) { run(s, WeightKind::kPerTensor); }
void BM_PerChannelWeights(benchmark::State& s) { run(s, WeightKind::kPerChannel); }
void BM_BlockwiseWeights(benchmark::State& s) { run(s, WeightKind::kBlockwise); }
void BM_BlockwiseWeightsUnrecorded(benchmark::State& s) { run(s, WeightKind::kBlockwise, ZeroPoints::kUnrecorded); }
BENCHMARK(BM_PerTensorWeights)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PerChannelWeights)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockwiseWeights)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockwiseWeightsUnrecorded)->Arg(5000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
