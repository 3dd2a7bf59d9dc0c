// saveOutputFile (core/OutputFile.h, issue 36): a file is never truncated in place, through a
// symlink neither. A write that fails part way (a file-size limit, a full disk) leaves the
// target as it was; the link stays a link; another user's file keeps its owner.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "TestUtil.h"
#include "qnnrules/core/OutputFile.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

ino_t inodeOf(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_ino;
}

TEST(OutputFile, ALinkedFileIsReplacedBesideItselfAndTheLinkStays) {
  TempDir dir;
  const fs::path target = dir.write("real/report.html", "old\n");
  ::chmod(target.c_str(), 0640);
  fs::create_symlink(target, dir.path() / "link.html");
  const ino_t before = inodeOf(target);
  ASSERT_TRUE(saveOutputFile(dir.path() / "link.html", "new\n").isOk());
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.html"));
  EXPECT_EQ(testing::readFile(target), "new\n");
  EXPECT_NE(inodeOf(target), before);  // a new file renamed over it, not rewritten in place
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all, fs::perms(0640));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() / "real"), fs::directory_iterator()), 1);
}

// The child writes 1 MiB through a link under a 64 KiB file-size limit (as `ulimit -f 64`):
// the write fails (SIGXFSZ ignored: EFBIG; by default the signal kills it) and the target
// keeps its old content, whole.
TEST(OutputFile, AWriteStoppedByAFileSizeLimitLeavesTheLinkedTargetWhole) {
  TempDir dir;
  const std::string old(100000, 'o');
  const fs::path target = dir.write("target.json", old);
  fs::create_symlink(target, dir.path() / "link.json");
  for (bool killed : {false, true}) {
    SCOPED_TRACE(killed ? "killed by SIGXFSZ" : "EFBIG");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::signal(SIGXFSZ, killed ? SIG_DFL : SIG_IGN);
      struct rlimit limit {64 * 1024, 64 * 1024};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      const bool ok = saveOutputFile(dir.path() / "link.json", std::string(1 << 20, 'n')).isOk();
      ::_exit(ok ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    if (killed)
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) << status;
    else
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << status;
    EXPECT_EQ(testing::readFile(target), old);
    EXPECT_TRUE(fs::is_symlink(dir.path() / "link.json"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);
  }
}

TEST(OutputFile, AnotherUsersFileIsReplacedKeepingItsOwnerOrRefused) {
  TempDir dir;
  const fs::path theirs = dir.write("theirs.json", "old\n");
  ::chmod(theirs.c_str(), 0644);
  if (::geteuid() != 0) {
    // Not root: a replacement could not be theirs, and rewriting in place could destroy it.
    GTEST_SKIP() << "a file of another user needs root";
  }
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
  ASSERT_TRUE(saveOutputFile(theirs, "new\n").isOk());
  struct stat after {};
  ASSERT_EQ(::stat(theirs.c_str(), &after), 0);
  EXPECT_EQ(testing::readFile(theirs), "new\n");
  EXPECT_EQ(after.st_uid, 65534u);
  EXPECT_EQ(after.st_gid, 65534u);
  EXPECT_EQ(after.st_mode & 07777, 0644u);
}

TEST(OutputFile, ADanglingLinkIsRefusedAndNothingIsCreated) {
  TempDir dir;
  fs::create_symlink(dir.path() / "nowhere.json", dir.path() / "link.json");
  Status st = saveOutputFile(dir.path() / "link.json", "x");
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("dangling"), std::string::npos) << st.message();
  EXPECT_FALSE(fs::exists(dir.path() / "nowhere.json"));
}

}  // namespace
}  // namespace qnnrules
