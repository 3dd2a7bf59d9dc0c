// Recipes from the rules (RecipeSearch.h): one annotate + validate run per candidate config
// gives every node's verdict under every config; a choice per failing (suggest) or every
// (plan) node follows from those, and verification runs settle what shared encodings change.
#include "qnnrules/RecipeSearch.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "qnnrules/core/TerminalText.h"
#include "qnnrules/model/RuleSet.h"

namespace qnnrules {
namespace {

int bitsOf(const TensorQuant& t) {
  return static_cast<int>(std::bit_width(static_cast<uint64_t>(std::max<int64_t>(t.quantMax - t.quantMin, 1))));
}

int granularityRank(Granularity g) {
  switch (g) {
    case Granularity::kPerTensor: return 0;
    case Granularity::kPerChannel: return 1;
    case Granularity::kPerBlock: return 2;
  }
  return 0;
}

struct Candidate {
  ConfigSelection selection;
  std::string text;
  int actBits = 0, weightBits = 0;
};

// Higher precision first: activation bits, then weight bits, then finer weight scales.
bool morePrecise(const Candidate& a, const Candidate& b) {
  if (a.actBits != b.actBits) return a.actBits > b.actBits;
  if (a.weightBits != b.weightBits) return a.weightBits > b.weightBits;
  return granularityRank(a.selection.granularity) > granularityRank(b.selection.granularity);
}

// How far a candidate is from the base config: activation bits weigh twice (they change every
// tensor the node touches; weight bits only its own weights), a granularity change least.
double distance(const Candidate& base, const Candidate& c) {
  return 2.0 * std::abs(base.actBits - c.actBits) + std::abs(base.weightBits - c.weightBits) +
         (base.selection.granularity == c.selection.granularity ? 0.0 : 0.5);
}

Candidate candidateOf(const ConfigSelection& s) {
  Candidate c;
  c.selection = s;
  c.text = s.config->name + (s.granularity == s.config->defaultGranularity
                                 ? std::string()
                                 : ":" + std::string(granularityName(s.granularity)));
  if (s.actSymmetric) c.text += c.text.find(':') == std::string::npos ? ":sym" : ",sym";
  c.actBits = bitsOf(s.config->activation);
  c.weightBits = bitsOf(s.config->weight);
  return c;
}

// The first error per node of one run (node name -> diagnostic), and the run's call nodes.
struct Verdicts {
  bool ran = false;
  Status status;
  std::unordered_map<std::string, Diagnostic> firstError;
  std::vector<std::pair<std::string, std::string>> callNodes;  // (name, op), graph order

  bool fails(const std::string& node) const { return firstError.count(node) != 0; }
};

class Search {
 public:
  Search(const Engine& e, const Graph& g, const RecipeSearchOptions& o) : e_(e), g_(g), o_(o) {}

  // `configs`: the caller's engine's table, which the result's recipe points into (the judge
  // may be a strict copy that the search outlives only until it returns).
  Status loadCandidates(const QuantConfigTable* configs) {
    const QuantConfigTable* table = configs;
    if (!table) return Status(StatusCode::kRuleError, "the quantization configs could not be loaded");
    table_ = table;
    if (!o_.candidates.empty()) {
      for (const std::string& text : o_.candidates) {
        StatusOr<ConfigSelection> s = parseConfigSelection(*table, text);
        if (!s.isOk()) return s.status();
        candidates_.push_back(candidateOf(*s));
      }
    } else {
      for (const QuantConfig& c : table->all()) {
        if (c.activation.isFloat()) continue;  // float activations are a different question
        for (Granularity g : c.granularities) {
          ConfigSelection s;
          s.config = &c;
          s.granularity = g;
          candidates_.push_back(candidateOf(s));
        }
      }
    }
    std::stable_sort(candidates_.begin(), candidates_.end(), morePrecise);
    return Status::ok();
  }

  StatusOr<Candidate> selection(const std::string& text) const {
    StatusOr<ConfigSelection> s = parseConfigSelection(*table_, text);
    if (!s.isOk()) return s.status();
    return candidateOf(*s);
  }

  const std::vector<Candidate>& candidates() const { return candidates_; }

  // Annotates with `config` (and `recipe`, when given) and validates.
  Verdicts run(const std::string& config, const Recipe* recipe) {
    ++runs_;
    if (o_.progress) o_.progress(runs_, 0, recipe ? config + " with overrides" : config);
    Verdicts v;
    RunOptions ro;
    ro.annotate = AnnotateOptions{};
    ro.annotate->config = config;
    ro.annotate->recipe = recipe;
    ro.partition = false;
    RunReport r = e_.run(g_, ro);
    v.status = r.status;
    if (!r.ok()) return v;
    v.ran = true;
    for (const Diagnostic& d : r.validation.diagnostics)
      if (!d.node.empty() && d.severity == Severity::kError) v.firstError.try_emplace(d.node, d);
    for (const Node& n : r.graph->nodes())
      if (n.kind == NodeKind::kCall) v.callNodes.emplace_back(n.name, std::string(r.graph->sourceOp(n)));  // the file's op type
    return v;
  }

  // The verdicts under every candidate, computed once.
  const Verdicts& under(size_t candidate) {
    if (byCandidate_.empty()) byCandidate_.resize(candidates_.size());
    if (!byCandidate_[candidate]) byCandidate_[candidate] = run(candidates_[candidate].text, nullptr);
    return *byCandidate_[candidate];
  }

  size_t runs() const { return runs_; }

 private:
  const Engine& e_;
  const Graph& g_;
  const RecipeSearchOptions& o_;
  const QuantConfigTable* table_ = nullptr;
  std::vector<Candidate> candidates_;
  std::vector<std::optional<Verdicts>> byCandidate_;
  size_t runs_ = 0;
};

std::string oneLine(const Diagnostic& d) {
  return fmt::format("{}: {}", diagCodeName(d.code), d.message);
}

Override nodeOverride(const std::string& node, const ConfigSelection& s, std::string note) {
  Override o;
  o.by = Override::By::kNodeName;
  o.pattern = exactNamePattern(node);
  o.selection = s;
  o.note = std::move(note);
  (void)compileOverride(o);  // an exact name is matched by name, never compiled
  return o;
}

// Per node, the candidates in the order it tries them, and which one it has now.
struct Pick {
  std::vector<size_t> order;  // indexes into the candidates
  size_t at = 0;
};

// Chooses, verifies and settles: `picks` holds the nodes to override and their orders. A node
// whose current candidate fails under the combined recipe moves to its next one; a node broken
// by a neighbour's override gets an order of its own from `orderFor`.
template <typename OrderFor>
void settle(Search& s, const Candidate& base, std::map<std::string, Pick>& picks, const Verdicts& baseRun,
            const OrderFor& orderFor, const RecipeSearchOptions& o, RecipeSearchResult& out) {
  std::unordered_set<std::string> cpu;
  auto buildRecipe = [&] {
    Recipe r;
    r.defaultSelection = base.selection;
    for (const auto& [node, pick] : picks)
      if (pick.at < pick.order.size())
        r.overrides.push_back(nodeOverride(node, s.candidates()[pick.order[pick.at]].selection, ""));
    return r;
  };
  for (int round = 0; round <= o.maxRounds; ++round) {
    Recipe recipe = buildRecipe();
    Verdicts v = s.run(base.text, &recipe);
    if (!v.ran) {
      out.status = v.status;
      return;
    }
    bool changed = false;
    out.validatesClean = true;
    for (const auto& [node, d] : v.firstError) {
      if (cpu.count(node)) continue;
      out.validatesClean = false;
      auto it = picks.find(node);
      if (it == picks.end()) {
        it = picks.emplace(node, Pick{orderFor(node), 0}).first;  // a neighbour broke it
      } else {
        ++it->second.at;
      }
      if (it->second.at >= it->second.order.size()) {
        cpu.insert(node);
        continue;
      }
      changed = true;
    }
    if (!changed) break;
  }
  // What stays: the choices, and the nodes nothing makes valid.
  for (const auto& [node, op] : baseRun.callNodes) {
    auto it = picks.find(node);
    if (it == picks.end()) continue;
    const Pick& p = it->second;
    auto err = baseRun.firstError.find(node);
    if (p.at >= p.order.size() || cpu.count(node)) {
      out.onCpu.push_back({node, op, err != baseRun.firstError.end() ? oneLine(err->second)
                                                                    : "no candidate config makes it valid"});
      continue;
    }
    const Candidate& c = s.candidates()[p.order[p.at]];
    out.choices.push_back({node, op, base.text, c.text, err != baseRun.firstError.end() ? oneLine(err->second) : ""});
  }
  out.recipe = Recipe{};
  out.recipe.defaultSelection = base.selection;
  for (const NodeChoice& c : out.choices) {
    StatusOr<Candidate> sel = s.selection(c.to);
    if (sel.isOk()) out.recipe.overrides.push_back(nodeOverride(c.node, sel->selection, c.why));
  }
  // The verification above ends on the recipe's own verdict unless a last change was made:
  // judge the final recipe once more so `validatesClean` is about it.
  Verdicts last = s.run(base.text, &out.recipe);
  out.validatesClean = last.ran;
  for (const auto& [node, d] : last.firstError)
    if (!cpu.count(node)) out.validatesClean = false;
}

// A search ready to run: the engine it judges with and its candidates.
struct Opened {
  std::optional<Engine> own;
  const Engine* judge = nullptr;
  std::optional<Search> search;
};

// The engine the search judges with is strict, so a violation is an error whatever the
// caller's mode (in warn mode a recommended-constraint warning and a violation look alike).
Status open(const Engine& engine, const Graph& graph, const RecipeSearchOptions& options, Opened& x) {
  x.judge = &engine;
  if (engine.options().mode != Mode::kStrict) {
    EngineOptions o = engine.options();
    o.mode = Mode::kStrict;
    x.judge = &x.own.emplace(std::move(o));
  }
  if (!x.judge->ok()) return x.judge->status();
  return x.search.emplace(*x.judge, graph, options).loadCandidates(engine.quantConfigs());
}

}  // namespace

RecipeSearchResult suggestRecipe(const Engine& engine, const Graph& graph, const std::string& config,
                                 const RecipeSearchOptions& options) {
  RecipeSearchResult out;
  Opened opened;
  if (out.status = open(engine, graph, options, opened); !out.ok()) return out;
  Search& s = *opened.search;
  const Engine& judge = *opened.judge;
  StatusOr<Candidate> base = s.selection(config);
  if (!base.isOk()) {
    out.status = base.status();
    return out;
  }
  out.base = base->text;
  const Verdicts baseRun = s.run(base->text, nullptr);
  if (!baseRun.ran) {
    out.status = baseRun.status;
    out.runs = s.runs();
    return out;
  }
  // Per node, the candidates nearest the base first (ties: the more precise).
  std::vector<size_t> nearest(s.candidates().size());
  for (size_t i = 0; i < nearest.size(); ++i) nearest[i] = i;
  std::stable_sort(nearest.begin(), nearest.end(), [&](size_t a, size_t b) {
    return distance(*base, s.candidates()[a]) < distance(*base, s.candidates()[b]);
  });
  auto orderFor = [&](const std::string& node) {
    std::vector<size_t> order;
    for (size_t c : nearest)
      if (s.candidates()[c].text != base->text && !s.under(c).fails(node) && s.under(c).ran) order.push_back(c);
    return order;
  };
  std::map<std::string, Pick> picks;
  for (const auto& [node, d] : baseRun.firstError) picks.emplace(node, Pick{orderFor(node), 0});
  settle(s, *base, picks, baseRun, orderFor, options, out);
  out.runs = s.runs();
  out.note = fmt::format(
      "qnn-validate --suggest-recipe: per-node overrides that make the graph valid with {} on {} ({}); "
      "use with --annotate {} --recipe THIS_FILE",
      out.base, judge.soc().name, judge.rules().backend(), out.base);
  return out;
}

RecipeSearchResult planPrecision(const Engine& engine, const Graph& graph, const RecipeSearchOptions& options) {
  RecipeSearchResult out;
  Opened opened;
  if (out.status = open(engine, graph, options, opened); !out.ok()) return out;
  Search& s = *opened.search;
  const Engine& judge = *opened.judge;
  if (s.candidates().empty()) {
    out.status = Status(StatusCode::kInvalidArgument, "no candidate config to plan with");
    return out;
  }
  // The base is the most precise candidate: every node it takes needs no override.
  const Candidate& base = s.candidates().front();
  out.base = base.text;
  const Verdicts& baseRun = s.under(0);
  if (!baseRun.ran) {
    out.status = baseRun.status;
    out.runs = s.runs();
    return out;
  }
  auto orderFor = [&](const std::string& node) {
    std::vector<size_t> order;
    for (size_t c = 1; c < s.candidates().size(); ++c)
      if (s.under(c).ran && !s.under(c).fails(node)) order.push_back(c);
    return order;
  };
  std::map<std::string, Pick> picks;
  for (const auto& [node, d] : baseRun.firstError) picks.emplace(node, Pick{orderFor(node), 0});
  settle(s, base, picks, baseRun, orderFor, options, out);
  out.runs = s.runs();
  std::unordered_set<std::string> moved, cpu;
  for (const NodeChoice& c : out.choices) {
    moved.insert(c.node);
    ++out.nodesPerConfig[c.to];
  }
  for (const NodeOnCpu& c : out.onCpu) cpu.insert(c.node);
  for (const auto& [node, op] : baseRun.callNodes)
    if (!moved.count(node) && !cpu.count(node)) ++out.nodesPerConfig[base.text];
  for (NodeChoice& c : out.choices) c.from.clear();
  out.note = fmt::format(
      "qnn-validate --plan: per node, the most precise config the {} backend takes on {}; use with "
      "--annotate {} --recipe THIS_FILE",
      judge.rules().backend(), judge.soc().name, out.base);
  return out;
}

std::string RecipeSearchResult::yaml() const {
  YAML::Emitter e;
  e << YAML::Comment(note);
  e << YAML::BeginMap;
  e << YAML::Key << "version" << YAML::Value << 1;
  if (recipe.defaultSelection) e << YAML::Key << "default" << YAML::Value << base;
  if (!choices.empty()) {
    e << YAML::Key << "overrides" << YAML::Value << YAML::BeginSeq;
    for (size_t i = 0; i < choices.size(); ++i) {
      const NodeChoice& c = choices[i];
      e << YAML::BeginMap;
      e << YAML::Key << "name" << YAML::Value << YAML::SingleQuoted << recipe.overrides[i].pattern;
      e << YAML::Key << "config" << YAML::Value << c.to;
      // A plan's choices have no `from`: the reason was given under the plan's base.
      std::string why = c.op + (c.why.empty() ? "" : "; under " + (c.from.empty() ? base : c.from) + ": " + c.why);
      e << YAML::Key << "note" << YAML::Value << escapeControls(why);  // read back by YAML: no raw control character
      e << YAML::EndMap;
    }
    e << YAML::EndSeq;
  }
  e << YAML::EndMap;
  std::string text = e.c_str();
  if (!onCpu.empty()) {
    text += "\n# Stay on CPU (no candidate config makes them valid):\n";
    for (const NodeOnCpu& n : onCpu) {
      // A comment is still YAML text: the names' control characters (newline too) escaped.
      text += "#   " + escapeControls(n.node) + " (" + escapeControls(n.op) + "): " + escapeControls(n.why) + "\n";
    }
  }
  if (text.empty() || text.back() != '\n') text += "\n";
  return text;
}

std::string RecipeSearchResult::text() const {
  std::string s;
  if (!ok()) return "error: " + status.message() + "\n";
  // Names from the graph, shown escaped: the summary goes to a terminal.
  for (const NodeChoice& c : choices)
    s += fmt::format("  {} ({}): {}{}\n", escapeControls(c.node), escapeControls(c.op),
                     c.from.empty() ? "" : c.from + " -> ", c.to) +
         (c.why.empty() ? "" : "    was: " + escapeControls(c.why) + "\n");
  if (!onCpu.empty()) {
    s += "stays on CPU:\n";
    for (const NodeOnCpu& n : onCpu)
      s += fmt::format("  {} ({}): {}\n", escapeControls(n.node), escapeControls(n.op), escapeControls(n.why));
  }
  if (!nodesPerConfig.empty()) {
    s += "nodes per config:";
    for (const auto& [config, count] : nodesPerConfig) s += fmt::format(" {} {},", config, count);
    s.back() = '\n';
  }
  const char* verdict = !validatesClean ? "still has errors"
                        : onCpu.empty()  ? "validates clean"
                                         : "validates clean apart from the nodes that stay on CPU";
  s += fmt::format("{} override(s), {} node(s) stay on CPU; with the recipe the graph {} ({} runs)\n", choices.size(),
                   onCpu.size(), verdict, runs);
  return s;
}

}  // namespace qnnrules
