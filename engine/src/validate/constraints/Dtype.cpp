// dtype: the QNN datatypes a port accepts. Unlike the other kinds it does not fail a variant,
// it selects it: a node is checked against the variants whose datatypes match every port
// (no match is the validator's no-matching-variant diagnostic).
#include "ConstraintKindsList.h"
#include "qnnrules/validate/ConstraintText.h"
#include "model/EnumNames.h"

namespace qnnrules {
namespace {

void parse(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c) {
  p.reader.enumList<QnnDatatype>(e.value, what, "datatype", datatypeNames(),
                                 [](std::string_view s) { return parseDatatype(s); },
                                 [&](QnnDatatype t) { c.datatypes.insert(t); });
  if (p.manifest && p.manifest->datatypes)
    checkInsideBackend(p, c.datatypes, *p.manifest->datatypes, e.value, what, "datatype",
                       [](QnnDatatype t) { return datatypeName(t); });
}

std::string summary(const Rule&, const PortConstraint& c) { return datatypeSetText(c.datatypes); }

// The annotator's question: a tensor of this datatype can meet the port at all.
bool admits(const PortConstraint& c, const PortType& t) { return c.datatypes.contains(t.datatype); }

}  // namespace

const ConstraintKind kDtypeConstraint = {
    .key = "dtype",
    .code = DiagCode::kNoMatchingVariant,
    .parse = parse,
    .active = nullptr,
    .violated = nullptr,
    .explain = nullptr,
    .summary = summary,
    .docNote = nullptr,
    .required = true,
    .admits = admits,
};

}  // namespace qnnrules
