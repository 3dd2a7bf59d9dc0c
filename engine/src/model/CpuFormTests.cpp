#include "CpuFormTests.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>

namespace qnnrules {
namespace {

struct Equation {
  std::string a, b, out;  // "term_1,term_2->result"
};

// Letters of either case: the builder onnxruntime-qnn 2.7.0 ships takes MaxViT's upper-case
// "B G H I D, B G H J D -> B G H I J" (model suite maxvit/<config>/<SoC>: its Einsums run on QNN),
// although the builder's source of an earlier release asked for lower case.
bool letters(const std::string& s) {
  return s.size() >= 2 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalpha(c) != 0; });
}

// The EP's ParseEquation: spaces dropped, exactly "x,y->z" with terms of 2+ letters.
std::optional<Equation> parse(std::string_view text) {
  std::string e;
  for (char c : text)
    if (c != ' ') e += c;
  const size_t arrow = e.find("->");
  if (arrow == std::string::npos) return std::nullopt;
  const std::string lhs = e.substr(0, arrow);
  const size_t comma = lhs.find(',');
  if (comma == std::string::npos) return std::nullopt;
  Equation q{lhs.substr(0, comma), lhs.substr(comma + 1), e.substr(arrow + 2)};
  if (!letters(q.a) || !letters(q.b) || !letters(q.out)) return std::nullopt;
  return q;
}

// Batch letters (all but the last two of term 1) equal in both terms and the result, as the EP
// compares them: by position, over term 1's length.
bool sameBatch(const Equation& q) {
  const size_t n = q.a.size();
  for (size_t i = 0; i + 2 < n; ++i)
    if (i >= q.b.size() || i >= q.out.size() || q.a[i] != q.b[i] || q.a[i] != q.out[i]) return false;
  return true;
}

bool fits(const Equation& q, size_t n) { return q.b.size() >= n && q.out.size() >= n; }

// "ij,jk->ik" with equal batch letters.
bool matMul(const Equation& q) {
  const size_t n = q.a.size();
  if (!sameBatch(q) || !fits(q, n)) return false;
  return q.a[n - 2] == q.out[n - 2] && q.a[n - 1] == q.b[n - 2] && q.b[n - 1] == q.out[n - 1];
}

// "id,jd->ij": input 1 transposed.
bool matMulTransposeY(const Equation& q) {
  const size_t n = q.a.size();
  if (!sameBatch(q) || !fits(q, n)) return false;
  return q.a[n - 2] == q.out[n - 2] && q.a[n - 1] == q.b[n - 1] && q.b[n - 2] == q.out[n - 1];
}

// "bchq,bkhc->bkhq": rank 4, both inputs and the output transposed.
bool matMulTransposeAll(const Equation& q) {
  if (q.a.size() != 4 || !fits(q, 4) || q.a[0] != q.b[0] || q.a[0] != q.out[0]) return false;
  return q.a[3] == q.out[3] && q.a[1] == q.b[3] && q.b[1] == q.out[1];
}

// "bhwc,hkc->bhwk": ranks 4, 3, 4, input 1 broadcast over the first letter and transposed.
bool matMulBroadcastTransposeY(const Equation& q) {
  if (q.a.size() != 4 || q.b.size() != 3 || q.out.size() != 4) return false;
  return q.a[2] == q.out[2] && q.a[3] == q.b[2] && q.b[1] == q.out[3] && q.a[0] == q.out[0] && q.a[1] == q.out[1] &&
         q.b[0] == q.out[1];
}

constexpr std::array<std::string_view, 1> kNames = {"einsum_matmul"};

}  // namespace

std::span<const std::string_view> cpuFormTestNames() { return kNames; }

bool passesCpuFormTest(std::string_view form, std::string_view value) {
  if (form == "einsum_matmul") {
    const std::optional<Equation> q = parse(value);
    return q && (matMul(*q) || matMulTransposeY(*q) || matMulBroadcastTransposeY(*q) || matMulTransposeAll(*q));
  }
  return false;
}

}  // namespace qnnrules
