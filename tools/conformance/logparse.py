"""Reads per-node verdicts out of ONNX Runtime's verbose QNN EP log.

The QNN EP logs, for every node unit it asks the backend about,
  Validation PASSED|FAILED for N nodes in OrtNodeUnit (OpType) :
  \tOperator type: T Node name: NAME Node index: I
  \tREASON : ...
and, when the backend refuses an op config,
  QNN.backendValidateOpConfig() failed for node `NAME` of type `QnnOp` with error code N
Partitioning runs twice (before and after the NHWC layout transform, which renames nodes to
NAME_token_K); the last verdict of a node is the one that counts.
"""
import re

_UNIT = re.compile(r"Validation (PASSED|FAILED) for \d+ nodes in OrtNodeUnit \((\w+)\)")
_NODE = re.compile(r"^\s+Operator type: (\S+) Node name: (.*?) Node index: \d+")
_REASON = re.compile(r"^\s+REASON : (.*)")
_QNN_FAIL = re.compile(r"QNN\.backendValidateOpConfig\(\) failed for node `([^`]*)` of type `(\w+)` "
                       r"with error code (\d+)")
# QNN's own log (through ORT's default logger): the first <E> line after "Validating Op Config
# NAME." says why the backend refused NAME; graph finalize names the op it could not create.
_VALIDATING = re.compile(r"Validating Op Config (\S+)\.$")
_QNN_E = re.compile(r"QnnLogging\]\s+<E> (.*)")
_PREPARE_ERR = re.compile(r"QnnLogging\] \S+::ERROR:(.*)")
_GENERATED = re.compile(r'QnnLogging\]\s+<E> "([^"]+)" generated: (.*)')
_ADDING = re.compile(r"Onnx node name: \[([^\]]*)\] onnx node type")
# ORT changes some encodings before QNN sees them (e.g. 16-bit Sigmoid/Tanh outputs).
_OVERRIDE = re.compile(r"OverrideOutputQuantParam\] (.*)")
_OPCONFIG = re.compile(r"Qnn_OpConfig node name: (\S+) package_name: \S+ QNN_op_type: (\w+)")


def parse(log):
    """Returns ({node name: {"seq", "verdict", "reason", "qnn_message", "qnn_ops", "ort_rewrite"}},
    {QNN node name: message} of the ops graph finalize could not create)."""
    nodes = {}
    unit_names, unit_verdict = [], None
    pending_qnn = []  # backend refusals not yet attached to a unit
    qnn_ops = {}
    seq = 0
    adding, overrides = None, {}
    validating, detail = None, {}
    prepare_err = None
    finalize = {}
    for line in log.splitlines():
        m = _VALIDATING.search(line)
        if m:
            validating = m.group(1)
            continue
        m = _GENERATED.search(line)
        if m:
            finalize[m.group(1)] = f"graph finalize: {m.group(2)}" + (f" ({prepare_err})" if prepare_err else "")
            continue
        m = _PREPARE_ERR.search(line)
        if m:
            err = m.group(1).strip()
            prepare_err = err if "could not create op" in err else (prepare_err or err)
            continue
        m = _QNN_E.search(line)
        if m and validating and validating not in detail:
            detail[validating] = m.group(1).strip()
            continue
        m = _ADDING.search(line)
        if m:
            adding = m.group(1)
            continue
        m = _OVERRIDE.search(line)
        if m and adding is not None:
            overrides[adding] = m.group(1).strip()
            continue
        m = _UNIT.search(line)
        if m:
            unit_names, unit_verdict = [], m.group(1)
            continue
        m = _NODE.match(line)
        if m and unit_verdict:
            name = m.group(2)
            unit_names.append(name)
            msgs = [p for p in pending_qnn if p[0] == name or p[0].startswith(name + "_")]
            seq += 1
            nodes[name] = {"seq": seq, "verdict": "accepted" if unit_verdict == "PASSED" else "rejected",
                           "reason": None, "qnn_message": msgs[-1][1] if msgs else None,
                           "qnn_ops": sorted(set(qnn_ops.get(name, []))),
                           "ort_rewrite": overrides.get(name)}
            continue
        m = _REASON.match(line)
        if m and unit_names:
            for n in unit_names:
                nodes[n]["reason"] = m.group(1).strip()
            pending_qnn = []
            continue
        m = _QNN_FAIL.search(line)
        if m:
            text = f"QNN.backendValidateOpConfig() failed for {m.group(2)} with error code {m.group(3)}"
            if m.group(1) in detail:
                # QNN names the node in its message; drop the name so messages compare across cases.
                text += ": " + detail[m.group(1)].replace(f" in the node '{m.group(1)}'", "")
            pending_qnn.append((m.group(1), text))
            continue
        m = _OPCONFIG.search(line)
        if m:
            base = re.sub(r"(_token_\d+)?(_\d+)?$", "", m.group(1))
            qnn_ops.setdefault(base, []).append(m.group(2))
            qnn_ops.setdefault(m.group(1), []).append(m.group(2))
    return nodes, finalize


def verdict_of(nodes, target):
    """The last logged verdict of target (or of the node the layout transform renamed it to)."""
    found = [v for name, v in nodes.items() if name == target or name.startswith(target + "_token")]
    return max(found, key=lambda v: v["seq"]) if found else None
