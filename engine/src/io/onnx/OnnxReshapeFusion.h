// ONNX Runtime's ReshapeFusion (level-1 optimization, before an execution provider sees the graph):
// a Reshape whose shape is a Concat of constants and of its own input's dimensions at the same
// positions (Unsqueeze(Gather(Shape(x), i)) as the i-th element) takes the constant [.., 0, ..]
// instead (0 copies the dimension), and the Shape/Gather/Unsqueeze/Concat nodes no one else reads
// are removed (microsoft/onnxruntime onnxruntime/core/optimizer/reshape_fusion.cc, Fuse_Subgraph).
// Without it, a Shape of a tensor whose shape is known only at run time would be judged as a node
// of its own (no rule: CPU), where ORT has removed it. Oracle: model suite mobilevit/<config>/<SoC>,
// whose attention Shape_2/Shape_3 are removed while the EP refuses their neighbours ("Cannot get
// shape"). Internal to the ONNX reader module.
#pragma once

#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h

#include <cstddef>

namespace qnnrules::onnxio {

// Rewrites each such Reshape (its shape has at most one -1, as ORT requires) to read a new int64
// initializer, and removes the nodes left without readers. Returns how many Reshapes it fused.
size_t fuseReshapeShapes(onnx::ModelProto& model);

}  // namespace qnnrules::onnxio
