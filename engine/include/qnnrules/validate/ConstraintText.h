// The sentences that document constraints. Diagnostics and the generated supported-ops
// docs both call these, so what the docs promise is word for word what a check reports.
#pragma once

#include <string>

#include "qnnrules/rules/Rule.h"

namespace qnnrules {

// "in[1] weight", "out[0] output" (list element j of an input: "in[0][j] inputs").
// "in[2] weight", "in[0][1] inputs"; `position` is the argument or output index a variadic
// port was bound at (default: the port's declared index).
std::string portLabel(const PortDecl& port, int listIndex = -1, int position = -1);

std::string datatypeSetText(DatatypeSet s);   // "UFIXED_POINT_8 or UFIXED_POINT_16"
std::string encodingSetText(EncodingSet s);   // "SCALE_OFFSET or AXIS_SCALE_OFFSET"
std::string bitwidthSetText(uint64_t mask);   // "4 or 8"
std::string scaleText(const PortConstraint& c);  // "1/256 (0.00390625)"

// One sentence per constraint kind, e.g. "weight must use SCALE_OFFSET or AXIS_SCALE_OFFSET
// encoding." Port names are the rule's own.
std::string datatypeSentence(const Rule& r, int port, const PortConstraint& c);
std::string encodingSentence(const Rule& r, int port, const PortConstraint& c);
std::string bitwidthSentence(const Rule& r, int port, const PortConstraint& c);
std::string symmetricSentence(const Rule& r, int port, const PortConstraint& c);
std::string axisSentence(const Rule& r, int port, const PortConstraint& c);
std::string fixedQParamsSentence(const Rule& r, int port, const PortConstraint& c);
std::string sharedSentence(const Rule& r, int port, const PortConstraint& c);
std::string gateSentence(const Rule& r, const Variant& v);

// Compact one-line summary of a port constraint, for listings and tables:
// "SFIXED_POINT_8; SCALE_OFFSET or AXIS_SCALE_OFFSET; symmetric; axis 0".
std::string constraintSummary(const Rule& r, const PortConstraint& c);

}  // namespace qnnrules
