// Rules tested as data: the rule mutation suite (RuleMutator.h) over every built-in backend.
#include <gtest/gtest.h>

#include <iostream>

#include "RuleMutator.h"
#include "qnnrules/load/RuleRegistry.h"

namespace qnnrules {
namespace {

class RuleMutation : public ::testing::TestWithParam<const char*> {};

TEST_P(RuleMutation, EveryVariantPassesAndEveryMutationFailsWithTheRuleId) {
  RegistryOptions o;
  o.builtinDir = QNNRULES_SOURCE_DIR "/rules";
  o.useEnvironment = false;
  RuleRegistry reg(o);
  const BackendLoad& load = reg.backend(GetParam());
  ASSERT_TRUE(load.status.isOk()) << load.status.toString()
                                  << (load.errors.empty() ? "" : "\n" + formatText(load.errors.front()));
  const testing::MutationTally tally = testing::mutateRules(*load.rules);
  const std::string summary = std::string(GetParam()) + ": " + tally.summary();
  RecordProperty("summary", summary);
  std::cout << summary << "\n";
  EXPECT_GT(tally.passing, 0u);
  std::string report;
  for (size_t i = 0; i < tally.failures.size() && i < 40; ++i) report += tally.failures[i] + "\n";
  EXPECT_TRUE(tally.failures.empty()) << tally.failures.size() << " problem(s):\n" << report;
}

INSTANTIATE_TEST_SUITE_P(Builtin, RuleMutation, ::testing::Values("htp", "lpai", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace qnnrules
