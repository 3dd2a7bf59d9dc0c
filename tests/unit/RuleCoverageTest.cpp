// The built-in rule tables checked against the reference's own lists (tests/data/reference/):
// every key of the reference quantizer's HTP and LPAI tables, every op found in real exported
// graphs, the partitioner's not-supported lists; and the HTP arch gates (16-bit activations
// with 16-bit weights need V73, block-wise weights V69) on every op that has them, which the
// reference's own checks never enforce (executorch-qnn-quantizer.md §11.1).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "qnnrules/graph/Graph.h"
#include "qnnrules/load/RuleRegistry.h"
#include "qnnrules/validate/Validator.h"

namespace qnnrules {
namespace {

const std::string kReference = QNNRULES_SOURCE_DIR "/tests/data/reference/";

// The keys of a reference list, by section ("[name]" lines; keys before any header are in "").
// '#' lines are comments.
std::map<std::string, std::vector<std::string>> readKeys(const std::string& file) {
  std::ifstream in(kReference + file);
  EXPECT_TRUE(in.good()) << "cannot read " << kReference + file;
  std::map<std::string, std::vector<std::string>> out;
  std::string section, line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    out[section].push_back(line);
  }
  return out;
}

std::vector<std::string> allKeys(const std::string& file) {
  std::vector<std::string> keys;
  for (auto& [section, list] : readKeys(file)) keys.insert(keys.end(), list.begin(), list.end());
  return keys;
}

// OpOverloadPackets are dict keys of the reference that never equal an FX target (§2).
bool isPacket(const std::string& key) {
  static const std::set<std::string> kPackets = {"aten.add", "aten.sub", "aten.mul", "aten.div", "aten.sigmoid"};
  return kPackets.contains(key);
}

// The reference keys operator.getitem; FX graphs print it as `getitem`.
std::string fxTarget(const std::string& key) { return key == "operator.getitem" ? "getitem" : key; }

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& k : v) s += "\n  " + k;
  return s;
}

RuleRegistry& builtin() {
  static RuleRegistry* reg = [] {
    RegistryOptions o;
    o.builtinDir = QNNRULES_SOURCE_DIR "/rules";
    o.useEnvironment = false;
    return new RuleRegistry(o);
  }();
  return *reg;
}

const RuleSet& rules(const std::string& backend) {
  const BackendLoad& load = builtin().backend(backend);
  EXPECT_TRUE(load.status.isOk()) << backend << ": " << load.status.toString()
                                  << (load.errors.empty() ? "" : "\n" + formatText(load.errors.front()));
  static const RuleSet kEmpty("none", {});
  return load.rules ? *load.rules : kEmpty;
}

const SocInfo& soc(const std::string& name) {
  const auto& socs = builtin().socs();
  const SocInfo* s = socs.table ? socs.table->find(name) : nullptr;
  if (!s) {
    ADD_FAILURE() << "built-in socs.yaml has no " << name;
    static const SocInfo kNone;
    return kNone;
  }
  return *s;
}

TEST(RuleCoverage, ReferenceListsAreConsistent) {
  std::vector<std::string> htp = allKeys("htp_keys.txt");
  std::vector<std::string> lpai = allKeys("lpai_keys.txt");
  std::vector<std::string> excluded = allKeys("lpai_excluded_keys.txt");
  EXPECT_EQ(htp.size(), 180u);
  EXPECT_EQ(lpai.size(), 135u);
  EXPECT_EQ(excluded.size(), 45u);
  std::set<std::string> h(htp.begin(), htp.end()), l(lpai.begin(), lpai.end()), x(excluded.begin(), excluded.end());
  EXPECT_EQ(h.size(), htp.size()) << "htp_keys.txt repeats a key";
  // LPAI is HTP minus the 45 keys, with no LPAI-only key (§3).
  std::set<std::string> both = l;
  both.insert(x.begin(), x.end());
  EXPECT_EQ(both, h);
  for (const std::string& k : x) EXPECT_FALSE(l.contains(k)) << k << " is both an LPAI key and excluded";
  auto real = readKeys("real_graph_ops.txt");
  EXPECT_EQ(real["pre_dispatch"].size(), 72u);
  EXPECT_EQ(real["make_fx"].size(), 53u);
}

TEST(RuleCoverage, EveryHtpReferenceKeyHasAnHtpRule) {
  const RuleSet& htp = rules("htp");
  std::vector<std::string> missing, unsupported;
  for (const std::string& key : allKeys("htp_keys.txt")) {
    if (isPacket(key)) continue;
    const Rule* r = htp.findByTarget(fxTarget(key));
    if (!r) missing.push_back(key);
    else if (r->kind == RuleKind::kUnsupported) unsupported.push_back(key + " (" + r->id + ")");
  }
  EXPECT_TRUE(missing.empty()) << missing.size() << " HTP reference key(s) without a rule:" << joined(missing);
  // The reference annotates all of them; only round.decimals is on the partitioner's
  // to-be-implemented list (§2 Round, §3), so it alone is declared unsupported.
  EXPECT_EQ(unsupported, std::vector<std::string>{"aten.round.decimals (htp.round_decimals)"})
      << "reference keys declared unsupported:" << joined(unsupported);
}

TEST(RuleCoverage, LpaiHasExactlyTheReferenceLpaiKeys) {
  const RuleSet& lpai = rules("lpai");
  std::vector<std::string> missing, notExcluded;
  size_t supported = 0;
  for (const std::string& key : allKeys("lpai_keys.txt")) {
    if (isPacket(key)) {
      ++supported;  // counted: a key of the reference's LPAI table, just never a real target
      continue;
    }
    const Rule* r = lpai.findByTarget(fxTarget(key));
    if (!r || r->kind == RuleKind::kUnsupported) missing.push_back(key + (r ? " (declared unsupported)" : ""));
    else ++supported;
  }
  // Keys the reference's LPAI annotator lacks but LPAI runs, by ExecuTorch's own LPAI op tests
  // (backends/qualcomm/tests/rework/lpai/op/v6/test.py, rules/lpai/backend.yaml): hardsigmoid is
  // decomposed before annotation (test_hardsigmoid passes), and layer_norm is lowered as
  // native_layer_norm to QNN LayerNorm (test_layer_norm passes).
  const std::set<std::string> runsDespiteAnnotator{"aten.hardsigmoid.default", "aten.native_layer_norm.default"};
  for (const std::string& key : allKeys("lpai_excluded_keys.txt")) {
    const Rule* r = lpai.findByTarget(fxTarget(key));
    const bool runs = r && r->kind != RuleKind::kUnsupported;
    if (runs != runsDespiteAnnotator.contains(key))
      notExcluded.push_back(key + (r ? " (" + r->id + ")" : " (no rule)"));
  }
  EXPECT_TRUE(missing.empty()) << missing.size() << " LPAI reference key(s) not supported on lpai:" << joined(missing);
  EXPECT_TRUE(notExcluded.empty()) << "keys the reference's LPAI table lacks whose lpai support is not as the "
                                       "evidence says:" << joined(notExcluded);
  EXPECT_EQ(supported, 135u);
}

TEST(RuleCoverage, EveryOpOfRealExportedGraphsHasAnHtpRule) {
  const RuleSet& htp = rules("htp");
  std::vector<std::string> missing;
  std::map<RuleKind, size_t> byKind;
  for (auto& [section, ops] : readKeys("real_graph_ops.txt")) {
    for (const std::string& op : ops) {
      const Rule* r = htp.findByTarget(op);
      if (!r) missing.push_back(op + "  [" + section + "]");
      else ++byKind[r->kind];
    }
  }
  EXPECT_TRUE(missing.empty()) << missing.size() << " op(s) of real exported graphs without an htp rule:"
                               << joined(missing);
  // Most of them are real QNN ops with constraints; identities and declared-unsupported ops
  // are the exception, not the way to make this test pass.
  EXPECT_GT(byKind[RuleKind::kOp], 100u);
  EXPECT_LT(byKind[RuleKind::kStructural] + byKind[RuleKind::kUnsupported], 20u);
}

// A graph with one call of `target`: tensor arguments come from graph inputs with the given
// input-edge annotations (nullopt: an unannotated float tensor), literals fill the other slots.
struct ArgSpec {
  bool tensor = true;
  std::optional<QuantSpec> spec;
  int64_t literal = 0;
};

Graph oneNode(const std::string& target, const std::vector<ArgSpec>& args, std::vector<std::optional<QuantSpec>> outs) {
  Graph g;
  Node call;
  call.name = "op";
  call.kind = NodeKind::kCall;
  call.targetId = g.internTarget(target);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].tensor) {
      call.args.push_back(Argument::integer(args[i].literal));
      continue;
    }
    Node in;
    in.name = "in" + std::to_string(i);
    in.kind = NodeKind::kInput;
    in.outputs.push_back(TensorMeta{});
    StatusOr<uint32_t> id = g.addNode(std::move(in));
    EXPECT_TRUE(id.isOk());
    Argument a = Argument::tensorRef(*id);
    a.qspec = args[i].spec;
    call.args.push_back(std::move(a));
  }
  for (auto& o : outs) {
    TensorMeta t;
    t.qspec = std::move(o);
    call.outputs.push_back(std::move(t));
  }
  EXPECT_TRUE(g.addNode(std::move(call)).isOk());
  EXPECT_TRUE(g.verify().isOk());
  return g;
}

QuantSpec spec(ScalarType dtype, int64_t qmin, int64_t qmax, QScheme scheme, int64_t zp = 0) {
  QuantSpec s;
  s.dtype = dtype;
  s.quantMin = qmin;
  s.quantMax = qmax;
  s.qscheme = scheme;
  s.scales = {0.01};
  s.zeroPoints = {zp};
  return s;
}
// 16-bit activations (torch has no uint16: int32 with range 0..65535), as the reference writes them.
QuantSpec act16() { return spec(ScalarType::kInt32, 0, 65535, QScheme::kPerTensorAffine, 32000); }
// 16-bit weights: int16 symmetric, -32767..32767 (get_16a16w_qnn_ptq_config).
QuantSpec weight16() { return spec(ScalarType::kInt16, -32767, 32767, QScheme::kPerTensorSymmetric); }
QuantSpec bias32() {
  return spec(ScalarType::kInt32, INT32_MIN, INT32_MAX, QScheme::kPerTensorSymmetric);
}
// Block-wise 4-bit weight (LPBQ, 16a4w_block): per-channel symmetric along `axis` with a block size.
QuantSpec lpbqWeight(int axis) {
  QuantSpec s = spec(ScalarType::kInt8, -7, 7, QScheme::kPerChannelSymmetric);
  s.chAxis = axis;
  s.scales = {0.01, 0.02};
  s.zeroPoints = {0, 0};
  s.blockSize = {1, 32};
  return s;
}

struct GateCase {
  std::string target;
  std::string ruleId;
  std::vector<ArgSpec> args;
};

// Every op whose HTP rule has the 16a16w variant, written as the reference's 16a16w config
// annotates it (weights int16 symmetric; for matmul-like ops the second input).
std::vector<GateCase> sixteenBySixteenCases() {
  const ArgSpec a{true, act16()}, w{true, weight16()}, b{true, bias32()}, lit{false, std::nullopt, 1};
  return {
      {"aten.conv2d.default", "htp.conv2d", {a, w, b}},
      {"aten.conv1d.default", "htp.conv2d", {a, w, b}},
      {"aten.convolution.default", "htp.conv2d", {a, w, b}},
      {"aten.linear.default", "htp.linear", {a, w, b}},
      {"aten.conv_transpose2d.input", "htp.conv_transpose2d", {a, w, b}},
      {"aten.conv_transpose1d.default", "htp.conv_transpose2d", {a, w, b}},
      {"aten.matmul.default", "htp.matmul", {a, w}},
      {"aten.bmm.default", "htp.matmul", {a, w}},
      {"aten.mm.default", "htp.matmul", {a, w}},
      // addmm(bias, input, weight): decomposed into MatMul + ElementWiseAdd.
      {"aten.addmm.default", "htp.addmm", {a, a, w}},
      // layer_norm(input, normalized_shape, weight, bias): the weight is argument 2.
      {"aten.layer_norm.default", "htp.layer_norm", {a, lit, w, b}},
      {"aten.native_layer_norm.default", "htp.layer_norm", {a, lit, w, b}},
      // batch_norm(input, weight, bias, ...): QNN refuses 16-bit Batchnorm weights before V73
      // (conformance oracle, case batch_norm/16a16w_s16/<SoC>).
      {"aten.batch_norm.default", "htp.batch_norm", {a, w, b}},
      // SDPA: key and value are the second inputs of its MatMuls.
      {"aten.scaled_dot_product_attention.default", "htp.scaled_dot_product_attention", {a, w, w}},
  };
}

std::string describe(const ValidationResult& r) {
  std::string s;
  for (const Diagnostic& d : r.diagnostics) s += formatText(d);
  return s;
}

// The node is rejected on `socName`, and the only error is the arch gate of `ruleId`.
void expectGated(const Graph& g, const RuleSet& htp, const std::string& socName, const std::string& ruleId,
                 const std::string& target) {
  ValidationResult r = validateGraph(g, htp, soc(socName));
  EXPECT_FALSE(r.ok()) << target << " passed on " << socName;
  ASSERT_EQ(r.diagnostics.size(), 1u) << target << " on " << socName << ":\n" << describe(r);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.code, DiagCode::kArchGate) << target << " on " << socName << ":\n" << describe(r);
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.ruleId, ruleId) << target;
  EXPECT_EQ(d.node, "op");
}

TEST(RuleCoverage, SixteenBitActivationsWithSixteenBitWeightsNeedV73OnEveryGatedOp) {
  const RuleSet& htp = rules("htp");
  ASSERT_EQ(soc("SM8350").versionOn("htp"), "V68");
  ASSERT_EQ(soc("SM8450").versionOn("htp"), "V69");
  ASSERT_EQ(soc("SM8550").versionOn("htp"), "V73");
  ASSERT_EQ(soc("SM8650").versionOn("htp"), "V75");
  std::set<std::string> tested;
  for (const GateCase& c : sixteenBySixteenCases()) {
    SCOPED_TRACE(c.target);
    const Rule* rule = htp.findByTarget(c.target);
    ASSERT_NE(rule, nullptr);
    EXPECT_EQ(rule->id, c.ruleId);
    tested.insert(rule->id);
    Graph g = oneNode(c.target, c.args, {act16()});
    expectGated(g, htp, "SM8350", c.ruleId, c.target);
    expectGated(g, htp, "SM8450", c.ruleId, c.target);
    for (const char* ok : {"SM8550", "SM8650"}) {
      ValidationResult r = validateGraph(g, htp, soc(ok));
      EXPECT_TRUE(r.diagnostics.empty()) << c.target << " on " << ok << ":\n" << describe(r);
    }
    // The same node with 8-bit weights (16a8w: uint8 symmetric, zero point 128, as the
    // reference's 16a8w config writes them) is what the hint suggests; it runs on V68.
    std::vector<ArgSpec> a8w = c.args;
    for (ArgSpec& s : a8w)
      if (s.spec && s.spec->dtype == ScalarType::kInt16)
        s.spec = spec(ScalarType::kUInt8, 0, 255, QScheme::kPerTensorSymmetric, 128);
    ValidationResult r8 = validateGraph(oneNode(c.target, a8w, {act16()}), htp, soc("SM8350"));
    EXPECT_TRUE(r8.diagnostics.empty()) << c.target << " 16a8w on SM8350:\n" << describe(r8);
  }
  // Every rule with a V73 gate on a 16-bit-weight variant is in the table above. htp.einsum's
  // V73 gate is on two 16-bit activation operands (one list port, no weight), measured by the
  // conformance oracle (einsum/16a16a/SM8350) and checked by the conformance_htp test instead.
  for (const Rule& r : htp.rules()) {
    if (r.id == "htp.einsum") continue;
    for (const Variant& v : r.variants) {
      if (v.gate.version != "V73") continue;
      EXPECT_TRUE(tested.contains(r.id)) << r.id << " variant " << v.name << " untested";
    }
  }
}

TEST(RuleCoverage, BlockwiseWeightsNeedV69OnEveryOpWithThem) {
  const RuleSet& htp = rules("htp");
  const ArgSpec a{true, act16()}, b{true, bias32()};
  struct Case {
    std::string target, ruleId;
    int axis;
  };
  const std::vector<Case> cases = {{"aten.conv2d.default", "htp.conv2d", 0},
                                   {"aten.conv1d.default", "htp.conv2d", 0},
                                   {"aten.conv3d.default", "htp.conv3d", 0},
                                   {"aten.linear.default", "htp.linear", 0}};
  std::set<std::string> tested;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.target);
    tested.insert(c.ruleId);
    Graph g = oneNode(c.target, {a, ArgSpec{true, lpbqWeight(c.axis)}, b}, {act16()});
    expectGated(g, htp, "SM8350", c.ruleId, c.target);
    for (const char* ok : {"SM8450", "SM8650"}) {
      ValidationResult r = validateGraph(g, htp, soc(ok));
      EXPECT_TRUE(r.diagnostics.empty()) << c.target << " on " << ok << ":\n" << describe(r);
    }
  }
  for (const Rule& r : htp.rules()) {
    for (const Variant& v : r.variants) {
      for (const PortConstraint& p : v.ports) {
        if (!p.encodings.contains(Encoding::kBlockwiseExpansion)) continue;
        EXPECT_EQ(v.gate.version, "V69") << r.id << " variant " << v.name;
        EXPECT_TRUE(tested.contains(r.id)) << r.id << " variant " << v.name << " untested";
      }
    }
  }
}

TEST(RuleCoverage, PartitionerRejectedOpsSayWhyTheyAreNotSupported) {
  const RuleSet& htp = rules("htp");
  // §3: the partitioner's not_supported_operator and to_be_implemented_operator lists, minus
  // le.Scalar, which the real HTP backend runs (conformance case le_scalar/<config>/<SoC>) and
  // is a target of htp.le.
  const std::vector<std::string> targets = {
      "aten._embedding_bag.default",      "dim_order_ops._clone_dim_order.default",
      "quantized_decomposed.embedding_4bit.dtype", "aten.adaptive_max_pool3d.default",
      "aten.max_pool3d_with_indices.default", "aten.median.default", "aten.median.dim",
      "aten.round.decimals",              "aten.bitwise_not.default"};
  for (const std::string& t : targets) {
    SCOPED_TRACE(t);
    const Rule* rule = htp.findByTarget(t);
    ASSERT_NE(rule, nullptr);
    EXPECT_EQ(rule->kind, RuleKind::kUnsupported);
    EXPECT_NE(rule->reason.find("partitioner"), std::string::npos) << rule->reason;
    ValidationResult r = validateGraph(oneNode(t, {ArgSpec{}}, {std::nullopt}), htp, soc("SM8650"));
    ASSERT_EQ(r.diagnostics.size(), 1u) << describe(r);
    const Diagnostic& d = r.diagnostics[0];
    EXPECT_EQ(d.code, DiagCode::kUnsupportedOp);
    EXPECT_EQ(d.ruleId, rule->id);
    EXPECT_TRUE(d.message.starts_with("not supported by ")) << d.message;
    EXPECT_TRUE(d.message.ends_with(": " + rule->reason)) << d.message;
  }
}

}  // namespace
}  // namespace qnnrules
