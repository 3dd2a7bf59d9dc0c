// Writing an output file without destroying anything (issue 36): every file the tools write
// (annotated graph, encodings, DOT picture, reports, recipes, generated docs) goes through
// saveOutputFile. A file is never truncated in place: whatever is there stays whole until the
// new content is complete beside it and renamed over it, so a full disk, a file-size limit or a
// kill at any moment leaves the old file or the new one, never a fragment.
//
// No link is resolved by name in user space (issue 24): the path's directory is opened by the
// kernel and everything after names the last component relative to it (openat, renameat).
// - A symlink to a regular file: the file the kernel reaches through it is replaced the same
//   way, beside itself in its own directory (the link stays and now names the new content). A
//   dangling link is refused (its target is never created), and so is a link or file owned by
//   another user (not the directory's owner) in a sticky world-writable directory such as
//   /tmp, as fs.protected_symlinks / fs.protected_regular would.
// - The process's own stdout or stderr, named through a link (/dev/stdout, /proc/self/fd/1),
//   is written through its descriptor: `--output /dev/stdout >> run.log` appends, and a pipe
//   or terminal is streamed to.
// - A regular file is replaced atomically (a file in the same directory, then a rename),
//   keeping its permission bits; another user's file keeps its owner and group too (which
//   only root can give a file: anyone else is refused, the file left alone). A new file gets
//   0666 minus the umask and is only linked in if its name is still free.
// - A character device (/dev/null, a terminal) or a FIFO with a reader is streamed to, never
//   replaced; a FIFO without a reader, a directory, a socket or a block device is refused with
//   an error and left alone.
// - The content is written into an unnamed file (O_TMPFILE) and only named once complete, so
//   an interrupted write leaves no temporary file behind. Where the file system has no
//   O_TMPFILE, the named temporary file is registered and removed by a SIGTERM/SIGINT handler
//   (installed only when the signal has its default disposition).
#pragma once

#include <filesystem>
#include <string_view>

#include "qnnrules/core/Status.h"

namespace qnnrules {

// kIoError on failure, naming the path; `path` (and a link's target) is then left as it was.
Status saveOutputFile(const std::filesystem::path& path, std::string_view content);

}  // namespace qnnrules
