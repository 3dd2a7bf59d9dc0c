// The round trip (issue 24): whatever a reader accepts (a JSON graph, an ONNX model or a .pt2
// archive, chosen by content as qnn-validate chooses) is written by the graph writer as JSON the
// JSON reader reads back, to the same graph: read -> write -> read -> write gives the same
// text. A graph the writer refuses (it throws) is never written, which also keeps the promise.
#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>

#include "FuzzSupport.h"
#include "qnnrules/io/GraphReader.h"
#include "qnnrules/io/GraphWriter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qnnrules;
  static const int fd = ::memfd_create("fuzz.graph", 0);
  if (fd < 0) fuzz::violated("memfd_create works", "");
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
    fuzz::violated("the input can be written to the memfd", "");
  const GraphReadResult first = readGraphFile("/proc/self/fd/" + std::to_string(fd));
  if (!first.ok()) return 0;
  std::string written;
  try {
    written = writeGraphText(first.graph);
  } catch (const std::exception&) {
    return 0;  // refused (or not representable as JSON): nothing would be written
  }
  const GraphReadResult again = readGraphText(written, "roundtrip.json");
  if (!again.ok()) fuzz::violated("a graph the writer wrote reads back", again.status.message() + "\n" + written);
  const std::string rewritten = writeGraphText(again.graph);
  if (rewritten != written) fuzz::violated("read -> write -> read gives the same graph", written + "\n---\n" + rewritten);
  return 0;
}
