// The terminal progress line (report/ProgressLine.h): nothing off a terminal, nothing before the
// delay, at most one redraw per interval, names escaped and clipped, the line erased at the end.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>

#include "qnnrules/report/ProgressLine.h"

namespace qnnrules {
namespace {

using std::chrono::milliseconds;

struct FakeClock {
  std::chrono::steady_clock::time_point t{};
  ProgressLine::Clock fn() {
    return [this] { return t; };
  }
};

ProgressLine::Options options(bool terminal, FakeClock& clock) {
  ProgressLine::Options o;
  o.terminal = terminal;
  o.clock = clock.fn();
  return o;
}

TEST(ProgressLine, DrawsNothingOffATerminal) {
  FakeClock clock;
  std::ostringstream out;
  {
    ProgressLine p(out, "qnn-validate: matrix", options(false, clock));
    clock.t += milliseconds(5000);
    p.update(3, 10, "SM8650 x 16a8w");
    p.show("reading big.onnx (512 MiB)");
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, WaitsForTheDelayThenRedrawsAtMostEveryIntervalAndErasesAtTheEnd) {
  FakeClock clock;
  std::ostringstream out;
  {
    ProgressLine p(out, "qnn-validate: matrix", options(true, clock));
    clock.t += milliseconds(400);
    p.update(1, 4, "SM8350 x 8a8w");  // a quick run: nothing yet
    EXPECT_EQ(out.str(), "");
    clock.t += milliseconds(700);
    p.update(2, 4, "SM8550 x 8a8w");
    EXPECT_EQ(out.str(), "\r\033[Kqnn-validate: matrix 2/4 SM8550 x 8a8w");
    clock.t += milliseconds(50);
    p.update(3, 4, "SM8650 x 8a8w");  // within the interval: not redrawn
    clock.t += milliseconds(100);
    p.update(4, 0, "16a8w");  // total unknown (a recipe search)
  }
  EXPECT_EQ(out.str(),
            "\r\033[Kqnn-validate: matrix 2/4 SM8550 x 8a8w\r\033[Kqnn-validate: matrix 4 16a8w\r\033[K");
}

TEST(ProgressLine, EscapesControlCharactersAndClipsLongLines) {
  FakeClock clock;
  std::ostringstream out;
  {
    ProgressLine p(out, "qnn-validate:", options(true, clock));
    p.show("reading a\033]0;x\a.onnx");
  }
  EXPECT_EQ(out.str().find("\033]"), std::string::npos) << out.str();
  std::ostringstream longOut;
  {
    ProgressLine p(longOut, "qnn-validate:", options(true, clock));
    p.show(std::string(500, 'n'));
    const std::string line = longOut.str().substr(4);  // after "\r\033[K"
    EXPECT_EQ(line.size(), 100u);
    EXPECT_EQ(line.substr(97), "...");
  }
}

}  // namespace
}  // namespace qnnrules
