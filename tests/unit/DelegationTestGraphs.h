// Graphs and rules shared by the delegation tests (partitioner, DOT, CLI): the rule set in
// tests/data/delegation/rules and a compact builder for chains and branches of ops.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "qnnrules/io/GraphReader.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/model/RuleSet.h"
#include "qnnrules/model/Soc.h"
#include "TestHardware.h"

namespace qnnrules::testing {

inline const std::string kDelegationData = QNNRULES_TEST_DATA_DIR "/delegation";

// The test rule set loaded as backend `backend` ("htp" or "lpai"), with its manifest when it
// has one (lpai/backend.yaml): the manifest's `delegation` facts pick the policy.
inline RuleSet delegationRules(const std::string& backend) {
  std::vector<Rule> rules;
  DiagnosticList errors;
  auto manifest = std::make_shared<BackendManifest>();
  loadManifestFile(kDelegationData + "/rules/" + backend + "/backend.yaml", backend + "/backend.yaml", *manifest,
                   errors);
  loadRuleFile(kDelegationData + "/rules/" + backend + "/ops.yaml", backend + "/ops.yaml", rules, errors, {},
               gatedBy(manifest->hardware, manifest.get()));
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : formatText(errors[0]));
  return RuleSet(backend, std::move(rules), std::move(manifest));
}

// A SoC with an HTP version (the delegation test rules gate on it).
inline SocInfo testSoc(const char* htp = "V75", const char* name = "SM8650") { return socAt(htp, name); }

// Builds graph JSON: every tensor edge and output is uint8 per-tensor unless stated.
class GraphBuilder {
 public:
  using json = nlohmann::json;

  GraphBuilder() { j_ = {{"format", "qnnrules-graph"}, {"version", 1}, {"name", "g"}, {"nodes", json::array()}}; }

  static json u8() { return {{"dtype", "uint8"}, {"quant_min", 0}, {"quant_max", 255}, {"qscheme", "per_tensor_affine"}}; }
  static json s8() {
    return {{"dtype", "int8"}, {"quant_min", -127}, {"quant_max", 127}, {"qscheme", "per_tensor_symmetric"}};
  }
  static json ref(const std::string& node, json qspec = u8(), int output = 0) {
    json r = {{"ref", node}};
    if (output) r["output"] = output;
    if (!qspec.is_null()) r["qspec"] = std::move(qspec);
    return r;
  }
  static json tensor(json qspec = u8()) {
    json o = {{"dtype", "float32"}, {"shape", {1, 8}}};
    if (!qspec.is_null()) o["qspec"] = std::move(qspec);
    return o;
  }

  GraphBuilder& input(const std::string& name, json qspec = u8()) {
    return add({{"name", name}, {"kind", "input"}, {"outputs", {tensor(std::move(qspec))}}});
  }
  GraphBuilder& param(const std::string& name) {
    return add({{"name", name}, {"kind", "parameter"}, {"outputs", {tensor(nullptr)}}});
  }
  // An op whose inputs are u8 edges from `inputs`, with `outputs` u8 outputs.
  GraphBuilder& op(const std::string& name, const std::string& target, const std::vector<std::string>& inputs,
                   int outputs = 1) {
    json::array_t args;
    for (const std::string& i : inputs) args.push_back(ref(i));
    json::array_t outs;
    for (int k = 0; k < outputs; ++k) outs.push_back(tensor());
    return call(name, target, std::move(args), std::move(outs));
  }
  // Lists, not `json`: clang applies CWG 2137, so a one-element `{x}` passed as `json` copies x
  // instead of making the list [x] as GCC does.
  GraphBuilder& call(const std::string& name, const std::string& target, json::array_t args, json::array_t outputs) {
    return add({{"name", name}, {"kind", "call"}, {"target", target}, {"args", std::move(args)},
                {"outputs", std::move(outputs)}});
  }
  GraphBuilder& output(const std::vector<std::string>& from) {
    json list = json::array();
    for (const std::string& f : from) list.push_back({{"ref", f}});
    return add({{"name", "output"}, {"kind", "output"}, {"args", {list}}});
  }
  // A chain x -> ops[0] -> ops[1] -> ... -> output, each op named by its position ("n0", ...).
  static GraphBuilder chain(const std::vector<std::string>& targets) {
    GraphBuilder g;
    g.input("x");
    std::string prev = "x";
    for (size_t i = 0; i < targets.size(); ++i) {
      std::string name = "n" + std::to_string(i);
      g.op(name, targets[i], {prev});
      prev = name;
    }
    g.output({prev});
    return g;
  }

  std::string text() const { return j_.dump(1); }
  Graph build() const {
    GraphReadResult r = readGraphText(j_.dump(), "test.json");
    EXPECT_TRUE(r.ok()) << r.status.toString() << (r.errors.empty() ? "" : "\n" + formatText(r.errors[0]));
    return std::move(r.graph);
  }

 private:
  GraphBuilder& add(json node) {
    j_["nodes"].push_back(std::move(node));
    return *this;
  }
  json j_;
};

}  // namespace qnnrules::testing
