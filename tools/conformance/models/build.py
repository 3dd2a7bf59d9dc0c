"""Builds the quantized models of the model-level conformance suite (issue 21).

  .venv/bin/python -m conformance.models.build [--only NAME,...] [--force]
(with tools/ on PYTHONPATH). For every model of zoo.py: export to ONNX with torch.onnx (the
TorchScript exporter, opset 17), then quantize it the way ONNX Runtime's QNN documentation tells
users to: onnxruntime.quantization.execution_providers.qnn's qnn_preprocess_model,
get_qnn_qdq_config with a calibration reader of random inputs, and onnxruntime.quantization's
quantize, once per configuration of CONFIGS. Writes tests/conformance/models/onnx/
<model>.<config>.onnx (skips files that exist unless --force). Seeded: the same versions write the
same bytes.
"""
import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(ROOT, "tests", "conformance", "models", "onnx")
OPSET = 17
CALIBRATION_SAMPLES = 4

# name: (activation type, weight type, per-channel); names of onnxruntime.quantization.QuantType.
CONFIGS = {
    "8a8w": ("QUInt8", "QUInt8", False),
    # per-channel weights as ORT's QNN docs write them: signed 8-bit, symmetric (the default
    # get_qnn_qdq_config picks for a signed weight type)
    "8a8w_pc": ("QUInt8", "QInt8", True),
    "16a8w": ("QUInt16", "QUInt8", False),
    "16a16w": ("QUInt16", "QUInt16", False),
}


def trained_like(model):
    """Random weights that look trained: a fresh model's constant-initialised tensors (batch-norm
    statistics, norm weights 1 and biases 0, zero Linear biases) would fold into identical all-zero
    biases and unit scales that no trained model has, and quantize unlike real ones. Seeded."""
    import torch
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.normal_(0.0, 0.2)
                m.running_var.uniform_(0.5, 2.0)
        for p in model.parameters():
            if p.numel() > 1 and float(p.std()) == 0.0:
                p.add_(torch.randn_like(p) * 0.1)


def export(name, path):
    import torch
    from . import zoo
    build, inputs = zoo.all_models()[name]
    torch.manual_seed(0)
    model = build().eval()
    trained_like(model)
    args = inputs()
    names = ["input_ids", "attention_mask"] if args[0].dtype == torch.int64 else ["input"]
    with torch.no_grad():
        torch.onnx.export(model, args, path, opset_version=OPSET, dynamo=False,
                          input_names=names[:len(args)], do_constant_folding=True)


class RandomReader:
    """Calibration data: CALIBRATION_SAMPLES random inputs shaped like the model's, seeded."""

    def __init__(self, model_path, seed):
        import numpy as np
        import onnx
        m = onnx.load(model_path)
        init = {i.name for i in m.graph.initializer}
        rng = np.random.default_rng(seed)
        self.samples = []
        for _ in range(CALIBRATION_SAMPLES):
            feed = {}
            for i in m.graph.input:
                if i.name in init:
                    continue
                shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
                if i.type.tensor_type.elem_type == onnx.TensorProto.INT64:
                    from .zoo import VOCAB
                    feed[i.name] = (np.ones(shape, np.int64) if "mask" in i.name
                                    else rng.integers(0, VOCAB, shape, dtype=np.int64))
                else:
                    feed[i.name] = rng.standard_normal(shape).astype(np.float32)
            self.samples.append(feed)
        self.it = iter(self.samples)

    def get_next(self):
        return next(self.it, None)

    def rewind(self):
        self.it = iter(self.samples)


def quantize(float_path, out_path, config, seed):
    from onnxruntime.quantization import QuantType, quantize as ort_quantize
    from onnxruntime.quantization.execution_providers.qnn import get_qnn_qdq_config, qnn_preprocess_model
    act, weight, per_channel = CONFIGS[config]
    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        src = pre if qnn_preprocess_model(float_path, pre) else float_path
        cfg = get_qnn_qdq_config(src, RandomReader(src, seed), activation_type=getattr(QuantType, act),
                                 weight_type=getattr(QuantType, weight), per_channel=per_channel)
        ort_quantize(src, out_path + ".tmp", cfg)
    os.replace(out_path + ".tmp", out_path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="comma-separated model names")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args(argv)
    from . import zoo
    models = zoo.all_models()
    names = a.only.split(",") if a.only else list(models)
    os.makedirs(a.out, exist_ok=True)
    order = list(models)
    for name in names:
        seed = order.index(name)  # the calibration data's seed: stable whatever --only selects
        todo = [c for c in a.configs.split(",")
                if a.force or not os.path.exists(os.path.join(a.out, f"{name}.{c}.onnx"))]
        if not todo:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            fp = os.path.join(tmp, f"{name}.onnx")
            export(name, fp)
            for c in todo:
                out = os.path.join(a.out, f"{name}.{c}.onnx")
                quantize(fp, out, c, seed)
                print(f"{name}.{c}: {os.path.getsize(out)} bytes", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
