// Shared by the annotation, recipe, QDQ and encoding tests: the compact test rule table in
// tests/data/annotate/rules, the real quant_configs.yaml, and graph helpers.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "qnnrules/annotate/Annotator.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/model/QuantConfig.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/validate/Validator.h"
#include "TestHardware.h"

namespace qnnrules::testing {

inline std::string annotateData(const std::string& rel) { return std::string(QNNRULES_TEST_DATA_DIR) + "/annotate/" + rel; }
inline std::string quantConfigPath() { return std::string(QNNRULES_SOURCE_DIR) + "/rules/quant_configs.yaml"; }

inline const RuleSet& annotateRules() {
  static const RuleSet rules = [] {
    std::vector<Rule> out;
    DiagnosticList errors;
    loadRuleFile(annotateData("rules/htp/ops.yaml"), "ops.yaml", out, errors, {}, gatedBy("htp"));
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : formatText(errors[0]));
    return RuleSet("htp", std::move(out));
  }();
  return rules;
}

inline const QuantConfigTable& quantConfigs() {
  static const QuantConfigTable table = [] {
    QuantConfigTable t;
    DiagnosticList errors;
    loadQuantConfigFile(quantConfigPath(), "rules/quant_configs.yaml", t, errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : formatText(errors[0]));
    return t;
  }();
  return table;
}

inline SocInfo soc(const std::string& name) {
  return socAt(name == "SM8350" ? "V68" : name == "SM8450" ? "V69" : "V75", name);
}

inline Graph readGraph(const std::string& path) {
  GraphReadResult r = readGraphFile(path);
  EXPECT_TRUE(r.ok()) << r.status.message() << (r.errors.empty() ? "" : formatText(r.errors[0]));
  return std::move(r.graph);
}

inline Graph readGraphJson(const std::string& text) {
  GraphReadResult r = readGraphText(text, "test.json");
  EXPECT_TRUE(r.ok()) << r.status.message() << (r.errors.empty() ? "" : formatText(r.errors[0]));
  return std::move(r.graph);
}

inline ConfigSelection select(const std::string& text) {
  StatusOr<ConfigSelection> s = parseConfigSelection(quantConfigs(), text);
  EXPECT_TRUE(s.isOk()) << s.status().message();
  return s.isOk() ? *s : ConfigSelection{};
}

inline AnnotateResult annotate(Graph& g, const std::string& config, const Recipe* recipe = nullptr,
                               AnnotateOptions opt = {}) {
  return annotateGraph(g, annotateRules(), quantConfigs(), select(config), recipe, opt);
}

inline const Node& node(const Graph& g, const std::string& name) { return g.node(*g.findNode(name)); }

inline std::string dump(const DiagnosticList& ds) {
  std::string s;
  for (const Diagnostic& d : ds) s += formatText(d) + "\n";
  return s;
}

}  // namespace qnnrules::testing
