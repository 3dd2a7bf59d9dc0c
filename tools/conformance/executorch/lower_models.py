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
        elif family == "llama":
            cfg = T.LlamaConfig(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                                intermediate_size=128, vocab_size=128)
            cfg._attn_implementation = "eager"
            self.layer = T.models.llama.modeling_llama.LlamaDecoderLayer(cfg, layer_idx=0)
            self.rope = T.models.llama.modeling_llama.LlamaRotaryEmbedding(cfg)
        else:
            raise ValueError(family)

    def forward(self, x):
        if self.family == "llama":
            pos = torch.arange(x.shape[1]).unsqueeze(0)
            out = self.layer(x, position_embeddings=self.rope(x, pos), attention_mask=None)
        else:
            out = self.layer(x)
        return out[0] if isinstance(out, tuple) else out


SHAPES = {"cnn_bn": (1, 3, 32, 32), "mlp": (4, 64), "conv_bias": (1, 8, 16, 16),
          "bert_layer": (1, 16, 64), "llama_layer": (1, 16, 64)}
MODELS = ["cnn_bn", "mlp", "bert_layer", "llama_layer"]


def build(name):
    torch.manual_seed(0)
    if name == "cnn_bn":
        m = CnnBn()
        with torch.no_grad():  # non-trivial BatchNorm statistics, so folding changes the weights
            for bn in (m.b1, m.b2, m.b3):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)
    elif name == "mlp":
        m = Mlp()
    elif name == "conv_bias":
        m = ConvBias()
    elif name == "bert_layer":
        m = HfLayer("bert")
    elif name == "llama_layer":
        m = HfLayer("llama")
    else:
        raise ValueError(f"unknown model {name}")
    return m.eval(), (torch.randn(*SHAPES[name]),)


def calibration(name, n=4):
    g = torch.Generator().manual_seed(1234)
    return [(torch.randn(*SHAPES[name], generator=g),) for _ in range(n)]
