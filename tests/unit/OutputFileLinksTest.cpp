// saveOutputFile (core/OutputFile.h), the cases it kept from the writer it replaced: symlinks written through (not dangling ones, nor
// another user's in a sticky directory), the replaced file's mode
// kept, devices and FIFOs streamed to or refused but never replaced, directories refused, and
// no temporary file left behind. Interrupted writes are the hostile-input table's (SIGTERM,
// SIGINT rows in tests/hostile/cases.yaml).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "qnnrules/core/OutputFile.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;

class OutputFileLinks : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "safe-output-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  static mode_t modeOf(const fs::path& p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 07777;
  }
  // Every entry of the directory: what a write left next to its target.
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

TEST_F(OutputFileLinks, NewFileGetsTheContentAndTheUmaskMode) {
  const mode_t old = ::umask(027);
  Status st = saveOutputFile(dir_ / "new.json", "new\n");
  ::umask(old);
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_EQ(read(dir_ / "new.json"), "new\n");
  EXPECT_EQ(modeOf(dir_ / "new.json"), 0640u);
  EXPECT_EQ(entries(), std::vector<std::string>{"new.json"});
}

TEST_F(OutputFileLinks, ReplacedFileKeepsItsMode) {
  write(dir_ / "out.json", "old\n");
  ::chmod((dir_ / "out.json").c_str(), 0600);
  ASSERT_TRUE(saveOutputFile(dir_ / "out.json", "new\n").isOk());
  EXPECT_EQ(read(dir_ / "out.json"), "new\n");
  EXPECT_EQ(modeOf(dir_ / "out.json"), 0600u);
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputFileLinks, SymlinkIsWrittenThroughToItsTarget) {
  fs::create_directory(dir_ / "real");
  write(dir_ / "real" / "target.json", "old\n");
  ::chmod((dir_ / "real" / "target.json").c_str(), 0640);
  fs::create_symlink("real/target.json", dir_ / "link.json");  // relative to the link's directory
  fs::create_symlink("link.json", dir_ / "link2.json");        // and a chain of links
  ASSERT_TRUE(saveOutputFile(dir_ / "link2.json", "new\n").isOk());
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "link2.json"));
  EXPECT_EQ(read(dir_ / "real" / "target.json"), "new\n");
  EXPECT_EQ(modeOf(dir_ / "real" / "target.json"), 0640u);
  EXPECT_EQ(entries(), (std::vector<std::string>{"link.json", "link2.json", "real"}));
}

TEST_F(OutputFileLinks, DanglingSymlinkIsRefusedAndCreatesNothing) {
  fs::create_symlink("made.json", dir_ / "link.json");
  Status st = saveOutputFile(dir_ / "link.json", "new\n");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("it is a dangling symbolic link; refusing to create its target"), std::string::npos)
      << st.message();
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(entries(), std::vector<std::string>{"link.json"});
}

// /tmp's situation (issue 24): a sticky world-writable directory holding a link that another
// user planted, pointing at a file of ours. Refused whether or not fs.protected_symlinks is on.
TEST_F(OutputFileLinks, LinkOfAnotherUserInAStickyDirectoryIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "planting another user's link needs root";
  fs::create_directory(dir_ / "sticky");
  ::chmod((dir_ / "sticky").c_str(), 01777);
  write(dir_ / "secret.json", "secret\n");
  ::chmod((dir_ / "secret.json").c_str(), 0600);
  fs::create_symlink(dir_ / "secret.json", dir_ / "sticky" / "out.json");
  ASSERT_EQ(::lchown((dir_ / "sticky" / "out.json").c_str(), 65534, 65534), 0);
  Status st = saveOutputFile(dir_ / "sticky" / "out.json", "new\n");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("is a symbolic link owned by another user (uid 65534) in a sticky world-writable "
                              "directory; refusing to follow it"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(read(dir_ / "secret.json"), "secret\n");
  // Our own link there is followed, as the kernel's protected_symlinks would.
  ASSERT_EQ(::lchown((dir_ / "sticky" / "out.json").c_str(), 0, 0), 0);
  ASSERT_TRUE(saveOutputFile(dir_ / "sticky" / "out.json", "new\n").isOk());
  EXPECT_EQ(read(dir_ / "secret.json"), "new\n");
}

// The process's own stdout, named through a link (/dev/stdout, /proc/self/fd/1), is written
// through its descriptor: a file opened for appending (`>> run.log`) keeps its old content.
TEST_F(OutputFileLinks, OwnStdoutThroughALinkKeepsAppending) {
  write(dir_ / "run.log", "previous run\n");
  const int log = ::open((dir_ / "run.log").c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(log, 0);
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  ASSERT_EQ(::dup2(log, STDOUT_FILENO), STDOUT_FILENO);
  ::close(log);
  Status st = saveOutputFile("/dev/stdout", "the graph\n");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_EQ(read(dir_ / "run.log"), "previous run\nthe graph\n");
}

TEST_F(OutputFileLinks, SymlinkLoopIsAnError) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  Status st = saveOutputFile(dir_ / "a", "x");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_TRUE(fs::is_symlink(dir_ / "a"));
}

TEST_F(OutputFileLinks, DirectoryIsRefusedAndLeftAlone) {
  fs::create_directory(dir_ / "out.json");
  Status st = saveOutputFile(dir_ / "out.json", "x");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("it is a directory; refusing to replace it"), std::string::npos) << st.message();
  EXPECT_TRUE(fs::is_directory(dir_ / "out.json"));
}

TEST_F(OutputFileLinks, CharacterDevicesAreStreamedToNotReplaced) {
  EXPECT_TRUE(saveOutputFile("/dev/null", "discarded").isOk());
  Status full = saveOutputFile("/dev/full", "no room");
  EXPECT_EQ(full.code(), StatusCode::kIoError);
  EXPECT_NE(full.message().find("No space left"), std::string::npos) << full.message();
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFileLinks, FifoWithoutReaderIsRefusedAtOnce) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  Status st = saveOutputFile(dir_ / "fifo", "x");
  EXPECT_NE(st.message().find("FIFO with no reader"), std::string::npos) << st.message();
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
}

TEST_F(OutputFileLinks, FifoWithAReaderIsStreamedTo) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const int reader = ::open((dir_ / "fifo").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(saveOutputFile(dir_ / "fifo", "through the pipe").isOk());
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf - 1);
  ::close(reader);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
}

TEST_F(OutputFileLinks, MissingDirectoryIsAnErrorAndCreatesNothing) {
  Status st = saveOutputFile(dir_ / "no" / "such" / "out.json", "x");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace qnnrules
