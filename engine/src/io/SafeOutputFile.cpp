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

// Follows symlinks to the file they finally name (which may not exist yet). Relative link
// targets are relative to the link's directory.
Status followLinks(std::string& target, struct stat& st, bool& exists) {
  for (int hops = 0;; ++hops) {
    if (::lstat(target.c_str(), &st) != 0) {
      if (errno != ENOENT) return ioError("cannot inspect", target, errno);
      exists = false;
      return Status::ok();
    }
    if (!S_ISLNK(st.st_mode)) {
      exists = true;
      return Status::ok();
    }
    if (hops >= 40) return ioError("cannot write", target, ELOOP);
    std::array<char, 4096> buf{};
    ssize_t n = ::readlink(target.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) return ioError("cannot read the link", target, errno);
    std::filesystem::path link(std::string(buf.data(), static_cast<size_t>(n)));
    target = link.is_absolute() ? link.string() : (std::filesystem::path(target).parent_path() / link).string();
  }
}

// Devices and FIFOs get the content written into them; they are never replaced.
Status streamTo(const std::string& target, bool fifo, std::string_view content) {
  // A FIFO without a reader would block the open forever: non-blocking, it fails at once.
  int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
  if (fd < 0) {
    if (fifo && errno == ENXIO)
      return Status(StatusCode::kIoError, "cannot write " + target + ": it is a FIFO with no reader", target);
    return ioError("cannot open", target, errno);
  }
  if (fifo) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const bool ok = writeAll(fd, content);
  const int err = errno;
  ::close(fd);
  return ok ? Status::ok() : ioError("cannot write", target, err);
}

// Writes `content` into a new file in `dir` with `mode` and renames it over `target`. The
// content is written unnamed (O_TMPFILE) where the file system allows, so only the instant
// between naming it and the rename has a temporary name, and that name is registered.
Status replaceAtomically(const std::string& target, std::string_view content, mode_t mode) {
  const std::filesystem::path tp(target);
  const std::filesystem::path dir = tp.has_parent_path() ? tp.parent_path() : std::filesystem::path(".");
  const std::string base = (dir / ("." + tp.filename().string() + ".tmp-")).string();
  static std::atomic<unsigned> counter{0};
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) {
    auto fail = [&](const char* what) {
      Status st = ioError(what, target, errno);
      ::close(fd);
      return st;
    };
    if (!writeAll(fd, content)) return fail("cannot write");
    if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) return fail("cannot flush");
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    for (int attempt = 0; attempt < 100; ++attempt) {
      TempName tmp(base + std::to_string(::getpid()) + "-" + std::to_string(counter++));
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.path().c_str(), AT_SYMLINK_FOLLOW) != 0) {
        tmp.keep();  // the name is someone else's, or nothing was created
        if (errno == EEXIST) continue;
        break;  // no /proc, or linking refused: write again through a named file below
      }
      if (std::rename(tmp.path().c_str(), target.c_str()) != 0) return fail("cannot replace");
      tmp.keep();
      ::close(fd);
      return Status::ok();
    }
    ::close(fd);
  }
  std::string tmpl = base + "XXXXXX";
  fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    return Status(StatusCode::kIoError,
                  "cannot write " + target + " (no temporary file can be created next to it): " + std::strerror(errno),
                  target);
  TempName tmp(tmpl);
  auto fail = [&](const char* what) {
    Status st = ioError(what, target, errno);
    if (fd >= 0) ::close(fd);
    return st;
  };
  if (!writeAll(fd, content)) return fail("cannot write");
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) return fail("cannot flush");
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) return fail("cannot close");
  if (std::rename(tmp.path().c_str(), target.c_str()) != 0) return fail("cannot replace");
  tmp.keep();
  return Status::ok();
}

}  // namespace

Status writeOutputFile(const std::filesystem::path& path, std::string_view content) {
  std::string target = path.string();
  struct stat st {};
  bool exists = false;
  if (Status s = followLinks(target, st, exists); !s.isOk()) return s;
  if (exists && !S_ISREG(st.st_mode)) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return streamTo(target, S_ISFIFO(st.st_mode), content);
    const char* what = S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device" : "not a regular file";
    return Status(StatusCode::kIoError,
                  "cannot write " + path.string() + ": it is " + what + "; refusing to replace it", path.string());
  }
  const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~currentUmask());
  return replaceAtomically(target, content, mode);
}

// The historical name, used by every writer: now the safe output file.
Status writeFileAtomically(const std::filesystem::path& path, std::string_view content) {
  return writeOutputFile(path, content);
}

}  // namespace qnnrules
