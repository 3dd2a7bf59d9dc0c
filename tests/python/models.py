"""Models the pt2e tests export: small torch modules written here (a Llama-style decoder with a
KV cache among them) and torchvision's, built with random weights at small input sizes."""

import torch
import torchvision

torch.manual_seed(0)


class ConvSigmoidLinear(torch.nn.Module):
    """conv -> sigmoid (fixed output qparams) -> flatten (shared) -> linear."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.act = torch.nn.Sigmoid()
        self.fc = torch.nn.Linear(4 * 8 * 8, 64)   # 256 input channels: blocks of 32

    def forward(self, x):
        return self.fc(torch.flatten(self.act(self.conv(x)), 1))

    @staticmethod
    def example():
        return (torch.randn(1, 3, 8, 8),)


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(torch.nn.Module):
    """Multi-head attention with rotary embeddings over a KV cache passed in and returned."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.wq = torch.nn.Linear(dim, dim, bias=False)
        self.wk = torch.nn.Linear(dim, dim, bias=False)
        self.wv = torch.nn.Linear(dim, dim, bias=False)
        self.wo = torch.nn.Linear(dim, dim, bias=False)

    def forward(self, x, cos, sin, k_cache, v_cache, mask):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat([k_cache, k], dim=2)
        v = torch.cat([v_cache, v], dim=2)
        scores = torch.matmul(q, k.transpose(2, 3)) / (self.head_dim ** 0.5) + mask
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.wo(out.transpose(1, 2).reshape(b, t, -1)), k, v


class Block(torch.nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.attn_norm, self.mlp_norm = RMSNorm(dim), RMSNorm(dim)
        self.attn = Attention(dim, heads)
        self.w1 = torch.nn.Linear(dim, hidden, bias=False)
        self.w2 = torch.nn.Linear(hidden, dim, bias=False)
        self.w3 = torch.nn.Linear(dim, hidden, bias=False)

    def forward(self, x, cos, sin, k_cache, v_cache, mask):
        h, k, v = self.attn(self.attn_norm(x), cos, sin, k_cache, v_cache, mask)
        x = x + h
        y = self.mlp_norm(x)
        return x + self.w2(torch.nn.functional.silu(self.w1(y)) * self.w3(y)), k, v


class Decoder(torch.nn.Module):
    """A two-layer Llama-style decoder: token embedding, RMSNorm, rotary attention over a KV
    cache (inputs, and the updated caches as outputs), SwiGLU MLP, LM head."""

    vocab, dim, heads, hidden, layers, past, new = 128, 64, 4, 128, 2, 8, 4

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(self.vocab, self.dim)
        self.blocks = torch.nn.ModuleList(Block(self.dim, self.heads, self.hidden) for _ in range(self.layers))
        self.norm = RMSNorm(self.dim)
        self.head = torch.nn.Linear(self.dim, self.vocab, bias=False)
        hd = self.dim // self.heads
        pos = torch.arange(self.past, self.past + self.new, dtype=torch.float32)
        freq = pos[:, None] / (10000 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))[None, :]
        angles = torch.cat([freq, freq], dim=-1)
        self.register_buffer("cos", angles.cos()[None, None])
        self.register_buffer("sin", angles.sin()[None, None])
        total = self.past + self.new
        causal = torch.full((self.new, total), -1e4).triu(self.past + 1)
        self.register_buffer("mask", causal[None, None])

    def forward(self, tokens, k_caches, v_caches):
        x = self.embed(tokens)
        new_k, new_v = [], []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, self.cos, self.sin, k_caches[i], v_caches[i], self.mask)
            new_k.append(k)
            new_v.append(v)
        return self.head(self.norm(x)), torch.stack(new_k), torch.stack(new_v)

    @classmethod
    def example(cls):
        cache = (cls.layers, 1, cls.heads, cls.past, cls.dim // cls.heads)
        return (torch.randint(0, cls.vocab, (1, cls.new)), torch.randn(*cache), torch.randn(*cache))


def torchvision_model(name):
    """(model, example inputs): random weights, the smallest input each model takes."""
    models = torchvision.models
    if name == "deeplabv3_resnet50":
        model = models.segmentation.deeplabv3_resnet50(weights=None, weights_backbone=None, aux_loss=False)
    elif name == "vit_b_16":
        model = models.vit_b_16(weights=None, image_size=64)
    else:
        model = getattr(models, name)(weights=None)
    return model.eval(), (torch.randn(1, 3, 64, 64),)


def export(model, example):
    """What prepare_pt2e receives: the ATen graph of torch.export, as a GraphModule."""
    return torch.export.export(model.eval(), example).module()
