#include "qnnrules/report/ProgressLine.h"

#include <fmt/format.h>

#include "qnnrules/core/TerminalText.h"

namespace qnnrules {

namespace {
constexpr size_t kWidth = 100;  // a line longer than the terminal would wrap and not be redrawn
}

ProgressLine::ProgressLine(std::ostream& out, std::string label, Options options)
    : out_(out), label_(std::move(label)), options_(std::move(options)) {
  start_ = now();
}

ProgressLine::~ProgressLine() {
  if (drawn_) out_ << "\r\033[K" << std::flush;  // erase the line
}

std::chrono::steady_clock::time_point ProgressLine::now() const {
  return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

void ProgressLine::draw(const std::string& text) {
  std::string line;
  appendEscapedControls(line, text);  // names come from the user's files
  if (line.size() > kWidth) line = line.substr(0, kWidth - 3) + "...";
  out_ << "\r\033[K" << line << std::flush;
  drawn_ = true;
}

void ProgressLine::update(size_t done, size_t total, std::string_view what) {
  if (!options_.terminal) return;
  const auto t = now();
  if (t - start_ < options_.delay || (drawn_ && t - last_ < options_.interval)) return;
  last_ = t;
  draw(total ? fmt::format("{} {}/{} {}", label_, done, total, what) : fmt::format("{} {} {}", label_, done, what));
}

void ProgressLine::show(std::string_view text) {
  if (!options_.terminal) return;
  last_ = now();
  draw(label_ + " " + std::string(text));
}

std::function<void(size_t, size_t, std::string_view)> ProgressLine::callback() {
  return [this](size_t done, size_t total, std::string_view what) { update(done, total, what); };
}

}  // namespace qnnrules
