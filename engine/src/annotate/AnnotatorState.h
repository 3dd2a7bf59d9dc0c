// The annotator's working state, shared by its translation units: Annotator.cpp (choosing a
// config per node, the run), AnnotatorPatterns.cpp (what each pattern annotates) and
// AnnotatorNarrowing.cpp (fitting specs to what a rule takes). Internal to the engine.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "qnnrules/annotate/Annotator.h"
#include "qnnrules/annotate/Recipe.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/graph/PortType.h"
#include "qnnrules/model/QuantConfig.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules::annotator_detail {

// The specs of one selection, built once per distinct selection rather than per node.
struct CompiledSelection {
  ConfigSelection sel;
  QuantSpec act;
  QuantSpec weightPerTensor;
  QuantSpec matmulIn1;
  QuantSpec normWeight;
  QuantSpec normBias;
  QuantSpec convBias;  // per-tensor form; per-channel weights get the per-channel form
  PortType actType;
};

inline bool isTensor(const Argument& a) { return a.kind == Argument::Kind::kTensor; }

// Per-rule facts the patterns need, computed once per rule.
struct RuleFacts {
  int weightArg = -1;
  int biasArg = -1;
  std::vector<int> secondOperandArgs;  // matmul pattern: args of ports other/weight/key/value
  int weightPort = -1;
  int firstOutputPort = -1;
  std::optional<int> ruleAxis;  // per-channel axis the rule fixes on the weight port
  bool weightPerChannelAllowed = false;  // some variant takes AXIS_SCALE_OFFSET on the weight port
  // custom pattern: (port, input port it shares) for every `shared_with` some variant declares
  // towards a non-variadic input, so scatters annotate what their rule checks.
  std::vector<std::pair<int, int>> sharedPorts;
};

class Annotator {
 public:
  Annotator(Graph& g, const RuleSet& rules, const QuantConfigTable& configs, const Recipe* recipe,
            const AnnotateOptions& opt, AnnotateResult& result)
      : g_(g), rules_(rules), configs_(configs), recipe_(recipe), opt_(opt), r_(result) {}

  void run(const ConfigSelection& defaultSel);

 private:
  struct Choice {
    const CompiledSelection* cs = nullptr;
    const Override* winner = nullptr;
    bool discard = false;
    std::string discardWhy;
  };

  // run's steps: the recipe's overrides and discards indexed by target and name, one call
  // node annotated (or kept, or discarded), and the recipe entries no node matched.
  void indexRecipe();
  void annotateNode(uint32_t idx, const Node& n);
  void reportUnmatchedRecipe();
  void reportOverrideTies();
  const CompiledSelection* compiled(const ConfigSelection& s);
  const RuleFacts& facts(const Rule& rule);
  Choice choose(const Node& n);
  void annotate(uint32_t idx, const Rule& rule, const Choice& ch);
  bool isFloatArg(const Argument& a) const;
  bool firstFloat(const Node& n, size_t i) const { return i < n.args.size() && isFloatArg(n.args[i]); }
  void activationOutputs(Node& n, const CompiledSelection& cs);

  // One annotation pattern's unit (AnnotatorPatterns.cpp): what it writes on the node's ports.
  struct PatternSite {
    Node& n;
    uint32_t idx;
    const Rule& rule;
    const Choice& ch;
    const CompiledSelection& cs;  // narrowed for the rule
    const RuleFacts& f;
  };
  using PatternUnit = void (Annotator::*)(const PatternSite&);
  static constexpr std::array<PatternUnit, static_cast<size_t>(AnnotationPattern::kCount)> patternUnits();
  void patternSingleInSingleOut(const PatternSite& s);
  void patternBinary(const PatternSite& s);
  void patternSingleIn(const PatternSite& s);
  void patternConstant(const PatternSite& s);
  void patternCustom(const PatternSite& s);
  void patternConv(const PatternSite& s);
  void patternShared(const PatternSite& s);
  void patternFixedQParams(const PatternSite& s);
  void patternMultiOutput(const PatternSite& s);
  void patternGetItem(const PatternSite& s);
  void patternConcat(const PatternSite& s);
  void patternMatMul(const PatternSite& s);
  void patternNorm(const PatternSite& s);
  void patternEmbedding(const PatternSite& s);
  // The producer's declared output a tensor reference reads, or nullptr when the producer
  // declares fewer outputs (placeholders and hand-written graphs may declare none).
  const TensorMeta* producerOut(const TensorRef& t) const {
    const Node& p = g_.node(t.node);
    return t.output < p.outputs.size() ? &p.outputs[t.output] : nullptr;
  }
  bool isFloatOut(const Node& n, size_t o) const { return o < n.outputs.size() && isFloatType(n.outputs[o].dtype); }
  void setIn(Node& n, size_t arg, int listIndex, QuantSpec spec, const char* why);
  void setOut(Node& n, size_t out, QuantSpec spec, const char* why);
  QuantSpec sharedNode(uint32_t node, uint32_t output) const;
  QuantSpec sharedEdge(uint32_t producer, uint32_t consumer) const;
  std::optional<QuantSpec> fixedOutput(const Rule& rule, const CompiledSelection& cs);
  const CompiledSelection& narrowFor(const Rule& rule, const CompiledSelection& cs);
  QuantSpec narrowWeight(const Rule& rule, const CompiledSelection& cs, QuantSpec w);
  QuantSpec weightSpec(const Node& n, const Rule& rule, const CompiledSelection& cs, const Override* ov,
                       size_t warg, bool& perChannel);
  std::string explainSpec(const Node& n, const QuantSpec& spec) const;
  void note(const Node& n, DiagCode code, Severity sev, std::string message, std::string hint = {});

  Graph& g_;
  const RuleSet& rules_;
  const QuantConfigTable& configs_;
  const Recipe* recipe_;
  const AnnotateOptions& opt_;
  AnnotateResult& r_;

  std::vector<std::unique_ptr<CompiledSelection>> selections_;
  const CompiledSelection* default_ = nullptr;
  std::vector<const Rule*> ruleOfTarget_;
  std::unordered_map<const Rule*, RuleFacts> facts_;
  std::map<std::pair<const Rule*, QnnDatatype>, std::optional<QuantSpec>> fixed_;
  std::map<std::pair<const Rule*, const CompiledSelection*>, const CompiledSelection*> narrowed_;
  std::vector<std::unique_ptr<CompiledSelection>> narrowedSelections_;
  // Overrides: target overrides by target id (once per distinct target), module regex
  // results memoized per distinct module path (by module id), node-name overrides by the exact
  // name they match (a recipe of --suggest-recipe's), the other node-name regexes run per node.
  std::vector<std::vector<uint32_t>> targetOverrides_;
  std::vector<std::optional<std::vector<uint32_t>>> moduleMemo_;
  std::vector<const CompiledSelection*> overrideSel_;
  std::vector<size_t> overrideHits_;
  std::unordered_map<std::string_view, std::vector<uint32_t>> exactNameOverrides_;
  std::vector<uint32_t> nameRegexOverrides_;
  std::vector<uint32_t> nameHits_;  // the node's, reused
  std::map<std::pair<uint32_t, uint32_t>, std::pair<size_t, std::string>> ties_;  // (loser, winner) -> count, node
  std::unordered_map<std::string_view, std::vector<size_t>> discardNodes_;  // name -> its entries
  std::unordered_set<uint32_t> discardTargets_;
  std::unordered_map<uint32_t, std::string> floatTargets_;  // AnnotateOptions::floatOps, by target id
  std::vector<bool> discardNodeSeen_;

  uint32_t explainIdx_ = UINT32_MAX;
  NodeExplanation* expl_ = nullptr;  // set only while annotating the explained node
  const char* context_ = "";         // "pattern conv of rule htp.conv2d" for explanations
  std::string contextText_;
};

}  // namespace qnnrules::annotator_detail
