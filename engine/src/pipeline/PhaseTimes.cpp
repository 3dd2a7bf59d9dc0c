#include "qnnrules/pipeline/PhaseTimes.h"

#include <iterator>

namespace qnnrules {

namespace {

struct PhaseNames {
  std::string_view text;  // "rule load"
  std::string_view key;   // "rule_load"
};

// Indexed by Phase.
constexpr PhaseNames kNames[] = {
    {"rule load", "rule_load"}, {"read", "read"},           {"fold", "fold"},
    {"annotate", "annotate"},   {"validate", "validate"},   {"partition", "partition"},
    {"encodings", "encodings"}, {"report", "report"},
};
static_assert(std::size(kNames) == static_cast<size_t>(Phase::kCount));

}  // namespace

std::string_view phaseName(Phase p) { return p < Phase::kCount ? kNames[static_cast<size_t>(p)].text : "?"; }
std::string_view phaseKey(Phase p) { return p < Phase::kCount ? kNames[static_cast<size_t>(p)].key : "?"; }

PhaseTime PhaseTimes::total() const {
  PhaseTime t;
  for (const PhaseTime& p : phases) {
    if (!p.ran) continue;
    t.wallMs += p.wallMs;
    t.cpuMs += p.cpuMs;
    t.ran = true;
  }
  return t;
}

void PhaseTimer::stop() {
  if (!slot_) return;
  const auto wall = std::chrono::steady_clock::now() - wall_;
  slot_->wallMs += std::chrono::duration<double, std::milli>(wall).count();
  slot_->cpuMs += 1000.0 * static_cast<double>(std::clock() - cpu_) / CLOCKS_PER_SEC;
  slot_->ran = true;
  slot_ = nullptr;
}

}  // namespace qnnrules
