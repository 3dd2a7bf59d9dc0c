// Writing an output file without destroying anything: every file the tools write (annotated
// graph, encodings, DOT picture, reports, generated docs) goes through writeOutputFile.
//
// - A symlink is written through: its final target gets the new content, the link stays.
// - A regular file is replaced atomically (a temporary file in the same directory, then a
//   rename), keeping its permission bits; a new file gets 0666 minus the umask.
// - A character device (/dev/null, /dev/stdout's terminal) or a FIFO with a reader is streamed
//   to, never replaced; a FIFO without a reader, a directory, a socket or a block device is
//   refused with an error and left alone.
// - The content is written into an unnamed file (O_TMPFILE) and only named once complete, so
//   an interrupted write (SIGTERM, SIGINT, SIGKILL) leaves no temporary file behind. Where the
//   file system has no O_TMPFILE, the named temporary file is registered and removed by a
//   SIGTERM/SIGINT handler (installed only when the signal has its default disposition).
#pragma once

#include <filesystem>
#include <string_view>

#include "qnnrules/core/Status.h"

namespace qnnrules {

// kIoError on failure, naming the path; `path` is then left as it was.
Status writeOutputFile(const std::filesystem::path& path, std::string_view content);

}  // namespace qnnrules
