// Text from the input (file names, node names, op names, YAML keys and values) made safe to
// print on a terminal or in a text report: control characters become visible escapes, so a
// graph or rule file cannot move the cursor, clear the screen, retitle the window, hide a
// line or forge one (issue 24). Applied where text is rendered as text (formatText, the text
// report, the command-line tools' error lines); JSON, SARIF and HTML have their own escaping.
#pragma once

#include <string>
#include <string_view>

namespace qnnrules {

// `text` with every C0 control character (U+0000..U+001F, newline and tab included: one field
// is one line), DEL and every C1 control (U+0080..U+009F, as UTF-8; U+009B is a CSI on some
// terminals) written as an escape: "\x1b", "\x7f", "\u009b". Anything else, including other
// UTF-8 and bytes that are not UTF-8, is kept as it is.
std::string escapeControls(std::string_view text);

// The same for text of several lines built by the engine (a table, a report section): its
// line feeds are kept, every other control character is escaped.
std::string escapeControlsKeepingLines(std::string_view text);

// The same two, appended to `out`: a renderer writing many fields builds no string per field.
void appendEscapedControls(std::string& out, std::string_view text);
void appendEscapedControlsKeepingLines(std::string& out, std::string_view text);

}  // namespace qnnrules
