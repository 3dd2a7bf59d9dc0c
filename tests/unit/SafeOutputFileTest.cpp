// writeOutputFile (io/SafeOutputFile.h): symlinks written through, the replaced file's mode
// kept, devices and FIFOs streamed to or refused but never replaced, directories refused, and
// no temporary file left behind. Interrupted writes are the hostile-input table's (SIGTERM,
// SIGINT rows in tests/hostile/cases.yaml).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "qnnrules/io/SafeOutputFile.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;

class SafeOutputFile : public ::testing::Test {
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

TEST_F(SafeOutputFile, NewFileGetsTheContentAndTheUmaskMode) {
  const mode_t old = ::umask(027);
  Status st = writeOutputFile(dir_ / "new.json", "new\n");
  ::umask(old);
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_EQ(read(dir_ / "new.json"), "new\n");
  EXPECT_EQ(modeOf(dir_ / "new.json"), 0640u);
  EXPECT_EQ(entries(), std::vector<std::string>{"new.json"});
}

TEST_F(SafeOutputFile, ReplacedFileKeepsItsMode) {
  write(dir_ / "out.json", "old\n");
  ::chmod((dir_ / "out.json").c_str(), 0600);
  ASSERT_TRUE(writeOutputFile(dir_ / "out.json", "new\n").isOk());
  EXPECT_EQ(read(dir_ / "out.json"), "new\n");
  EXPECT_EQ(modeOf(dir_ / "out.json"), 0600u);
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(SafeOutputFile, SymlinkIsWrittenThroughToItsTarget) {
  fs::create_directory(dir_ / "real");
  write(dir_ / "real" / "target.json", "old\n");
  ::chmod((dir_ / "real" / "target.json").c_str(), 0640);
  fs::create_symlink("real/target.json", dir_ / "link.json");  // relative to the link's directory
  fs::create_symlink("link.json", dir_ / "link2.json");        // and a chain of links
  ASSERT_TRUE(writeOutputFile(dir_ / "link2.json", "new\n").isOk());
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "link2.json"));
  EXPECT_EQ(read(dir_ / "real" / "target.json"), "new\n");
  EXPECT_EQ(modeOf(dir_ / "real" / "target.json"), 0640u);
  EXPECT_EQ(entries(), (std::vector<std::string>{"link.json", "link2.json", "real"}));
}

TEST_F(SafeOutputFile, DanglingSymlinkCreatesItsTarget) {
  fs::create_symlink("made.json", dir_ / "link.json");
  ASSERT_TRUE(writeOutputFile(dir_ / "link.json", "new\n").isOk());
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(read(dir_ / "made.json"), "new\n");
}

TEST_F(SafeOutputFile, SymlinkLoopIsAnError) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  Status st = writeOutputFile(dir_ / "a", "x");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_TRUE(fs::is_symlink(dir_ / "a"));
}

TEST_F(SafeOutputFile, DirectoryIsRefusedAndLeftAlone) {
  fs::create_directory(dir_ / "out.json");
  Status st = writeOutputFile(dir_ / "out.json", "x");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("it is a directory; refusing to replace it"), std::string::npos) << st.message();
  EXPECT_TRUE(fs::is_directory(dir_ / "out.json"));
}

TEST_F(SafeOutputFile, CharacterDevicesAreStreamedToNotReplaced) {
  EXPECT_TRUE(writeOutputFile("/dev/null", "discarded").isOk());
  Status full = writeOutputFile("/dev/full", "no room");
  EXPECT_EQ(full.code(), StatusCode::kIoError);
  EXPECT_NE(full.message().find("No space left"), std::string::npos) << full.message();
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(SafeOutputFile, FifoWithoutReaderIsRefusedAtOnce) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  Status st = writeOutputFile(dir_ / "fifo", "x");
  EXPECT_NE(st.message().find("FIFO with no reader"), std::string::npos) << st.message();
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
}

TEST_F(SafeOutputFile, FifoWithAReaderIsStreamedTo) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const int reader = ::open((dir_ / "fifo").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(writeOutputFile(dir_ / "fifo", "through the pipe").isOk());
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf - 1);
  ::close(reader);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
}

TEST_F(SafeOutputFile, MissingDirectoryIsAnErrorAndCreatesNothing) {
  Status st = writeOutputFile(dir_ / "no" / "such" / "out.json", "x");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace qnnrules
