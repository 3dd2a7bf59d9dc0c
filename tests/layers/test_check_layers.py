"""The layer check passes on the engine and fails on planted violations: an upward include (from
the engine and from backends/), a folder outside the order, a function declared in one layer and
defined in another or nowhere, a stale exception. Runs under pytest or as a plain script (CTest
engine_layers: /usr/bin/python3, standard library only)."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.normpath(os.path.join(HERE, "..", "..", "engine"))
BACKENDS = os.path.normpath(os.path.join(HERE, "..", "..", "backends"))
CHECK = os.path.join(HERE, "check_layers.py")
sys.path.insert(0, HERE)
import check_layers  # noqa: E402  (beside this file)


def run(root):
    return subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True, check=False)


def copy_tree(tmp_path):
    """A copy of engine/ and backends/ side by side, as in the repository."""
    shutil.copytree(ENGINE, tmp_path / "engine", ignore=shutil.ignore_patterns("*.o"))
    shutil.copytree(BACKENDS, tmp_path / "backends")
    return tmp_path / "engine"


def plant(path, before=None, after=None, replace=None):
    text = path.read_text()
    if replace:
        assert replace[0] in text, replace[0]
        text = text.replace(replace[0], replace[1], 1)
    path.write_text((before or "") + text + (after or ""))


def test_the_engine_keeps_its_layers():
    r = run(ENGINE)
    assert r.returncode == 0, r.stdout + r.stderr


def planted_include(tmp_path, source, include):
    """The check's output on a copy where `source` (below engine/src) includes `include` first."""
    copy = copy_tree(tmp_path)
    planted = copy / "src" / source
    plant(planted, before=f'#include "{include}"\n')
    r = run(str(copy))
    assert r.returncode == 1
    return planted, r.stdout


def test_a_planted_upward_include_is_named(tmp_path):
    planted, out = planted_include(tmp_path, "core/Status.cpp", "qnnrules/pipeline/RunReport.h")
    assert f"{planted}:1: core includes qnnrules/pipeline/RunReport.h of the higher layer pipeline" in out


def test_an_upward_include_by_an_internal_name_is_named(tmp_path):
    # engine/src is an include root too: "report/Remedies.h" names src/report/Remedies.h.
    planted, out = planted_include(tmp_path, "graph/Graph.cpp", "report/Remedies.h")
    assert f"{planted}:1: graph includes report/Remedies.h of the higher layer report" in out


def test_backends_is_a_layer_above_model(tmp_path):
    copy = copy_tree(tmp_path)
    policy = tmp_path / "backends" / "BoundaryConversionPolicy.h"
    r = run(str(copy))
    assert r.returncode == 0, r.stdout  # it includes model/ and below
    plant(policy, before='#include "qnnrules/validate/Validator.h"\n')
    r = run(str(copy))
    assert r.returncode == 1
    assert f"{policy}:1: backends includes qnnrules/validate/Validator.h of the higher layer validate" in r.stdout
    # and no layer below it may include it
    model = copy / "src" / "model" / "RuleSet.cpp"
    plant(model, before='#include "../../backends/BoundaryConversionPolicy.h"\n')
    r = run(str(copy))
    assert f"{model}:1: model includes ../../backends/BoundaryConversionPolicy.h of the higher layer backends" in r.stdout


def test_a_folder_outside_the_order_is_named(tmp_path):
    copy = copy_tree(tmp_path)
    (copy / "src" / "misc").mkdir()
    (copy / "src" / "misc" / "X.cpp").write_text("int x;\n")
    r = run(str(copy))
    assert r.returncode == 1 and "folder 'misc' is not a layer" in r.stdout


def test_a_function_defined_in_another_layer_is_named(tmp_path):
    copy = copy_tree(tmp_path)
    header = copy / "include" / "qnnrules" / "core" / "Status.h"
    plant(header, replace=("namespace qnnrules {\n", "namespace qnnrules {\n\nint plantedCount(const Status& s);\n"))
    line = header.read_text().split("\n").index("int plantedCount(const Status& s);") + 1
    definition = copy / "src" / "report" / "Baseline.cpp"
    plant(definition, after="\nnamespace qnnrules {\nint plantedCount(const Status& s) { return s.isOk(); }\n}\n")
    r = run(str(copy))
    assert r.returncode == 1
    assert (f"{header}:{line}: plantedCount is declared in the layer core but defined in "
            f"engine/src/report/Baseline.cpp (report)") in r.stdout, r.stdout


def test_a_member_defined_nowhere_is_named(tmp_path):
    copy = copy_tree(tmp_path)
    header = copy / "include" / "qnnrules" / "pipeline" / "RunReport.h"
    plant(header, replace=("  std::string graphLabel() const;\n",
                           "  std::string graphLabel() const;\n  bool plantedCheck(int level) const;\n"))
    line = header.read_text().split("\n").index("  bool plantedCheck(int level) const;") + 1
    r = run(str(copy))
    assert r.returncode == 1
    assert f"{header}:{line}: RunReport::plantedCheck is declared in the layer pipeline but defined nowhere" in r.stdout


def test_a_definition_in_the_header_or_the_layer_counts(tmp_path):
    copy = copy_tree(tmp_path)
    header = copy / "include" / "qnnrules" / "core" / "Status.h"
    plant(header, replace=("namespace qnnrules {\n",
                           "namespace qnnrules {\n\nint plantedInline(int x);\nint plantedDeep(int x);\n"),
          after="\nnamespace qnnrules {\ninline int plantedInline(int x) { return x; }\n}\n")
    (copy / "src" / "core" / "deep").mkdir()
    (copy / "src" / "core" / "deep" / "Deep.cpp").write_text(
        '#include "qnnrules/core/Status.h"\nnamespace qnnrules {\nint plantedDeep(int x) { return x; }\n}\n')
    r = run(str(copy))
    assert r.returncode == 0, r.stdout


def test_a_stale_exception_is_named(tmp_path):
    copy = copy_tree(tmp_path)
    header = copy / "include" / "qnnrules" / "model" / "DelegationPolicy.h"
    text = header.read_text()
    start = text.index("std::shared_ptr<const DelegationPolicy> makeDelegationPolicy(")
    header.write_text(text[:start] + text[text.index(";", start) + 1:])
    r = run(str(copy))
    assert r.returncode == 1
    assert "the exception for makeDelegationPolicy (model/DelegationPolicy.h) is no longer needed" in r.stdout


def test_the_scanner_reads_declarations_not_the_rest():
    header = r'''
#define NOT_A_FUNCTION(x) int x();
namespace qnnrules {
// int commented(int);
inline constexpr const char* kText = "f(int);";
using Sink = std::function<void(std::string_view)>;
int (*pointer)(int);
std::string free(const std::vector<std::pair<int, int>>& v, int n = 3);
template <class T> T templated(T x);
enum class E : int { kA = f(1), kB };
class Thing : public Base<Thing> {
 public:
  explicit Thing(int n);
  ~Thing();
  Thing(const Thing&) = delete;
  Thing& operator=(Thing&&) = default;
  bool operator==(const Thing&) const;
  virtual int pure() const = 0;
  int inlined() const { return n_ + f(2); }
  static std::array<int, static_cast<size_t>(E::kB)> table();
  struct Inner {
    void innerMember() noexcept;
    int data = g(3);
  };
 private:
  std::optional<int> n_ = std::nullopt;
  void (Thing::*member_)(int);
};
template <class V> struct Reader { bool read(); };
}  // namespace qnnrules
'''
    names = [n for n, _ in check_layers.declarations(header)]
    assert [check_layers.readable(n) for n in names] == [
        "free", "Thing::Thing", "Thing::~Thing", "Thing::operator==", "Thing::table", "Inner::innerMember"], names
    source = r'''
Thing::Thing(int n) : n_(n) {}
Thing::~Thing() = default;
bool Thing::operator==(const Thing& o) const { return n_ == o.n_; }
std::string free(const std::vector<std::pair<int, int>>& v, int n) {
  if (n) call(v);
  return {};
}
void Thing::Inner::innerMember() noexcept {}
'''
    defined = check_layers.definitions(source)
    for name in names:
        if name != "Thing::table":
            assert name in defined, (name, defined)
    assert "Thing::table" not in defined and "call" not in defined and "if" not in defined


if __name__ == "__main__":
    test_the_engine_keeps_its_layers()
    test_the_scanner_reads_declarations_not_the_rest()
    for test in (test_a_planted_upward_include_is_named, test_an_upward_include_by_an_internal_name_is_named,
                 test_backends_is_a_layer_above_model, test_a_folder_outside_the_order_is_named,
                 test_a_function_defined_in_another_layer_is_named, test_a_member_defined_nowhere_is_named,
                 test_a_definition_in_the_header_or_the_layer_counts, test_a_stale_exception_is_named):
        with tempfile.TemporaryDirectory() as d:
            test(Path(d))
    print("layer check: the engine keeps its layers; planted violations are named")
