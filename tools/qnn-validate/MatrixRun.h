// `--soc all|A,B,...` and `--configs all|NAME...`: the compatibility matrix (qnnrules/Matrix.h)
// instead of one run.
#pragma once

#include <optional>

#include "CliOptions.h"

namespace qnnvalidate {

// The exit code of a matrix run, or nullopt when the options ask for one run.
std::optional<int> runMatrix(const CliOptions& o);

}  // namespace qnnvalidate
