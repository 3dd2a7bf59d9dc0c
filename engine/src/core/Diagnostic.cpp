#include "qnnrules/core/Diagnostic.h"

#include "qnnrules/core/JsonWriter.h"
#include "qnnrules/core/TerminalText.h"

namespace qnnrules {

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::kNote: return "note";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

std::string_view diagCodeName(DiagCode c) {
  switch (c) {
#define QNNRULES_DIAG(enumerator, number, name, group, meaning) \
  case DiagCode::enumerator:                                    \
    return name;
#include "qnnrules/core/DiagCodes.def"
  }
  return "unknown";
}

size_t countSeverity(const DiagnosticList& diags, Severity s) {
  size_t n = 0;
  for (const Diagnostic& d : diags) n += d.severity == s;
  return n;
}

// Every field is escaped (core/TerminalText.h): each is one line of text that may come from
// the input (the hint excepted: its line feeds are the engine's), and this is what terminals,
// logs and the text report show.
std::string formatText(const Diagnostic& d) {
  // Appended piece by piece into one string: a run with 100k warnings renders each of them.
  std::string s;
  s.reserve(96 + d.node.size() + d.op.size() + d.sourceOp.size() + d.module.size() + d.port.size() + d.message.size() +
            d.ruleId.size() + d.variant.size() + d.expected.size() + d.actual.size() + d.hint.size());
  // `before`, the field escaped, `after`.
  const auto field = [&](std::string_view before, std::string_view value, std::string_view after) {
    s += before;
    appendEscapedControls(s, value);
    s += after;
  };
  s += severityName(d.severity);
  s += '[';
  s += diagCodeName(d.code);
  s += "]: ";
  if (!d.node.empty()) {
    field("node '", d.node, "'");
    // An ONNX node names its own op type first: "(onnx::Gemm as aten.linear.default)".
    if (!d.sourceOp.empty() && d.sourceOp != d.op) field(" (", d.sourceOp, d.op.empty() ? ")" : " as ");
    if (!d.op.empty()) field(d.sourceOp.empty() || d.sourceOp == d.op ? " (" : "", d.op, ")");
    if (!d.module.empty()) field(" in module '", d.module, "'");
    if (!d.port.empty()) field(" port ", d.port, "");
    s += ": ";
  }
  field("", d.message, "\n");
  if (d.mark.known() || !d.ruleId.empty()) {
    s += "  --> ";
    if (d.mark.known()) field("", d.mark.toString(), "");
    // Graph-file diagnostics locate the value by its JSON pointer, carried in `port`.
    if (d.node.empty() && !d.port.empty()) field(" at ", d.port, "");
    if (!d.ruleId.empty()) {
      field(d.mark.known() ? " (rule " : "(rule ", d.ruleId, "");
      if (!d.variant.empty()) field(", variant ", d.variant, "");
      s += ')';
    }
    s += '\n';
  }
  if (!d.expected.empty()) field("  expected: ", d.expected, "\n");
  if (!d.actual.empty()) field("  actual:   ", d.actual, "\n");
  // A hint may be several lines the engine wrote (a rule file to start from): its own line
  // feeds are kept.
  if (!d.hint.empty()) {
    s += "  hint:     ";
    appendEscapedControlsKeepingLines(s, d.hint);
    s += '\n';
  }
  return s;
}

std::string primaryLocation(const Diagnostic& d) {
  if (!d.node.empty()) {
    std::string s = "node '" + d.node + "'";
    if (!d.sourceOp.empty() && d.sourceOp != d.op) s += " (" + d.sourceOp + (d.op.empty() ? ")" : " as " + d.op + ")");
    else if (!d.op.empty()) s += " (" + d.op + ")";
    if (!d.port.empty()) s += " port " + d.port;
    return s;
  }
  // A file error: the file:line:column, and the JSON pointer into it when there is one.
  std::string s = d.mark.known() && d.ruleId.empty() ? d.mark.toString() : "";
  if (!d.port.empty()) s += (s.empty() ? "" : " ") + std::string("at ") + d.port;
  return s;
}

std::vector<DiagnosticNote> notesOf(const Diagnostic& d) {
  std::vector<DiagnosticNote> notes;
  if (!d.ruleId.empty()) {
    std::string m = "rule " + d.ruleId;
    if (!d.variant.empty()) m += ", variant " + d.variant;
    notes.push_back({d.mark, std::move(m)});
  }
  if (!d.expected.empty()) notes.push_back({{}, "expected: " + d.expected});
  if (!d.actual.empty()) notes.push_back({{}, "actual: " + d.actual});
  if (!d.hint.empty()) notes.push_back({{}, "hint: " + d.hint});
  return notes;
}

void writeJsonLocation(JsonWriter& w, std::string_view key, const SourceMark& mark) {
  w.key(key);
  if (!mark.known()) {
    w.null();
    return;
  }
  w.beginObject();
  w.field("column", mark.column);
  w.field("file", *mark.file);
  w.field("line", mark.line);
  w.endObject();
}

namespace {

// Keys in sorted order, as the nlohmann DOM this replaces printed them (golden outputs).
void writeJson(JsonWriter& w, const Diagnostic& d) {
  w.beginObject();
  w.field("actual", d.actual);
  w.field("code", diagCodeName(d.code));
  w.field("expected", d.expected);
  w.field("hint", d.hint);
  writeJsonLocation(w, "location", d.mark);
  w.field("message", d.message);
  if (!d.module.empty()) w.field("module", d.module);  // only when known: reports without one keep their bytes
  w.field("node", d.node);
  w.key("notes");
  w.beginArray();
  for (const DiagnosticNote& n : notesOf(d)) {
    w.beginObject();
    writeJsonLocation(w, "location", n.mark);
    w.field("message", n.message);
    w.endObject();
  }
  w.endArray();
  w.field("op", d.op);
  w.field("port", d.port);
  w.field("primary", primaryLocation(d));
  w.field("rule", d.ruleId);
  w.field("severity", severityName(d.severity));
  if (!d.sourceOp.empty()) w.field("source_op", d.sourceOp);  // node diagnostics: the file's op type
  w.field("variant", d.variant);
  w.endObject();
}

}  // namespace

std::string formatJson(const Diagnostic& d) {
  std::string s;
  JsonWriter w(s, /*indent=*/-1);
  writeJson(w, d);
  return s;
}

std::string formatJsonArray(const DiagnosticList& diags, int level) {
  std::string s;
  JsonWriter w(s, /*indent=*/2, level);
  writeJsonArray(w, diags);
  return s;
}

void writeJsonArray(JsonWriter& w, const DiagnosticList& diags) {
  w.beginArray();
  for (const Diagnostic& d : diags) writeJson(w, d);
  w.endArray();
}

}  // namespace qnnrules
