"""The numeric checks' oracle cases through ONNX Runtime's QNN EP (issue 33): one quantity varied,
everything else a plain accepted Conv, through the real x86 HTP backend.

    .venv/bin/python tools/conformance/executorch/bias_ort.py [--socs SM8350,SM8650] [--validate PATH/qnn-validate]
        [--out tests/conformance/executorch/lowering/numeric_ort.json]

Families (one ONNX Conv, 8x8x8 input, 16 filters 3x3, per-tensor or per-channel int8 weights):
- bias: the int32 bias DequantizeLinear's scale is F x input scale x weight scale (per channel for a
  per-channel weight), F = 0.1, 0.5, 1, 2, 10 (the bias-scale check);
- act_scale: the input/output activation scale is tiny or huge (the scale-out-of-range check);
- weight_zp: an int8 weight with a non-zero zero point (the symmetric-weight check);
- act_zp: a uint8 activation zero point at the ends of its range.
Each case runs as its own ONNX Runtime session (the EP asks the backend to validate the node, then
the graph is finalized into a context binary). The verdict is the backend's; when --validate is
given, qnn-validate's strict verdict on the same ONNX file (ORT path) is recorded beside it.
The record is written as JSON; docs/diagnostics.md cites it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(os.path.dirname(HERE))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
from conformance import cases as C  # noqa: E402
from conformance import oracle, onnx_build  # noqa: E402

OUT = os.path.join(ROOT, "tests", "conformance", "executorch", "lowering", "numeric_ort.json")
IN_S, W_S, OUT_S = 0.05, 0.02, 0.05


def conv_case(cid, soc, soc_id, arch, *, in_enc=None, out_enc=None, w_enc=None, bias_enc=None):
    in_enc = in_enc or {"q": "uint8", "scale": IN_S, "zp": 128}
    out_enc = out_enc or {"q": "uint8", "scale": OUT_S, "zp": 128}
    w_enc = w_enc or {"q": "int8", "scale": W_S, "zp": 0}
    inputs = [{"role": "act", "shape": [1, 8, 8, 8], "enc": in_enc},
              {"role": "weight", "shape": [16, 8, 3, 3], "enc": w_enc}]
    if bias_enc:
        inputs.append({"role": "weight", "shape": [16], "enc": bias_enc})
    return {"id": f"{cid}/{soc}", "op": "conv2d", "rule": "htp.conv2d", "aten": "aten.conv2d.default",
            "onnx_op": "Conv", "qnn_op": "Conv2d", "config": cid.split("/", 1)[1], "inputs": inputs,
            "outputs": [{"shape": [1, 16, 8, 8], "enc": out_enc}], "aten_args": [], "attrs": {"pads": [1, 1, 1, 1]},
            "builder": None, "soc": soc, "soc_id": soc_id, "arch": arch}


def families(soc, soc_id, arch):
    out = []
    per_ch = [W_S * (1 + 0.1 * i) for i in range(16)]
    for f in (0.1, 0.5, 1.0, 2.0, 10.0):
        out.append(conv_case(f"bias/per_tensor@{f:g}", soc, soc_id, arch,
                             bias_enc={"q": "int32", "scale": f * IN_S * W_S, "zp": 0}))
        out.append(conv_case(f"bias/per_channel@{f:g}", soc, soc_id, arch,
                             w_enc={"q": "int8", "axis": 0, "scale": per_ch, "zp": [0] * 16},
                             bias_enc={"q": "int32", "axis": 0, "scale": [f * IN_S * s for s in per_ch], "zp": [0] * 16}))
    for s in (1e-12, 1e-11, 1e-9, 1e-6, 1e4, 1e8):  # the check's bound is 1e-10
        out.append(conv_case(f"act_scale/in_out@{s:g}", soc, soc_id, arch,
                             in_enc={"q": "uint8", "scale": s, "zp": 128}, out_enc={"q": "uint8", "scale": s, "zp": 128}))
    for zp in (1, -5):
        out.append(conv_case(f"weight_zp/int8@{zp}", soc, soc_id, arch, w_enc={"q": "int8", "scale": W_S, "zp": zp}))
    for zp in (0, 255):
        out.append(conv_case(f"act_zp/uint8@{zp}", soc, soc_id, arch,
                             in_enc={"q": "uint8", "scale": IN_S, "zp": zp}, out_enc={"q": "uint8", "scale": OUT_S, "zp": zp}))
    return out


def validate(path, case, onnx_file):
    p = subprocess.run([path, onnx_file, "--backend", "htp", "--soc", case["soc"], "--format", "json"],
                       capture_output=True, text=True, env=dict(os.environ, QNNRULES_PATH=""))
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        return {"exit": p.returncode, "error": p.stderr.strip()[-300:]}
    codes = sorted({d.get("code") for d in rep.get("diagnostics", []) if d.get("severity") == "error"})
    warns = sorted({d.get("code") for d in rep.get("diagnostics", []) if d.get("severity") == "warning"})
    return {"verdict": rep["verdict"]["kind"], "errors": codes, "warnings": warns}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socs", default="SM8350,SM8650,SM8850")
    ap.add_argument("--validate", default=None)
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    socs = {s: (i, arch) for s, i, arch in C.SOCS}
    record = {"about": __doc__.split("\n\n")[0], "versions": oracle.versions(), "cases": {}}
    for soc in a.socs.split(","):
        soc_id, arch = socs[soc]
        for case in families(soc, soc_id, arch):
            v = oracle.run_cases([case], soc_id)[case["id"]]
            row = {"oracle": v["verdict"], "message": v["message"], "qnn_ops": v["qnn_ops"],
                   "inputs": [t["enc"] for t in case["inputs"]], "output": case["outputs"][0]["enc"]}
            if a.validate:
                with tempfile.TemporaryDirectory() as tmp:
                    f = os.path.join(tmp, onnx_build.key(case).replace("@", "_") + ".onnx")
                    with open(f, "wb") as fh:
                        fh.write(onnx_build.model_bytes([case]))
                    row["qnn_validate"] = validate(a.validate, case, f)
            record["cases"][case["id"]] = row
            print(case["id"], row["oracle"], (row["message"] or "")[:120], row.get("qnn_validate", ""), flush=True)
    with open(a.out, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.relpath(a.out, ROOT)}")


if __name__ == "__main__":
    main()
