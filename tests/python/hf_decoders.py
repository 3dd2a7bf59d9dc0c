"""Tiny decoders of three `transformers` families (random weights from their configs, no
download), exported as prepare_pt2e receives them: without a cache (one forward over a short
prompt) and with a static KV cache (transformers' TorchExportableModuleWithStaticCache, the
ExecuTorch recipe: the caches are buffers updated in place, one token per step)."""

import pytest
import torch

transformers = pytest.importorskip("transformers")

COMMON = dict(vocab_size=96, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


def _config(family):
    if family == "llama":
        return transformers.LlamaConfig(**COMMON, tie_word_embeddings=False)
    if family == "qwen3":
        return transformers.Qwen3Config(**COMMON, head_dim=16, tie_word_embeddings=True)
    if family == "gpt2":
        return transformers.GPT2Config(vocab_size=96, n_embd=64, n_layer=2, n_head=4, n_positions=64,
                                       bos_token_id=1, eos_token_id=2)
    raise ValueError(family)


FAMILIES = ("llama", "qwen3", "gpt2")
PROMPT = 6
CACHE = 16


def decoder(family, cache=False, seed=0):
    """(GraphModule from torch.export, example args, calibration batches)."""
    torch.manual_seed(seed)
    config = _config(family)
    config._attn_implementation = "eager"  # plain ATen ops (the sdpa kernel is one opaque op)
    model = transformers.AutoModelForCausalLM.from_config(config).eval()
    if not cache:
        class Logits(torch.nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, ids):
                return self.m(input_ids=ids, use_cache=False).logits

        wrapped = Logits(model)
        example = (torch.randint(0, 96, (1, PROMPT)),)
        batches = [(torch.randint(0, 96, (1, PROMPT)),) for _ in range(2)]
        with torch.no_grad():
            gm = torch.export.export(wrapped, example, strict=False).module()
        return gm, example, batches
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache
    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    wrapped = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=CACHE)
    ids, pos = torch.tensor([[3]]), torch.tensor([0])
    with torch.no_grad():
        ep = torch.export.export(wrapped, (), {"input_ids": ids, "cache_position": pos}, strict=False)
    gm = ep.module()
    example = ()
    batches = [{"input_ids": torch.tensor([[t]]), "cache_position": torch.tensor([i])}
               for i, t in enumerate((3, 17, 42))]
    return gm, {"input_ids": ids, "cache_position": pos}, batches
