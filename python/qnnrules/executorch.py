"""Acting on a verdict with ExecuTorch's Qualcomm lowering: the skip sets (issue 33).

ExecuTorch's ``to_edge_transform_and_lower_to_qnn(module, inputs, compiler_specs,
skip_node_id_set=..., skip_node_op_set=...)`` leaves on CPU every node its partitioner is told to
skip. A node the backend refuses at op validation falls back by itself; a node that passes
validation and then fails graph finalize (a float32 op on V68, a tensor with a dimension of 0...)
fails the whole lowering. The skip sets below hold the nodes the engine's verdict leaves on CPU
or names as a session/finalize failure, so the lowering runs with those on CPU::

    import qnnrules
    from qnnrules import executorch as qe

    report = qnnrules.Engine(backend="htp", soc="SM8350").run("model.pt2")  # or qnn-validate's JSON
    skips = qe.skip_sets(report, program=exported_program)   # program: the torch.export program
    to_edge_transform_and_lower_to_qnn(exported_program.module(), inputs, compiler_specs,
                                       skip_node_id_set=skips.node_ids, skip_node_op_set=skips.node_ops)

``node_ids`` are names in ExecuTorch's *edge* graph (``aten_gelu_default``, not the program's
``gelu``): ExecuTorch re-exports the module and renames every node. Given ``program`` (and, when
it has no example inputs of its own, ``inputs``), the edge graph is built with ExecuTorch's own
passes and decomposition table (nothing is partitioned and the backend is not asked), and each
edge node made from a node the verdict refuses (``meta["from_node"]``) is named. Without a
program, only ``node_ops`` is filled: the ATen ops of which every node is refused.

Needs the ``executorch`` package only when ``program`` is given.

As a file, from qnn-validate's report (the program's saved example inputs are used)::

    qnn-validate model.pt2 --backend htp --soc SM8350 --format json > report.json
    python -m qnnrules.executorch report.json model.pt2 -o skips.json
    # {"skip_node_id_set": [...], "skip_node_op_set": [...], "refused": {...}, "unmatched": [...],
    #  "blocking": {...}}
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

__all__ = ["SkipSets", "edge_origins", "kept_ops", "origin_names", "refused_nodes", "skip_sets", "to_json"]

_QDQ = ("quantize_per_tensor", "dequantize_per_tensor", "quantize_per_channel", "dequantize_per_channel",
        "quantize_per_channel_group", "dequantize_per_channel_group", "quantize_per_token", "dequantize_per_token",
        "quantize_affine", "dequantize_affine")


@dataclasses.dataclass
class SkipSets:
    """What to hand ``to_edge_transform_and_lower_to_qnn``.

    node_ids: edge-graph node names (``skip_node_id_set``); empty without a program.
    node_ops: edge op names (``skip_node_op_set``, matched against ``node.target.__name__``,
      e.g. ``"aten.gelu.default"``): ops every node of which the verdict refuses.
    refused: {program node name: why} of the nodes the verdict leaves on CPU or that fail the
      session (the reason code, e.g. ``"arch-gate"``, ``"no-rule"``, ``"session-failure"``).
    unmatched: refused program nodes no edge node was made from (ExecuTorch folded or removed
      them, e.g. a BatchNorm folded into its conv); nothing to skip for them.
    blocking: {program node name: why} of refused nodes whose skipping cannot save the lowering
      (see skip_sets); empty when the sets are enough.
    """

    node_ids: Set[str] = dataclasses.field(default_factory=set)
    node_ops: Set[str] = dataclasses.field(default_factory=set)
    refused: Dict[str, str] = dataclasses.field(default_factory=dict)
    unmatched: List[str] = dataclasses.field(default_factory=list)
    blocking: Dict[str, str] = dataclasses.field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.node_ids or self.node_ops)


def _report_dict(report: Any) -> Mapping[str, Any]:
    """A report as the dict of qnn-validate --format json: a RunReport, a dict, JSON text or a path."""
    if isinstance(report, Mapping):
        return report
    if hasattr(report, "to_dict"):
        return report.to_dict()
    if isinstance(report, (str, os.PathLike)):
        text = str(report)
        if not text.lstrip().startswith("{"):
            with open(report, encoding="utf-8") as f:
                text = f.read()
        return json.loads(text)
    raise TypeError(f"skip_sets: a RunReport, a report dict, JSON text or a path, not {type(report).__name__}")


def refused_nodes(report: Any) -> Dict[str, Tuple[str, str]]:
    """{node name: (ATen op, reason code)} of the nodes the verdict keeps off the backend: the
    delegation report's fallbacks (errors, and nodes that follow a CPU node) and, when the session
    would fail (graph finalize), the nodes that make it fail."""
    d = _report_dict(report)
    deleg = d.get("delegation") or {}
    out: Dict[str, Tuple[str, str]] = {}
    for f in deleg.get("fallbacks") or ():
        if f.get("node"):
            out.setdefault(f["node"], (f.get("op") or "", f.get("code") or f.get("reason") or ""))
    failure = deleg.get("session_failure")
    if isinstance(failure, Mapping) and failure.get("node"):
        # {"node", "op", "cause", "message", ...}: the node whose refusal or finalize fails the session.
        out.setdefault(failure["node"], (failure.get("op") or "", "session-failure"))
    # Errors that are neither (a report made without the delegation pass): every error's node.
    if not deleg:
        for diag in d.get("diagnostics") or ():
            if diag.get("severity") == "error" and diag.get("node"):
                out.setdefault(diag["node"], (diag.get("op") or "", diag.get("code") or ""))
    return out


def origin_names(node) -> List[str]:
    """The node's own name, then the names of the nodes it was made from (meta from_node, newest
    first, depth first)."""
    names = [node.name]
    stack = list(reversed(node.meta.get("from_node") or []))
    while stack:
        src = stack.pop()
        name = getattr(src, "name", None)
        if name and name not in names:
            names.append(name)
        stack.extend(reversed(getattr(src, "from_node", None) or []))
    return names


def _op_name(target) -> str:
    return getattr(target, "__name__", None) or str(target)


class _Names:
    """A partitioner that partitions nothing and keeps the edge graph it was shown: ExecuTorch's
    QnnPartitioner's ops_to_not_decompose, so the decompositions are the real lowering's."""

    def __new__(cls, *args, **kwargs):  # made lazily: executorch is imported only when needed
        from executorch.backends.qualcomm.partition.qnn_partitioner import QnnPartitioner
        from executorch.exir.backend.partitioner import PartitionResult

        class Names(QnnPartitioner):
            def __init__(self, compiler_specs):
                super().__init__(compiler_specs)
                self.seen: List[Tuple[str, str, List[str]]] = []

            def partition(self, edge_program):
                for n in edge_program.graph_module.graph.nodes:
                    if n.op == "call_function":
                        self.seen.append((n.name, _op_name(n.target), origin_names(n),
                                          [a.name for a in n.all_input_nodes]))
                return PartitionResult(tagged_exported_program=edge_program, partition_tags={})

        return Names(*args, **kwargs)


def _default_specs():
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
    from executorch.backends.qualcomm.utils.utils import (generate_htp_compiler_spec,
                                                          generate_qnn_executorch_compiler_spec)
    return generate_qnn_executorch_compiler_spec(soc_model=QcomChipset.SM8650,
                                                 backend_options=generate_htp_compiler_spec(use_fp16=False))


def edge_origins(program, inputs: Optional[tuple] = None, compiler_specs=None) -> List[Tuple[str, str, List[str], List[str]]]:
    """[(edge node name, edge op name, [its own name, then the names it was made from], [its
    inputs' names])] of the
    graph ExecuTorch's QNN partitioner would be shown for ``program`` (a torch.export program, or
    a module with ``inputs``): ExecuTorch's export passes, its to_edge transform passes and the
    decompositions its partitioner keeps, as ``to_edge_transform_and_lower_to_qnn`` runs them.
    Nothing is partitioned; ``compiler_specs`` defaults to HTP on SM8650 (the SoC does not change
    the edge graph)."""
    import torch
    from executorch.backends.qualcomm._passes.qnn_pass_manager import get_qnn_pass_manager_cls
    from executorch.backends.qualcomm.utils.utils import (flatbuffer_to_option, generate_qnn_executorch_option,
                                                          qnn_edge_config)
    from executorch.exir import to_edge_transform_and_lower

    if isinstance(program, torch.export.ExportedProgram):
        if inputs is None:
            args = program.example_inputs
            inputs = tuple(args[0]) if args else None
        module = program.module()
    else:
        module = program
    if inputs is None:
        raise ValueError("edge_origins: the program has no example inputs; pass inputs=")
    specs = compiler_specs if compiler_specs is not None else _default_specs()
    ep = torch.export.export(module, tuple(inputs), strict=True)
    backend = flatbuffer_to_option(generate_qnn_executorch_option(specs)).backend_options.backend_type
    pm = get_qnn_pass_manager_cls(backend)()
    aten = pm.transform_for_export_pipeline(ep)
    passes = pm.get_to_edge_transform_passes(ep, compiler_specs=specs)
    names = _Names(specs)
    try:
        to_edge_transform_and_lower(aten, transform_passes=passes, partitioner=[names],
                                    compile_config=qnn_edge_config())
    except RuntimeError:
        # After partitioning, ExecuTorch checks that every op kept from decomposition was
        # delegated; nothing was, by design. The edge graph has been seen by then.
        if not names.seen:
            raise
    return names.seen


def kept_ops() -> Set[str]:
    """The ops ExecuTorch's QNN partitioner keeps from decomposition (its get_skip_decomp_table),
    as edge op names: a node of one that is not delegated fails to_edge_transform_and_lower
    ("was not decomposed or delegated"), skipped or not."""
    from executorch.backends.qualcomm.partition.utils import get_skip_decomp_table
    return {str(op) for op in get_skip_decomp_table()}


def _reads_quantized_parameter(program, name: str) -> bool:
    """Whether program node ``name`` reads a parameter, buffer or constant through a dequantize."""
    sig = getattr(program, "graph_signature", None)
    static = set()
    if sig is not None:
        for attr in ("inputs_to_parameters", "inputs_to_buffers", "inputs_to_lifted_tensor_constants"):
            static |= set(getattr(sig, attr, {}) or {})
    for n in program.graph.nodes:
        if n.name != name:
            continue
        for a in n.all_input_nodes:
            if "dequantize" in str(a.target) and a.all_input_nodes:
                src = a.all_input_nodes[0]
                if src.op == "get_attr" or (src.op == "placeholder" and src.name in static):
                    return True
    return False


def skip_sets(report: Any, program=None, inputs: Optional[tuple] = None, compiler_specs=None,
              edges: Optional[Iterable[tuple]] = None, kept: Optional[Set[str]] = None) -> SkipSets:
    """The skip sets that keep ExecuTorch's QNN lowering of the graph ``report`` judged from failing.

    report: the engine's verdict on the program (``Engine.run(...)``'s RunReport, its
      ``to_dict()``, or qnn-validate's ``--format json`` report as a dict, JSON text or a path),
      judged for the SoC you lower for.
    program: the torch.export program the report judged (a ``.pt2`` loaded with
      ``torch.export.load``, or the ExportedProgram of ``convert_pt2e``'s module); with it the
      edge-graph node names are found (``edge_origins``), else only ``node_ops`` is given.
    edges: ``edge_origins``' answer, when already computed (tests, several reports of one graph).
    kept: the ops ExecuTorch keeps from decomposition (``kept_ops()``, the default with a program).

    ``blocking`` names the refused nodes no skip set can keep from failing the lowering, measured
    on ExecuTorch 1.5.1 (tests/conformance/executorch/lowering/skips.json): a node of an op
    ExecuTorch keeps from decomposition (linear, matmul, prelu for leaky_relu, ...) left undelegated
    fails its final check, and a node that reads a quantized parameter leaves the parameter's
    dequantize on QNN (ExecuTorch forces it there), which QNN cannot build per channel, nor to
    float32 on V68. Such a node must be quantized differently (or kept float) instead.
    """
    refused = refused_nodes(report)
    out = SkipSets(refused={n: why for n, (_, why) in refused.items()})
    if not refused:
        return out
    if edges is None and program is not None:
        edges = edge_origins(program, inputs, compiler_specs)
    if edges is None:
        # Ops every node of which is refused, by the program's own op names (an edge op keeps
        # the name unless ExecuTorch rewrites it: aten.view becomes aten.view_copy).
        d = _report_dict(report)
        ops: Dict[str, List[int]] = {}
        for row in d.get("ops") or ():
            ops[row.get("op", "")] = [row.get("nodes", 0), row.get("on_cpu", 0)]
        for name, (op, _) in refused.items():
            total, on_cpu = ops.get(op, [0, 0])
            if op and total and on_cpu >= total:
                out.node_ops.add(op)
        return out
    edges = list(edges)
    # The program's compute nodes: an edge node belongs to the oldest of them in its origin chain
    # (a decomposition names its nodes after what they became: relu6 becomes a node "hardtanh",
    # which may be another program node's name).
    known = set(refused)
    if program is not None and hasattr(program, "graph"):
        known |= {n.name for n in program.graph.nodes if n.op == "call_function"}
    made_from: Dict[str, str] = {}
    is_qdq = {e[0]: any(q in e[1] for q in _QDQ) for e in edges}
    for name, op, origin, *_ in edges:
        if is_qdq[name]:
            continue
        home = next((o for o in reversed(origin) if o in known), None)
        if home in refused:
            made_from[name] = home
            out.node_ids.add(name)
    out.unmatched = sorted(set(refused) - set(made_from.values()))
    if kept is None and program is not None:
        kept = kept_ops()
    for name, op, *_ in edges:
        home = made_from.get(name)
        if home and kept and op in kept:
            out.blocking.setdefault(home, f"{op} is kept from decomposition: left undelegated, the lowering fails")
    if program is not None and hasattr(program, "graph"):
        for home in sorted(set(made_from.values())):
            if home not in out.blocking and _reads_quantized_parameter(program, home):
                out.blocking[home] = "reads a quantized parameter, whose dequantize ExecuTorch keeps on QNN"
    # An edge op all of whose nodes are skipped by name may be skipped by op too.
    by_op: Dict[str, List[bool]] = {}
    for name, op, *_ in edges:
        by_op.setdefault(op, []).append(name in out.node_ids)
    out.node_ops = {op for op, flags in by_op.items() if flags and all(flags)}
    return out


def to_json(sets: SkipSets) -> str:
    """The file form: {"skip_node_id_set", "skip_node_op_set", "refused", "unmatched", "blocking"}."""
    return json.dumps({"skip_node_id_set": sorted(sets.node_ids), "skip_node_op_set": sorted(sets.node_ops),
                       "refused": dict(sorted(sets.refused.items())), "unmatched": sets.unmatched,
                       "blocking": dict(sorted(sets.blocking.items()))}, indent=1) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    """python -m qnnrules.executorch REPORT.json [PROGRAM.pt2] [-o OUT.json]: the skip sets as JSON."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m qnnrules.executorch", description=main.__doc__)
    ap.add_argument("report", help="qnn-validate's --format json report on the program, for the SoC you lower for")
    ap.add_argument("program", nargs="?", help="the .pt2 the report judged (edge-graph node names need it)")
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    a = ap.parse_args(argv)
    program = None
    if a.program:
        import torch
        import executorch.backends.qualcomm.partition.qnn_partitioner  # noqa: F401  (registers the Q/DQ ops)
        program = torch.export.load(a.program)
    text = to_json(skip_sets(a.report, program=program))
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
