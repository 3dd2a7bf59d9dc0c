"""The models of the ExecuTorch-lowering suite: small, random weights, no downloads, seeded.

build(name) -> (model in eval mode, example args); calibration(name, n) -> n seeded input tuples.
"""

import torch
from torch import nn
import torch.nn.functional as F


class CnnBn(nn.Module):
    """Conv + BatchNorm + ReLU blocks (one strided, one depthwise), global pool, linear head."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16)
        self.c2, self.b2 = nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32)
        self.dw, self.b3 = nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.b1(self.c1(x)))
        x = F.relu(self.b2(self.c2(x)))
        x = F.relu6(self.b3(self.dw(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(64, 128), nn.Linear(128, 64), nn.Linear(64, 10)
        self.norm = nn.LayerNorm(64)

    def forward(self, x):
        h = self.l2(F.gelu(self.l1(x)))
        return self.l3(self.norm(h + x)).softmax(-1)


class ConvBias(nn.Module):
    """One conv (bias-scale oracle case): the bias encoding is rewritten after convert_pt2e."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(8, 16, 3, padding=1)

    def forward(self, x):
        return self.c(x)


class CnnPlain(nn.Module):
    """Conv + ReLU blocks without BatchNorm, max pool, global pool, linear head."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2, self.c3 = nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 32, 3, padding=1), nn.Conv2d(32, 32, 1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.relu(self.c3(F.relu(self.c2(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class MobileBlock(nn.Module):
    """MobileNetV3-like: BatchNorm, depthwise conv, hardswish, a squeeze-excite with hardsigmoid."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16)
        self.dw, self.b2 = nn.Conv2d(16, 16, 3, padding=1, groups=16), nn.BatchNorm2d(16)
        self.se1, self.se2 = nn.Conv2d(16, 8, 1), nn.Conv2d(8, 16, 1)
        self.pw, self.b3 = nn.Conv2d(16, 24, 1), nn.BatchNorm2d(24)
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        x = F.hardswish(self.b1(self.c1(x)))
        x = F.hardswish(self.b2(self.dw(x)))
        s = F.hardsigmoid(self.se2(F.relu(self.se1(F.adaptive_avg_pool2d(x, 1)))))
        x = self.b3(self.pw(x * s))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class SegHead(nn.Module):
    """A small FCN-style segmentation model: strided conv encoder, 1x1 classifier, bilinear upsampling
    back to the input size, and a skip connection."""

    def __init__(self):
        super().__init__()
        self.e1, self.b1 = nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16)
        self.e2, self.b2 = nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32)
        self.cls2, self.cls1 = nn.Conv2d(32, 5, 1), nn.Conv2d(16, 5, 1)

    def forward(self, x):
        f1 = F.relu(self.b1(self.e1(x)))
        f2 = F.relu(self.b2(self.e2(f1)))
        y = F.interpolate(self.cls2(f2), scale_factor=2, mode="bilinear", align_corners=False) + self.cls1(f1)
        return F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=False)


class DetHead(nn.Module):
    """An SSD-style detection head on a small backbone: per-location class and box convs on two
    feature maps, permuted to NHWC, flattened and concatenated; class scores through sigmoid."""

    def __init__(self, classes=4, anchors=3):
        super().__init__()
        self.k, self.a = classes, anchors
        self.c1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.cls = nn.ModuleList([nn.Conv2d(16, anchors * classes, 3, padding=1), nn.Conv2d(32, anchors * classes, 3, padding=1)])
        self.box = nn.ModuleList([nn.Conv2d(16, anchors * 4, 3, padding=1), nn.Conv2d(32, anchors * 4, 3, padding=1)])

    def forward(self, x):
        f1 = F.relu(self.c1(x))
        f2 = F.relu(self.c2(f1))
        scores, boxes = [], []
        for f, c, b in zip((f1, f2), self.cls, self.box):
            scores.append(c(f).permute(0, 2, 3, 1).reshape(1, -1, self.k))
            boxes.append(b(f).permute(0, 2, 3, 1).reshape(1, -1, 4))
        return torch.cat(scores, 1).sigmoid(), torch.cat(boxes, 1)


class ActProbe(nn.Module):
    """Probe of the activations ExecuTorch's passes rewrite (relu6 -> hardtanh, DecomposeSilu,
    DecomposeHardsigmoid, DecomposeThreshold, leaky_relu lifted to prelu, ...): one linear, then
    each activation on its own branch, each a graph output. No glu: qnnrules.torch.Quantizer
    refuses a graph with an op no rule covers (ExecuTorch's quantizer decomposes it first)."""

    OPS = {
        "relu6": F.relu6, "hardtanh": lambda x: F.hardtanh(x, -0.5, 0.5), "hardsigmoid": F.hardsigmoid,
        "hardswish": F.hardswish, "silu": F.silu, "elu": F.elu, "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
        "threshold": lambda x: F.threshold(x, 0.1, 0.0),
        "softplus": F.softplus, "square": torch.square, "clamp": lambda x: torch.clamp(x, -1.0, 1.0),
    }

    def __init__(self):
        super().__init__()
        self.l = nn.Linear(32, 32)

    def forward(self, x):
        h = self.l(x)
        return tuple(f(h) for f in self.OPS.values())


class ScalarProbe(nn.Module):
    """Probe of binary ops with a Python number as one operand (ExecuTorch's
    LiftConstantScalarOperands makes it a tensor constant): one linear, then each op on its own branch."""

    def __init__(self):
        super().__init__()
        self.l = nn.Linear(32, 32)

    def forward(self, x):
        h = self.l(x)
        return (h * 0.25, h + 0.5, h - 0.5, h / 2.0, 1.0 - h, h ** 2)


class AliasProbe(nn.Module):
    """Probe of ATen aliases torch.export keeps and torch's core-ATen decompositions (ExecuTorch's
    to_edge) turn into an op with a rule: subtract, true_divide, clamp_min/clamp_max with a tensor
    bound, rsub with a number. Two linears, then each op on its own branch."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(32, 32), nn.Linear(32, 32)

    def forward(self, x):
        h, g = self.a(x), self.b(x)
        return (torch.subtract(h, g), torch.true_divide(h, g.abs() + 1.0), torch.clamp_min(h, g),
                torch.clamp_max(h, g), 1.0 - h)


class HfLayer(nn.Module):
    """One encoder/decoder layer of a `transformers` model built from a small config (random
    weights), called on hidden states; returns the layer's hidden states."""

    def __init__(self, family):
        super().__init__()
        import transformers as T
        self.family = family
        if family == "bert":
            cfg = T.BertConfig(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, intermediate_size=128)
            self.layer = T.models.bert.modeling_bert.BertLayer(cfg)
        elif family in ("llama", "qwen2"):  # decoder layers with rotary embeddings and grouped KV heads
            prefix = {"llama": "Llama", "qwen2": "Qwen2"}[family]
            modeling = getattr(getattr(T.models, family), f"modeling_{family}")
            cfg = getattr(T, f"{prefix}Config")(hidden_size=64, num_hidden_layers=1, num_attention_heads=4,
                                                num_key_value_heads=2, intermediate_size=128, vocab_size=128)
            cfg._attn_implementation = "eager"
            self.layer = getattr(modeling, f"{prefix}DecoderLayer")(cfg, layer_idx=0)
            # The rotary tables as constants, as ExecuTorch's static decoders carry them: the
            # RotaryEmbedding module's forward runs under torch.no_grad, which ExecuTorch's strict
            # re-export turns into a wrap_with_set_grad_enabled call that its
            # LiftConstantScalarOperands pass cannot read (the lowering fails there).
            rope = getattr(modeling, f"{prefix}RotaryEmbedding")(cfg)
            x = torch.zeros(SHAPES[f"{family}_layer"])
            cos, sin = rope(x, torch.arange(x.shape[1]).unsqueeze(0))
            self.register_buffer("cos", cos)
            self.register_buffer("sin", sin)
        elif family == "gpt2":
            cfg = T.GPT2Config(n_embd=64, n_layer=1, n_head=4, n_inner=128, vocab_size=128, n_positions=64,
                                bos_token_id=0, eos_token_id=0)
            cfg._attn_implementation = "eager"
            self.layer = T.models.gpt2.modeling_gpt2.GPT2Block(cfg, layer_idx=0)
        elif family == "vit":
            cfg = T.ViTConfig(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, intermediate_size=128)
            cfg._attn_implementation = "eager"
            self.layer = T.models.vit.modeling_vit.ViTLayer(cfg)
        elif family == "distilbert":
            cfg = T.DistilBertConfig(dim=64, n_layers=1, n_heads=4, hidden_dim=128, vocab_size=128)
            cfg._attn_implementation = "eager"
            self.layer = T.models.distilbert.modeling_distilbert.TransformerBlock(cfg)
        else:
            raise ValueError(family)

    def forward(self, x):
        if self.family in ("llama", "qwen2"):
            out = self.layer(x, position_embeddings=(self.cos, self.sin), attention_mask=None)
        else:
            out = self.layer(x)
        return out[0] if isinstance(out, tuple) else out


SHAPES = {"cnn_bn": (1, 3, 32, 32), "mlp": (4, 64), "conv_bias": (1, 8, 16, 16),
          "bert_layer": (1, 16, 64), "llama_layer": (1, 16, 64), "cnn_plain": (1, 3, 32, 32),
          "mobile_block": (1, 3, 32, 32), "seg_head": (1, 3, 32, 32), "det_head": (1, 3, 32, 32),
          "qwen2_layer": (1, 16, 64), "gpt2_layer": (1, 16, 64), "vit_layer": (1, 17, 64),
          "distilbert_layer": (1, 16, 64), "act_probe": (4, 32), "scalar_probe": (4, 32),
          "alias_probe": (4, 32)}
HF = {"bert_layer": "bert", "llama_layer": "llama", "qwen2_layer": "qwen2", "gpt2_layer": "gpt2", "vit_layer": "vit",
      "distilbert_layer": "distilbert"}
PLAIN = {"mlp": Mlp, "conv_bias": ConvBias, "cnn_plain": CnnPlain, "seg_head": SegHead, "det_head": DetHead,
         "act_probe": ActProbe, "scalar_probe": ScalarProbe, "alias_probe": AliasProbe}
MODELS = ["cnn_bn", "cnn_plain", "mobile_block", "seg_head", "det_head", "mlp", "bert_layer", "vit_layer",
          "distilbert_layer", "gpt2_layer", "llama_layer", "qwen2_layer"]


def build(name):
    torch.manual_seed(0)
    if name == "cnn_bn":
        m = CnnBn()
        with torch.no_grad():  # non-trivial BatchNorm statistics, so folding changes the weights
            for bn in (m.b1, m.b2, m.b3):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)
    elif name == "mobile_block":
        m = MobileBlock()
        with torch.no_grad():
            for bn in (m.b1, m.b2, m.b3):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)
    elif name in PLAIN:
        m = PLAIN[name]()
    elif name in HF:
        m = HfLayer(HF[name])
    else:
        raise ValueError(f"unknown model {name}")
    return m.eval(), (torch.randn(*SHAPES[name]),)


def calibration(name, n=4):
    g = torch.Generator().manual_seed(1234)
    return [(torch.randn(*SHAPES[name], generator=g),) for _ in range(n)]
