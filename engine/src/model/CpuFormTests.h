// Named tests of an ONNX attribute's value that a lowering path's own checks make and a list of
// values cannot state (LoweringPath::cpuForms, YAML `form:` / `not_form:`). Each is the path's
// logic, written down once and cited; the loader checks the names, the pass runs them.
#pragma once

#include <span>
#include <string_view>

namespace qnnrules {

// Sorted, unique: "einsum_matmul".
std::span<const std::string_view> cpuFormTestNames();

// Whether `value` passes the test named `form` (one of cpuFormTestNames(); false otherwise).
//   einsum_matmul: an Einsum equation ORT's QNN EP lowers to one MatMul (microsoft/onnxruntime
//   onnxruntime/core/providers/qnn/builder/opbuilder/einsum_op_builder.cc, IsOpSupported: two
//   terms of at least two letters and one of its four MatMul forms).
bool passesCpuFormTest(std::string_view form, std::string_view value);

}  // namespace qnnrules
