// Writing an output file without destroying anything: every file the tools write (annotated
// graph, encodings, DOT picture, reports, generated docs) goes through writeOutputFile.
//
// No link is resolved in user space (issue 24): the path's directory is opened by the kernel
// and everything after names the last component relative to it (openat, renameat).
// - A symlink is written through by the kernel (open of the link itself, with the kernel's own
//   link policies): its target is rewritten in place, the link stays. A dangling link is
//   refused (its target is never created), and so is a link or file owned by another user
//   (not the directory's owner) in a sticky world-writable directory such as /tmp, as
//   fs.protected_symlinks / fs.protected_regular would, whether or not they are switched on.
// - The process's own stdout or stderr, named through a link (/dev/stdout, /proc/self/fd/1),
//   is written through its descriptor: `--output /dev/stdout >> run.log` appends, and a pipe
//   or terminal is streamed to.
// - A regular file the user owns is replaced atomically (a temporary file in the same
//   directory, then a rename), keeping its permission bits; another user's regular file is
//   rewritten in place (owner and mode stay theirs); a new file gets 0666 minus the umask and
//   is only linked in if its name is still free.
// - A character device (/dev/null, a terminal) or a FIFO with a reader is streamed to, never
//   replaced; a FIFO without a reader, a directory, a socket or a block device is refused with
//   an error and left alone.
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
