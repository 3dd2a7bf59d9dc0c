#include "Progress.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace qnnvalidate {

namespace {
// A model this large takes about a second to read (ONNX at ~100-200 MiB/s with its checks).
constexpr std::uintmax_t kLargeFileBytes = std::uintmax_t{64} << 20;
}  // namespace

qnnrules::ProgressLine::Options stderrProgress() {
  qnnrules::ProgressLine::Options o;
  const char* term = std::getenv("TERM");
  o.terminal = isatty(STDERR_FILENO) == 1 && !(term && std::strcmp(term, "dumb") == 0);
  return o;
}

void showReading(qnnrules::ProgressLine& meter, const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size < kLargeFileBytes) return;
  meter.show("reading " + path + " (" + std::to_string(size >> 20) + " MiB)");
}

}  // namespace qnnvalidate
