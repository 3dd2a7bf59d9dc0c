#include "qnnrules/core/OutputFile.h"

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

// Opens what the kernel finds at `place` (following a final link unless `noFollow`) for
// writing, without blocking on a FIFO with no reader and without creating anything, and
// streams into it: a device or a FIFO. Anything else is refused.
Status writeThrough(const Place& p, const std::string& target, bool noFollow, std::string_view content) {
  const int fd = ::openat(p.dirfd, p.base.c_str(),
                          O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0));
  if (fd < 0) {
    if (errno == ENXIO)
      return Status(StatusCode::kIoError, "cannot write " + target + ": it is a FIFO with no reader", target);
    return ioError("cannot open", target, errno);
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return ioError("cannot inspect", target, errno);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return streamToFd(fd, target, content);
  return Status(StatusCode::kIoError, "cannot write " + target + ": it is not a regular file; refusing to replace it",
                target);
}

// The replaced file's owner and group, given to its new content (only root may give a file
// away; for anyone else the owner is theirs already, or the write was refused before).
bool keepOwner(int fd, const struct stat* owner) {
  if (!owner) return true;
  struct stat now {};
  if (::fstat(fd, &now) != 0) return false;
  if (now.st_uid == owner->st_uid && now.st_gid == owner->st_gid) return true;
  return ::fchown(fd, owner->st_uid, owner->st_gid) == 0 || (now.st_uid == owner->st_uid && errno == EPERM);
}

// Writes `content` into a new file in the directory and names it `p.base`: `replace` renames
// it over the existing name (a regular file the user owns), else it is linked in only if the
// name is still free. The content is written unnamed (O_TMPFILE) where the file system allows,
// so only the instant between naming it and the rename has a temporary name, and that name is
// registered for removal on SIGTERM/SIGINT.
Status placeNewFile(const Place& p, const std::string& target, std::string_view content, const struct stat* owner,
                    mode_t mode, bool replace) {
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
    if (!keepOwner(fd, owner)) return fail("cannot give the new content the file's owner");
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
  if (!keepOwner(fd, owner)) return fail("cannot give the new content the file's owner");
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) return fail("cannot flush");
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) return fail("cannot close");
  if (name(tmp) != 0) return fail(replace ? "cannot replace" : "cannot create");
  registered.keep();
  return Status::ok();
}

// Opens `p`'s directory (O_PATH) for the last component `p.base` of `target`.
Status openPlace(Place& p, const std::filesystem::path& path, const std::string& target) {
  p.base = path.filename().string();
  p.dir = path.has_parent_path() ? path.parent_path().string() : ".";
  if (p.dir.empty()) p.dir = "/";
  if (p.base.empty() || p.base == "." || p.base == "..")
    return Status(StatusCode::kIoError, "cannot write " + target + ": it names a directory", target);
  p.dirfd = ::open(p.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (p.dirfd < 0) return ioError("cannot write", target, errno);
  if (::fstat(p.dirfd, &p.dirStat) != 0) return ioError("cannot inspect the directory of", target, errno);
  return Status::ok();
}

// A sticky world-writable directory (/tmp): a link or file there that belongs to another user
// (not the directory's owner) is refused, as the kernel's fs.protected_symlinks and
// fs.protected_regular would refuse it, whether or not they are switched on. Its owner can
// not be swapped: the sticky bit keeps others from renaming or removing it.
Status checkShared(const Place& p, const struct stat& lst, const std::string& target) {
  const bool sharedDir = (p.dirStat.st_mode & S_ISVTX) && (p.dirStat.st_mode & S_IWOTH);
  if (sharedDir && lst.st_uid != ::geteuid() && lst.st_uid != p.dirStat.st_uid)
    return Status(StatusCode::kIoError,
                  "cannot write " + target + ": it is " + (S_ISLNK(lst.st_mode) ? "a symbolic link" : "a file") +
                      " owned by another user (uid " + std::to_string(lst.st_uid) +
                      ") in a sticky world-writable directory; refusing to " +
                      (S_ISLNK(lst.st_mode) ? "follow it" : "write into it"),
                  target);
  return Status::ok();
}

// Replaces the regular file `p.base` (its lstat `lst`): beside itself, then renamed over it,
// keeping its mode, and its owner where that is not the writer (root only).
Status replaceRegular(const Place& p, const struct stat& lst, const std::string& target, std::string_view content) {
  if (Status st = checkShared(p, lst, target); !st.isOk()) return st;
  if (lst.st_uid != ::geteuid() && ::geteuid() != 0)
    return Status(StatusCode::kIoError,
                  "cannot write " + target + ": it is owned by another user (uid " + std::to_string(lst.st_uid) +
                      "); refusing to rewrite it in place (an interrupted write would leave it truncated), and a "
                      "replacement would not be theirs",
                  target);
  return placeNewFile(p, target, content, &lst, lst.st_mode & 07777, true);
}

// A symlink reaching a regular file: that file, found where the kernel resolves it, replaced
// in its own directory. The entry renamed over is checked to be the file the link reached.
Status replaceLinkTarget(const Place& link, const std::string& target, std::string_view content) {
  const int fd = ::openat(link.dirfd, link.base.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return ioError("cannot follow", target, errno);
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat reached {};
  if (::fstat(fd, &reached) != 0) return ioError("cannot inspect", target, errno);
  std::string resolved(4096, '\0');
  const ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), resolved.data(), resolved.size());
  if (n <= 0 || static_cast<size_t>(n) >= resolved.size())
    return Status(StatusCode::kIoError, "cannot write " + target + ": the file its link reaches cannot be named",
                  target);
  resolved.resize(static_cast<size_t>(n));
  Place p;
  if (Status st = openPlace(p, resolved, target); !st.isOk()) return st;
  struct stat lst {};
  if (::fstatat(p.dirfd, p.base.c_str(), &lst, AT_SYMLINK_NOFOLLOW) != 0 || lst.st_dev != reached.st_dev ||
      lst.st_ino != reached.st_ino || !S_ISREG(lst.st_mode))
    return Status(StatusCode::kIoError, "cannot write " + target + ": the file its link reaches moved meanwhile",
                  target);
  return replaceRegular(p, lst, target + " (" + resolved + ")", content);
}

}  // namespace

Status saveOutputFile(const std::filesystem::path& path, std::string_view content) {
  const std::string target = path.string();
  Place p;
  if (Status st = openPlace(p, path, target); !st.isOk()) return st;
  struct stat lst {};
  if (::fstatat(p.dirfd, p.base.c_str(), &lst, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) return ioError("cannot inspect", target, errno);
    return placeNewFile(p, target, content, nullptr, 0666 & ~currentUmask(), false);
  }
  if (Status st = checkShared(p, lst, target); !st.isOk()) return st;
  if (S_ISLNK(lst.st_mode) || S_ISCHR(lst.st_mode) || S_ISFIFO(lst.st_mode) || S_ISSOCK(lst.st_mode)) {
    struct stat st {};
    if (::fstatat(p.dirfd, p.base.c_str(), &st, 0) != 0) {
      if (errno == ENOENT)
        return Status(StatusCode::kIoError,
                      "cannot write " + target + ": it is a dangling symbolic link; refusing to create its target",
                      target);
      return ioError("cannot open", target, errno);
    }
    // /dev/stdout and friends: the process's own stream, written through its descriptor.
    if (const int fd = ownStream(st); fd >= 0) {
      std::fflush(nullptr);
      return streamToFd(fd, target, content);
    }
    if (S_ISLNK(lst.st_mode) && S_ISREG(st.st_mode)) return replaceLinkTarget(p, target, content);
    // A device or FIFO (or a link to one) is opened by the kernel and streamed to.
    return writeThrough(p, target, !S_ISLNK(lst.st_mode), content);
  }
  if (!S_ISREG(lst.st_mode)) {
    const char* what = S_ISDIR(lst.st_mode) ? "a directory" : S_ISBLK(lst.st_mode) ? "a block device" : "not a regular file";
    return Status(StatusCode::kIoError, "cannot write " + target + ": it is " + what + "; refusing to replace it",
                  target);
  }
  return replaceRegular(p, lst, target, content);
}

}  // namespace qnnrules
