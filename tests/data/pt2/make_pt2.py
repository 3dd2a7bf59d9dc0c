"""Writes the tiny torch.export archives the .pt2 reader's C++ tests read.

    .venv/bin/python tests/data/pt2/make_pt2.py            # from the checkout root

Each archive is a real torch.export.save of a three-op model (a few kB). The quantized ones
go through prepare_pt2e / calibrate / convert_pt2e with the small quantizer below, which
annotates the way the HTP rules expect for 8a8w: uint8 affine activations, int8 symmetric
weights (per-tensor, or per-channel on axis 0) and a fixed 1/256 scale on the sigmoid's output.
``sigmoid_bad_scale.pt2`` fixes 1/255 instead, which htp.sigmoid rejects; ``expected/`` holds
the qnn-validate reports the C++ tests compare against, and the equivalent JSON graph
(``sigmoid_bad_scale.json``) whose report must be the same.
"""

import json
import os
import pathlib
import zipfile

import torch
from torchao.quantization.granularity import PerGroup
from torchao.quantization.pt2e._affine_quantization import AffineQuantizedMinMaxObserver
from torchao.quantization.pt2e.observer import MinMaxObserver, PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from torchao.quantization.quant_primitives import MappingType
from torchao.quantization.pt2e.quantizer import (
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    Quantizer,
)

HERE = pathlib.Path(__file__).resolve().parent


class Tiny(torch.nn.Module):
    """conv -> relu -> conv (1x1) -> sigmoid; no biases, so every port is an activation or a weight."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.conv2 = torch.nn.Conv2d(4, 4, 1, bias=False)

    def forward(self, x):
        return torch.sigmoid(self.conv2(torch.relu(self.conv1(x))))


class MultiOutput(torch.nn.Module):
    """Ops with several outputs (split: a tensor list; max.dim: two tensors), a buffer, and a
    dynamic batch size, so sizes and a reshape argument are symbolic."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 1)
        self.register_buffer("mask", torch.ones(8))

    def forward(self, x):
        a, b = torch.split(self.conv(x), 2, dim=1)
        z = (a + b) * self.mask
        return z.reshape(x.shape[0], -1), torch.cat([a, b], 1).max(dim=1)[0]


def multi_output():
    batch = torch.export.Dim("batch", min=1, max=64)
    return torch.export.export(MultiOutput().eval(), (torch.randn(2, 3, 8, 8),), dynamic_shapes=({0: batch},))


ACT = QuantizationSpec(dtype=torch.uint8, quant_min=0, quant_max=255, qscheme=torch.per_tensor_affine,
                       observer_or_fake_quant_ctr=MinMaxObserver)


def weight_spec(per_channel):
    if per_channel:
        return QuantizationSpec(dtype=torch.int8, quant_min=-127, quant_max=127, qscheme=torch.per_channel_symmetric,
                                ch_axis=0, observer_or_fake_quant_ctr=PerChannelMinMaxObserver)
    return QuantizationSpec(dtype=torch.int8, quant_min=-127, quant_max=127, qscheme=torch.per_tensor_symmetric,
                            observer_or_fake_quant_ctr=MinMaxObserver)


class TinyQuantizer(Quantizer):
    def __init__(self, per_channel, sigmoid_scale):
        super().__init__()
        self.weight = weight_spec(per_channel)
        self.sigmoid_out = FixedQParamsQuantizationSpec(dtype=torch.uint8, scale=sigmoid_scale, zero_point=0,
                                                        quant_min=0, quant_max=255,
                                                        qscheme=torch.per_tensor_affine)

    def annotate(self, gm):
        for n in gm.graph.nodes:
            if n.target == torch.ops.aten.conv2d.default:
                n.meta["quantization_annotation"] = QuantizationAnnotation(
                    input_qspec_map={n.args[0]: ACT, n.args[1]: self.weight}, output_qspec=ACT, _annotated=True)
            elif n.target == torch.ops.aten.relu.default:
                n.meta["quantization_annotation"] = QuantizationAnnotation(
                    input_qspec_map={n.args[0]: ACT}, output_qspec=ACT, _annotated=True)
            elif n.target == torch.ops.aten.sigmoid.default:
                n.meta["quantization_annotation"] = QuantizationAnnotation(
                    input_qspec_map={n.args[0]: ACT}, output_qspec=self.sigmoid_out, _annotated=True)
        return gm

    def validate(self, gm):
        pass


class Lpbq(Quantizer):
    """16-bit activations, 4-bit block-wise (LPBQ) linear weights through torchao's affine
    observer: convert_pt2e writes torchao.dequantize_affine with block_size [1, 16]."""

    ACT16 = QuantizationSpec(dtype=torch.uint16, quant_min=0, quant_max=65535, qscheme=torch.per_tensor_affine,
                             observer_or_fake_quant_ctr=MinMaxObserver)

    def annotate(self, gm):
        weight = QuantizationSpec(
            dtype=torch.int8, quant_min=-8, quant_max=7, qscheme=None,
            observer_or_fake_quant_ctr=AffineQuantizedMinMaxObserver.with_args(
                mapping_type=MappingType.SYMMETRIC, target_dtype=torch.int8, granularity=PerGroup(16),
                quant_min=-8, quant_max=7, eps=1e-6))
        for n in gm.graph.nodes:
            if n.target == torch.ops.aten.linear.default:
                n.meta["quantization_annotation"] = QuantizationAnnotation(
                    input_qspec_map={n.args[0]: self.ACT16, n.args[1]: weight}, output_qspec=self.ACT16,
                    _annotated=True)
        return gm

    def validate(self, gm):
        pass


def lpbq():
    torch.manual_seed(0)
    example = (torch.randn(2, 64),)
    ep = torch.export.export(torch.nn.Linear(64, 8, bias=False).eval(), example)
    prepared = prepare_pt2e(ep.module(), Lpbq())
    prepared(*example)
    return torch.export.export(convert_pt2e(prepared), example)


def exported(quantizer=None):
    torch.manual_seed(0)
    model = Tiny().eval()
    example = (torch.randn(1, 3, 8, 8),)
    ep = torch.export.export(model, example)
    if quantizer is None:
        return ep
    prepared = prepare_pt2e(ep.module(), quantizer)
    for _ in range(4):
        prepared(torch.randn(1, 3, 8, 8))
    return torch.export.export(convert_pt2e(prepared), example)


def write_broken(good):
    """Damaged archives for the error tests, each derived from a good one."""
    data = good.read_bytes()
    broken = HERE / "broken"
    broken.mkdir(exist_ok=True)
    # Cut off: no central directory.
    (broken / "truncated.pt2").write_bytes(data[: len(data) // 2])
    # Bytes of the (stored, uncompressed) program JSON changed: its CRC no longer matches.
    at = data.index(b'"graph_module"')
    (broken / "corrupt.pt2").write_bytes(data[:at] + b'"GRAPH_MODULE"' + data[at + 14:])
    src = zipfile.ZipFile(good)
    root = src.namelist()[0].split("/")[0]

    def rewrite(name, change):
        with zipfile.ZipFile(broken / name, "w") as out:
            for info in src.infolist():
                body = change(info.filename[len(root) + 1:], src.read(info))
                if body is not None:
                    out.writestr(info.filename, body)

    program = json.loads(src.read(f"{root}/models/model.json"))
    newer = dict(program, schema_version={"major": 99, "minor": 1})
    rewrite("future_schema.pt2", lambda n, b: json.dumps(newer).encode() if n == "models/model.json" else b)
    rewrite("malformed_json.pt2", lambda n, b: b[:200] if n == "models/model.json" else b)
    rewrite("no_program.pt2", lambda n, b: None if n.startswith("models/") else b)
    del program["graph_module"]["graph"]["tensor_values"]
    rewrite("schema_error.pt2", lambda n, b: json.dumps(program).encode() if n == "models/model.json" else b)
    with zipfile.ZipFile(broken / "not_pt2.zip", "w") as out:
        out.writestr("hello.txt", "a zip file, but not a torch.export archive\n")
    print("wrote broken/")


def main():
    archives = {
        "float": exported(),
        "multi_output": multi_output(),
        "q8a8w": exported(TinyQuantizer(per_channel=False, sigmoid_scale=1.0 / 256)),
        "q8a8w_per_channel": exported(TinyQuantizer(per_channel=True, sigmoid_scale=1.0 / 256)),
        "sigmoid_bad_scale": exported(TinyQuantizer(per_channel=False, sigmoid_scale=1.0 / 255)),
        "lpbq_16a4w": lpbq(),
    }
    for name, ep in archives.items():
        # Stack traces hold this machine's paths; the archives are committed without them.
        for node in ep.graph.nodes:
            node.meta.pop("stack_trace", None)
        torch.export.save(ep, HERE / f"{name}.pt2")
        print(f"wrote {name}.pt2")
    # The per-channel weight scales as torch computed them, for the reader's test.
    ep = archives["q8a8w_per_channel"]
    scales = {}
    for spec in ep.graph_signature.input_specs:
        if spec.target and "scale" in spec.target:
            scales[spec.arg.name] = [float(v) for v in ep.state_dict[spec.target].flatten()]
    with open(HERE / "q8a8w_per_channel.scales.txt", "w") as f:
        for name in sorted(scales):
            f.write(name + " " + " ".join(repr(v) for v in scales[name]) + "\n")
    write_broken(HERE / "q8a8w.pt2")
    # The equivalent JSON graph, from the project's own Python adapter (needs the bindings:
    # PYTHONPATH=build/python).
    if os.environ.get("PT2_WRITE_JSON", "1") == "1":
        import qnnrules.torch as qt

        qt.save(archives["sigmoid_bad_scale"], HERE / "sigmoid_bad_scale.json", name="sigmoid_bad_scale")
        print("wrote sigmoid_bad_scale.json")


if __name__ == "__main__":
    main()
