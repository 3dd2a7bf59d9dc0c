"""More architectures for the model-level suite (issue 32: at least 60, verdicts that generalize):
families neither zoo.py nor zoo_wide.py has, each for what it exercises that the others do not.

Same conventions as zoo.py: each builder returns an eval-mode module with seeded random weights at
reduced width, nothing is downloaded; `MODELS` maps a name to (builder, example inputs).
"""
import torch

from .zoo import IMG, SEQ, VOCAB, _Hidden, _image, _tokens
from .zoo_wide import _small, _speech, _tokens_and_decoder


# ---- torchvision -------------------------------------------------------------------------------

def googlenet():
    # Inception branches concatenated, max pooling with ceil_mode, 1x1 reductions.
    import torchvision
    return torchvision.models.googlenet(num_classes=10, aux_logits=False, init_weights=True)


def swin_v2():
    # Swin V2: cosine attention with a learned logit scale, a continuous position-bias MLP.
    from torchvision.models.swin_transformer import PatchMergingV2, SwinTransformer, SwinTransformerBlockV2
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                           stochastic_depth_prob=0.0, num_classes=10, block=SwinTransformerBlockV2,
                           downsample_layer=PatchMergingV2)


def regnet_x():
    # RegNet X: grouped bottlenecks without squeeze-excitation.
    from torchvision.models.regnet import BlockParams, RegNet
    params = BlockParams.from_init_params(depth=4, w_0=16, w_a=8.0, w_m=2.0, group_width=8)
    return RegNet(params, num_classes=10)


# ---- transformers: encoders ---------------------------------------------------------------------

def electra():
    from transformers import ElectraConfig, ElectraModel
    return _Hidden(ElectraModel(ElectraConfig(embedding_size=32, **_small())))


def mpnet():
    # MPNet: relative position buckets added to the attention scores.
    from transformers import MPNetConfig, MPNetModel
    return _Hidden(MPNetModel(MPNetConfig(**_small()), add_pooling_layer=False))


def squeezebert():
    # SqueezeBERT: attention and feed-forward as grouped Conv1d over the sequence.
    from transformers import SqueezeBertConfig, SqueezeBertModel
    c = SqueezeBertConfig(vocab_size=VOCAB, hidden_size=64, embedding_size=64, num_hidden_layers=2,
                          num_attention_heads=4, intermediate_size=128, max_position_embeddings=64, q_groups=2,
                          k_groups=2, v_groups=2, post_attention_groups=2, intermediate_groups=4, output_groups=4)
    return _Hidden(SqueezeBertModel(c))


def mobilebert():
    # MobileBERT: bottleneck layers, NoNorm (an element-wise affine instead of LayerNorm).
    from transformers import MobileBertConfig, MobileBertModel
    c = MobileBertConfig(vocab_size=VOCAB, hidden_size=64, embedding_size=32, num_hidden_layers=2,
                         num_attention_heads=4, intermediate_size=64, intra_bottleneck_size=32,
                         true_hidden_size=32, num_feedforward_networks=2, max_position_embeddings=64)
    return _Hidden(MobileBertModel(c, add_pooling_layer=False))


# ---- transformers: decoders --------------------------------------------------------------------

def gptj():
    # GPT-J: rotary embedding on part of each head (interleaved), parallel attention and MLP.
    from transformers import GPTJConfig, GPTJModel
    c = GPTJConfig(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, n_positions=64, use_cache=False,
                   attn_implementation="eager")
    return _Hidden(GPTJModel(c))


def gpt_bigcode():
    # GPT-BigCode (StarCoder): multi-query attention, one key/value head.
    from transformers import GPTBigCodeConfig, GPTBigCodeModel
    c = GPTBigCodeConfig(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=64, multi_query=True,
                         use_cache=False, attn_implementation="eager")
    return _Hidden(GPTBigCodeModel(c))


def stablelm():
    # StableLM: partial rotary embedding (a quarter of each head), LayerNorm with bias.
    from transformers import StableLmConfig, StableLmModel
    return _Hidden(StableLmModel(StableLmConfig(num_key_value_heads=2, partial_rotary_factor=0.25, use_cache=False,
                                                **_small())))


def olmo():
    # OLMo: LayerNorm without parameters, clipped QKV.
    from transformers import OlmoConfig, OlmoModel
    return _Hidden(OlmoModel(OlmoConfig(num_key_value_heads=2, clip_qkv=8.0, use_cache=False, pad_token_id=0,
                                        **_small())))


# ---- transformers: encoder-decoders, vision, audio ----------------------------------------------

def mbart():
    # mBART: pre-LayerNorm encoder-decoder with a final LayerNorm on both sides.
    from transformers import MBartConfig, MBartModel
    c = MBartConfig(vocab_size=VOCAB, d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                    decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64,
                    attn_implementation="eager")
    return _Hidden(MBartModel(c), keys=("input_ids", "attention_mask", "decoder_input_ids"))


def beit():
    # BEiT: a relative position bias table gathered by index per window.
    from transformers import BeitConfig, BeitModel
    c = BeitConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                   intermediate_size=128, use_relative_position_bias=True, attn_implementation="eager")
    return _Hidden(BeitModel(c, add_pooling_layer=False), keys=("pixel_values",))


def levit():
    # LeViT: convolutional stem, attention biases gathered by index, hard-swish, subsampling attention.
    from transformers import LevitConfig, LevitModel
    c = LevitConfig(image_size=IMG, hidden_sizes=[32, 48, 64], num_attention_heads=[1, 2, 2], depths=[1, 1, 1],
                    key_dim=[8, 8, 8], down_ops=[["Subsample", 8, 1, 4, 2, 2], ["Subsample", 8, 2, 4, 2, 2]])
    return _Hidden(LevitModel(c), keys=("pixel_values",))


def poolformer():
    # PoolFormer: average pooling as the token mixer, GroupNorm, layer scale.
    from transformers import PoolFormerConfig, PoolFormerModel
    c = PoolFormerConfig(num_encoder_blocks=2, depths=[1, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3],
                         strides=[4, 2], padding=[2, 1], mlp_ratio=2.0)
    return _Hidden(PoolFormerModel(c), keys=("pixel_values",))


def hubert():
    from transformers import HubertConfig, HubertModel
    return _Hidden(HubertModel(HubertConfig(**_speech(attn_implementation="eager"))), keys=("input_values",))


def wavlm():
    # WavLM: gated relative position bias computed from the hidden states.
    from transformers import WavLMConfig, WavLMModel
    return _Hidden(WavLMModel(WavLMConfig(**_speech(num_buckets=32, max_bucket_distance=64))), keys=("input_values",))


def ast():
    # Audio Spectrogram Transformer: overlapping Conv2d patches over a spectrogram.
    from transformers import ASTConfig, ASTModel
    c = ASTConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                  num_mel_bins=16, max_length=32, frequency_stride=8, time_stride=8, patch_size=8,
                  attn_implementation="eager")
    return _Hidden(ASTModel(c), keys=("input_values",))


def _audio():
    return (torch.randn(1, 1600),)


MODELS = {
    "googlenet": (googlenet, _image),
    "swin_v2": (swin_v2, _image),
    "regnet_x": (regnet_x, _image),
    "electra": (electra, _tokens),
    "mpnet": (mpnet, _tokens),
    "squeezebert": (squeezebert, _tokens),
    "mobilebert": (mobilebert, _tokens),
    "gptj": (gptj, _tokens),
    "gpt_bigcode": (gpt_bigcode, _tokens),
    "stablelm": (stablelm, _tokens),
    "olmo": (olmo, _tokens),
    "mbart": (mbart, _tokens_and_decoder),
    "beit": (beit, lambda: (torch.randn(1, 3, 32, 32),)),
    "levit": (levit, _image),
    "poolformer": (poolformer, _image),
    "hubert": (hubert, _audio),
    "wavlm": (wavlm, _audio),
    "ast": (ast, lambda: (torch.randn(1, 32, 16),)),
}
