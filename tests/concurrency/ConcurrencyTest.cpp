// Threads sharing one Engine, and engines loaded at once, must give exactly what one thread
// gets (the property issue 14 measured: no data race). Run under ThreadSanitizer in CI
// (scripts/test.sh, build-tsan), where a race is a report and a failure; in the normal build
// it checks the results agree.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "qnnrules/Engine.h"
#include "qnnrules/annotate/Encodings.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"
#include "qnnrules/model/RuleSet.h"

namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 4;

std::atomic<int> failures{0};

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  ++failures;
}

qnnrules::Graph readExample(const std::string& name) {
  qnnrules::GraphReadResult r = qnnrules::readGraphFile(std::string(QNNRULES_SOURCE_DIR) + "/examples/" + name);
  if (!r.ok()) {
    std::fprintf(stderr, "cannot read %s: %s\n", name.c_str(), r.status.message().c_str());
    std::exit(2);
  }
  return std::move(r.graph);
}

qnnrules::EngineOptions options(const std::string& backend) {
  qnnrules::EngineOptions o;
  o.backend = backend;
  if (backend == "lpai") o.soc = "SM8850";  // the default SoC has no LPAI
  o.useEnvironment = false;
  o.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  return o;
}

// What one analysis says, as text: equal texts mean equal results.
std::string analysisText(const qnnrules::Engine& engine, const qnnrules::Graph& g) {
  qnnrules::GraphAnalysis a = engine.analyze(g);
  return qnnrules::formatJsonArray(a.validation.diagnostics) + a.delegationJson();
}

// Annotating a private copy with the shared engine, then encodings and the written graph.
std::string annotationText(const qnnrules::Engine& engine, qnnrules::Graph g) {
  qnnrules::AnnotateOptions ao;
  ao.config = "16a8w";
  qnnrules::AnnotateResult r = engine.annotate(g, ao);
  if (!r.status.isOk()) return "annotate failed: " + r.status.message();
  qnnrules::EncodingsResult enc = qnnrules::computeEncodings(g, engine.rules());
  return qnnrules::writeGraphText(g) + qnnrules::encodingsToJson(enc, g.name);
}

void sharedEngine() {
  const qnnrules::Engine engine(options("htp"));
  if (!engine.ok()) {
    std::fprintf(stderr, "cannot open the htp engine: %s\n", engine.status().message().c_str());
    std::exit(2);
  }
  const std::vector<qnnrules::Graph> graphs = {readExample("tiny_cnn_8a8w.json"), readExample("violations.json"),
                                               readExample("lpbq_linear.json")};
  std::vector<std::string> analysis, annotation;
  for (const qnnrules::Graph& g : graphs) {
    analysis.push_back(analysisText(engine, g));
    annotation.push_back(annotationText(engine, g));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const size_t k = static_cast<size_t>(t + round) % graphs.size();
        expect(analysisText(engine, graphs[k]) == analysis[k], "thread analysis equals the single-threaded one");
        expect(annotationText(engine, graphs[k]) == annotation[k], "thread annotation equals the single-threaded one");
        expect(engine.validate(graphs[k]).diagnostics.size() == engine.validate(graphs[k]).diagnostics.size(),
               "validate is deterministic");
      }
    });
  for (std::thread& th : threads) th.join();
}

void enginesAtOnce() {
  const std::vector<std::string> backends = {"htp", "lpai", "gpu"};
  std::vector<size_t> rules;
  for (const std::string& b : backends) {
    const qnnrules::Engine engine(options(b));
    if (!engine.ok()) {
      std::fprintf(stderr, "cannot open the %s engine: %s\n", b.c_str(), engine.status().message().c_str());
      std::exit(2);
    }
    rules.push_back(engine.rules().rules().size());
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const size_t k = static_cast<size_t>(t) % backends.size();
      const qnnrules::Engine engine(options(backends[k]));
      expect(engine.ok(), backends[k] + " engine loads in a thread");
      if (engine.ok()) expect(engine.rules().rules().size() == rules[k], backends[k] + " has the same rules in a thread");
    });
  for (std::thread& th : threads) th.join();
}

}  // namespace

int main() {
  sharedEngine();
  enginesAtOnce();
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures.load());
    return 1;
  }
  std::printf("concurrency: %d threads on one engine, %d engines loaded at once: ok\n", kThreads, kThreads);
  return 0;
}
