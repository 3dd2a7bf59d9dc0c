// The first stage of every run and of Engine::annotate, in one place so both see the same graph:
// a Q/DQ graph's Q/DQ nodes folded into port encodings (passes/QdqFold.h), then an ONNX model's
// ops bound to the rules (io/OnnxBinding.h). What they learn is recorded on the graph
// (Graph::source, Graph::qdqFolded), so later steps read the graph, not what the run did.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/Status.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules::detail {

// The graph as the passes change it: the caller's graph is borrowed until a pass needs to
// change it (fold, ONNX binding, annotation), then copied once; a graph read from a file is
// owned from the start and never copied.
class WorkingGraph {
 public:
  explicit WorkingGraph(const Graph& borrowed) : borrowed_(&borrowed) {}
  explicit WorkingGraph(Graph&& owned) : owned_(std::move(owned)) {}

  const Graph& get() const { return owned_ ? *owned_ : *borrowed_; }
  Graph& mutate() {
    if (!owned_) owned_ = *borrowed_;
    return *owned_;
  }
  void replace(Graph&& g) { owned_ = std::move(g); }
  bool changed() const { return owned_.has_value(); }
  Graph take() { return owned_ ? std::move(*owned_) : *borrowed_; }
  std::shared_ptr<const Graph> share() {
    if (owned_) return std::make_shared<const Graph>(std::move(*owned_));
    return std::shared_ptr<const Graph>(std::shared_ptr<const Graph>(), borrowed_);  // aliasing, no ownership
  }

 private:
  const Graph* borrowed_ = nullptr;
  std::optional<Graph> owned_;
};

struct IntakeResult {
  Status status;                 // not ok: the fold refused the graph (diagnostics say where)
  DiagnosticList diagnostics;    // the fold's findings
  size_t qdqNodesFolded = 0;     // quantize + dequantize nodes folded
  std::vector<std::string> nonFiniteScaleProducers;  // QdqFoldResult::nonFiniteScaleProducers
};

IntakeResult intakeGraph(WorkingGraph& graph, const RuleSet& rules);

}  // namespace qnnrules::detail
