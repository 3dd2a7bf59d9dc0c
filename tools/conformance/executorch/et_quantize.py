"""ExecuTorch's QnnQuantizer on one exported model: the annotated graph, as graph format v1.

Runs torchao's prepare_pt2e with ExecuTorch's quantizer, set up as ExecuTorch's own examples
do (export_utils.make_quantizer). The annotated graph is captured between the quantizer's
validate() and observer insertion (prepare_pt2e's own order: transform_for_annotation,
annotate, validate, prepare), so it is exactly the graph ExecuTorch annotated, and
prepare_pt2e still runs to the end (observer insertion accepts the annotation).

Needs EXECUTORCH_BUILDING_WHEEL=1 in the environment before executorch is imported, so the
import does not try to download a QNN SDK.
"""

import torch

from qnnrules import torch as qt

# Our config names -> (QuantDtype attribute, block-wise?)
CONFIGS = {
    "8a8w": "use_8a8w",
    "16a8w": "use_16a8w",
    "16a16w": "use_16a16w",
    "16a4w": "use_16a4w",
    "16a4w_block": "use_16a4w_block",
    "8a8w_qat": "use_8a8w",    # with is_qat=True (quantizer_for)
    "16a8w_qat": "use_16a8w",
}
BLOCK = 32  # the block size qnnrules's 16a4w_block config uses (rules/quant_configs.yaml)
SOC = "SM8650"


def _observer_name(spec):
    ctr = getattr(spec, "observer_or_fake_quant_ctr", None)
    partial = getattr(ctr, "p", ctr)
    func = getattr(partial, "func", None)
    return getattr(func, "__name__", None), (getattr(partial, "keywords", None) or {})


def _fixed_and_observers(gm):
    """Per node: {port: observer class} and the fixed scale/zero point of FixedQParamsObserver
    specs, which qnnrules.torch.from_fx does not read (they live in the observer's keywords)."""
    info = {}
    for node in gm.graph.nodes:
        ann = node.meta.get("quantization_annotation")
        if ann is None:
            continue
        ports = {}
        for arg, spec in (ann.input_qspec_map or {}).items():
            ports[("in", arg.name)] = spec
        if ann.output_qspec is not None:
            ports[("out", 0)] = ann.output_qspec
        entry = {}
        for key, spec in ports.items():
            name, kw = _observer_name(spec)
            if name is None:
                continue
            label = f"{key[0]}:{key[1]}"
            entry[label] = {"observer": name}
            if name == "FixedQParamsObserver":
                entry[label]["scale"] = float(kw["scale"])
                entry[label]["zero_point"] = int(kw["zero_point"])
        if entry:
            info[node.name] = entry
    return info


def _tie_concat(nd):
    """ExecuTorch's cat output spec is a fresh spec whose ConcatObserver overwrites the min/max
    of every input's observer with the cat's (executorch-qnn-quantizer.md section 7): after
    calibration all inputs and the output have one encoding. Graph format v1 has no observer,
    so that is written as what it amounts to: input 0 keeps its spec, the other inputs and the
    output share the input-0 edge (qnnrules's concat pattern writes the same)."""
    inputs = nd["args"][0] if nd.get("args") and isinstance(nd["args"][0], list) else []
    if not inputs or not isinstance(inputs[0], dict) or "ref" not in inputs[0]:
        return
    tie = {"shared_with": {"edge": [inputs[0]["ref"], nd["name"]]}}
    for r in inputs[1:]:
        if isinstance(r, dict) and "qspec" in r:
            r["qspec"] = dict(tie)
    if nd.get("outputs") and "qspec" in nd["outputs"][0]:
        nd["outputs"][0]["qspec"] = dict(tie)


def _apply_fixed(graph, info):
    """Writes the fixed qparams into the v1 specs, ties cat encodings (_tie_concat) and records
    the observer class of every port in node meta."""
    for nd in graph["nodes"]:
        entry = info.get(nd["name"])
        if not entry:
            continue
        nd.setdefault("meta", {})["executorch_observers"] = {k: v["observer"] for k, v in entry.items()}
        if entry.get("out:0", {}).get("observer") == "ConcatObserver":
            _tie_concat(nd)
            continue
        fixed = entry.get("out:0")
        if fixed and "scale" in fixed and nd.get("outputs") and "qspec" in nd["outputs"][0]:
            q = nd["outputs"][0]["qspec"]
            if "dtype" in q:
                q["scale"], q["zero_point"] = fixed["scale"], fixed["zero_point"]


def _block_size_map(gm):
    """LPBQ block sizes for conv2d/linear nodes whose input channels split into blocks of BLOCK,
    the rule qnnrules's annotator applies (docs/annotation.md); ExecuTorch's examples set them
    per node the same way (set_block_size_map / QuantRecipe extra_kwargs block_size)."""
    sizes = {}
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target not in (
                torch.ops.aten.conv2d.default, torch.ops.aten.linear.default):
            continue
        w = node.args[1]
        val = w.meta.get("val") if hasattr(w, "meta") else None
        if val is None or val.dim() < 2:
            continue
        in_ch = int(val.shape[1])
        if in_ch > BLOCK and in_ch % BLOCK == 0:
            sizes[node.name] = (1, BLOCK) + (1,) * (val.dim() - 2)
    return sizes


def quantizer_for(config, gm, backend="htp", soc=SOC):
    """The calls of ExecuTorch's export_utils.make_quantizer, made here because importing
    export_utils needs pydot (its debugger imports it), which the venv does not have."""
    from executorch.backends.qualcomm.quantizer.quantizer import QnnQuantizer, QuantDtype
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset, QnnExecuTorchBackendType
    from torchao.quantization.pt2e import MovingAverageMinMaxObserver

    kind = {"htp": QnnExecuTorchBackendType.kHtpBackend, "lpai": QnnExecuTorchBackendType.kLpaiBackend}[backend]
    q = QnnQuantizer(backend=kind, soc_model=getattr(QcomChipset, soc))
    q.add_custom_quant_annotations(())
    q.set_default_quant_config(getattr(QuantDtype, CONFIGS[config]), is_qat=config.endswith("_qat"),
                               is_conv_per_channel=True,
                               is_linear_per_channel=True, is_embedding_per_channel=False,
                               act_observer=MovingAverageMinMaxObserver, act_symmetric=False, eps=None)
    q.set_submodule_qconfig_list([])
    if config == "16a4w_block":
        q.set_block_size_map(_block_size_map(gm))
    return q


def annotate(gm, config, name, backend="htp", soc=SOC):
    """(ExecuTorch-annotated graph as a v1 dict, number of nodes ExecuTorch annotated) for
    ``gm``, the module of torch.export.export(model, args) (modified in place)."""
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e

    quantizer = quantizer_for(config, gm, backend, soc)
    captured = {}
    validate = quantizer.validate

    def capture(m):
        validate(m)
        graph = qt.to_dict(m, name=name)
        _apply_fixed(graph, _fixed_and_observers(m))
        captured["graph"] = graph
        captured["annotated"] = sum(1 for n in m.graph.nodes if "quantization_annotation" in n.meta)

    quantizer.validate = capture
    prepare_pt2e(gm, quantizer)
    return captured["graph"], captured["annotated"]
