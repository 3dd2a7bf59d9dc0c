"""The models the ExecuTorch comparison quantizes: torchvision networks with random weights
(weights=None: annotation does not depend on weight values) and a small Llama-style decoder
with a KV cache, written here so no checkpoint is needed."""

import math

import torch
from torch import nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)


class Attention(nn.Module):
    """Grouped-query attention over a static KV cache passed in and returned (the static-LLM
    layout ExecuTorch's Qualcomm llama example uses: the new key/value are written into the cache
    with index_copy at the input positions)."""

    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    @staticmethod
    def rope(x, cos, sin):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    def forward(self, x, cos, sin, mask, k_cache, v_cache, pos):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
        k_cache = k_cache.index_copy(2, pos, k)
        v_cache = v_cache.index_copy(2, pos, v)
        rep = self.n_heads // self.n_kv_heads
        keys = k_cache.repeat_interleave(rep, dim=1) if rep > 1 else k_cache
        values = v_cache.repeat_interleave(rep, dim=1) if rep > 1 else v_cache
        scores = torch.matmul(q, keys.transpose(2, 3)) / math.sqrt(self.head_dim) + mask
        probs = torch.softmax(scores, dim=-1)
        out = torch.matmul(probs, values).transpose(1, 2).reshape(b, t, -1)
        return self.wo(out), k_cache, v_cache


class Block(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = RMSNorm(dim)
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x, cos, sin, mask, k_cache, v_cache, pos):
        h, k_cache, v_cache = self.attention(self.attention_norm(x), cos, sin, mask, k_cache, v_cache, pos)
        x = x + h
        y = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(y)) * self.w3(y)), k_cache, v_cache


class TinyLlama(nn.Module):
    """Embedding, 2 decoder blocks (RMSNorm, RoPE, GQA with KV cache, SwiGLU), norm, LM head."""

    def __init__(self, vocab=256, dim=64, n_layers=2, n_heads=4, n_kv_heads=2, hidden=128, max_seq=32):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(Block(dim, n_heads, n_kv_heads, hidden) for _ in range(n_layers))
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        self.cfg = dict(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=dim // n_heads, max_seq=max_seq)

    def forward(self, tokens, cos, sin, mask, pos, k_caches, v_caches):
        x = self.tok_embeddings(tokens)
        new_k, new_v = [], []
        for i, layer in enumerate(self.layers):
            x, k, v = layer(x, cos, sin, mask, k_caches[i], v_caches[i], pos)
            new_k.append(k)
            new_v.append(v)
        return self.output(self.norm(x)), new_k, new_v

    def example_inputs(self, t=1):
        c = self.cfg
        hd = c["head_dim"]
        cache = lambda: [torch.zeros(1, c["n_kv_heads"], c["max_seq"], hd) for _ in range(c["n_layers"])]
        mask = torch.full((1, 1, t, c["max_seq"]), -255.0)
        mask[..., :t] = 0.0
        return (torch.randint(0, 256, (1, t)), torch.randn(1, 1, t, hd // 2), torch.randn(1, 1, t, hd // 2),
                mask, torch.arange(t), cache(), cache())


def build(name):
    """(model in eval mode, example args) for a model name of MODELS."""
    torch.manual_seed(0)
    if name == "tiny_llama":
        m = TinyLlama().eval()
        return m, m.example_inputs()
    import torchvision.models as tvm
    from torchvision.models import segmentation
    ctor = getattr(segmentation, name, None) or getattr(tvm, name)
    kwargs = {"weights": None}
    if name == "deeplabv3_resnet50":
        kwargs["weights_backbone"] = None
        kwargs["aux_loss"] = False
    m = ctor(**kwargs).eval()
    size = 224 if name in ("vit_b_16", "swin_t") else 224
    return m, (torch.randn(1, 3, size, size),)


MODELS = ["resnet18", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "vit_b_16", "swin_t",
          "deeplabv3_resnet50", "tiny_llama"]
