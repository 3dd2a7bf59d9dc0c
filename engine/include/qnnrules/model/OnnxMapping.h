// How ONNX op types reach the rules. Rules are keyed by ATen target; a rule's `onnx` key
// (docs/rule-format.md) lists the ONNX op types that lower to the same QNN op, with the ONNX
// input -> port mapping and the conditions that split one ONNX op between rules (Conv of rank
// 5 is conv3d; MatMul with a constant second input is a linear layer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qnnrules/core/SourceMark.h"

namespace qnnrules {

// One `onnx` entry of a rule, as written.
struct OnnxMapping {
  std::string opType;                   // ONNX op type of the default domain ("Conv")
  // ONNX input i -> the rule's port of that name; "" = not constrained. Empty list: the
  // rule's input ports in declaration order.
  std::vector<std::string> inputs;
  bool restAsList = false;              // last port written "name...": it takes every later ONNX input, as a list
  std::string aten;                     // the rule target the node is reported as; "" = the rule's first
  std::vector<int> ranks;               // rank of ONNX input 0 must be one of these; empty = any
  std::vector<int> constantInputs;      // ONNX inputs that must be constants (initializers, also through a DequantizeLinear)
  std::vector<int> activationInputs;    // ONNX inputs that must not be constants
  SourceMark mark;
};

// An entry compiled at load time (RuleSet::onnxCandidates): port names resolved to indices.
struct OnnxCandidate {
  uint32_t rule = 0;                    // index into RuleSet::rules()
  uint32_t mapping = 0;                 // index into that rule's Rule::onnx
  std::vector<int> portOf;              // ONNX input i -> index into Rule::ports; -1 = not constrained
  std::string target;                   // the ATen target a bound node takes (one of the rule's targets)
  bool lastTakesRest = false;           // portOf's last port takes it and every later ONNX input, as a list
};

// Whether one node could satisfy both entries' conditions (same op type assumed): then two
// rules would claim it, which the loader reports like two rules claiming one ATen target.
bool onnxConditionsOverlap(const OnnxMapping& a, const OnnxMapping& b);

// "Conv (rank 3 or 4, input 1 constant)": the entry as docs and messages show it.
std::string describeOnnxMapping(const OnnxMapping& m);

}  // namespace qnnrules
