// Baselines (report/Baseline.h).
#include "qnnrules/report/Baseline.h"


#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <string_view>

namespace qnnrules {

namespace {

using json = nlohmann::json;

// The deepest nesting a report has (a SARIF result's message or location: 7); deeper is not a
// report, and is refused before it costs anything.
constexpr size_t kMaxDepth = 16;

// Reads a baseline as it streams by (nlohmann's SAX interface): nothing but the findings is
// kept, so memory follows the findings, not the file; trailing text after the document, a
// value of the wrong type where a report has a string, and a finding that is not an object
// are refused with what and where. Both formats are collected and the document's top level
// decides which one it is:
//   qnn-validate --format json: {"tool": "qnn-validate", "version", "diagnostics": [{"code",
//     "node", "port", "rule", "message", ...}], "baseline": {"unchanged": [...]}} (a report
//     made with a baseline also holds that baseline's unchanged findings);
//   --format sarif: {"version": "2.1.0", "runs": [{"results": [{"ruleId", "baselineState",
//     "properties": {"code", "node", "port"}, "message": {"text"}}]}]}; results already absent
//     from that run's own baseline are not findings of it, and a ruleId that is the diagnostic
//     code (no rule involved, report/SarifWriter.h) is no rule.
class BaselineSax : public nlohmann::json_sax<json> {
 public:
  std::vector<BaselineFinding> report, sarif;
  std::string tool, version, problem;
  bool hasDiagnostics = false, hasRuns = false;

  bool null() override { return scalar("null"); }
  bool boolean(bool) override { return scalar("a boolean"); }
  bool number_integer(number_integer_t) override { return scalar("a number"); }
  bool number_unsigned(number_unsigned_t) override { return scalar("a number"); }
  bool number_float(number_float_t, const string_t&) override { return scalar("a number"); }
  bool binary(binary_t&) override { return scalar("binary data"); }
  bool string(string_t& v) override {
    const Where w = where();
    switch (w) {
      case Where::kTool: tool = std::move(v); break;
      case Where::kVersion: version = std::move(v); break;
      case Where::kFindingField: finding_.field(key(), std::move(v)); break;
      case Where::kPropertiesField: finding_.property(key(), std::move(v)); break;
      case Where::kMessageText: finding_.text = std::move(v); break;
      case Where::kFinding: case Where::kList: return fail("a string where " + expected(w) + " belongs");
      default: break;
    }
    return consumed();
  }
  bool start_object(std::size_t) override {
    const Where w = where();
    if (w == Where::kTool || w == Where::kVersion || w == Where::kFindingString || w == Where::kPropertiesField ||
        w == Where::kMessageText)
      return fail("an object where " + expected(w == Where::kTool || w == Where::kVersion ? w : Where::kFindingString) +
                  " belongs");
    if (w == Where::kList) return fail("an object where a list belongs");
    if (w == Where::kFinding) finding_ = Finding{};
    return push(w, true);
  }
  bool end_object() override {
    const Frame f = pop();
    if (f.where == Where::kFinding) {
      if (inSarif()) {
        if (finding_.baselineState != "absent") {
          FindingIdentity id{finding_.code, finding_.node, finding_.port, finding_.ruleId};
          if (id.ruleId == id.code) id.ruleId.clear();
          sarif.push_back({std::move(id), std::move(finding_.text)});
        }
      } else {
        if (!finding_.sawCode) return fail("a diagnostic without a \"code\"");
        report.push_back({{finding_.code, finding_.node, finding_.port, finding_.rule}, std::move(finding_.message)});
      }
    }
    return consumed();
  }
  bool start_array(std::size_t) override {
    const Where w = where();
    if (w == Where::kTool || w == Where::kVersion || w == Where::kFindingString || w == Where::kFinding ||
        w == Where::kPropertiesField || w == Where::kMessageText)
      return fail("a list where " +
                  expected(w == Where::kPropertiesField || w == Where::kMessageText ? Where::kFindingString : w) +
                  " belongs");
    if (w == Where::kList && frames_.size() == 1) (key() == "diagnostics" ? hasDiagnostics : hasRuns) = true;
    return push(w, false);
  }
  bool end_array() override {
    pop();
    return consumed();
  }
  bool key(string_t& k) override {
    frames_.back().key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    if (problem.empty()) problem = fmt::format("is not JSON (at byte {})", position);
    return false;
  }

 private:
  // What the value about to be read is, from where it stands.
  enum class Where : uint8_t {
    kOther,            // anything a finding does not depend on
    kTool, kVersion,   // the top level's "tool" and "version": strings
    kList,             // "diagnostics", "baseline"."unchanged", "runs", a run's "results": lists
    kRun,              // an element of "runs"
    kFinding,          // an element of a findings list: an object
    kFindingString,    // a finding's code, node, port, rule, message, ruleId, baselineState
    kFindingField = kFindingString,
    kProperties,       // a SARIF result's "properties", "message": objects
    kPropertiesField,  // their code, node, port
    kMessageText,      // a SARIF result's message text
  };
  struct Frame {
    Where where;
    bool object;
    std::string key;
  };
  struct Finding {
    std::string code, node, port, rule, message, ruleId, baselineState, text;
    bool sawCode = false;
    void field(const std::string& k, std::string v) {
      if (k == "code") code = std::move(v), sawCode = true;
      else if (k == "node") node = std::move(v);
      else if (k == "port") port = std::move(v);
      else if (k == "rule") rule = std::move(v);
      else if (k == "message") message = std::move(v);
      else if (k == "ruleId") ruleId = std::move(v);
      else if (k == "baselineState") baselineState = std::move(v);
    }
    void property(const std::string& k, std::string v) {
      if (k == "code") code = std::move(v);
      else if (k == "node") node = std::move(v);
      else if (k == "port") port = std::move(v);
    }
  };

  const std::string& key() const { return frames_.back().key; }
  bool inSarif() const { return frames_.size() >= 2 && frames_[0].key == "runs"; }

  Where where() const {
    if (frames_.empty()) return Where::kOther;
    const Frame& f = frames_.back();
    const size_t depth = frames_.size();
    if (depth == 1) {
      if (f.key == "tool") return Where::kTool;
      if (f.key == "version") return Where::kVersion;
      if (f.key == "diagnostics" || f.key == "runs") return Where::kList;
      return Where::kOther;
    }
    switch (f.where) {
      case Where::kList:
        if (depth == 2 && frames_[0].key == "runs") return Where::kRun;
        return Where::kFinding;
      case Where::kRun: return f.key == "results" ? Where::kList : Where::kOther;
      case Where::kOther:
        // "baseline": {"unchanged": [...]} of a report made with a baseline.
        if (depth == 2 && frames_[0].key == "baseline" && f.object && f.key == "unchanged") return Where::kList;
        return Where::kOther;
      case Where::kFinding: {
        static const char* const kStrings[] = {"code", "node", "port", "rule", "message", "ruleId", "baselineState"};
        if (inSarif() && (f.key == "properties" || f.key == "message")) return Where::kProperties;
        for (const char* k : kStrings)
          if (f.key == k && (inSarif() ? k == std::string_view("ruleId") || k == std::string_view("baselineState")
                                       : k != std::string_view("ruleId") && k != std::string_view("baselineState")))
            return Where::kFindingString;
        return Where::kOther;
      }
      case Where::kProperties: {
        const std::string& owner = frames_[depth - 2].key;
        if (owner == "message") return f.key == "text" ? Where::kMessageText : Where::kOther;
        return f.key == "code" || f.key == "node" || f.key == "port" ? Where::kPropertiesField : Where::kOther;
      }
      default: return Where::kOther;
    }
  }

  static std::string expected(Where w) {
    switch (w) {
      case Where::kTool: return "the \"tool\" (a string)";
      case Where::kVersion: return "the \"version\" (a string)";
      case Where::kFinding: return "a finding (an object)";
      case Where::kFindingString: return "a finding's field (a string)";
      case Where::kList: return "a list";
      default: return "a value";
    }
  }

  bool scalar(const char* what) {
    const Where w = where();
    if (w == Where::kTool || w == Where::kVersion || w == Where::kFindingString || w == Where::kFinding ||
        w == Where::kList || w == Where::kPropertiesField || w == Where::kMessageText)
      return fail(std::string(what) + " where " + expected(w == Where::kPropertiesField || w == Where::kMessageText
                                                                ? Where::kFindingString
                                                                : w) + " belongs");
    return consumed();
  }
  bool push(Where w, bool object) {
    if (frames_.size() >= kMaxDepth) return fail(fmt::format("is nested deeper than {} levels", kMaxDepth));
    frames_.push_back({w, object, {}});
    return true;
  }
  Frame pop() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    return f;
  }
  // A value was read (a container: closed): the key it belonged to is done.
  bool consumed() {
    if (!frames_.empty() && frames_.back().object) frames_.back().key.clear();
    return true;
  }
  bool fail(std::string why) {
    // The path of keys to where it stands, e.g. /diagnostics/runs.
    std::string path;
    for (const Frame& f : frames_)
      if (!f.key.empty()) path += "/" + f.key;
    if (problem.empty()) problem = why + (path.empty() ? "" : " (at " + path + ")");
    return false;
  }

  std::vector<Frame> frames_;
  Finding finding_;
};

}  // namespace

FindingIdentity findingIdentity(const Diagnostic& d) {
  return {std::string(diagCodeName(d.code)), d.node, d.port, d.ruleId};
}

namespace {

// Streamed: the text is never held whole, and only its findings are kept (a file of a
// gigabyte of zeros is refused at its first byte).
template <typename Input>
Status parseBaseline(Input&& in, const std::string& file, Baseline& out) {
  BaselineSax sax;
  const bool parsed = json::sax_parse(std::forward<Input>(in), &sax, json::input_format_t::json, /*strict=*/true);
  const std::string neither =
      " is neither a qnn-validate JSON report (--format json) nor a SARIF 2.1.0 log (--format sarif)";
  if (!parsed) {
    if (sax.problem.rfind("is not JSON", 0) == 0)
      return Status(StatusCode::kParseError, "baseline " + file + " " + sax.problem, file);
    return Status(StatusCode::kSchemaError, "baseline " + file + neither + ": " + sax.problem, file);
  }
  if (sax.hasRuns && sax.version == "2.1.0") {
    out.findings = std::move(sax.sarif);
  } else if (sax.hasDiagnostics && sax.tool == "qnn-validate") {
    out.findings = std::move(sax.report);
  } else {
    return Status(StatusCode::kSchemaError, "baseline " + file + neither, file);
  }
  return Status::ok();
}

}  // namespace

Status readBaseline(const std::filesystem::path& path, Baseline& out) {
  out = Baseline{path.string(), {}};
  const std::string file = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Status(StatusCode::kNotFound, "baseline " + file + " is not a file", file);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kIoError, "cannot read baseline " + file, file);
  Status st = parseBaseline(in, file, out);
  if (in.bad()) return Status(StatusCode::kIoError, "cannot read baseline " + file, file);
  return st;
}

Status readBaselineText(std::string_view text, const std::string& name, Baseline& out) {
  out = Baseline{name, {}};
  return parseBaseline(text, name, out);
}

BaselineComparison compareWithBaseline(DiagnosticList& diagnostics, const Baseline& baseline) {
  BaselineComparison out;
  out.file = baseline.file;
  // How many of each identity the baseline still has to match, and which of its findings.
  std::map<FindingIdentity, std::vector<size_t>> remaining;
  for (size_t i = baseline.findings.size(); i-- > 0;) remaining[baseline.findings[i].id].push_back(i);
  std::vector<bool> matched(baseline.findings.size(), false);
  DiagnosticList fresh;
  for (Diagnostic& d : diagnostics) {
    auto it = remaining.find(findingIdentity(d));
    if (it == remaining.end() || it->second.empty()) {
      fresh.push_back(std::move(d));
      continue;
    }
    matched[it->second.back()] = true;  // the baseline's findings are matched in their order
    it->second.pop_back();
    out.unchanged.push_back(std::move(d));
  }
  diagnostics = std::move(fresh);
  for (size_t i = 0; i < baseline.findings.size(); ++i)
    if (!matched[i]) out.absent.push_back(baseline.findings[i]);
  return out;
}

}  // namespace qnnrules
