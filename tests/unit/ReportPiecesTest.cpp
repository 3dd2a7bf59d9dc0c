// The pieces the reports are built from: the diagnostic-code table, the verdict, the per-op
// summary, the placement runs and the rule digest.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "BuiltinEngine.h"
#include "TestUtil.h"
#include "qnnrules/core/DiagnosticCodes.h"
#include "qnnrules/report/OpSummary.h"
#include "qnnrules/report/PlacementRuns.h"
#include "qnnrules/report/RuleDigest.h"
#include "qnnrules/report/Verdict.h"

namespace qnnrules {
namespace {

// The codes' numbers and names are a public contract (core/DiagCodes.def): the table lists each
// code once with a meaning, and every number and name is the one tests/golden/diag-codes.txt
// recorded when it was added (a renamed or renumbered code fails here; a new one is appended).
TEST(DiagnosticCodes, TableListsEveryCodeOnceWithItsRecordedNumberAndName) {
  std::set<std::string_view> names;
  std::string listed;
  for (const DiagCodeInfo& i : diagCodeTable()) {
    EXPECT_NE(diagCodeName(i.code), "unknown");
    EXPECT_FALSE(i.meaning.empty()) << diagCodeName(i.code);
    EXPECT_FALSE(i.group.empty()) << diagCodeName(i.code);
    names.insert(diagCodeName(i.code));
    listed += std::to_string(static_cast<unsigned>(i.code)) + " " + std::string(diagCodeName(i.code)) + "\n";
  }
  EXPECT_EQ(names.size(), diagCodeTable().size()) << "a name is listed twice";
  std::ifstream in(std::string(QNNRULES_SOURCE_DIR) + "/tests/golden/diag-codes.txt");
  std::stringstream recorded;
  recorded << in.rdbuf();
  EXPECT_EQ(listed, recorded.str());
}

DelegationReport delegationOf(std::vector<Placement> placements, std::vector<int32_t> partitions) {
  DelegationReport r;
  r.backend = "htp";
  for (size_t i = 0; i < placements.size(); ++i) {
    NodeDelegation n;
    n.role = NodeRole::kCompute;
    n.placement = placements[i];
    n.partition = partitions[i];
    r.nodes.push_back(n);
    ++r.computeNodes;
    r.delegatedComputeNodes += placements[i] == Placement::kDelegated;
  }
  return r;
}

TEST(Verdict, NamesTheCpuShareRoundedUp) {
  constexpr Placement D = Placement::kDelegated, C = Placement::kCpu;
  EXPECT_EQ(judge(false, delegationOf({D, D}, {0, 0})).text(), "VALID");
  EXPECT_EQ(judge(false, delegationOf({D, C, D}, {0, -1, 1})).text(), "VALID WITH CPU FALLBACK 34%");
  std::vector<Placement> many(300, D);
  many[7] = C;
  EXPECT_EQ(judge(false, delegationOf(many, std::vector<int32_t>(300, 0))).text(), "VALID WITH CPU FALLBACK 1%");
  EXPECT_EQ(judge(true, delegationOf({D}, {0})).text(), "INVALID");
  EXPECT_EQ(judge(false, DelegationReport{}).text(), "VALID");  // no compute nodes
}

TEST(PlacementRuns, MergeConsecutiveNodesOfOnePlacement) {
  constexpr Placement D = Placement::kDelegated, C = Placement::kCpu;
  DelegationReport r = delegationOf({D, D, C, C, D, D, D}, {0, 0, -1, -1, 1, 1, 1});
  r.nodes.insert(r.nodes.begin() + 1, NodeDelegation{});  // a boundary node inside the first run
  std::vector<PlacementRun> runs = placementRuns(r);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].computeNodes, 2u);
  EXPECT_EQ(runs[0].first, 0u);
  EXPECT_EQ(runs[0].last, 2u);
  EXPECT_EQ(runs[1].placement, C);
  EXPECT_EQ(runs[1].partition, -1);
  EXPECT_EQ(runs[2].partition, 1);
  EXPECT_EQ(runs[2].computeNodes, 3u);
}

TEST(OpSummary, CountsNodesPlacementsAndDiagnosticsPerOp) {
  Graph g;
  auto add = [&](const std::string& name, const std::string& target) {
    Node n;
    n.name = name;
    n.targetId = g.internTarget(target);
    ASSERT_TRUE(g.addNode(std::move(n)).isOk());
  };
  add("a", "aten.relu.default");
  add("b", "aten.conv2d.default");
  add("c", "aten.relu.default");
  DelegationReport r = delegationOf({Placement::kDelegated, Placement::kDelegated, Placement::kCpu}, {0, 0, -1});
  DiagnosticList diags(1);
  diags[0].op = "aten.relu.default";
  std::vector<OpSummaryRow> rows = summarizeOps(g, r, diags);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].op, "aten.relu.default");
  EXPECT_EQ(rows[0].count, 2u);
  EXPECT_EQ(rows[0].delegated, 1u);
  EXPECT_EQ(rows[0].onCpu, 1u);
  EXPECT_EQ(rows[0].diagnostics, 1u);
  EXPECT_EQ(rows[1].op, "aten.conv2d.default");
  EXPECT_EQ(formatOpTable(rows),
            "  op                    nodes  delegated  on CPU  diagnostics\n"
            "  aten.relu.default         2          1       1            1\n"
            "  aten.conv2d.default       1          1       0            0\n");
}

// The digest names the bytes of the rule files: an overlay that changes one rule changes it,
// loading the same files again does not.
TEST(RuleDigest, ChangesWithTheRuleFilesBytes) {
  Engine builtin = testing::builtinEngine("htp", "SM8650");
  ASSERT_TRUE(builtin.ok()) << builtin.status().message();
  const RuleDigest a = digestRuleFiles(builtin.rules());
  EXPECT_EQ(a.value, digestRuleFiles(testing::builtinEngine("htp", "SM8650").rules()).value);
  EXPECT_GT(a.files, 3u);
  EXPECT_TRUE(std::regex_match(a.value, std::regex("fnv1a64:[0-9a-f]{16}")));
  testing::TempDir d;
  d.write("htp/extra.yaml", "version: 1\nrules:\n  - id: htp.extra_op\n    targets: [aten.extra_op.default]\n"
                            "    kind: structural\n    description: An overlay op.\n");
  EngineOptions eo;
  eo.backend = "htp";
  eo.soc = "SM8650";
  eo.useEnvironment = false;
  eo.builtinRulesDir = std::string(QNNRULES_SOURCE_DIR) + "/rules";
  eo.ruleDirs = {d.path()};
  Engine overlaid(eo);
  ASSERT_TRUE(overlaid.ok()) << overlaid.status().message();
  const RuleDigest b = digestRuleFiles(overlaid.rules());
  EXPECT_NE(a.value, b.value);
  EXPECT_EQ(b.files, a.files + 1);
}

}  // namespace
}  // namespace qnnrules
