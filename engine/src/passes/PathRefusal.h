// The diagnostic of a node a lowering path refuses before the backend is asked (a shape known only
// at run time, one of its cpu_forms): an error on the node, its rule and the place in the lowering
// file that says so. The caller adds port, expected, actual and hint. Shared by the passes
// DynamicShapes and CpuForms, so both read alike in every report.
#pragma once

#include <cstdint>
#include <string>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/graph/Graph.h"
#include "qnnrules/model/Rule.h"

namespace qnnrules {

inline Diagnostic pathRefusal(const Graph& g, uint32_t node, const Rule& rule, DiagCode code, const SourceMark& mark,
                              const std::string& message) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.code = code;
  d.node = g.node(node).name;
  d.nodeIndex = node;
  d.op = std::string(g.target(g.node(node)));
  d.ruleId = rule.id;
  d.mark = mark;
  d.message = message;
  return d;
}

}  // namespace qnnrules
