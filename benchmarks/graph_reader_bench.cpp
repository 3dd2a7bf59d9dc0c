// Graph reading throughput: the same synthetic graph text read with each JSON parser behind
// readGraphText, and each parser alone (parse only, no schema walk), in one run so the
// figures compare as ratios.
//
//   ./build/benchmarks/graph_reader_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <string>

#include "qnnrules/io/GraphReader.h"

namespace {

using namespace qnnrules;

// Blocks of conv -> relu -> view (shared) -> add, annotated 8a8w with calibrated scales,
// shaped like a graph an exporter writes (about 1.2 KB of JSON per block).
std::string makeGraphText(int blocks) {
  const std::string act = R"({"dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine", "scale": 0.0123, "zero_point": 3})";
  const std::string wt = R"({"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_channel_symmetric", "ch_axis": 0, "scale": [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08], "zero_point": [0, 0, 0, 0, 0, 0, 0, 0]})";
  std::string s = R"({"format": "qnnrules-graph", "version": 1, "name": "bench", "nodes": [)";
  s += R"({"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 8, 56, 56], "qspec": )" + act + "}]}";
  std::string prev = "x";
  for (int i = 0; i < blocks; ++i) {
    std::string id = std::to_string(i);
    std::string w = "w" + id, conv = "conv" + id, relu = "relu" + id, view = "view" + id, add = "add" + id;
    s += R"(, {"name": ")" + w + R"(", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [8, 8, 3, 3]}]})";
    s += R"(, {"name": ")" + conv + R"(", "kind": "call", "target": "aten.conv2d.default", "module": "layer)" + id +
         R"(.conv", "args": [{"ref": ")" + prev + R"(", "qspec": )" + act + R"(}, {"ref": ")" + w + R"(", "qspec": )" +
         wt + R"(}, null, [1, 1], [1, 1]], "outputs": [{"dtype": "float32", "shape": [1, 8, 56, 56], "qspec": )" + act + "}]}";
    s += R"(, {"name": ")" + relu + R"(", "kind": "call", "target": "aten.relu.default", "args": [{"ref": ")" + conv +
         R"(", "qspec": {"shared_with": {"node": ")" + conv + R"("}}}], "outputs": [{"dtype": "float32", "shape": [1, 8, 56, 56], "qspec": )" +
         act + "}]}";
    s += R"(, {"name": ")" + view + R"(", "kind": "call", "target": "aten.view.default", "args": [{"ref": ")" + relu +
         R"(", "qspec": {"shared_with": {"node": ")" + relu + R"("}}}, [1, -1]], "outputs": [{"dtype": "float32", "shape": [1, 25088], "qspec": {"shared_with": {"edge": [")" +
         relu + R"(", ")" + view + R"("]}}}]})";
    s += R"(, {"name": ")" + add + R"(", "kind": "call", "target": "aten.add.Tensor", "args": [{"ref": ")" + view +
         R"(", "qspec": )" + act + R"(}, {"ref": ")" + view + R"(", "qspec": )" + act +
         R"(}], "outputs": [{"dtype": "float32", "shape": [1, 25088], "qspec": )" + act + "}]}";
    prev = add;
  }
  s += "]}";
  return s;
}

const std::string& graphText(int blocks) {
  static std::string cached;
  static int cachedBlocks = -1;
  if (cachedBlocks != blocks) {
    cached = makeGraphText(blocks);
    cachedBlocks = blocks;
  }
  return cached;
}

void readWith(benchmark::State& state, JsonParser parser, bool nodeByNode = true) {
  const std::string& text = graphText(static_cast<int>(state.range(0)));
  GraphReadOptions o;
  o.parser = parser;
  o.nodeByNode = nodeByNode;
  size_t nodes = 0;
  for (auto _ : state) {
    GraphReadResult r = readGraphText(text, "bench.json", o);
    if (!r.ok()) {
      state.SkipWithError(r.status.message().c_str());
      return;
    }
    nodes = r.graph.nodes().size();
    benchmark::DoNotOptimize(r.graph);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}

void BM_ReadGraph_Simdjson(benchmark::State& state) { readWith(state, JsonParser::kSimdjson); }
void BM_ReadGraph_Nlohmann(benchmark::State& state) { readWith(state, JsonParser::kNlohmann); }
// simdjson reading the whole document into one DOM rather than node by node (GraphStreamedRead.h).
void BM_ReadGraph_SimdjsonWholeDocument(benchmark::State& state) { readWith(state, JsonParser::kSimdjson, false); }

// The parsers alone: what the schema walk adds on top of each.
void BM_ParseOnly_Simdjson(benchmark::State& state) {
  const std::string& text = graphText(static_cast<int>(state.range(0)));
  simdjson::dom::parser parser;
  for (auto _ : state) {
    simdjson::dom::element root;
    if (parser.parse(text.data(), text.size(), true).get(root) != simdjson::SUCCESS) {
      state.SkipWithError("parse failed");
      return;
    }
    benchmark::DoNotOptimize(root);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_ParseOnly_Nlohmann(benchmark::State& state) {
  const std::string& text = graphText(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    nlohmann::json j = nlohmann::json::parse(text);
    benchmark::DoNotOptimize(j);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

// 20000 blocks ~ 100k nodes, about 25 MB: the size of a large model's export.
BENCHMARK(BM_ReadGraph_Simdjson)->Arg(200)->Arg(20000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadGraph_SimdjsonWholeDocument)->Arg(200)->Arg(20000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadGraph_Nlohmann)->Arg(200)->Arg(20000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseOnly_Simdjson)->Arg(20000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseOnly_Nlohmann)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
