// Colour for the text report: on when stdout is a terminal (or asked), off for NO_COLOR,
// TERM=dumb, pipes and files, so goldens and logs never contain escape codes.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/report/Verdict.h"

namespace qnnrules {

enum class ColorMode { kAuto, kAlways, kNever };
std::optional<ColorMode> parseColorMode(std::string_view text);  // "auto", "always", "never"

// kAuto: colour only when `stream` is a terminal, NO_COLOR is unset or empty, and TERM is not "dumb".
bool useColor(ColorMode mode, std::FILE* stream);

// The diagnostic's text block (formatText) with its "error[code]" head coloured by severity.
std::string styleDiagnostic(const Diagnostic& d, bool color);
// The verdict word(s) in green, yellow or bold red.
std::string styleVerdict(const Verdict& v, bool color);

}  // namespace qnnrules
