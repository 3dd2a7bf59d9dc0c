// Recipe YAML -> Recipe, read with the shared strict-YAML helpers; regexes compiled here, once.
#include "qnnrules/annotate/Recipe.h"

#include <re2/re2.h>

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <limits>

#include "yaml/StrictYaml.h"

namespace qnnrules {

std::string Override::describe() const {
  std::string s;
  switch (by) {
    case By::kTarget: {
      s = "target ";
      for (size_t i = 0; i < targets.size(); ++i) s += (i ? "|" : "") + targets[i];
      break;
    }
    case By::kNodeName: s = "node-name regex '" + pattern + "'"; break;
    case By::kModule: s = "module regex '" + pattern + "'"; break;
  }
  s += " priority " + std::to_string(priority);
  if (mark.known()) s += " (" + mark.toString() + ")";
  return s;
}

namespace {

bool isMeta(char c) { return std::string_view(".[]{}()*+?|^$\\").find(c) != std::string_view::npos; }

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The name `pattern` matches exactly when it is "^" NAME "$" and NAME is literal: characters
// other than metacharacters, an escaped non-alphanumeric character, "\xHH" below 0x80.
std::optional<std::string> exactNameOf(std::string_view pattern) {
  if (pattern.size() < 2 || pattern.front() != '^' || pattern.back() != '$') return std::nullopt;
  const std::string_view body = pattern.substr(1, pattern.size() - 2);
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c != '\\') {
      if (isMeta(c)) return std::nullopt;
      out += c;
      continue;
    }
    if (++i >= body.size()) return std::nullopt;  // the final '$' escaped: not anchored
    const char e = body[i];
    if (e == 'x') {
      if (i + 2 >= body.size()) return std::nullopt;
      const int hi = hexDigit(body[i + 1]), lo = hexDigit(body[i + 2]);
      if (hi < 0 || lo < 0 || hi >= 8) return std::nullopt;  // above 0x7f RE2 means a code point
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(e))) return std::nullopt;  // \d, \b, \A ...
    out += e;
  }
  return out;
}

}  // namespace

std::string exactNamePattern(std::string_view name) {
  std::string p = "^";
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      p += fmt::format("\\x{:02x}", u);
    } else if (u < 0x80 && !std::isalnum(u) && c != '_') {
      p += '\\';  // as RE2::QuoteMeta: every other ASCII punctuation escaped
      p += c;
    } else {
      p += c;  // letters, digits, '_' and UTF-8 as they are
    }
  }
  return p + "$";
}

Status compileOverride(Override& o) {
  o.exactName.reset();
  if (o.by == Override::By::kTarget) {
    if (o.targets.empty()) return Status(StatusCode::kInvalidArgument, "a target override names no target");
  } else if (o.by == Override::By::kNodeName && (o.exactName = exactNameOf(o.pattern))) {
    o.regex.reset();  // matched by name: no regex (nor RE2's UTF-8 check of a name that is not)
  } else {
    RE2::Options opt;
    opt.set_log_errors(false);
    auto re = std::make_shared<const RE2>(o.pattern, opt);
    if (!re->ok()) return Status(StatusCode::kInvalidArgument, "bad regex '" + o.pattern + "': " + re->error(), o.pattern);
    o.regex = std::move(re);
  }
  if (!o.discard && !o.selection)
    return Status(StatusCode::kInvalidArgument, "an override needs a config or discard: true");
  if (o.discard && o.selection)
    return Status(StatusCode::kInvalidArgument, "an override cannot both discard nodes and give them a config");
  if (!o.blockSize.empty()) {
    if (!o.selection || o.selection->granularity != Granularity::kPerBlock)
      return Status(StatusCode::kInvalidArgument, "block_size needs a per_block config (e.g. 16a4w_block)");
    for (int64_t b : o.blockSize)
      if (b < 1) return Status(StatusCode::kInvalidArgument, "block_size entries must be 1 or greater");
  }
  return Status::ok();
}

namespace {

using namespace strictyaml;  // NOLINT(google-build-using-namespace)

constexpr std::array<std::string_view, 5> kTopKeys = {"version", "default", "overrides", "discard_nodes",
                                                      "discard_ops"};
constexpr std::array<std::string_view, 8> kOverrideKeys = {"target", "name", "module", "config",
                                                           "priority", "block_size", "discard", "note"};

class RecipeLoader : public StrictYamlReader {
 public:
  RecipeLoader(const std::string& displayPath, DiagnosticList& errors, const QuantConfigTable& configs)
      : StrictYamlReader(displayPath, errors), configs_(configs) {}

  void load(const YAML::Node& root, Recipe& out) {
    Map top = readMap(root, "the top level", kTopKeys);
    if (!top.valid) return;
    version(root, top);
    out.mark = mark(root);
    if (const Entry* e = top.get("default")) out.defaultSelection = selection(e->value, "'default'");
    if (const Entry* e = top.get("overrides")) {
      if (!e->value.IsSequence()) {
        error(DiagCode::kWrongType, mark(e->value), "'overrides' must be a list", "a list of overrides",
              describe(e->value));
      } else {
        size_t i = 0;
        for (const YAML::Node& n : e->value) parseOverride(n, ++i, out);
      }
    }
    if (const Entry* e = top.get("discard_nodes")) strings(e->value, "'discard_nodes'", out.discardNodes);
    if (const Entry* e = top.get("discard_ops")) strings(e->value, "'discard_ops'", out.discardOps);
  }

 private:
  std::optional<ConfigSelection> selection(const YAML::Node& v, const std::string& what) {
    auto s = str(v, what);
    if (!s) return std::nullopt;
    StatusOr<ConfigSelection> sel = parseConfigSelection(configs_, *s);
    if (!sel.isOk()) {
      error(DiagCode::kUnknownEnumValue, mark(v), what + ": " + sel.status().message(),
            "a config of rules/quant_configs.yaml with optional :per_tensor/:per_channel/:per_block,sym,qat",
            clip(*s));
      return std::nullopt;
    }
    return *sel;
  }

  void strings(const YAML::Node& v, const std::string& what, std::vector<std::string>& out) {
    if (v.IsScalar()) {
      if (auto s = str(v, what)) out.push_back(*s);
      return;
    }
    if (!v.IsSequence()) {
      error(DiagCode::kWrongType, mark(v), what + " must be a string or a list of strings", "a list of strings",
            describe(v));
      return;
    }
    for (const YAML::Node& n : v)
      if (auto s = str(n, "an element of " + what)) out.push_back(*s);
  }

  void parseOverride(const YAML::Node& node, size_t index, Recipe& out) {
    const size_t before = errorCount();
    const std::string scope = "override #" + std::to_string(index);
    Map m = readMap(node, scope, kOverrideKeys);
    if (!m.valid) return;
    auto in = [&](std::string_view key) { return "'" + std::string(key) + "' of " + scope; };
    Override o;
    o.mark = mark(node);
    const Entry* by = nullptr;
    int kinds = 0;
    for (std::string_view k : {"target", "name", "module"})
      if (const Entry* e = m.get(k)) {
        ++kinds;
        by = e;
      }
    if (kinds != 1) {
      error(DiagCode::kInvalidValue, mark(node), scope + " must match by exactly one of target, name or module",
            "one of target, name, module", m.keyList());
      return;
    }
    if (by->key == "target") {
      o.by = Override::By::kTarget;
      strings(by->value, in("target"), o.targets);
    } else {
      o.by = by->key == "name" ? Override::By::kNodeName : Override::By::kModule;
      if (auto s = str(by->value, in(by->key))) o.pattern = *s;
    }
    if (const Entry* e = m.get("config")) o.selection = selection(e->value, in("config"));
    if (const Entry* e = m.get("priority")) {
      if (auto x = integer(e->value, in("priority"), -1000000, 1000000)) o.priority = static_cast<int>(*x);
    }
    if (const Entry* e = m.get("discard"))
      if (auto b = boolean(e->value, in("discard"))) o.discard = *b;
    if (const Entry* e = m.get("note"))
      if (auto s = str(e->value, in("note"))) o.note = *s;
    if (const Entry* e = m.get("block_size")) {
      if (!e->value.IsSequence() || e->value.size() == 0) {
        error(DiagCode::kWrongType, mark(e->value), in("block_size") + " must be a non-empty list of integers",
              "a list such as [1, 32, 1, 1]", describe(e->value));
      } else {
        for (const YAML::Node& n : e->value)
          if (auto x = integer(n, "an element of " + in("block_size"), 1, std::numeric_limits<int32_t>::max()))
            o.blockSize.push_back(*x);
      }
    }
    if (errorCount() != before) return;
    Status st = compileOverride(o);
    if (!st.isOk()) {
      error(DiagCode::kInvalidValue, mark(by->value), scope + ": " + st.message(), "a valid override",
            clip(st.fragment().empty() ? st.message() : st.fragment()));
      return;
    }
    out.overrides.push_back(std::move(o));
  }

  const QuantConfigTable& configs_;
};

}  // namespace

void loadRecipeText(const std::string& text, const std::string& displayPath, const QuantConfigTable& configs,
                    Recipe& out, DiagnosticList& errors, const LoadLimits& limits) {
  RecipeLoader l(displayPath, errors, configs);
  l.setListKey("overrides");
  guarded(l, [&] {
    if (auto root = l.parse(text, limits, "the recipe file")) l.load(*root, out);
  });
}

void loadRecipeFile(const std::filesystem::path& file, const std::string& displayPath,
                    const QuantConfigTable& configs, Recipe& out, DiagnosticList& errors, const LoadLimits& limits) {
  loadFileWith(file, displayPath, limits, errors, "recipe file", [&](const std::string& t) { loadRecipeText(t, displayPath, configs, out, errors, limits); });
}

}  // namespace qnnrules
