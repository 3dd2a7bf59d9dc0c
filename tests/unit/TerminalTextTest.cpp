// Control characters from the input are escaped wherever text is rendered for a terminal
// (core/TerminalText.h): a node name or a YAML key cannot clear the screen or forge a line.
#include <gtest/gtest.h>

#include "qnnrules/core/Diagnostic.h"
#include "qnnrules/core/TerminalText.h"

namespace qnnrules {
namespace {

TEST(TerminalText, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(escapeControls("plain name: conv_1.weight"), "plain name: conv_1.weight");
  EXPECT_EQ(escapeControls("\x1b[2J\x1b]0;title\x07"), "\\x1b[2J\\x1b]0;title\\x07");
  EXPECT_EQ(escapeControls(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(escapeControls("two\nlines\tand\rdel\x7f"), "two\\x0alines\\x09and\\x0ddel\\x7f");
  // C1 controls as UTF-8 (U+009B is a CSI on some terminals); other UTF-8 is kept.
  EXPECT_EQ(escapeControls("\xc2\x9b" "31m \xc2\xa0 caf\xc3\xa9 \xe2\x9c\x93"), "\\u009b31m \xc2\xa0 caf\xc3\xa9 \xe2\x9c\x93");
  // A lone lead byte at the end and bytes that are not UTF-8 are kept as they are.
  EXPECT_EQ(escapeControls("x\xc2"), "x\xc2");
  EXPECT_EQ(escapeControls("\xff\xfe"), "\xff\xfe");
}

TEST(TerminalText, TextOfSeveralLinesKeepsItsLineFeeds) {
  EXPECT_EQ(escapeControlsKeepingLines("op table\n  \x1b[31mrelu\n"), "op table\n  \\x1b[31mrelu\n");
}

TEST(TerminalText, AppendedFormsAddToWhatIsThere) {
  std::string out = "kept: ";
  appendEscapedControls(out, "a\nb \xc2\xa0 \xc2\x85 \x7f");
  EXPECT_EQ(out, "kept: a\\x0ab \xc2\xa0 \\u0085 \\x7f");
  appendEscapedControlsKeepingLines(out, "|\n\x1b\n");
  EXPECT_EQ(out, "kept: a\\x0ab \xc2\xa0 \\u0085 \\x7f|\n\\x1b\n");
}

TEST(TerminalText, EveryFieldOfADiagnosticIsEscapedInItsText) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.code = DiagCode::kNoRule;
  d.node = "evil\x1b[2J";
  d.op = "aten.\x1b]0;pwned\x07.default";
  d.module = "m\r";
  d.port = "in[0]\x01";
  d.message = "no rule for 'aten.\x1b]0;pwned\x07.default'\nverdict: VALID";
  d.expected = "a rule\x1b[0m";
  d.actual = "none\x08";
  d.hint = "add one\x1b, like this:\n    version: 1";
  EXPECT_EQ(formatText(d),
            "error[no-rule]: node 'evil\\x1b[2J' (aten.\\x1b]0;pwned\\x07.default) in module 'm\\x0d' port in[0]\\x01: "
            "no rule for 'aten.\\x1b]0;pwned\\x07.default'\\x0averdict: VALID\n"
            "  expected: a rule\\x1b[0m\n"
            "  actual:   none\\x08\n"
            "  hint:     add one\\x1b, like this:\n    version: 1\n");
}

}  // namespace
}  // namespace qnnrules
