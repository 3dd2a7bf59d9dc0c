// Internal to the JSON-reading front ends: the error for text a JSON parser rejected, with the
// line and column where it breaks.
#pragma once

#include <string>
#include <string_view>

#include "qnnrules/core/Status.h"

namespace qnnrules::jsontext {

// "NAME:LINE:COLUMN: malformed JSON: WHAT" (kParseError). simdjson reports what broke but
// not where, so the text is scanned again (only on input already known to be malformed) for
// the first position a strict parser stops at; `fallback` says what broke when that scan
// finds nothing wrong. Never throws: numbers beyond double (1e400) are errors here too.
Status malformedJson(std::string_view text, const std::string& displayName, const std::string& fallback);

}  // namespace qnnrules::jsontext
