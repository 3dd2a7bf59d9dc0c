// One line of progress on a terminal, for runs that take a while (a compatibility matrix, a
// recipe search, reading a large model): "qnn-validate: matrix 12/40 SM8650 x 16a8w", redrawn in
// place. Nothing is drawn unless the stream is a terminal, nor before the run has taken `delay`
// (a quick run prints nothing), nor more often than every `interval`; the line is erased when
// the meter is destroyed, so what follows (or a report on the same terminal) starts clean.
// Never used for machine-readable output: the CLI draws it on stderr only.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace qnnrules {

class ProgressLine {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  struct Options {
    bool terminal = false;  // the stream is a terminal (isatty); false: the meter draws nothing
    std::chrono::milliseconds delay{1000};
    std::chrono::milliseconds interval{100};
    Clock clock;            // empty: std::chrono::steady_clock::now
  };

  ProgressLine(std::ostream& out, std::string label, Options options);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // done of total (0: unknown) and what is being done now.
  void update(size_t done, size_t total, std::string_view what);
  // Draws `text` at once (a terminal only): a step known to be long, such as reading a big file.
  void show(std::string_view text);
  // As a callback of MatrixOptions::progress / RecipeSearchOptions::progress.
  std::function<void(size_t, size_t, std::string_view)> callback();

 private:
  std::chrono::steady_clock::time_point now() const;
  void draw(const std::string& text);

  std::ostream& out_;
  std::string label_;
  Options options_;
  std::chrono::steady_clock::time_point start_, last_;
  bool drawn_ = false;
};

}  // namespace qnnrules
