// Partitioning: which nodes are delegated, why the others fall back, how delegated nodes
// group into partitions (no partition may depend on itself through a CPU node), how
// parameters and plumbing follow their neighbours, and the LPAI full-delegation policy.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "DelegationTestGraphs.h"
#include "qnnrules/delegate/Partitioner.h"

namespace qnnrules {
namespace {

using testing::GraphBuilder;

constexpr const char* kRelu = "aten.relu.default";
constexpr const char* kNonzero = "aten.nonzero.default";

struct Partitioned {
  Graph graph;
  DelegationReport report;
};

Partitioned partition(const GraphBuilder& b, const std::string& backend = "htp", PartitionOptions opt = {},
              SocInfo soc = testing::testSoc()) {
  Partitioned r{b.build(), {}};
  RuleSet rules = testing::delegationRules(backend);
  ValidationResult v = validateGraph(r.graph, rules, soc);
  r.report = partitionGraph(r.graph, rules, soc, v, opt);
  return r;
}

// Partition members (compute and followers) by name.
std::vector<std::vector<std::string>> members(const Partitioned& r) {
  std::vector<std::vector<std::string>> out;
  for (const Partition& p : r.report.partitions) {
    out.emplace_back();
    for (uint32_t n : p.nodes) out.back().push_back(r.graph.node(n).name);
  }
  return out;
}

using Names = std::vector<std::vector<std::string>>;

const NodeDelegation& nodeOf(const Partitioned& r, const std::string& name) { return r.report.nodes[*r.graph.findNode(name)]; }

TEST(Partitioner, FullySupportedChainIsOnePartition) {
  Partitioned r = partition(GraphBuilder::chain({kRelu, kRelu, "aten.sigmoid.default"}));
  EXPECT_EQ(members(r), (Names{{"n0", "n1", "n2"}}));
  EXPECT_EQ(r.report.computeNodes, 3u);
  EXPECT_EQ(r.report.delegatedComputeNodes, 3u);
  EXPECT_TRUE(r.report.fallbacks.empty());
  EXPECT_EQ(nodeOf(r, "x").placement, Placement::kNone);
  EXPECT_EQ(nodeOf(r, "n1").partition, 0);
}

TEST(Partitioner, OneUnsupportedOpInTheMiddleYieldsTwoPartitionsAndNamesIt) {
  Partitioned r = partition(GraphBuilder::chain({kRelu, kRelu, kNonzero, kRelu, kRelu}));
  EXPECT_EQ(members(r), (Names{{"n0", "n1"}, {"n3", "n4"}}));
  EXPECT_EQ(r.report.partitions[0].computeNodes, 2u);
  EXPECT_EQ(r.report.partitions[1].computeNodes, 2u);
  ASSERT_EQ(r.report.fallbacks.size(), 1u);
  const Fallback& f = r.report.fallbacks[0];
  EXPECT_EQ(r.graph.node(f.node).name, "n2");
  EXPECT_EQ(f.reason, FallbackReason::kUnsupported);
  ASSERT_TRUE(f.code.has_value());
  EXPECT_EQ(*f.code, DiagCode::kUnsupportedOp);
  EXPECT_NE(f.message.find("the backend has no Nonzero op"), std::string::npos) << f.message;
  EXPECT_EQ(f.ruleId, "htp.nonzero");
  EXPECT_EQ(nodeOf(r, "n2").placement, Placement::kCpu);
  EXPECT_EQ(nodeOf(r, "n2").partition, -1);
  EXPECT_FALSE(nodeOf(r, "n2").invalid);  // not a validation failure: the op is simply unsupported
}

TEST(Partitioner, OpWithoutRuleFallsBackAsNoRule) {
  Partitioned r = partition(GraphBuilder::chain({kRelu, "aten.my_op.default", kRelu}));
  ASSERT_EQ(r.report.fallbacks.size(), 1u);
  EXPECT_EQ(r.report.fallbacks[0].reason, FallbackReason::kNoRule);
  EXPECT_EQ(*r.report.fallbacks[0].code, DiagCode::kNoRule);
  EXPECT_NE(r.report.fallbacks[0].message.find("aten.my_op.default"), std::string::npos);
  EXPECT_EQ(r.report.partitions.size(), 2u);
}

TEST(Partitioner, OpWithNoVariantOnTheSocFallsBackAsArchGate) {
  GraphBuilder g = GraphBuilder::chain({kRelu, "aten.gelu.default", kRelu});
  Partitioned old = partition(g);  // V75: gelu needs V79 in the test rules
  ASSERT_EQ(old.report.fallbacks.size(), 1u);
  EXPECT_EQ(old.report.fallbacks[0].reason, FallbackReason::kArchGate);
  EXPECT_EQ(*old.report.fallbacks[0].code, DiagCode::kArchGate);
  EXPECT_NE(old.report.fallbacks[0].message.find("V79"), std::string::npos) << old.report.fallbacks[0].message;
  EXPECT_EQ(old.report.partitions.size(), 2u);

  Partitioned fresh = partition(g, "htp", {}, testing::testSoc("V79", "SM8750"));
  EXPECT_TRUE(fresh.report.fallbacks.empty());
  EXPECT_EQ(fresh.report.partitions.size(), 1u);
}

// n1's input edge is int8 where the rule wants uint8: a constraint violation.
GraphBuilder chainWithBadEdge() {
  GraphBuilder g;
  g.input("x").op("n0", kRelu, {"x"});
  g.call("n1", kRelu, {GraphBuilder::ref("n0", GraphBuilder::s8())}, {GraphBuilder::tensor()});
  g.op("n2", kRelu, {"n1"}).output({"n2"});
  return g;
}

TEST(Partitioner, StrictModeSendsInvalidNodesToCpuWithTheirDiagnosticCode) {
  Partitioned r = partition(chainWithBadEdge());
  ASSERT_EQ(r.report.fallbacks.size(), 1u);
  const Fallback& f = r.report.fallbacks[0];
  EXPECT_EQ(r.graph.node(f.node).name, "n1");
  EXPECT_EQ(f.reason, FallbackReason::kConstraint);
  EXPECT_EQ(*f.code, DiagCode::kNoMatchingVariant);
  EXPECT_TRUE(f.mark.known());
  EXPECT_TRUE(nodeOf(r, "n1").invalid);
  EXPECT_EQ(r.report.partitions.size(), 2u);
}

// The backend refuses an invalid node whatever the mode: warn mode places it as strict mode
// does (on CPU) and changes only the exit code (issue 21).
TEST(Partitioner, WarnModePlacesInvalidNodesAsStrictModeDoes) {
  PartitionOptions o;
  o.strict = false;
  Partitioned warn = partition(chainWithBadEdge(), "htp", o);
  Partitioned strict = partition(chainWithBadEdge(), "htp");
  ASSERT_EQ(warn.report.fallbacks.size(), 1u);
  EXPECT_EQ(nodeOf(warn, "n1").placement, Placement::kCpu);
  EXPECT_TRUE(nodeOf(warn, "n1").invalid);
  EXPECT_EQ(warn.report.invalidDelegatedNodes, 0u);
  EXPECT_EQ(members(warn), members(strict));
  EXPECT_FALSE(warn.report.sessionFailure);  // no lowering path given: a refusal falls back
}

TEST(Partitioner, NodesThatWouldMakeAPartitionDependOnItselfThroughCpuAreSplit) {
  // a -> c (CPU) -> b and a -> b: one partition {a, b} would feed c and wait for it.
  GraphBuilder g;
  g.input("x").op("a", kRelu, {"x"}).op("c", kNonzero, {"a"}).op("b", "aten.add.Tensor", {"a", "c"});
  g.output({"b"});
  Partitioned r = partition(g);
  EXPECT_EQ(members(r), (Names{{"a"}, {"b"}}));
}

TEST(Partitioner, BranchesJoinWhenTheCpuNodeDoesNotDependOnThePartition) {
  // c (CPU) and a both read x; b = a + c. {a, b} only waits for c, which does not wait for it.
  GraphBuilder g;
  g.input("x").op("c", kNonzero, {"x"}).op("a", kRelu, {"x"}).op("b", "aten.add.Tensor", {"a", "c"});
  g.output({"b"});
  Partitioned r = partition(g);
  EXPECT_EQ(members(r), (Names{{"a", "b"}}));
}

TEST(Partitioner, ResidualBranchesMergeIntoOnePartition) {
  GraphBuilder g;
  g.input("x").op("a", kRelu, {"x"}).op("b1", kRelu, {"a"}).op("b2", kRelu, {"b1"});
  g.op("sum", "aten.add.Tensor", {"a", "b2"}).output({"sum"});
  Partitioned r = partition(g);
  EXPECT_EQ(members(r), (Names{{"a", "b1", "b2", "sum"}}));
}

TEST(Partitioner, LongerCycleThroughTwoCpuNodesIsSplitToo) {
  // a -> c1 -> r -> c2 -> d, and a -> d: {a, d} would wait on c2, which waits on a via c1.
  GraphBuilder g;
  g.input("x").op("a", kRelu, {"x"}).op("c1", kNonzero, {"a"}).op("r", kRelu, {"c1"}).op("c2", kNonzero, {"r"});
  g.op("d", "aten.add.Tensor", {"a", "c2"}).output({"d"});
  Partitioned r = partition(g);
  EXPECT_EQ(members(r), (Names{{"a"}, {"r"}, {"d"}}));
}

// Every other node on CPU: each delegated node is its own partition, none may join an earlier
// one (each earlier partition reaches it through a CPU node). The partitioner forgets
// partitions once no edge leaves them unprocessed, which must not change this split.
TEST(Partitioner, AlternatingChainIsOnePartitionPerDelegatedNode) {
  std::vector<std::string> targets;
  for (int i = 0; i < 400; ++i) targets.push_back(i % 2 == 0 ? kRelu : kNonzero);
  Partitioned r = partition(GraphBuilder::chain(targets));
  ASSERT_EQ(r.report.partitions.size(), 200u);
  for (size_t p = 0; p < r.report.partitions.size(); ++p)
    EXPECT_EQ(members(r)[p], std::vector<std::string>{"n" + std::to_string(2 * p)});
  EXPECT_EQ(r.report.fallbacks.size(), 200u);
}

// Two delegated runs around a CPU node, then a node reading both the run before the CPU node
// and the run after it: it may join only the later run (the earlier reaches it through CPU).
TEST(Partitioner, ANodeJoinsOnlyTheRunsThatDoNotReachItThroughCpu) {
  GraphBuilder g;
  g.input("x").op("a", kRelu, {"x"}).op("a2", kRelu, {"a"}).op("c", kNonzero, {"a2"}).op("b", kRelu, {"c"});
  g.op("d", kRelu, {"x"}).op("s", "aten.add.Tensor", {"b", "d"}).op("t", "aten.add.Tensor", {"a", "s"});
  g.output({"t"});
  Partitioned r = partition(g);
  EXPECT_EQ(members(r), (Names{{"a", "a2"}, {"b", "d", "s", "t"}}));
}

TEST(Partitioner, DisconnectedBranchesAreSeparatePartitions) {
  GraphBuilder g;
  g.input("x").op("a", kRelu, {"x"}).op("b", kRelu, {"x"}).output({"a", "b"});
  Partitioned r = partition(g);
  EXPECT_EQ(members(r), (Names{{"a"}, {"b"}}));
  EXPECT_TRUE(r.report.fallbacks.empty());
}

TEST(Partitioner, ParametersFollowTheirUsers) {
  GraphBuilder g;
  g.input("x").param("w");
  g.call("conv", "aten.conv2d.default", {GraphBuilder::ref("x"), GraphBuilder::ref("w", GraphBuilder::s8())},
         {GraphBuilder::tensor()});
  g.param("unused").output({"conv"});
  Partitioned r = partition(g);
  EXPECT_EQ(members(r), (Names{{"w", "conv"}}));
  EXPECT_EQ(r.report.partitions[0].computeNodes, 1u);
  EXPECT_EQ(nodeOf(r, "w").role, NodeRole::kFollower);
  EXPECT_EQ(nodeOf(r, "unused").placement, Placement::kCpu);
  EXPECT_TRUE(r.report.fallbacks.empty());  // followers are not fallback compute nodes
}

TEST(Partitioner, TupleGettersFollowTheirProducer) {
  GraphBuilder g;
  g.input("x").op("s", "aten.split.Tensor", {"x"}, 2);
  g.call("g0", "getitem", {GraphBuilder::ref("s", nullptr), 0}, {GraphBuilder::tensor()});
  g.call("g1", "getitem", {GraphBuilder::ref("s", nullptr), 1}, {GraphBuilder::tensor()});
  g.op("sum", "aten.add.Tensor", {"g0", "g1"}).output({"sum"});
  Partitioned r = partition(g);
  EXPECT_EQ(members(r), (Names{{"s", "g0", "g1", "sum"}}));
  EXPECT_EQ(r.report.partitions[0].computeNodes, 2u);

  // With the producer on CPU the getters stay with it, and are not listed as fallbacks.
  GraphBuilder h;
  h.input("x").op("s", "aten.nonzero.default", {"x"});
  h.call("g0", "getitem", {GraphBuilder::ref("s", nullptr), 0}, {GraphBuilder::tensor()});
  h.op("r", kRelu, {"g0"}).output({"r"});
  Partitioned c = partition(h);
  EXPECT_EQ(members(c), (Names{{"r"}}));
  EXPECT_EQ(nodeOf(c, "g0").placement, Placement::kCpu);
  EXPECT_EQ(nodeOf(c, "g0").reason, FallbackReason::kFollowsCpu);
  ASSERT_EQ(c.report.fallbacks.size(), 1u);
  EXPECT_EQ(c.graph.node(c.report.fallbacks[0].node).name, "s");
}

// --- LPAI: graph I/O Q/DQ on CPU, full delegation ------------------------------------------

// x (float) -> quantize -> relu ... -> dequantize -> output, with explicit Q/DQ nodes.
GraphBuilder qdqChain(const std::vector<std::string>& middle) {
  using B = GraphBuilder;
  GraphBuilder g;
  g.input("x", nullptr);
  g.call("q", "quantized_decomposed.quantize_per_tensor.default", {B::ref("x", nullptr)}, {B::tensor()});
  std::string prev = "q";
  for (size_t i = 0; i < middle.size(); ++i) {
    std::string name = "n" + std::to_string(i);
    g.op(name, middle[i], {prev});
    prev = name;
  }
  g.call("dq", "quantized_decomposed.dequantize_per_tensor.default", {B::ref(prev)}, {B::tensor(nullptr)});
  g.output({"dq"});
  return g;
}

TEST(LpaiDelegation, GraphInputQuantizeAndOutputDequantizeStayOnCpu) {
  Partitioned r = partition(qdqChain({kRelu, kRelu}), "lpai");
  EXPECT_EQ(members(r), (Names{{"n0", "n1"}}));
  ASSERT_EQ(r.report.fallbacks.size(), 2u);
  EXPECT_EQ(r.report.fallbacks[0].reason, FallbackReason::kBackendPolicy);
  EXPECT_EQ(r.report.fallbacks[1].reason, FallbackReason::kBackendPolicy);
  EXPECT_NE(r.report.fallbacks[0].message.find("graph input 'x'"), std::string::npos);
  EXPECT_FALSE(r.report.fallbacks[0].code.has_value());
  // Policy placements do not break full delegation.
  EXPECT_TRUE(r.report.fullDelegationRequired);
  EXPECT_TRUE(r.report.ok()) << r.report.fullDelegationProblems[0];

  // HTP has no such policy: the same graph is one partition with the Q/DQ nodes in it.
  Partitioned htp = partition(qdqChain({kRelu, kRelu}), "htp");
  EXPECT_EQ(members(htp), (Names{{"q", "n0", "n1", "dq"}}));
  EXPECT_FALSE(htp.report.fullDelegationRequired);
}

TEST(LpaiDelegation, AnnotatedGraphReportsBoundaryConversionsOnCpu) {
  // No explicit Q/DQ nodes: the quantized input and output imply them, and LPAI leaves them to CPU.
  Partitioned r = partition(GraphBuilder::chain({kRelu, kRelu}), "lpai");
  ASSERT_EQ(r.report.cpuConversions.size(), 2u);
  EXPECT_EQ(r.graph.node(r.report.cpuConversions[0].first).name, "x");
  EXPECT_EQ(r.report.cpuConversions[0].second, "quantize of graph input 'x' runs on CPU");
  EXPECT_EQ(r.report.cpuConversions[1].second, "dequantize of graph output 'n1' runs on CPU");
  EXPECT_TRUE(r.report.ok());
  EXPECT_TRUE(partition(GraphBuilder::chain({kRelu, kRelu}), "htp").report.cpuConversions.empty());
}

TEST(LpaiDelegation, InputQuantizedOnlyOnItsEdgeIsReportedToo) {
  // What the annotator writes: the input's encoding on its consumer's edge, none on the input.
  GraphBuilder b;
  b.input("x", nullptr).op("r", kRelu, {"x"}).output({"r"});
  Partitioned r = partition(b, "lpai");
  ASSERT_EQ(r.report.cpuConversions.size(), 2u);
  EXPECT_EQ(r.report.cpuConversions[0].second, "quantize of graph input 'x' runs on CPU");
  EXPECT_EQ(r.report.cpuConversions[1].second, "dequantize of graph output 'r' runs on CPU");
}

TEST(LpaiDelegation, InnerQuantizeIsNotKeptOnCpu) {
  // A quantize fed by a compute node is not at the graph input: the backend takes it.
  using B = GraphBuilder;
  GraphBuilder g;
  g.input("x").op("a", kRelu, {"x"});
  g.call("q2", "quantized_decomposed.quantize_per_tensor.default", {B::ref("a", nullptr)}, {B::tensor()});
  g.output({"q2"});
  Partitioned r = partition(g, "lpai");
  EXPECT_EQ(nodeOf(r, "q2").placement, Placement::kDelegated);
}

TEST(LpaiDelegation, OnePartitionPasses) {
  Partitioned r = partition(GraphBuilder::chain({kRelu, kRelu, kRelu}), "lpai");
  EXPECT_EQ(r.report.partitions.size(), 1u);
  EXPECT_TRUE(r.report.fullDelegationRequired);
  EXPECT_TRUE(r.report.ok());
}

TEST(LpaiDelegation, TwoPartitionsAroundAnUnsupportedOpFailAndNameIt) {
  Partitioned r = partition(GraphBuilder::chain({kRelu, kNonzero, kRelu}), "lpai");
  EXPECT_EQ(r.report.partitions.size(), 2u);
  EXPECT_FALSE(r.report.ok());
  ASSERT_EQ(r.report.fullDelegationProblems.size(), 2u);
  EXPECT_NE(r.report.fullDelegationProblems[0].find("2 partitions"), std::string::npos);
  EXPECT_NE(r.report.fullDelegationProblems[1].find("n1 (unsupported)"), std::string::npos)
      << r.report.fullDelegationProblems[1];
  ASSERT_EQ(r.report.fullDelegationOffenders.size(), 1u);
  EXPECT_EQ(r.graph.node(r.report.fullDelegationOffenders[0]).name, "n1");
}

TEST(LpaiDelegation, TwoPartitionsWithoutCpuComputeStillFail) {
  GraphBuilder g;
  g.input("x").op("a", kRelu, {"x"}).op("b", kRelu, {"x"}).output({"a", "b"});
  Partitioned r = partition(g, "lpai");
  EXPECT_FALSE(r.report.ok());
  ASSERT_EQ(r.report.fullDelegationProblems.size(), 1u);
  EXPECT_NE(r.report.fullDelegationProblems[0].find("2 partitions"), std::string::npos);
  EXPECT_TRUE(r.report.fullDelegationOffenders.empty());
}

TEST(LpaiDelegation, ZeroPartitionsWithComputeOnCpuFail) {
  Partitioned r = partition(GraphBuilder::chain({kNonzero}), "lpai");
  EXPECT_TRUE(r.report.partitions.empty());
  EXPECT_FALSE(r.report.ok());
  ASSERT_EQ(r.report.fullDelegationProblems.size(), 1u);
  EXPECT_NE(r.report.fullDelegationProblems[0].find("n0 (unsupported)"), std::string::npos);
}

TEST(LpaiDelegation, ZeroPartitionsWithNothingToComputePass) {
  // Only the policy's Q/DQ: nothing is delegated and nothing needs to be (the reference's
  // "exactly one partition" assertion would reject this graph).
  using B = GraphBuilder;
  GraphBuilder g;
  g.input("x", nullptr);
  g.call("q", "quantized_decomposed.quantize_per_tensor.default", {B::ref("x", nullptr)}, {B::tensor()});
  g.output({"q"});
  Partitioned r = partition(g, "lpai");
  EXPECT_TRUE(r.report.partitions.empty());
  EXPECT_EQ(r.report.fallbacks.size(), 1u);
  EXPECT_TRUE(r.report.ok());
}

TEST(LpaiDelegation, FullDelegationCanBeSwitchedOffAndOn) {
  PartitionOptions off;
  off.requireFullDelegation = false;
  Partitioned r = partition(GraphBuilder::chain({kRelu, kNonzero, kRelu}), "lpai", off);
  EXPECT_FALSE(r.report.fullDelegationRequired);
  EXPECT_TRUE(r.report.ok());

  PartitionOptions on;
  on.requireFullDelegation = true;
  Partitioned h = partition(GraphBuilder::chain({kRelu, kNonzero, kRelu}), "htp", on);
  EXPECT_FALSE(h.report.ok());
}

TEST(DelegationFormat, TextAndJsonNameTheFallbackAndThePartitions) {
  Partitioned r = partition(GraphBuilder::chain({kRelu, kNonzero, kRelu}), "lpai");
  std::string text = formatDelegationText(r.graph, r.report);
  EXPECT_NE(text.find("2 of 3 compute node(s) delegated in 2 partition(s), 1 on CPU"), std::string::npos) << text;
  EXPECT_NE(text.find("aten.nonzero.default"), std::string::npos) << text;
  EXPECT_NE(text.find("unsupported-op"), std::string::npos) << text;
  EXPECT_NE(text.find("full delegation: required, NOT satisfied"), std::string::npos) << text;

  nlohmann::json j = nlohmann::json::parse(formatDelegationJson(r.graph, r.report));
  EXPECT_EQ(j["partition_count"], 2);
  EXPECT_EQ(j["partitions"][1]["nodes"], nlohmann::json({"n2"}));
  EXPECT_EQ(j["fallbacks"][0]["node"], "n1");
  EXPECT_EQ(j["fallbacks"][0]["reason"], "unsupported");
  EXPECT_EQ(j["fallbacks"][0]["code"], "unsupported-op");
  EXPECT_EQ(j["full_delegation"]["ok"], false);
  EXPECT_EQ(j["full_delegation"]["offenders"], nlohmann::json({"n1"}));
}

}  // namespace
}  // namespace qnnrules
