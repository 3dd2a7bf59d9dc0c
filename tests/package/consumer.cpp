// Embeds the installed engine: builds a tiny graph in memory, validates it on HTP SM8650 and
// checks the result; annotates its float twin with an in-memory recipe. Exit 0 when every check
// holds; prints what differs otherwise. What it includes is what an embedder needs: the
// installed headers are those and what they include (tests/layers/check_public_headers.py).
//
//   qnnrules_consumer explicit [GRAPH...]  rules from the package's qnnrules_RULES_DIR
//   qnnrules_consumer discover [GRAPH...]  rules found by the engine itself (run from <prefix>/bin)
// Each GRAPH (an ONNX model, a .pt2 archive) must read and validate with no error: the reader
// modules are found from the installed package, wherever the program runs from.
#include <cstdio>
#include <string>

#include "qnnrules/Engine.h"
#include "qnnrules/annotate/Recipe.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/pipeline/RunReportFormat.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

qnnrules::QuantSpec u8(double scale) {
  qnnrules::QuantSpec q;
  q.dtype = qnnrules::ScalarType::kUInt8;
  q.quantMin = 0;
  q.quantMax = 255;
  q.scales = {scale};
  q.zeroPoints = {0};
  return q;
}

qnnrules::TensorMeta tensor(std::optional<qnnrules::QuantSpec> q) {
  qnnrules::TensorMeta t;
  t.shape = {1, 16};
  t.qspec = std::move(q);
  return t;
}

// x (uint8) -> relu (uint8 in and out) -> mystery (an op no rule covers) -> output; all float
// when not `quantized`.
qnnrules::Graph tinyGraph(bool quantized = true) {
  using namespace qnnrules;
  const std::optional<QuantSpec> q = quantized ? std::optional<QuantSpec>(u8(0.05)) : std::nullopt;
  Graph g;
  g.name = "consumer_tiny";
  Node x;
  x.name = "x";
  x.kind = NodeKind::kInput;
  x.outputs = {tensor(q)};
  uint32_t xi = g.addNode(std::move(x)).value();

  Node relu;
  relu.name = "relu";
  relu.targetId = g.internTarget("aten.relu.default");
  Argument in = Argument::tensorRef(xi);
  in.qspec = q;
  relu.args = {in};
  relu.outputs = {tensor(q)};
  uint32_t ri = g.addNode(std::move(relu)).value();

  Node mystery;
  mystery.name = "mystery";
  mystery.targetId = g.internTarget("aten.qnnrules_consumer_no_such_op.default");
  mystery.args = {Argument::tensorRef(ri)};
  mystery.outputs = {tensor(std::nullopt)};
  uint32_t mi = g.addNode(std::move(mystery)).value();

  Node out;
  out.name = "output";
  out.kind = NodeKind::kOutput;
  Argument list;
  list.kind = Argument::Kind::kList;
  list.list = {Argument::tensorRef(mi)};
  out.args = {list};
  (void)g.addNode(std::move(out)).value();
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "explicit";
  qnnrules::EngineOptions options;
  options.backend = "htp";
  options.soc = "SM8650";
  options.useEnvironment = false;
  if (mode == "explicit") options.builtinRulesDir = CONSUMER_RULES_DIR;

  qnnrules::Engine engine(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "FAIL: engine did not open: %s\n", engine.status().toString().c_str());
    for (const auto& d : engine.loadErrors()) std::fprintf(stderr, "%s", qnnrules::formatText(d).c_str());
    return 1;
  }
  const std::string builtin = engine.searchPath().front().string();
  std::printf("built-in rules: %s\n", builtin.c_str());
  expect(builtin == std::string(CONSUMER_RULES_DIR), "built-in rules are the installed ones (" CONSUMER_RULES_DIR ")");

  qnnrules::Graph graph = tinyGraph();
  expect(graph.verify().isOk(), "the in-memory graph verifies");
  qnnrules::ValidationResult r = engine.validate(graph);
  for (const auto& d : r.diagnostics) std::printf("%s", qnnrules::formatText(d).c_str());
  expect(r.nodesChecked == 2, "two call nodes checked, got " + std::to_string(r.nodesChecked));
  expect(r.errorCount() == 1, "exactly one error, got " + std::to_string(r.errorCount()));
  expect(r.diagnostics.size() == 1 && r.diagnostics[0].node == "mystery" &&
             r.diagnostics[0].code == qnnrules::DiagCode::kNoRule,
         "the one diagnostic is no-rule on node 'mystery'");

  // The same graph through the writer and the (simdjson) reader gives the same result.
  qnnrules::GraphReadResult back = qnnrules::readGraphText(qnnrules::writeGraphText(graph), "consumer_tiny.json");
  expect(back.ok(), "the written graph reads back: " + back.status.message());
  if (back.ok()) {
    qnnrules::ValidationResult r2 = engine.validate(back.graph);
    expect(qnnrules::formatJsonArray(r2.diagnostics) == qnnrules::formatJsonArray(r.diagnostics),
           "same diagnostics after a JSON round trip");
  }

  // The float twin annotated with 8a8w: relu gets specs, unless an in-memory recipe discards it.
  qnnrules::AnnotateOptions annotate;
  annotate.config = "8a8w";
  qnnrules::Graph plain = tinyGraph(false);
  qnnrules::AnnotateResult a = engine.annotate(plain, annotate);
  expect(a.ok() && a.nodesAnnotated == 1, "8a8w annotates relu, got " + std::to_string(a.nodesAnnotated));
  qnnrules::Recipe recipe;
  recipe.discardNodes = {"relu"};
  annotate.recipe = &recipe;
  qnnrules::Graph kept = tinyGraph(false);
  a = engine.annotate(kept, annotate);
  expect(a.ok() && a.nodesAnnotated == 0 && a.nodesDiscarded == 1,
         "the recipe discards relu, got " + std::to_string(a.nodesDiscarded) + " discarded");
  for (int i = 2; i < argc; ++i) {
    qnnrules::GraphReadResult read = qnnrules::readGraphFile(argv[i]);
    expect(read.ok(), std::string(argv[i]) + " reads: " + read.status.message());
    if (!read.ok()) continue;
    qnnrules::RunReport run = engine.run(read.graph, {});
    expect(run.ok() && run.validation.nodesChecked > 0 && run.validation.errorCount() == 0,
           std::string(argv[i]) + " validates with no error");
    expect(qnnrules::runExitCode(run) == 0 && !qnnrules::formatRunText(run).empty(),
           std::string(argv[i]) + " renders a report that exits 0");
    std::printf("%s: %zu node(s), %zu checked, %zu error(s)\n", argv[i], read.graph.nodes().size(),
                run.validation.nodesChecked, run.validation.errorCount());
  }
  std::printf("%s\n", failures ? "consumer: FAILED" : "consumer: ok");
  return failures ? 1 : 0;
}
