// A baseline: the findings of an earlier report of qnn-validate (its --format json report or
// its SARIF log), so that a run reports and fails only on findings that are new
// (qnn-validate --baseline FILE, Engine.run(baseline=...) in Python).
//
// A finding's identity is what does not move when the model or the rules are edited elsewhere:
// its diagnostic code, node, port and rule id. Not its message, severity (warn mode changes it),
// variant or the line of the rule file. Identities are counted: a node with the same problem
// twice in the baseline and three times now has one new finding.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "qnnrules/core/Status.h"
#include "qnnrules/core/Diagnostic.h"

namespace qnnrules {

struct FindingIdentity {
  std::string code;    // diagnostic code name, e.g. "dtype"
  std::string node;
  std::string port;
  std::string ruleId;  // empty when no rule was involved
  bool operator==(const FindingIdentity&) const = default;
  auto operator<=>(const FindingIdentity&) const = default;
};

FindingIdentity findingIdentity(const Diagnostic& d);

// One finding of the baseline file, with the message it had (kept for findings now absent).
struct BaselineFinding {
  FindingIdentity id;
  std::string message;
};

struct Baseline {
  std::string file;  // as given
  std::vector<BaselineFinding> findings;
};

// Reads a qnn-validate JSON report (its "diagnostics") or SARIF log (its results' properties),
// as it streams by: only the findings are kept. kNotFound, kIoError, kParseError (not JSON, or
// text after the document), or kSchemaError for a document that is neither (a value of the
// wrong type where a report has a string, a finding that is not an object), saying where.
Status readBaseline(const std::filesystem::path& path, Baseline& out);
// The same for text in memory named `name` (the fuzz target, tests).
Status readBaselineText(std::string_view text, const std::string& name, Baseline& out);

// The outcome of comparing a run with its baseline (RunReport::baseline).
struct BaselineComparison {
  std::string file;
  DiagnosticList unchanged;              // this run's findings that were in the baseline
  std::vector<BaselineFinding> absent;   // the baseline's findings this run no longer has
};

// Moves the findings of `diagnostics` that the baseline holds to the comparison's `unchanged`
// (order kept in both), leaving the new ones; the baseline's unmatched findings are `absent`.
BaselineComparison compareWithBaseline(DiagnosticList& diagnostics, const Baseline& baseline);


}  // namespace qnnrules
