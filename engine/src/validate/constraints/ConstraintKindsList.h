// The kinds the table lists, one per constraints/<Kind>.cpp. Internal to validate/.
#pragma once

#include "ConstraintKind.h"

namespace qnnrules {

extern const ConstraintKind kDtypeConstraint;      // Dtype.cpp
extern const ConstraintKind kEncodingConstraint;   // Encoding.cpp
extern const ConstraintKind kBitwidthConstraint;   // Bitwidth.cpp
extern const ConstraintKind kSymmetricConstraint;  // Symmetric.cpp
extern const ConstraintKind kAxisConstraint;       // Axis.cpp
extern const ConstraintKind kScaleConstraint;      // FixedQParams.cpp
extern const ConstraintKind kOffsetConstraint;     // FixedQParams.cpp
extern const ConstraintKind kSharedConstraint;     // Shared.cpp
extern const ConstraintKind kMaxElementsConstraint;// MaxElements.cpp

}  // namespace qnnrules
