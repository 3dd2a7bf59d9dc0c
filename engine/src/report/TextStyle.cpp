#include "qnnrules/report/TextStyle.h"

#include <fmt/color.h>
#include <unistd.h>

#include <cstdlib>

namespace qnnrules {

std::optional<ColorMode> parseColorMode(std::string_view text) {
  if (text == "auto") return ColorMode::kAuto;
  if (text == "always") return ColorMode::kAlways;
  if (text == "never") return ColorMode::kNever;
  return std::nullopt;
}

bool useColor(ColorMode mode, std::FILE* stream) {
  if (mode != ColorMode::kAuto) return mode == ColorMode::kAlways;
  // https://no-color.org: present and not empty disables colour.
  if (const char* nc = std::getenv("NO_COLOR"); nc && *nc) return false;
  if (const char* term = std::getenv("TERM"); term && std::string_view(term) == "dumb") return false;
  return isatty(fileno(stream)) != 0;
}

namespace {
fmt::text_style severityStyle(Severity s) {
  switch (s) {
    case Severity::kError: return fmt::fg(fmt::terminal_color::bright_red) | fmt::emphasis::bold;
    case Severity::kWarning: return fmt::fg(fmt::terminal_color::yellow) | fmt::emphasis::bold;
    case Severity::kNote: return fmt::fg(fmt::terminal_color::cyan);
  }
  return {};
}
}  // namespace

std::string styleDiagnostic(const Diagnostic& d, bool color) {
  std::string text = formatText(d);
  if (!color) return text;
  const size_t head = text.find("]:");
  if (head == std::string::npos) return text;
  return fmt::format(severityStyle(d.severity), "{}", text.substr(0, head + 1)) + text.substr(head + 1);
}

std::string styleVerdict(const Verdict& v, bool color) {
  if (!color) return v.text();
  switch (v.kind) {
    case VerdictKind::kValid: return fmt::format(fmt::fg(fmt::terminal_color::green) | fmt::emphasis::bold, "{}", v.text());
    case VerdictKind::kValidWithCpuFallback:
      return fmt::format(fmt::fg(fmt::terminal_color::yellow) | fmt::emphasis::bold, "{}", v.text());
    case VerdictKind::kInvalid:
    case VerdictKind::kSessionFailure:
      return fmt::format(fmt::fg(fmt::terminal_color::bright_red) | fmt::emphasis::bold, "{}", v.text());
  }
  return v.text();
}

}  // namespace qnnrules
