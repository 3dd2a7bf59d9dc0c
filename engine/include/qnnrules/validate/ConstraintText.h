// The text of constraints shared by diagnostics, listings and the generated supported-ops
// docs, so what the docs promise is word for word what a check reports.
#pragma once

#include <string>
#include <vector>

#include "qnnrules/model/Rule.h"

namespace qnnrules {

// "in[1] weight", "out[0] output" (list element j of an input: "in[0][j] inputs").
// "in[2] weight", "in[0][1] inputs"; `position` is the argument or output index a variadic
// port was bound at (default: the port's declared index).
std::string portLabel(const PortDecl& port, int listIndex = -1, int position = -1);

std::string bitwidthSetText(uint64_t mask);   // "4 or 8"
std::string scaleText(const PortConstraint& c);  // "1/256 (0.00390625)"

// The sentence of a variant's HTP architecture gate (its description, or "variant X of R needs
// HTP V69 or newer."). The sentences of the port constraint kinds live with their kinds
// (engine/src/validate/constraints/).
std::string gateSentence(const Rule& r, const Variant& v);

// The sentence of a rank limit ("QNN Reshape takes tensors of rank 5 or less."): the rule's
// (Rule::maxRank) or, with `limit`, a variant's; empty when there is none.
std::string rankLimitSentence(const Rule& r, int limit = 0);

// "[2, 3, 4]": a tensor shape as diagnostics print it.
std::string shapeText(const std::vector<int64_t>& shape);

// What the rule's op does with a tensor that has a dimension of 0 (Rule::emptyTensors), as the
// sentence a diagnostic gives and the supported-ops page prints; empty when unstated.
std::string emptyTensorSentence(const Rule& r);

// Compact one-line summary of a port constraint, for listings and tables:
// "SFIXED_POINT_8; SCALE_OFFSET or AXIS_SCALE_OFFSET; symmetric; axis 0".
std::string constraintSummary(const Rule& r, const PortConstraint& c);

// The sentences the docs list under a rule's table for one variant: its gate, then each port
// constraint's sentence, word for word what a failing check reports.
std::vector<std::string> constraintNotes(const Rule& r, const Variant& v);

}  // namespace qnnrules
