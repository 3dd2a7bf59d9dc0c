// The phases of a qnn-validate run, each timed on its own over the public API, on one graph
// file: rule loading, reading, the user index, validation, partitioning, and the text and
// JSON reports. benchmarks/scaling.py runs it on the generated scaling series.
//
//   ./build/benchmarks/phase_bench --graph=FILE [--soc=SM8650] [google benchmark flags]
//
// Without --graph it times examples/tiny_cnn_8a8w.json.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/Engine.h"
#include "qnnrules/delegate/Partitioner.h"
#include "qnnrules/graph/UserIndex.h"
#include "qnnrules/io/GraphReader.h"

namespace {

using namespace qnnrules;

std::string gGraphPath = QNNRULES_SOURCE_DIR "/examples/tiny_cnn_8a8w.json";
std::string gSoc = "SM8650";

EngineOptions engineOptions() {
  EngineOptions o;
  o.builtinRulesDir = QNNRULES_SOURCE_DIR "/rules";
  o.useEnvironment = false;
  o.soc = gSoc;
  return o;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "phase_bench: %s\n", what.c_str());
  std::exit(2);
}

const Engine& engine() {
  static const Engine* e = [] {
    auto* eng = new Engine(engineOptions());
    if (!eng->ok()) fail("engine: " + eng->status().toString());
    return eng;
  }();
  return *e;
}

const Graph& graph() {
  static const Graph* g = [] {
    GraphReadResult r = readGraphFile(gGraphPath);
    if (!r.ok()) fail(r.status.toString());
    return new Graph(std::move(r.graph));
  }();
  return *g;
}

const ValidationResult& validation() {
  static const ValidationResult v = engine().validate(graph());
  return v;
}

void nodesCounter(benchmark::State& state) {
  const auto n = static_cast<int64_t>(graph().nodes().size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
  state.counters["nodes"] = static_cast<double>(n);
}

void BM_LoadRules(benchmark::State& state) {
  for (auto _ : state) {
    Engine e(engineOptions());
    benchmark::DoNotOptimize(e.ok());
  }
}
BENCHMARK(BM_LoadRules)->Unit(benchmark::kMillisecond);

void BM_ReadGraph(benchmark::State& state) {
  graph();
  for (auto _ : state) {
    GraphReadResult r = readGraphFile(gGraphPath);
    benchmark::DoNotOptimize(r.graph.nodes().data());
  }
  nodesCounter(state);
}
BENCHMARK(BM_ReadGraph)->Unit(benchmark::kMillisecond);

void BM_UserIndex(benchmark::State& state) {
  const Graph& g = graph();
  for (auto _ : state) {
    UserIndex users(g);
    benchmark::DoNotOptimize(users.users(0).data());
  }
  nodesCounter(state);
}
BENCHMARK(BM_UserIndex)->Unit(benchmark::kMillisecond);

void BM_Validate(benchmark::State& state) {
  const Graph& g = graph();
  const Engine& e = engine();
  for (auto _ : state) {
    ValidationResult r = e.validate(g);
    benchmark::DoNotOptimize(r.nodesChecked);
  }
  nodesCounter(state);
}
BENCHMARK(BM_Validate)->Unit(benchmark::kMillisecond);

void BM_Partition(benchmark::State& state) {
  const Graph& g = graph();
  const Engine& e = engine();
  const ValidationResult& v = validation();
  const GraphFacts facts(g, e.rules());
  PartitionOptions o;
  o.facts = &facts;
  for (auto _ : state) {
    DelegationReport r = partitionGraph(g, e.rules(), e.soc(), v, o);
    benchmark::DoNotOptimize(r.partitions.data());
  }
  nodesCounter(state);
}
BENCHMARK(BM_Partition)->Unit(benchmark::kMillisecond);

void BM_Analyze(benchmark::State& state) {
  const Graph& g = graph();
  const Engine& e = engine();
  for (auto _ : state) {
    GraphAnalysis a = e.analyze(g);
    benchmark::DoNotOptimize(a.delegation.partitions.data());
  }
  nodesCounter(state);
}
BENCHMARK(BM_Analyze)->Unit(benchmark::kMillisecond);

void BM_ReportText(benchmark::State& state) {
  const GraphAnalysis a = engine().analyze(graph());
  for (auto _ : state) {
    std::string s;
    for (const Diagnostic& d : a.validation.diagnostics) s += formatText(d);
    s += a.delegationText();
    benchmark::DoNotOptimize(s.data());
  }
  nodesCounter(state);
}
BENCHMARK(BM_ReportText)->Unit(benchmark::kMillisecond);

void BM_ReportJson(benchmark::State& state) {
  const GraphAnalysis a = engine().analyze(graph());
  for (auto _ : state) {
    std::string s = formatJsonArray(a.validation.diagnostics);
    s += a.delegationJson();
    benchmark::DoNotOptimize(s.data());
  }
  nodesCounter(state);
}
BENCHMARK(BM_ReportJson)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  // Our own flags first; the rest go to Google Benchmark.
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.starts_with("--graph=")) gGraphPath = std::string(a.substr(8));
    else if (a.starts_with("--soc=")) gSoc = std::string(a.substr(6));
    else rest.push_back(argv[i]);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
