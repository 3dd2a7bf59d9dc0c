// Issue 36: what the rule loader and its cache read. A cache file of one backend copied under
// another's name is refused (its header names the slot); eviction in a shared cache directory
// removes only the cache's own files; rule files that cannot be read (a FIFO, a dangling link)
// are errors naming the file, not silently skipped; a sparse rule file is refused unread; YAML
// aliases that expand a document beyond its size are refused; a large SoC overlay loads.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "TestUtil.h"
#include "ToyRules.h"
#include "qnnrules/load/RuleLoader.h"
#include "qnnrules/load/RuleRegistry.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;
using testing::relu;
using testing::TempDir;
using testing::toy;

std::string description(const TempDir& rules, const fs::path& cacheDir, const std::string& backend) {
  RuleRegistry reg(toy(rules, cacheDir));
  const BackendLoad& load = reg.backend(backend);
  if (!load.status.isOk() || !load.errors.empty() || !load.rules || load.rules->rules().empty()) {
    std::string why = "error: " + load.status.toString();
    for (const Diagnostic& d : load.errors) why += "\n" + d.message;
    return why;
  }
  return load.rules->rules().at(0).description;
}

fs::path cacheFileOf(const fs::path& cache, const std::string& slot) {
  for (const auto& e : fs::directory_iterator(cache))
    if (e.path().filename().string().rfind(slot + "-", 0) == 0) return e.path();
  return {};
}

TEST(RuleCacheTrust, AFileOfAnotherBackendCopiedUnderThisOnesNameIsRefused) {
  TempDir rules, cache;
  rules.write("toya/ops/relu.yaml", relu("Backend A."));
  rules.write("toyb/ops/relu.yaml", relu("Backend B."));
  EXPECT_EQ(description(rules, cache.path(), "toya"), "Backend A.");
  EXPECT_EQ(description(rules, cache.path(), "toyb"), "Backend B.");
  const fs::path a = cacheFileOf(cache.path(), "backend-toya"), b = cacheFileOf(cache.path(), "backend-toyb");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  fs::copy_file(b, a, fs::copy_options::overwrite_existing);
  // Same rule set, same digest: only the header's slot tells them apart.
  EXPECT_EQ(description(rules, cache.path(), "toya"), "Backend A.");
  EXPECT_NE(testing::readFile(a), testing::readFile(b));  // rewritten by the load
}

// 300 files of a user in a shared cache directory, some named like cache files, survive an
// eviction that removes the cache's own old entries.
TEST(RuleCacheTrust, EvictionLeavesFilesTheCacheDidNotWrite) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Evicting."));
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (int i = 0; i < 300; ++i) {
    const fs::path user = cache.write(fmt::format("photo{}.bin", i), "user data");
    fs::last_write_time(user, old);
    // Named like an entry, but not one (no header): the user's.
    fs::last_write_time(cache.write(fmt::format("backend-user{}-0123456789abcdef.bin", i), "user data"), old);
  }
  fs::last_write_time(cache.write(".backend-user-0123456789abcdef.bin.1.2.3.tmp", "user data"), old);
  for (int i = 0; i < 300; ++i) {
    const fs::path f = cache.write(fmt::format("backend-old{}-0000000000000000.bin", i), "QNNRCACHstale");
    fs::last_write_time(f, old + std::chrono::seconds(i));
  }
  fs::last_write_time(cache.write(".backend-x-0000000000000000.bin.1.2.3.tmp", "QNNRCACH partial"), old);
  EXPECT_EQ(description(rules, cache.path(), "toy"), "Evicting.");
  size_t photos = 0, userEntries = 0, cacheEntries = 0;
  for (const auto& e : fs::directory_iterator(cache.path())) {
    const std::string name = e.path().filename().string();
    photos += name.rfind("photo", 0) == 0;
    userEntries += name.rfind("backend-user", 0) == 0;
    cacheEntries += name.rfind("backend-old", 0) == 0;
  }
  EXPECT_EQ(photos, 300u);
  EXPECT_EQ(userEntries, 300u);
  EXPECT_TRUE(fs::exists(cache.path() / ".backend-user-0123456789abcdef.bin.1.2.3.tmp"));
  EXPECT_FALSE(fs::exists(cache.path() / ".backend-x-0000000000000000.bin.1.2.3.tmp"));
  EXPECT_LT(cacheEntries, 300u);  // the cache's own old entries went
  EXPECT_FALSE(fs::exists(cache.path() / "backend-old0-0000000000000000.bin"));
}

TEST(RuleOverlay, AFifoOrADanglingLinkAmongTheRuleFilesIsAnErrorNamingIt) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Fine."));
  ASSERT_EQ(::mkfifo((rules.path() / "toy/ops/pipe.yaml").c_str(), 0600), 0);
  std::string got = description(rules, cache.path(), "toy");
  EXPECT_NE(got.find("pipe.yaml: a FIFO, not a regular file"), std::string::npos) << got;
  fs::remove(rules.path() / "toy/ops/pipe.yaml");
  fs::create_symlink(rules.path() / "toy/ops/gone.yaml", rules.path() / "toy/ops/link.yaml");
  got = description(rules, cache.path(), "toy");
  EXPECT_NE(got.find("link.yaml: a symbolic link to nothing readable"), std::string::npos) << got;
  fs::remove(rules.path() / "toy/ops/link.yaml");
  EXPECT_EQ(description(rules, cache.path(), "toy"), "Fine.");
}

TEST(RuleOverlay, ASparseRuleFileIsRefusedUnread) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Fine."));
  {
    std::ofstream f(rules.path() / "toy/ops/holes.yaml", std::ios::binary);
    f.seekp(8 << 20);
    f << "\n";
  }
  const std::string got = description(rules, cache.path(), "toy");
  EXPECT_NE(got.find("is a sparse file"), std::string::npos) << got;
}

TEST(RuleOverlay, AliasesExpandingADocumentBeyondItsSizeAreRefused) {
  // Nine levels of ten aliases each: 10^9 nodes from a few hundred bytes.
  std::string text = "version: 1\nx0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  for (int i = 1; i <= 9; ++i)
    text += fmt::format("x{}: &a{} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n", i, i,
                        fmt::arg("p", i - 1));
  text += "rules: []\n";
  std::vector<Rule> out;
  DiagnosticList errors;
  loadRuleText(text, "laughs.yaml", out, errors);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("uses YAML aliases (*name) that expand it to more than"), std::string::npos)
      << errors[0].message;
  // An alias or two, as the shipped rules use them, stays fine.
  errors.clear();
  loadRuleText("version: 1\nrules: []\nx: &d {dtype: BOOL_8}\ny: *d\n", "few.yaml", out, errors);
  for (const Diagnostic& d : errors) EXPECT_EQ(d.message.find("aliases"), std::string::npos) << d.message;
}

// 40k SoCs in an overlay: the duplicate checks and the table are indexed (was 9 s, quadratic).
TEST(RuleOverlay, ALargeSocOverlayLoadsAndFindsEverySoc) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Fine."));
  std::string socs = "version: 1\nsocs:\n";
  for (int i = 0; i < 40000; ++i) socs += fmt::format("  - {{name: X{}, id: {}, vtcm_mb: 8}}\n", i, 100000 + i);
  socs += "  - {name: X7, id: 99, vtcm_mb: 8}\n";
  rules.write("socs.yaml", socs);
  RuleRegistry reg(toy(rules, cache.path()));
  const RuleRegistry::SocLoad& load = reg.socs();
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_NE(load.errors[0].message.find("SoC 'X7' is listed twice"), std::string::npos) << load.errors[0].message;
}

}  // namespace
}  // namespace qnnrules
