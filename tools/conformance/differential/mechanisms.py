"""One-line guesses at the mechanism behind a disagreement kind (check.kinds), for runs.json and
the page. A guess, read off the message: the reproducer is the evidence, this is where to look.
The first pattern that matches a kind wins; order from specific to general."""
import re

GUESSES = [
    (r"worker exited|process died", "the backend crashes the process while building the graph (a bug of "
     "libQnnHtp, not a verdict); qnn-validate cannot know"),
    (r"Having zero graph inputs", "a QNN partition fed only by constants fails the session: its consumer went "
     "to CPU, and a constant computation ORT did not fold (Q/DQ-wrapped) was left alone on QNN"),
    (r"manually inserted Qnn Reshape", "the EP's Conv1d lowering (a Reshape to 2-D it inserts) fails, here on "
     "an input the quantizer left in float"),
    (r"Cannot get shape", "ORT could not infer a static shape here (shape arithmetic its constant folding "
     "does not resolve): the QNN EP refuses the node before asking QNN, qnn-validate assumes static shapes"),
    (r"incorrect Rank", "a rank limit of the HTP op (QNN op validation refuses the rank); no rule states "
     "a rank limit for this op"),
    (r"expected equal to -N", "a 16-bit asymmetric weight/offset where the op needs int16 symmetric: the "
     "EP's uint16 -> int16 conversion does not apply to this form"),
    (r"expected >= N", "an architecture gate: the op or datatype needs a newer HTP than this SoC's"),
    (r"q::(Pad_edge|SlicePad_shape|Gather_\w*ref|ForceFormat_Crouton|Slice_contig)", "graph finalize cannot "
     "build a data-movement op (Pad edge/reflect, Gather, Reshape, Slice) that op validation accepted, seen on "
     "rank-5 tensors and tiny dims: finalize has limits op validation does not check"),
    (r"q::(layernorm|rmsnorm|flat_from_vtcm|Add\.tcm|Div\.exe|ConvLayer)", "graph finalize cannot build a "
     "compute op op validation accepted (LayerNorm/RMSNorm patterns, 16-bit Div/Add, on tiny or broadcast "
     "shapes): a finalize-time limit qnn-validate does not model"),
    (r"could not create op", "graph finalize cannot create an op that op validation accepted"),
    (r"Failed to compose Qnn graph", "the session fails composing the QNN graph without a per-node message "
     "(here float's lowest value as a Where fill feeding an RMSNorm, 16-bit): a value-range limit, likely"),
    (r"Einsum unsupported equation", "the EP lowers only some Einsum equations; the others stay on CPU"),
    (r"only supports normalization along the last axis", "the EP takes LayerNormalization only over the "
     "last axis"),
    (r"ResizeNearestNeighbor on the NPU does not support", "the EP refuses some nearest_mode x "
     "coordinate_transformation_mode combinations of Resize before asking QNN"),
    (r"DepthWiseConvNd: has incorrect Value N, expected equal to N", "a dilated depthwise convolution with "
     "16-bit activations: QNN takes it only with a 3-wide kernel and stride 1 (kernel 5/7 or stride 2 refused)"),
    (r"Resize: Resize: has incorrect Value N, expected equal to N", "a nearest Resize of a rank-3 tensor with "
     "align_corners: the EP lowers it to QNN's general Resize with a parameter QNN refuses (2 for 1)"),
    (r"only support alpha", "the EP takes Gemm only with alpha = 1 (FullyConnected has no scale); other "
     "values stay on CPU"),
    (r"Input and output data types do not match|Transpose: Unsupported input/output", "a layout op "
     "(Reshape/Transpose) whose input and output reach QNN in different datatypes: ORT merged Transposes "
     "across a Q/DQ pair at 16a16w, leaving one whose encodings differ"),
    (r"expected equal to N\b", "a parameter QNN requires to have one value for this op and datatype "
     "(read the reproducer's attributes)"),
    (r"QNN EP:", "a check of the EP itself: it refuses the node before asking QNN"),
    (r"Unsupported input/output datatypes", "this datatype combination is not one the HTP op implements"),
    (r"^FP \w+: rank", "qnn-validate applies the op's rank limit to a node ORT's optimizations remove or "
     "fold before partitioning (a Transpose pair that cancels, a constant Expand/Slice): QNN never sees it"),
    (r"^graph \S+ vs session-failure: \S+: (A )?[Ff]loat", "qnn-validate's V68 finalize gate for float32 "
     "Where/Gather (from the unit cases) is broader than the backend's: these graphs finalize"),
    (r"^FP \w+: shared", "qnn-validate requires a shared input/output encoding the EP/backend does not "
     "require for this op (or the quantizer gave it one)"),
    (r"^FP Gemm: missing-port", "qnn-validate maps Gemm to addmm and requires its bias; Gemm without C (as "
     "ORT's GemmTransposeFusion writes it) runs on the backend"),
    (r"^FP Shape: no-rule", "qnn-validate refuses a Shape it has no rule for where ORT folds it (the shape is "
     "static): the node is never partitioned"),
    (r"^FP ", "a rule of qnn-validate stricter than the backend"),
    (r"placed on CPU by the EP", "the EP put the node on CPU without asking QNN (partitioning: a "
     "neighbour's fate, a fusion, or a type the EP does not take)"),
    (r"^graph session-failure", "the session fails where qnn-validate expects it to run"),
    (r"^graph \S+ vs session-failure", "qnn-validate predicts a session failure the backend does not have"),
    (r"^unread", "qnn-validate cannot read the model (or crashed on it)"),
]


def guess(kind):
    for pattern, text in GUESSES:
        if re.search(pattern, kind):
            return text
    return "unclassified: read the reproducer"
