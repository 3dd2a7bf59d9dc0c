// ONNX Runtime's transpose optimizer on a Transpose of a dequantized constant: torch.onnx writes
// a linear layer as MatMul(x, Transpose(DequantizeLinear(W))), and ORT folds the Transpose into
// the constant (DQ(W transposed), its per-channel axis moved with it) before its QNN EP groups
// DQ -> MatMul -> Q into one quantized op (FullyConnected with a static weight). Without this
// the reader would see the MatMul's second input as a float constant. Oracle: the Quantizer
// suite's llama (tests/conformance/quantizer/onnx/llama.*.onnx), whose verbose EP log groups
// "DequantizeLinear_token_43" (over the transposed initializer) with node_linear.
// Internal to the ONNX reader module.
#pragma once

#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h

#include <cstddef>

namespace qnnrules::onnxio {

// Rewrites every Transpose whose only input is a DequantizeLinear of an initializer, when the
// initializer has no other reader and the DequantizeLinear no other consumer: the initializer's
// dims are permuted in place, the DequantizeLinear's axis follows, and it writes the Transpose's
// output. The initializer's data is not moved: the reader reads a parameter's type and shape,
// never its values. Returns how many Transpose nodes it removed.
size_t foldTransposesOfDequantizedConstants(onnx::ModelProto& model);

}  // namespace qnnrules::onnxio
