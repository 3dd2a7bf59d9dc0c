// ORT's QNN EP lowers a Reshape -> Transpose -> Reshape whose two middle tensors have rank 6 at
// rank 5 (its Rank6ToRank5Fusion: "QNN doesn't support rank-6 Reshape and Transpose operators"),
// when both rank-6 tensors have a dimension of 1 at the same index and the permutation keeps that
// index in place (microsoft/onnxruntime onnxruntime/core/providers/qnn/builder/qnn_node_group/
// reshape_transpose_rank5.cc): dropping it leaves the same data movement at rank 5. The EP claims
// chains in graph order (a Reshape that ends one does not start the next). Window attention's
// partition (MaxViT, Swin) has that form with a batch of 1.
//
// The EP validates the chain's three QNN nodes in order, registering each rank-5 tensor before
// asking QNN, and keeps those tensors when a later node of the chain is refused:
//  - both outer tensors of rank 5 or less: the chain runs at rank 5 (kRankChainFused);
//  - the first Reshape reads rank 6: it is refused, and so, node by node, are the other two;
//  - the last Reshape writes rank 6: it is refused, but the first Reshape and the Transpose then
//    pass op validation against the rank-5 tensors left behind, and graph composition, which
//    builds them at rank 6, fails: the whole session fails (kRankChainCompositionFails;
//    maxvit/<config>/<SoC>, the departition Reshape that is also the next grid partition's;
//    patterns rank6_chain_out_rank6 and rank6_chain_in_rank6).
// This pass finds such chains on the graph as read from ONNX (aten.reshape / aten.view,
// aten.permute with an ONNX `perm`). Applies when the lowering path says so
// (LoweringPath::fuseRank6ReshapeTranspose).
#pragma once

#include <cstdint>
#include <vector>

#include "qnnrules/facts/GraphFacts.h"

namespace qnnrules {

// What the chains make of a node; kRankChainNone for a node in none.
inline constexpr uint8_t kRankChainNone = 0;
inline constexpr uint8_t kRankChainFused = 1;             // lowered at rank 5: rank limits skip it
inline constexpr uint8_t kRankChainCompositionFails = 2;  // passes op validation, fails composition

// Per node, one of the values above; empty when the graph has no chain.
std::vector<uint8_t> rank6ReshapeTransposeChains(const GraphFacts& facts);

}  // namespace qnnrules
