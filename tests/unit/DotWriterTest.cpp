// The Graphviz picture: partitions as clusters, nodes coloured by placement, written
// atomically, and rendered by Graphviz's own `dot -Tsvg` to prove it is a valid drawing.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "DelegationTestGraphs.h"
#include "TestUtil.h"
#include "qnnrules/report/DotWriter.h"
#include "qnnrules/delegate/Partitioner.h"

namespace qnnrules {
namespace {

using testing::GraphBuilder;

struct Drawn {
  Graph graph;
  DelegationReport report;
};

// relu -> nonzero (CPU) -> relu, plus an int8 edge into the last relu (invalid), on LPAI
// with explicit graph I/O Q/DQ.
Drawn drawn(bool strict) {
  using B = GraphBuilder;
  GraphBuilder g;
  g.input("x", nullptr);
  g.call("q", "quantized_decomposed.quantize_per_tensor.default", {B::ref("x", nullptr)}, {B::tensor()});
  g.op("a", "aten.relu.default", {"q"}).op("b", "aten.relu.default", {"a"}).op("nz", "aten.nonzero.default", {"b"});
  g.op("c", "aten.relu.default", {"nz"});
  g.call("bad \"quoted\"", "aten.relu.default", {B::ref("c", B::s8())}, {B::tensor()});
  g.call("dq", "quantized_decomposed.dequantize_per_tensor.default", {B::ref("bad \"quoted\"")}, {B::tensor(nullptr)});
  g.output({"dq"});
  Drawn d{g.build(), {}};
  RuleSet rules = testing::delegationRules("lpai");
  SocInfo soc = testing::testSoc("V81", "SM8850");
  ValidationResult v = validateGraph(d.graph, rules, soc);
  PartitionOptions o;
  o.strict = strict;
  d.report = partitionGraph(d.graph, rules, soc, v, o);
  return d;
}

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

TEST(DotWriter, ClustersPerPartitionAndColoursPerPlacement) {
  Drawn d = drawn(/*strict=*/true);
  ASSERT_EQ(d.report.partitions.size(), 2u);  // {a, b} and {c}; the invalid node is on CPU
  std::string dot = formatDot(d.graph, d.report);
  EXPECT_EQ(count(dot, "subgraph cluster_p"), 2u) << dot;
  EXPECT_NE(dot.find("label=\"partition 0 (2 compute nodes)\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"partition 1 (1 compute nodes)\""), std::string::npos) << dot;
  EXPECT_EQ(count(dot, dotcolor::kDelegated), 3u) << dot;  // a, b, c
  EXPECT_EQ(count(dot, dotcolor::kFallback), 1u) << dot;   // nz
  EXPECT_EQ(count(dot, dotcolor::kInvalid), 1u) << dot;    // bad "quoted"
  EXPECT_EQ(count(dot, dotcolor::kPolicy), 2u) << dot;     // q, dq
  EXPECT_NE(dot.find("CPU: unsupported"), std::string::npos);
  EXPECT_NE(dot.find("bad \\\"quoted\\\""), std::string::npos) << "quotes in names must be escaped";
  EXPECT_EQ(count(dot, " -> "), 8u) << dot;  // one per tensor edge, the output node's included
}

// The backend refuses an invalid node in warn mode too: the picture is strict mode's (issue 21).
TEST(DotWriter, WarnModeDrawsTheSamePictureAsStrictMode) {
  Drawn warn = drawn(/*strict=*/false);
  Drawn strict = drawn(/*strict=*/true);
  ASSERT_EQ(warn.report.partitions.size(), 2u);
  std::string picture = formatDot(warn.graph, warn.report);
  const std::string mode = "(warn mode)";
  ASSERT_NE(picture.find(mode), std::string::npos) << picture;
  picture.replace(picture.find(mode), mode.size(), "(strict mode)");  // the title names the mode
  EXPECT_EQ(picture, formatDot(strict.graph, strict.report));
}

TEST(DotWriter, RendersWithGraphvizIntoAnSvgWithClustersAndColours) {
  ASSERT_EQ(testing::run("command -v dot").exitCode, 0) << "graphviz (dot) is missing: run scripts/setup.sh";
  Drawn d = drawn(/*strict=*/true);
  testing::TempDir tmp;
  std::filesystem::path dotFile = tmp.path() / "g.dot";
  ASSERT_TRUE(writeDotFile(dotFile, d.graph, d.report).isOk());
  struct stat st {};
  ASSERT_EQ(stat(dotFile.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  // No temporary left behind.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);

  std::string svgFile = (tmp.path() / "g.svg").string();
  testing::CommandResult r = testing::run("dot -Tsvg -o " + testing::shellQuote(svgFile) + " " +
                                          testing::shellQuote(dotFile.string()));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::ifstream in(svgFile);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string svg = ss.str();
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("<title>cluster_p0</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>cluster_p1</title>"), std::string::npos);
  EXPECT_NE(svg.find(">partition 0 (2 compute nodes)</text>"), std::string::npos);
  EXPECT_NE(svg.find(std::string("fill=\"") + dotcolor::kDelegated + "\""), std::string::npos);
  EXPECT_NE(svg.find(std::string("fill=\"") + dotcolor::kFallback + "\""), std::string::npos);
  EXPECT_NE(svg.find(std::string("fill=\"") + dotcolor::kInvalid + "\""), std::string::npos);
  EXPECT_NE(svg.find(std::string("fill=\"") + dotcolor::kPolicy + "\""), std::string::npos);
}

TEST(DotWriter, UnwritableTargetIsAnIoErrorAndLeavesNothing) {
  Drawn d = drawn(true);
  testing::TempDir tmp;
  Status s = writeDotFile(tmp.path() / "missing-dir" / "g.dot", d.graph, d.report);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("missing-dir"), std::string::npos) << s.message();
  // A directory in the way of the rename: the temporary is removed.
  std::filesystem::create_directory(tmp.path() / "taken.dot");
  s = writeDotFile(tmp.path() / "taken.dot", d.graph, d.report);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 0u);
}

}  // namespace
}  // namespace qnnrules
