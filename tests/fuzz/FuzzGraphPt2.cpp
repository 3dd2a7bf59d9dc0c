// The torch.export (.pt2) reader: the bytes become an in-memory file (memfd, a regular file)
// read through its /proc/self/fd path, so nothing is written to disk per input.
#include <sys/mman.h>
#include <unistd.h>

#include "FuzzSupport.h"
#include "qnnrules/io/GraphReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const int fd = ::memfd_create("fuzz.pt2", 0);
  if (fd < 0) qnnrules::fuzz::violated("memfd_create works", "");
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
    qnnrules::fuzz::violated("the input can be written to the memfd", "");
  qnnrules::GraphReadResult r = qnnrules::readGraphFile("/proc/self/fd/" + std::to_string(fd));
  (void)r;
  return 0;
}
