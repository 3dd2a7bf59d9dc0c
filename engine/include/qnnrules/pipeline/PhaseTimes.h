// Wall-clock and CPU time of each phase of one run (qnn-validate --time). Recorded per phase,
// never per node, so timing costs a few clock reads per run.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <string_view>

namespace qnnrules {

enum class Phase : uint8_t {
  kRuleLoad,   // opening the engine: rules, SoC table, backend options
  kRead,       // reading the graph file
  kFold,       // folding Q/DQ nodes, binding ONNX ops to the rules
  kAnnotate,   // --annotate
  kValidate,   // pruning, rule checks, quantization-parameter checks
  kPartition,  // delegation report
  kEncodings,  // --encodings
  kReport,     // building the rendered report
  kCount,
};
std::string_view phaseName(Phase p);  // "rule load", "read", "fold", ...
std::string_view phaseKey(Phase p);   // JSON key: "rule_load", "read", "fold", ...

struct PhaseTime {
  double wallMs = 0;
  double cpuMs = 0;
  bool ran = false;  // phases that did not run (no --annotate) are not printed
};

struct PhaseTimes {
  std::array<PhaseTime, static_cast<size_t>(Phase::kCount)> phases{};
  PhaseTime& operator[](Phase p) { return phases[static_cast<size_t>(p)]; }
  const PhaseTime& operator[](Phase p) const { return phases[static_cast<size_t>(p)]; }
  PhaseTime total() const;  // sum of the phases that ran
};

// Adds the time between construction and destruction (or stop()) to one phase.
class PhaseTimer {
 public:
  PhaseTimer(PhaseTimes& times, Phase phase)
      : slot_(&times[phase]), wall_(std::chrono::steady_clock::now()), cpu_(std::clock()) {}
  ~PhaseTimer() { stop(); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  void stop();

 private:
  PhaseTime* slot_;
  std::chrono::steady_clock::time_point wall_;
  std::clock_t cpu_;
};

}  // namespace qnnrules
