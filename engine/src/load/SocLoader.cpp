// rules/socs.yaml -> SocTable: the hardware columns with their versions in order, and each
// SoC's name, chipset id, VTCM size and version on each column it has. Strict as the rule
// files (StrictYaml.h).
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>

#include "yaml/StrictYaml.h"
#include "qnnrules/load/RuleLoader.h"

namespace qnnrules {
namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace): the shared strict-YAML helpers

constexpr std::array<std::string_view, 3> kSocTopKeys = {"version", "hardware", "socs"};
// A SoC's own keys; the rest of its keys are the declared hardware columns.
constexpr std::array<std::string_view, 4> kSocKeys = {"name", "id", "vtcm_mb", "marketing_name"};
// Levels are bytes (Hardware.h), and so are column indexes.
constexpr size_t kMaxHardware = 255;

bool isColumnName(std::string_view s) {
  if (s.empty() || s[0] < 'a' || s[0] > 'z') return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

class SocLoader : public StrictYamlReader {
 public:
  using StrictYamlReader::StrictYamlReader;

  void loadSocs(const YAML::Node& root, SocTable& out) {
    Map top = readMap(root, "the top level", kSocTopKeys, "a mapping with keys version, hardware and socs");
    if (!top.valid) return;
    bool fileOk = version(root, top);
    if (const Entry* h = top.get("hardware")) fileOk = loadColumns(h->value, out) && fileOk;
    std::vector<std::string_view> keys(kSocKeys.begin(), kSocKeys.end());
    for (const HardwareColumn& c : out.columns()) keys.push_back(c.name);
    const Entry* socs = top.get("socs");
    if (!socs) {
      missing(root, top, "the top level", "socs");
      return;
    }
    if (!socs->value.IsSequence()) {
      error(DiagCode::kWrongType, mark(socs->value), "'socs' must be a list of SoCs", "a list of SoCs",
            describe(socs->value));
      return;
    }
    std::vector<SocInfo> parsed;  // this file's SoCs so far (also the ones with errors, for duplicates)
    // Where each name and id is first listed: a file of 40k SoCs is checked in linear time.
    std::unordered_map<std::string, size_t> nameAt;
    std::unordered_map<int, size_t> idAt;
    size_t index = 0;
    for (const YAML::Node& node : socs->value) {
      ++index;
      const size_t before = errorCount();
      const std::string name = peek(node, "name");
      const std::string scope = name.empty() ? "SoC #" + std::to_string(index) : "SoC '" + name + "'";
      Map m = readMap(node, scope, keys);
      if (!m.valid) continue;
      auto in = [&](std::string_view key) { return "'" + std::string(key) + "' of " + scope; };
      SocInfo soc;
      soc.mark = mark(node);
      bool idOk = false;
      if (const Entry* e = m.get("name")) {
        if (auto s = str(e->value, in("name"))) {
          if (auto dup = nameAt.find(*s); dup != nameAt.end())
            error(DiagCode::kInvalidValue, mark(e->value),
                  "SoC '" + *s + "' is listed twice; it is first listed at " + parsed[dup->second].mark.toString(),
                  "each SoC once", *s);
          soc.name = *s;
        }
      } else {
        missing(node, m, scope, "name");
      }
      if (const Entry* e = m.get("id")) {
        if (auto x = integer(e->value, in("id"), 0, std::numeric_limits<int>::max(), "0 or greater")) {
          soc.chipsetId = static_cast<int>(*x);
          idOk = true;
          if (auto dup = idAt.find(soc.chipsetId); dup != idAt.end())
            error(DiagCode::kInvalidValue, mark(e->value),
                  "SoC id " + std::to_string(*x) + " of " + scope + " is already the id of SoC '" +
                      parsed[dup->second].name + "'",
                  "ids unique among the SoCs", std::to_string(*x));
        }
      } else {
        missing(node, m, scope, "id");
      }
      if (const Entry* e = m.get("vtcm_mb")) {
        if (auto x = integer(e->value, in("vtcm_mb"), 0, std::numeric_limits<int>::max(), "0 or greater"))
          soc.vtcmMb = static_cast<int>(*x);
      } else {
        missing(node, m, scope, "vtcm_mb");
      }
      for (const HardwareColumn& c : out.columns()) {
        const Entry* e = m.get(c.name);
        if (!e) continue;
        const std::string what = in(c.name);
        auto v = enumValue<std::string>(e->value, what, hardwareLabel(c.name) + " version", versionNames(c),
                                        [&](std::string_view x) {
                                          std::optional<std::string> r;
                                          if (c.levelOf(x)) r = std::string(x);
                                          return r;
                                        });
        if (v) soc.hardware.push_back({c.name, *v, 0});
      }
      if (const Entry* e = m.get("marketing_name")) {
        if (auto s = str(e->value, in("marketing_name"))) soc.marketingName = *s;
      }
      const bool ok = errorCount() == before;
      nameAt.try_emplace(soc.name, parsed.size());
      if (idOk) idAt.try_emplace(soc.chipsetId, parsed.size());
      parsed.push_back(soc);
      if (!idOk) parsed.back().chipsetId = -1;
      if (ok && fileOk) out.add(std::move(soc));
    }
  }

 private:
  static std::vector<std::string_view> versionNames(const HardwareColumn& c) {
    return {c.versions.begin(), c.versions.end()};
  }

  // `hardware: {column: [oldest, ..., newest]}`. A column declared by an earlier file of the
  // search path may be declared again with more versions; every version it had stays, in its
  // order, so the SoCs and rules that name them keep their meaning.
  bool loadColumns(const YAML::Node& v, SocTable& out) {
    const size_t before = errorCount();
    Map m = readMap(v, "'hardware'", {}, "a mapping from column names to lists of versions, oldest first");
    for (const Entry& e : m.entries) {
      const std::string what = "column '" + clip(e.key) + "' of 'hardware'";
      if (!isColumnName(e.key) || std::find(kSocKeys.begin(), kSocKeys.end(), e.key) != kSocKeys.end()) {
        error(DiagCode::kInvalidValue, mark(e.keyNode),
              "'" + clip(e.key) + "' cannot name a hardware column: a column is a lower-case word, and not one of " +
                  join(kSocKeys),
              "a lower-case name such as htp", clip(e.key));
        continue;
      }
      if (!e.value.IsSequence() || e.value.size() == 0) {
        error(DiagCode::kWrongType, mark(e.value), what + " must be a non-empty list of versions, oldest first",
              "a list such as [V68, V69]", describe(e.value));
        continue;
      }
      HardwareColumn c;
      c.name = e.key;
      c.mark = mark(e.keyNode);
      for (const YAML::Node& x : e.value) {
        // Stop at the limit: a hostile list must not cost a quadratic duplicate check.
        if (c.versions.size() == kMaxHardware) {
          error(DiagCode::kInvalidValue, mark(x), what + " lists more than " + std::to_string(kMaxHardware) +
                " versions", "at most " + std::to_string(kMaxHardware), "more");
          break;
        }
        std::optional<std::string> s = str(x, "a version of " + what);
        if (!s) continue;
        if (c.levelOf(*s))
          error(DiagCode::kInvalidValue, mark(x), "version '" + clip(*s) + "' is listed twice in " + what,
                "each version once", *s);
        else c.versions.push_back(*s);
      }
      if (const HardwareColumn* earlier = out.column(c.name)) {
        HardwareLevel last = 0;
        for (const std::string& old : earlier->versions) {
          const HardwareLevel now = c.levelOf(old);
          if (now > last) {
            last = now;
            continue;
          }
          error(DiagCode::kInvalidValue, mark(e.value),
                what + " drops or reorders version '" + old + "' of the column as " + earlier->mark.toString() +
                    " declares it",
                "every earlier version, in its order: " + join(versionNames(*earlier)), clip(YAML::Dump(e.value)));
          break;
        }
      } else if (out.columns().size() >= kMaxHardware) {
        error(DiagCode::kInvalidValue, mark(e.keyNode), "more than " + std::to_string(kMaxHardware) +
              " hardware columns", "at most " + std::to_string(kMaxHardware), c.name);
      }
      if (errorCount() == before) out.declare(std::move(c));
    }
    return m.valid && errorCount() == before;
  }
};

}  // namespace

void loadSocText(const std::string& text, const std::string& displayPath, SocTable& out, DiagnosticList& errors,
                 const LoadLimits& limits) {
  SocLoader l(displayPath, errors);
  l.setListKey("socs");
  guarded(l, [&] {
    if (auto root = l.parse(text, limits, "the SoC file")) l.loadSocs(*root, out);
  });
}

void loadSocFile(const std::filesystem::path& file, const std::string& displayPath, SocTable& out,
                 DiagnosticList& errors, const LoadLimits& limits) {
  loadFileWith(file, displayPath, limits, errors, "SoC file",
               [&](const std::string& text) { loadSocText(text, displayPath, out, errors, limits); });
}

}  // namespace qnnrules
