// Diagnostics are values attached to a location: passes return them, front ends print them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/core/SourceMark.h"

namespace qnnrules {

class JsonWriter;

enum class Severity : uint8_t { kNote, kWarning, kError };
std::string_view severityName(Severity s);  // "note", "warning", "error"

// Stable codes, each with its number, name, group and meaning in DiagCodes.def (the one list).
enum class DiagCode : uint16_t {
#define QNNRULES_DIAG(enumerator, number, name, group, meaning) enumerator = number,
#include "qnnrules/core/DiagCodes.def"
};
std::string_view diagCodeName(DiagCode c);  // "no-rule", "arch-gate", "unknown-key", ...

struct Diagnostic {
  Severity severity = Severity::kError;
  DiagCode code = DiagCode::kNoRule;
  std::string message;   // one sentence; for constraint checks, the rule's own documentation text
  // Graph context (empty for rule-file diagnostics).
  std::string node;
  std::string op;        // ATen target
  // The op type the user's file names for the node ("onnx::Gemm" for an ONNX node bound to
  // aten.linear.default; a .pt2's ATen target, the same as `op`); empty without a node.
  std::string sourceOp;
  std::string port;      // e.g. "in[1] weight", "out[0] output"
  // Where the node sits in the model: its module path ("layer1.0.conv1", a .pt2's
  // nn_module_stack) or an ONNX node name's namespace ("/layer1/layer1.0/conv1"); may be empty.
  std::string module;
  // Rule context.
  std::string ruleId;
  std::string variant;
  SourceMark mark;       // rule file:line:column (or the file the error is in)
  std::string expected;
  std::string actual;
  std::string hint;      // how to fix it
  // The node's index in the graph the run judged (after the Q/DQ fold), so later passes find it
  // without looking its name up again; kNoNode for file errors and for diagnostics about nodes
  // of the graph before the fold.
  static constexpr uint32_t kNoNode = UINT32_MAX;
  uint32_t nodeIndex = kNoNode;
};

using DiagnosticList = std::vector<Diagnostic>;

// A diagnostic has one primary location, where the problem is: the graph node (and port) for
// graph diagnostics, the file:line:column for rule- and graph-file errors. Everything else is
// a note (in the manner of MLIR): the rule's file:line with its id and variant, the expected
// and actual values, the hint. Notes are derived from the fields, so every output (text,
// JSON, Python) reads the same structure.
struct DiagnosticNote {
  SourceMark mark;      // where the note points (unknown for expected / actual / hint)
  std::string message;  // "rule htp.linear, variant a16w4_block", "expected: HTP V69 or newer"
};
// "node 'proj' (aten.linear.default) port in[1] weight" (an ONNX node: "node 'fc' (onnx::Gemm as
// aten.linear.default)"), or "rules/x.yaml:3:5 at /nodes/2"
// for a file error, or "" when the diagnostic has no location.
std::string primaryLocation(const Diagnostic& d);
std::vector<DiagnosticNote> notesOf(const Diagnostic& d);

size_t countSeverity(const DiagnosticList& diags, Severity s);

// Human-readable, one block per diagnostic:
//   error[arch-gate]: node 'mm' (aten.matmul.default) port in[1] other: <message>
//     --> rules/htp/ops/matmul.yaml:30:9 (rule htp.matmul, variant a16w16)
//     expected: HTP V73 or newer
//     actual:   SM8450 is V69
//     hint:     use 16a8w (8-bit weights) on this SoC
std::string formatText(const Diagnostic& d);
// One JSON object per diagnostic, every field present (empty strings / null line), and its
// primary location and notes ("primary", "notes": [{"message", "location"}]).
std::string formatJson(const Diagnostic& d);
// `key`: {"column", "file", "line"} of a known mark, else null (the reports' "location").
void writeJsonLocation(JsonWriter& w, std::string_view key, const SourceMark& mark);
// Indented two spaces per level; `level` > 0 for an array spliced into a document at that
// depth (the CLI report).
std::string formatJsonArray(const DiagnosticList& diags, int level = 0);
// The same array written into `w` at its current position (a report written in one pass).
void writeJsonArray(JsonWriter& w, const DiagnosticList& diags);

}  // namespace qnnrules
