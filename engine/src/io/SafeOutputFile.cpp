#include "qnnrules/io/SafeOutputFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

#include "qnnrules/io/GraphWriter.h"

namespace qnnrules {
namespace {

// Named temporary files that exist right now, removed by the SIGTERM/SIGINT handler. Fixed
// slots of fixed size: the handler may only call async-signal-safe functions (unlink).
class TempRegistry {
 public:
  static constexpr size_t kSlots = 16;
  static constexpr size_t kPathMax = 4096;

  // The slot holding `path`, or kSlots when none is free or the path is too long (the file
  // is then simply not cleaned up on a signal, as before).
  size_t add(const std::string& path) {
    installHandlers();
    if (path.size() >= kPathMax) return kSlots;
    for (size_t i = 0; i < kSlots; ++i) {
      bool expected = false;
      if (!busy_[i].compare_exchange_strong(expected, true)) continue;
      std::memcpy(paths_[i].data(), path.c_str(), path.size() + 1);
      live_[i].store(true);
      return i;
    }
    return kSlots;
  }

  void remove(size_t slot) {
    if (slot >= kSlots) return;
    live_[slot].store(false);
    busy_[slot].store(false);
  }

  static TempRegistry& instance() {
    static TempRegistry r;
    return r;
  }

 private:
  static void onSignal(int sig) {
    TempRegistry& r = instance();
    for (size_t i = 0; i < kSlots; ++i)
      if (r.live_[i].load()) ::unlink(r.paths_[i].data());
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }

  // Only where nobody else handles the signal: an embedder's (or Python's) handler stays.
  void installHandlers() {
    std::call_once(installed_, [] {
      for (int sig : {SIGTERM, SIGINT}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa {};
        sa.sa_handler = &TempRegistry::onSignal;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
      }
    });
  }

  std::array<std::atomic<bool>, kSlots> busy_{};
  std::array<std::atomic<bool>, kSlots> live_{};
  std::array<std::array<char, kPathMax>, kSlots> paths_{};
  std::once_flag installed_;
};

// Registered for the lifetime of one temporary name.
class TempName {
 public:
  explicit TempName(std::string path) : path_(std::move(path)), slot_(TempRegistry::instance().add(path_)) {}
  ~TempName() {
    if (!kept_) ::unlink(path_.c_str());
    TempRegistry::instance().remove(slot_);
  }
  TempName(const TempName&) = delete;
  TempName& operator=(const TempName&) = delete;
  const std::string& path() const { return path_; }
  void keep() { kept_ = true; }

 private:
  std::string path_;
  size_t slot_;
  bool kept_ = false;
};

Status ioError(const std::string& what, const std::string& path, int err) {
  return Status(StatusCode::kIoError, what + " " + path + ": " + std::strerror(err), path);
}

bool writeAll(int fd, std::string_view content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(w);
  }
  return true;
}

// The process umask, read without changing it (umask(2) would race with other threads).
mode_t currentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  return 022;
}

// The directory a path's last component lives in, opened (O_PATH) so that every step below
// names the file relative to it (openat, renameat): the directory cannot be swapped for
// another between the checks and the write. The kernel resolves the directory part.
struct Place {
  int dirfd = -1;
  std::string dir;   // as given ("." for a bare name), for messages and signal clean-up
  std::string base;  // the last component
  struct stat dirStat {};
  Place() = default;
  Place(const Place&) = delete;
  Place& operator=(const Place&) = delete;
  ~Place() {
    if (dirfd >= 0) ::close(dirfd);
  }
  std::string tempPath(const std::string& name) const { return dir + "/" + name; }
};

// Streams `content` to an open descriptor (a device, a FIFO, the process's own stdout). A
// descriptor opened with O_APPEND (`>> run.log`) keeps appending.
Status streamToFd(int fd, const std::string& target, std::string_view content) {
  if (!writeAll(fd, content)) return ioError("cannot write", target, errno);
  return Status::ok();
}

// The target is one of this process's own standard streams (`--output /dev/stdout`, whatever
// stdout is: a file opened with `>` or `>>`, a pipe, a terminal): its descriptor, else -1.
// Writing there rather than opening the path again keeps the stream's offset and O_APPEND.
int ownStream(const struct stat& st) {
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat fs {};
    if (::fstat(fd, &fs) == 0 && fs.st_dev == st.st_dev && fs.st_ino == st.st_ino) return fd;
  }
  return -1;
}

// Writes into a regular file that is not replaced (a link's target, another user's file):
// truncated and rewritten through the descriptor the kernel opened, keeping its owner, mode
// and links. The content is complete in memory before the file is touched.
Status writeInPlace(int fd, const std::string& target, std::string_view content) {
  if (::ftruncate(fd, 0) != 0) return ioError("cannot truncate", target, errno);
  if (!writeAll(fd, content)) return ioError("cannot write", target, errno);
  if (::fsync(fd) != 0 && errno != EINVAL) return ioError("cannot flush", target, errno);
  return Status::ok();
}

// Opens what the kernel finds at `place` (following a final link unless `noFollow`) for
// writing, without blocking on a FIFO with no reader and without creating anything, and
// writes into it: a regular file in place, a device or FIFO streamed.
Status writeThrough(const Place& p, const std::string& target, bool noFollow, std::string_view content) {
  const int fd = ::openat(p.dirfd, p.base.c_str(),
                          O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0));
  if (fd < 0) {
    if (errno == ENXIO)
      return Status(StatusCode::kIoError, "cannot write " + target + ": it is a FIFO with no reader", target);
    if (errno == ENOENT)
      return Status(StatusCode::kIoError,
                    "cannot write " + target + ": it is a dangling symbolic link; refusing to create its target", target);
    return ioError("cannot open", target, errno);
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return ioError("cannot inspect", target, errno);
  if (S_ISREG(st.st_mode)) return writeInPlace(fd, target, content);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return streamToFd(fd, target, content);
  return Status(StatusCode::kIoError, "cannot write " + target + ": it is not a regular file; refusing to replace it",
                target);
}

// Writes `content` into a new file in the directory and names it `p.base`: `replace` renames
// it over the existing name (a regular file the user owns), else it is linked in only if the
// name is still free. The content is written unnamed (O_TMPFILE) where the file system allows,
// so only the instant between naming it and the rename has a temporary name, and that name is
// registered for removal on SIGTERM/SIGINT.
Status placeNewFile(const Place& p, const std::string& target, std::string_view content, mode_t mode, bool replace) {
  static std::atomic<unsigned> counter{0};
  auto tempName = [&] {
    return "." + p.base + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  };
  auto name = [&](const std::string& tmp) -> int {
    if (replace) return ::renameat(p.dirfd, tmp.c_str(), p.dirfd, p.base.c_str());
    return ::renameat2(p.dirfd, tmp.c_str(), p.dirfd, p.base.c_str(), RENAME_NOREPLACE);
  };
  int fd = ::openat(p.dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) {
    auto fail = [&](const char* what) {
      Status st = ioError(what, target, errno);
      ::close(fd);
      return st;
    };
    if (!writeAll(fd, content)) return fail("cannot write");
    if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) return fail("cannot flush");
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    if (!replace) {
      // A new file: linked straight to its name, which fails if anything took the name since.
      if (::linkat(AT_FDCWD, self.c_str(), p.dirfd, p.base.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        ::close(fd);
        return Status::ok();
      }
      if (errno == EEXIST) return fail("cannot create (something else took the name meanwhile)");
    } else {
      for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string tmp = tempName();
        TempName registered(p.tempPath(tmp));
        if (::linkat(AT_FDCWD, self.c_str(), p.dirfd, tmp.c_str(), AT_SYMLINK_FOLLOW) != 0) {
          registered.keep();  // the name is someone else's, or nothing was created
          if (errno == EEXIST) continue;
          break;  // no /proc, or linking refused: write again through a named file below
        }
        if (name(tmp) != 0) {
          Status st = fail("cannot replace");
          ::unlinkat(p.dirfd, tmp.c_str(), 0);
          registered.keep();
          return st;
        }
        registered.keep();
        ::close(fd);
        return Status::ok();
      }
    }
    ::close(fd);
  }
  // No O_TMPFILE here: a named temporary file, created exclusively (never through a link).
  std::string tmp;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = tempName();
    fd = ::openat(p.dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0)
    return Status(StatusCode::kIoError,
                  "cannot write " + target + " (no temporary file can be created next to it): " + std::strerror(errno),
                  target);
  TempName registered(p.tempPath(tmp));
  auto fail = [&](const char* what) {
    Status st = ioError(what, target, errno);
    if (fd >= 0) ::close(fd);
    ::unlinkat(p.dirfd, tmp.c_str(), 0);
    registered.keep();
    return st;
  };
  if (!writeAll(fd, content)) return fail("cannot write");
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) return fail("cannot flush");
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) return fail("cannot close");
  if (name(tmp) != 0) return fail(replace ? "cannot replace" : "cannot create");
  registered.keep();
  return Status::ok();
}

}  // namespace

Status writeOutputFile(const std::filesystem::path& path, std::string_view content) {
  const std::string target = path.string();
  Place p;
  p.base = path.filename().string();
  p.dir = path.has_parent_path() ? path.parent_path().string() : ".";
  if (p.dir.empty()) p.dir = "/";
  if (p.base.empty() || p.base == "." || p.base == "..")
    return Status(StatusCode::kIoError, "cannot write " + target + ": it names a directory", target);
  p.dirfd = ::open(p.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (p.dirfd < 0) return ioError("cannot write", target, errno);
  if (::fstat(p.dirfd, &p.dirStat) != 0) return ioError("cannot inspect the directory of", target, errno);

  struct stat lst {};
  if (::fstatat(p.dirfd, p.base.c_str(), &lst, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) return ioError("cannot inspect", target, errno);
    return placeNewFile(p, target, content, 0666 & ~currentUmask(), false);
  }
  // A sticky world-writable directory (/tmp): a link or file there that belongs to another
  // user (not the directory's owner) is refused, as the kernel's fs.protected_symlinks and
  // fs.protected_regular would refuse it, whether or not they are switched on. Its owner can
  // not be swapped: the sticky bit keeps others from renaming or removing it.
  const bool sharedDir = (p.dirStat.st_mode & S_ISVTX) && (p.dirStat.st_mode & S_IWOTH);
  const uid_t me = ::geteuid();
  if (sharedDir && lst.st_uid != me && lst.st_uid != p.dirStat.st_uid)
    return Status(StatusCode::kIoError,
                  "cannot write " + target + ": it is " + (S_ISLNK(lst.st_mode) ? "a symbolic link" : "a file") +
                      " owned by another user (uid " + std::to_string(lst.st_uid) +
                      ") in a sticky world-writable directory; refusing to " +
                      (S_ISLNK(lst.st_mode) ? "follow it" : "write into it"),
                  target);
  if (S_ISLNK(lst.st_mode) || S_ISCHR(lst.st_mode) || S_ISFIFO(lst.st_mode) || S_ISSOCK(lst.st_mode)) {
    // /dev/stdout and friends: the process's own stream, written through its descriptor.
    struct stat st {};
    if (::fstatat(p.dirfd, p.base.c_str(), &st, 0) == 0)
      if (const int fd = ownStream(st); fd >= 0) {
        std::fflush(nullptr);
        return streamToFd(fd, target, content);
      }
    // Anything else is opened by the kernel, which follows the link (with its own policies).
    return writeThrough(p, target, !S_ISLNK(lst.st_mode), content);
  }
  if (!S_ISREG(lst.st_mode)) {
    const char* what = S_ISDIR(lst.st_mode) ? "a directory" : S_ISBLK(lst.st_mode) ? "a block device" : "not a regular file";
    return Status(StatusCode::kIoError, "cannot write " + target + ": it is " + what + "; refusing to replace it",
                  target);
  }
  // A regular file the user owns is replaced atomically, keeping its mode; another user's
  // file is written in place (its owner and mode stay theirs; the kernel checks the access).
  if (lst.st_uid == me) return placeNewFile(p, target, content, lst.st_mode & 07777, true);
  return writeThrough(p, target, true, content);
}

}  // namespace qnnrules
