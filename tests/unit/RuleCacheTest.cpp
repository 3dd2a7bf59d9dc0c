// The compiled rule cache (engine/src/load/RuleCache.h): a cached load is the same as a fresh
// one, any edit to a rule file takes effect on the next load, and a bad or unwritable cache is
// only a slower load.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "TestUtil.h"
#include "ToyRules.h"
#include "load/CacheArchive.h"
#include "load/RuleCacheFields.h"
#include "qnnrules/load/RuleRegistry.h"

namespace qnnrules {
namespace {

namespace fs = std::filesystem;
using testing::relu;
using testing::TempDir;
using testing::toy;

std::string markText(const SourceMark& m) { return m.toString(); }

template <typename T>
std::string optText(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "-";
}

// Every field of a backend's load, written out independently of the cache's own codec.
std::string dump(const BackendLoad& load) {
  std::string s;
  if (const BackendManifest* m = load.manifest.get()) {
    s += fmt::format("manifest {} '{}' extends {} at {} sym {} hardware {} at {} quant {} '{}' at {}\n", m->backend,
                     m->description, m->extends, markText(m->extendsMark), m->symmetric, m->hardware,
                     markText(m->hardwareMark), m->quantized, m->whyNotQuantized, markText(m->mark));
    s += fmt::format("  dt {} enc {} deleg {} '{}' '{}'\n", m->datatypes ? m->datatypes->bits() : 0u,
                     m->encodings ? m->encodings->bits() : 0u,
                     m->delegation.requireFullDelegation, m->delegation.inputQuantizeOnCpu,
                     m->delegation.outputDequantizeOnCpu);
    for (const Exclusion& x : m->exclude) {
      s += fmt::format("  exclude '{}' at {}:", x.why, markText(x.mark));
      for (size_t i = 0; i < x.targets.size(); ++i) s += " " + x.targets[i] + "@" + markText(x.targetMarks[i]);
      s += '\n';
    }
  }
  for (const Rule& r : load.rules->rules()) {
    s += fmt::format("rule {} kind {} op {} pattern {} '{}' reason '{}' at {} origin {} from {} via {} nq '{}'\n",
                     r.id, static_cast<int>(r.kind), r.qnnOp, static_cast<int>(r.pattern), r.description, r.reason,
                     markText(r.mark), r.origin, r.inheritedFrom, markText(r.via), r.noQuantizedTypes);
    s += fmt::format("  targets {} notes {}\n", fmt::join(r.targets, ","), fmt::join(r.notes, "|"));
    for (const PortDecl& p : r.ports)
      s += fmt::format("  port {} in {} #{} opt {} var {} at {}\n", p.name, p.isInput, p.index, p.optional, p.variadic,
                       markText(p.mark));
    for (const Variant& v : r.variants) {
      s += fmt::format("  variant {} '{}' gate {}#{} {} {} finalize {} hint '{}' at {}\n", v.name, v.description,
                       v.gate.columnName, v.gate.column, v.gate.version, v.gate.level, v.gateAtFinalize, v.hint,
                       markText(v.mark));
      for (const PortConstraint& c : v.ports)
        s += fmt::format("    dt {} enc {} bits {} sym {} axis {} scale {} offset {} '{}' shared {} at {}\n",
                         c.datatypes.bits(), c.encodings.bits(), c.bitwidths, optText(c.symmetric), optText(c.axis),
                         optText(c.scale), optText(c.offset), c.scaleText, c.sharedWith, markText(c.mark));
    }
    for (const OnnxMapping& m : r.onnx)
      s += fmt::format("  onnx {} [{}] rest {} aten {} ranks {} const {} act {} at {}\n", m.opType,
                       fmt::join(m.inputs, ","), m.restAsList, m.aten, fmt::join(m.ranks, ","),
                       fmt::join(m.constantInputs, ","), fmt::join(m.activationInputs, ","), markText(m.mark));
  }
  return s;
}

std::string dumpShared(RuleRegistry& reg) {
  std::string s;
  // Lowering paths through the cache's own field lists (RuleCacheFields.h, kept complete by its
  // size checks): a field read back wrong or not at all writes different bytes.
  for (const auto& p : reg.lowerings().table->paths) {
    rulecache::Writer w;
    w(*p);
    s += fmt::format("lowering {} ({} rewrites) at {}: ", p->name, p->rewrites.size(), markText(p->mark)) + w.finish() + "\n";
  }
  for (const HardwareColumn& c : reg.socs().table->columns())
    s += fmt::format("column {}#{} [{}] at {}\n", c.name, c.index, fmt::join(c.versions, ","), markText(c.mark));
  for (const SocInfo& soc : reg.socs().table->all()) {
    s += fmt::format("soc {} {} {} '{}' at {}\n", soc.name, soc.chipsetId, soc.vtcmMb, soc.marketingName,
                     markText(soc.mark));
    for (const SocHardware& h : soc.hardware) s += fmt::format("  {} {} {}\n", h.column, h.version, h.level);
  }
  const auto& qc = reg.quantConfigs();
  s += "quant " + qc.file.string() + "\n";
  for (const QuantConfig& c : qc.table->all()) {
    s += fmt::format("config {} '{}' eps {} gran {} default {} block {} qat {} at {}\n", c.name, c.description, c.eps,
                     c.granularities.size(), static_cast<int>(c.defaultGranularity), c.blockSize, c.qat,
                     markText(c.mark));
    for (const TensorQuant& t : {c.activation, c.weight, c.matmulIn1, c.normWeight, c.normBias})
      s += fmt::format("  {} {} {}\n", static_cast<int>(t.dtype), t.quantMin, t.quantMax);
  }
  for (const char* target : {"aten.conv2d.default", "aten.conv_transpose2d.input", "aten.linear.default"})
    s += fmt::format("axis {} {}\n", target, qc.table->weightAxis(target));
  for (const auto& [backend, specs] : reg.backendOptions().table->all())
    for (const OptionSpec& o : specs) {
      s += fmt::format("option {} {} {} [{}, {}] default {} '{}' at {}:", backend, o.name, static_cast<int>(o.type),
                       o.min, o.max, o.defaultValue, o.description, markText(o.mark));
      for (const EnumChoice& c : o.choices) s += fmt::format(" {}={}", c.name, c.code);
      s += '\n';
    }
  return s;
}

RegistryOptions builtinWithCache(const fs::path& cacheDir, bool useCache = true) {
  RegistryOptions o;
  o.useEnvironment = false;
  o.cacheDir = cacheDir;
  o.useCache = useCache;
  return o;
}

size_t filesIn(const fs::path& dir) {
  std::error_code ec;
  size_t n = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

// The built-in backends and tables, loaded fresh, then written to the cache, then read back.
TEST(RuleCache, ACachedLoadEqualsAFreshOne) {
  TempDir cache;
  const std::vector<std::string> backends = RuleRegistry(builtinWithCache(cache.path(), false)).availableBackends();
  ASSERT_GE(backends.size(), 3u);
  auto dumpAll = [&](RuleRegistry& reg) {
    std::string s = dumpShared(reg);
    for (const std::string& b : backends) {
      const BackendLoad& load = reg.backend(b);
      EXPECT_TRUE(load.status.isOk()) << b << ": " << load.status.toString();
      if (load.rules) s += dump(load);
    }
    return s;
  };
  RuleRegistry fresh(builtinWithCache(cache.path(), false));
  const std::string expected = dumpAll(fresh);
  EXPECT_EQ(filesIn(cache.path()), 0u);  // off: nothing written
  RuleRegistry writer(builtinWithCache(cache.path()));
  EXPECT_EQ(dumpAll(writer), expected);
  EXPECT_EQ(filesIn(cache.path()), backends.size() + 4);  // one file per backend and per shared table
  RuleRegistry reader(builtinWithCache(cache.path()));
  EXPECT_EQ(dumpAll(reader), expected);
  // A hit builds the same lookup tables.
  const RuleSet& rules = *reader.backend("htp").rules;
  ASSERT_NE(rules.findByTarget("aten.conv2d.default"), nullptr);
  EXPECT_EQ(rules.findByTarget("aten.conv2d.default")->id, fresh.backend("htp").rules->findByTarget("aten.conv2d.default")->id);
  ASSERT_NE(rules.onnxCandidates("Conv"), nullptr);
  EXPECT_EQ(rules.onnxCandidates("Conv")->size(), fresh.backend("htp").rules->onnxCandidates("Conv")->size());
}

std::string toyDescription(const TempDir& rules, const fs::path& cacheDir) {
  RuleRegistry reg(toy(rules, cacheDir));
  const BackendLoad& load = reg.backend("toy");
  if (!load.rules) return "error: " + load.status.toString();
  return load.rules->rules().at(0).description;
}

// An edit that keeps the file's size and modification time still takes effect.
TEST(RuleCache, AnEditedRuleFileTakesEffectOnTheNextLoad) {
  TempDir rules, cache;
  const fs::path file = rules.write("toy/ops/relu.yaml", relu("Version one."));
  EXPECT_EQ(toyDescription(rules, cache.path()), "Version one.");
  EXPECT_EQ(toyDescription(rules, cache.path()), "Version one.");  // a hit
  const auto mtime = fs::last_write_time(file);
  rules.write("toy/ops/relu.yaml", relu("Version two."));
  fs::last_write_time(file, mtime);
  EXPECT_EQ(toyDescription(rules, cache.path()), "Version two.");
  // A new file in the folder counts too (the directory listing is part of the digest).
  rules.write("toy/ops/other.yaml", "version: 1\nrules: []\n");
  rules.write("toy/ops/relu.yaml", relu("Version three."));
  EXPECT_EQ(toyDescription(rules, cache.path()), "Version three.");
}

TEST(RuleCache, ACorruptOrTruncatedCacheFileIsIgnoredAndRebuilt) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Cached."));
  EXPECT_EQ(toyDescription(rules, cache.path()), "Cached.");
  ASSERT_EQ(filesIn(cache.path()), 1u);
  const fs::path cached = fs::directory_iterator(cache.path())->path();
  const std::string good = testing::readFile(cached);
  const std::vector<std::string> bad = {
      "",                                 // empty
      good.substr(0, good.size() / 2),    // truncated
      good.substr(0, 20),                 // a cut header
      std::string(good.size(), '\xff'),   // garbage
      good.substr(0, good.size() - 1) + static_cast<char>(good.back() ^ 1),  // one bit flipped in the payload
  };
  for (const std::string& contents : bad) {
    std::ofstream(cached, std::ios::binary | std::ios::trunc) << contents;
    EXPECT_EQ(toyDescription(rules, cache.path()), "Cached.");
    EXPECT_EQ(testing::readFile(cached), good);  // rewritten by the load
  }
}

// Issue 24: a FIFO where the cache file belongs never blocks the load (it is opened without
// blocking and refused), and the next write replaces it with a cache file.
TEST(RuleCache, AFifoInPlaceOfTheCacheFileIsIgnoredAndReplaced) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Cached."));
  EXPECT_EQ(toyDescription(rules, cache.path()), "Cached.");
  ASSERT_EQ(filesIn(cache.path()), 1u);
  const fs::path cached = fs::directory_iterator(cache.path())->path();
  fs::remove(cached);
  ASSERT_EQ(::mkfifo(cached.c_str(), 0600), 0);
  EXPECT_EQ(toyDescription(rules, cache.path()), "Cached.");
  EXPECT_TRUE(fs::is_regular_file(cached));
}

// Issue 25: the working directory is not part of the key: one entry per rule set.
TEST(RuleCache, OneEntryPerRuleSetWhateverTheWorkingDirectory) {
  TempDir rules, cache, elsewhere;
  rules.write("toy/ops/relu.yaml", relu("Cached."));
  EXPECT_EQ(toyDescription(rules, cache.path()), "Cached.");
  ASSERT_EQ(filesIn(cache.path()), 1u);
  const fs::path before = fs::current_path();
  fs::current_path(elsewhere.path());
  const std::string again = toyDescription(rules, cache.path());
  fs::current_path(before);
  EXPECT_EQ(again, "Cached.");
  EXPECT_EQ(filesIn(cache.path()), 1u);
}

// Marks are shown relative to the working directory when the rules lie below it: a cache
// written from elsewhere (absolute marks) must not be what a run from the parent prints, nor
// the other way round (CI ran the doc samples after a test had cached the rules from /tmp).
std::string toyMark(const TempDir& rules, const fs::path& cacheDir, const fs::path& cwd) {
  const fs::path before = fs::current_path();
  fs::current_path(cwd);
  std::string mark;
  {
    RuleRegistry reg(toy(rules, cacheDir));
    const BackendLoad& load = reg.backend("toy");
    mark = load.rules ? load.rules->rules().at(0).mark.toString() : "error: " + load.status.toString();
  }
  fs::current_path(before);
  return mark;
}

TEST(RuleCache, MarksAreShownAsFromTheWorkingDirectoryWhateverWroteTheCache) {
  TempDir rules, cache, elsewhere;
  rules.write("toy/ops/relu.yaml", relu("Cached."));
  const std::string absolute = (fs::absolute(rules.path()).lexically_normal() / "toy/ops/relu.yaml").generic_string();
  EXPECT_EQ(toyMark(rules, cache.path(), elsewhere.path()), absolute + ":3:5");
  EXPECT_EQ(toyMark(rules, cache.path(), rules.path().parent_path()),
            rules.path().filename().generic_string() + "/toy/ops/relu.yaml:3:5");
  EXPECT_EQ(toyMark(rules, cache.path(), rules.path() / "toy"), "ops/relu.yaml:3:5");
  EXPECT_EQ(toyMark(rules, cache.path(), elsewhere.path()), absolute + ":3:5");  // its entry, still there
  EXPECT_EQ(filesIn(cache.path()), 3u);
}

TEST(RuleCache, AnUnwritableCacheDirectoryMeansNoCache) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("No cache."));
  const fs::path notADir = cache.write("file", "a file where the directory would be");
  EXPECT_EQ(toyDescription(rules, notADir / "sub"), "No cache.");
  EXPECT_EQ(toyDescription(rules, notADir / "sub"), "No cache.");
}

// Issue 24: the cache directory does not grow without bound. Past 256 entries the least
// recently written go, the entry just written stays, and a temporary file a killed writer left
// behind goes once it is an hour old; files the cache does not write are never touched.
TEST(RuleCache, OldEntriesAreEvictedPast256) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Evicting."));
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (int i = 0; i < 300; ++i) {
    // The cache's own (its header's magic first): user files are another test's
    // (RuleInputsHardeningTest.cpp, issue 36).
    const fs::path f = cache.write(fmt::format("backend-old{}-0000000000000000.bin", i), "QNNRCACHstale");
    fs::last_write_time(f, old + std::chrono::seconds(i));  // old0 is the least recently written
  }
  fs::last_write_time(cache.write(".backend-x-0000000000000000.bin.1.2.3.tmp", "QNNRCACH left by a killed writer"),
                      old);
  const fs::path fresh = cache.write(".backend-y-0000000000000000.bin.1.2.3.tmp", "QNNRCACH being written right now");
  const fs::path mine = cache.write("notes.txt", "not the cache's");
  EXPECT_EQ(toyDescription(rules, cache.path()), "Evicting.");
  size_t bins = 0;
  for (const auto& e : fs::directory_iterator(cache.path())) bins += e.path().extension() == ".bin";
  EXPECT_EQ(bins, 256u);
  EXPECT_FALSE(fs::exists(cache.path() / "backend-old0-0000000000000000.bin"));
  EXPECT_FALSE(fs::exists(cache.path() / "backend-old44-0000000000000000.bin"));
  EXPECT_TRUE(fs::exists(cache.path() / "backend-old45-0000000000000000.bin"));
  EXPECT_EQ(toyDescription(rules, cache.path()), "Evicting.");  // its own entry was kept: a hit
  EXPECT_FALSE(fs::exists(cache.path() / ".backend-x-0000000000000000.bin.1.2.3.tmp"));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_TRUE(fs::exists(mine));
}

// Issue 24: a cache that cannot be written is said once per run, not once per table written
// (a run writes four: the backend, the SoCs, the quantization configs, the backend options).
TEST(RuleCache, AnUnwritableCacheIsOneWarningPerRun) {
  TempDir cache;
  const fs::path notADir = cache.write("file", "a file where the directory would be");
  const std::string example = std::string(QNNRULES_SOURCE_DIR) + "/examples/tiny_cnn_8a8w.json";
  // Standard error only (the report goes to /dev/null): spdlog's line is "[time] [qnnrules] [warning] ...".
  const auto r = testing::run("(QNNRULES_CACHE_DIR=" + testing::shellQuote((notADir / "sub").string()) + " " +
                              std::string(QNNRULES_VALIDATE_EXE) + " " + testing::shellQuote(example) +
                              " --soc SM8450 --format json 2>&1 >/dev/null)");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  const std::string warning = "[qnnrules] [warning] rule cache: cannot write in " + (notADir / "sub").string() +
                              " (Not a directory); every run parses the rules again. Set QNNRULES_CACHE_DIR to a "
                              "writable directory, or QNNRULES_CACHE=0 to turn the cache off\n";
  ASSERT_GE(r.output.size(), warning.size()) << r.output;
  EXPECT_EQ(r.output.substr(r.output.size() - warning.size()), warning) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

TEST(RuleCache, LoadsWithErrorsAreNotCached) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Broken.") + "    unknown_key: 1\n");
  const std::string first = toyDescription(rules, cache.path());
  EXPECT_NE(first.find("error"), std::string::npos) << first;
  EXPECT_EQ(toyDescription(rules, cache.path()), first);
  EXPECT_EQ(filesIn(cache.path()), 0u);
}

TEST(RuleCache, TheEnvironmentCanTurnItOff) {
  TempDir rules, cache;
  rules.write("toy/ops/relu.yaml", relu("Off."));
  setenv("QNNRULES_CACHE", "0", 1);
  EXPECT_EQ(toyDescription(rules, cache.path()), "Off.");
  unsetenv("QNNRULES_CACHE");
  EXPECT_EQ(filesIn(cache.path()), 0u);
  EXPECT_EQ(toyDescription(rules, cache.path()), "Off.");
  EXPECT_EQ(filesIn(cache.path()), 1u);
}

std::string concatenatedFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string s;
  for (const fs::path& f : files) s += f.lexically_relative(dir).string() + "\n" + testing::readFile(f);
  return s;
}

// The CLI with a cold cache, then a warm one, prints (and writes) what it does without it.
TEST(RuleCache, TheCliReportsTheSameWithAndWithoutTheCache) {
  TempDir cache, out;
  const std::string example = std::string(QNNRULES_SOURCE_DIR) + "/examples/tiny_cnn_8a8w.json";
  const std::string validate = std::string(QNNRULES_VALIDATE_EXE) + " " + testing::shellQuote(example) +
                               " --soc SM8450 --format json";
  const std::string on = "QNNRULES_CACHE_DIR=" + testing::shellQuote(cache.path().string()) + " ";
  const auto off = testing::run("QNNRULES_CACHE=0 " + validate);
  ASSERT_NE(off.output.find("aten.conv2d"), std::string::npos) << off.output;
  for (int pass = 0; pass < 2; ++pass) {  // cold, then warm
    const auto r = testing::run(on + validate);
    EXPECT_EQ(r.output, off.output) << "pass " << pass;
    EXPECT_EQ(r.exitCode, off.exitCode) << "pass " << pass;
  }
  auto docs = [&](const std::string& env, const std::string& dir) {
    const auto r = testing::run(env + std::string(QNNRULES_RULES_EXE) + " docs --out " +
                                testing::shellQuote((out.path() / dir).string()));
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return concatenatedFiles(out.path() / dir);
  };
  const std::string expected = docs("QNNRULES_CACHE=0 ", "off");
  EXPECT_NE(expected.find("lpai"), std::string::npos);
  EXPECT_EQ(docs(on, "cold"), expected);
  EXPECT_EQ(docs(on, "warm"), expected);
  EXPECT_GT(filesIn(cache.path()), 0u);
}

}  // namespace
}  // namespace qnnrules
