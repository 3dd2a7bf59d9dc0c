// Which nodes a backend runs and which fall back to CPU, in how many partitions, and why:
// the result of partitionGraph (Partitioner.h), and its text and JSON forms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/graph/Graph.h"

namespace qnnrules {

enum class Placement : uint8_t {
  kNone,       // graph inputs and outputs: not placed anywhere
  kDelegated,  // runs on the backend, in a partition
  kCpu,        // falls back to CPU
};

enum class NodeRole : uint8_t {
  kBoundary,  // graph input or output node
  kCompute,   // an operator call that does work
  kFollower,  // parameters, constants and plumbing (getitem, structural rules): follow their neighbours
};

// Why a compute node runs on CPU. Names are stable (JSON, tests).
enum class FallbackReason : uint8_t {
  kNone,
  kNoRule,         // no rule covers the op
  kUnsupported,    // a rule declares the op unsupported on this backend
  kArchGate,       // no variant of the rule (or of the node's annotation) is available on the SoC
  kConstraint,     // the node violates its rule's required constraints
  kDynamicShape,   // the lowering path needs static shapes and one of the node's is known only at run time
  kLoweringCheck,  // the lowering path refuses this form of the op itself (its cpu_forms), before asking the backend
  kBackendPolicy,  // the backend keeps it on CPU by design (LPAI graph-input Q, graph-output DQ)
  kFollowsCpu,     // plumbing whose producer runs on CPU
};
std::string_view fallbackReasonName(FallbackReason r);  // "no-rule", "unsupported", "arch-gate", ...

struct NodeDelegation {
  Placement placement = Placement::kNone;
  NodeRole role = NodeRole::kBoundary;
  int32_t partition = -1;                  // index into DelegationReport::partitions
  FallbackReason reason = FallbackReason::kNone;
  bool invalid = false;                    // has validation errors (warn mode may still delegate it)
};

struct Partition {
  std::vector<uint32_t> nodes;  // graph order; followers (parameters, getitem) included
  size_t computeNodes = 0;      // the size reported: operator calls only
};

// A compute node on CPU with the diagnostic that put it there.
struct Fallback {
  uint32_t node = 0;
  FallbackReason reason = FallbackReason::kNone;
  std::optional<DiagCode> code;  // the validator's code; none for backend policy / follows-cpu
  std::string message;
  std::string ruleId;
  SourceMark mark;
  std::string hint;
};

// The node whose refusal makes the lowering path fail the whole session (ONNX Runtime's QNN
// EP after laying a node out as NHWC), and why.
struct SessionFailure {
  uint32_t node = 0;
  std::string message;  // what the path does (the lowering file's sentence)
  std::string cause;    // why the backend refuses the node (its fallback message), or what the path fails on
  bool byPath = false;  // the path itself fails (a cpu form's lowering_fails, parameter_dequantize)
  std::string ruleId;
  SourceMark mark;      // the lowering file's session_failure entry
};

struct DelegationReport {
  std::string backend;
  std::string lowering;                  // the lowering path's name ("" when none)
  bool strict = true;                    // strict: nodes that fail validation fall back
  std::vector<NodeDelegation> nodes;     // parallel to Graph::nodes()
  std::vector<Partition> partitions;     // ordered by first node
  std::vector<Fallback> fallbacks;       // compute nodes on CPU, graph order
  // Boundary conversions the backend leaves to CPU in an annotated graph (LPAI: quantize of
  // each quantized graph input, dequantize of each quantized graph output): node and sentence.
  std::vector<std::pair<uint32_t, std::string>> cpuConversions;
  // Call nodes left out before partitioning (passes/Prune.h): dead ones (no graph output
  // needs them) and constant ones (no graph input reaches them; static tensors for their users).
  std::vector<uint32_t> deadNodes;
  std::vector<uint32_t> constantNodes;
  std::vector<uint32_t> noOpNodes;  // conversions to the dtype they have: removed by the lowering
  size_t computeNodes = 0;
  size_t delegatedComputeNodes = 0;
  size_t invalidDelegatedNodes = 0;      // delegated although validation failed (no longer happens: kept for the JSON)
  // Set when the lowering path will not create a session for this graph.
  std::optional<SessionFailure> sessionFailure;

  bool fullDelegationRequired = false;
  // Why full delegation fails (empty = satisfied or not required): one sentence each.
  std::vector<std::string> fullDelegationProblems;
  std::vector<uint32_t> fullDelegationOffenders;  // compute nodes on CPU that break it

  bool ok() const { return fullDelegationProblems.empty(); }
};

// "delegation to lpai (strict mode): 7 of 8 compute node(s) delegated in 2 partition(s), 1 on CPU"
std::string delegationSummaryLine(const DelegationReport& report);
// That line, a table of partitions and fallback nodes, then the full-delegation verdict:
//   delegation to lpai: 7 of 8 compute nodes delegated in 2 partitions, 1 on CPU
//     partition  nodes  first .. last
//     ...
std::string formatDelegationText(const Graph& graph, const DelegationReport& report);
// One JSON object: counts, partitions (node names), fallbacks (node, op, reason, code, ...),
// full_delegation {required, ok, problems, offenders}.
std::string formatDelegationJson(const Graph& graph, const DelegationReport& report, int level = 0);
// The same object written into `w` at its current position (a report written in one pass).
void writeDelegationJson(JsonWriter& w, const Graph& graph, const DelegationReport& report);

}  // namespace qnnrules
