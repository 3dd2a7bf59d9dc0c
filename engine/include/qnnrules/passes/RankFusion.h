// ORT's QNN EP lowers a Reshape -> Transpose -> Reshape whose two middle tensors have rank 6 at
// rank 5 (its Rank6ToRank5Fusion: "QNN doesn't support rank-6 Reshape and Transpose operators"),
// when both rank-6 tensors have a dimension of 1 at the same index and the permutation keeps that
// index in place (microsoft/onnxruntime onnxruntime/core/providers/qnn/builder/qnn_node_group/
// reshape_transpose_rank5.cc): dropping it leaves the same data movement at rank 5. The EP claims
// chains in graph order (a Reshape that ends one does not start the next), and a chain's ends keep
// their outer tensor: a first Reshape from rank 6 or a second one to rank 6 is still refused
// (maxvit/8a8w/SM8650: the departition Reshape that is also the grid partition's). Window attention's
// partition (MaxViT, Swin) has that form with a batch of 1. This pass finds such chains on the
// graph as read from ONNX (aten.reshape / aten.view, aten.permute with an ONNX `perm`), so the
// rank limits (Rule::maxRank) skip their three nodes. Applies when the lowering path says so
// (LoweringPath::fuseRank6ReshapeTranspose).
#pragma once

#include <cstdint>
#include <vector>

#include "qnnrules/facts/GraphFacts.h"

namespace qnnrules {

// Per node, 1 for the nodes of such chains; empty when the graph has none.
std::vector<uint8_t> rank6ReshapeTransposeChains(const GraphFacts& facts);

}  // namespace qnnrules
