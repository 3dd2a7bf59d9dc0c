"""The architectures the model-level suite grew by for issue 32: families outside the first fifteen
(window attention, mobile ViTs, relative-position attention, audio front ends, newer decoders,
encoder-decoders, video), chosen because they exercise what the first suite did not: ranks above 4,
Conv1d and Conv3d, Einsum, shape arithmetic, value-dependent ops.

Same conventions as zoo.py: each builder returns an eval-mode module with seeded random weights at
reduced width (the quantized files are committed), nothing is downloaded; `MODELS` maps a name to
(builder, example inputs).
"""
import torch

from .zoo import IMG, SEQ, VOCAB, _Hidden, _image, _tokens


# ---- torchvision -------------------------------------------------------------------------------

def maxvit():
    # MaxViT's block and grid attention partition a feature map into rank-6 windows.
    from torchvision.models.maxvit import MaxVit
    return MaxVit(input_size=(IMG, IMG), stem_channels=16, partition_size=4, block_channels=[16, 32],
                  block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10)


def swin():
    # Swin's shifted windows: roll, rank-6 window partition, attention masks.
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                           stochastic_depth_prob=0.0, num_classes=10)


def convnext():
    # ConvNeXt: depthwise 7x7, channels-last LayerNorm through permutes, layer scale.
    from torchvision.models.convnext import ConvNeXt, CNBlockConfig
    return ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)], stochastic_depth_prob=0.0,
                    num_classes=10)


def densenet():
    # DenseNet: concatenation of every earlier feature map, BatchNorm before conv.
    from torchvision.models.densenet import DenseNet
    return DenseNet(growth_rate=8, block_config=(2, 2), num_init_features=16, num_classes=10)


def mnasnet():
    import torchvision
    return torchvision.models.mnasnet0_5(num_classes=10)


def resnext():
    # Bottleneck blocks with grouped 3x3 convolutions.
    from torchvision.models.resnet import ResNet, Bottleneck

    class Narrow(ResNet):
        def _make_layer(self, block, planes, *a, **k):
            return super()._make_layer(block, planes // 8, *a, **k)

    m = Narrow(Bottleneck, [1, 1, 1, 1], groups=4, width_per_group=32, num_classes=10)
    m.fc = torch.nn.Linear(2048 // 8, 10)
    return m


def efficientnet_v2():
    # Fused-MBConv stages then MBConv with squeeze-excitation.
    from torchvision.models.efficientnet import EfficientNet, FusedMBConvConfig, MBConvConfig
    setting = [FusedMBConvConfig(1, 3, 1, 8, 8, 1), FusedMBConvConfig(4, 3, 2, 8, 16, 1),
               MBConvConfig(4, 3, 2, 16, 32, 1)]
    return EfficientNet(setting, dropout=0.2, last_channel=64, num_classes=10)


def mobilenet_v3_large():
    import torchvision
    return torchvision.models.mobilenet_v3_large(num_classes=10, width_mult=0.25)


def vit_torchvision():
    # torchvision's ViT: class token concatenated, nn.MultiheadAttention (its fused in-projection).
    from torchvision.models.vision_transformer import VisionTransformer
    # The traced graph of nn.MultiheadAttention's inference fast path is one op torch.onnx cannot
    # export; users exporting torchvision's ViT turn the fast path off the same way.
    torch.backends.mha.set_fastpath_enabled(False)
    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                             num_classes=10)


def r3d():
    # A video ResNet: Conv3d, BatchNorm3d, rank-5 activations.
    from torchvision.models.video.resnet import VideoResNet, BasicBlock, Conv3DSimple, BasicStem

    class Narrow(VideoResNet):
        def _make_layer(self, block, conv_builder, planes, *a, **k):
            return super()._make_layer(block, conv_builder, planes // 8, *a, **k)

    m = Narrow(BasicBlock, [Conv3DSimple] * 4, [1, 1, 1, 1], BasicStem, num_classes=10)
    m.stem = torch.nn.Sequential(torch.nn.Conv3d(3, 8, (3, 7, 7), (1, 2, 2), (1, 3, 3), bias=False),
                                 torch.nn.BatchNorm3d(8), torch.nn.ReLU(inplace=True))
    m.inplanes = 8
    m.layer1 = m._make_layer(BasicBlock, Conv3DSimple, 64, 1)
    m.fc = torch.nn.Linear(512 // 8, 10)
    return m


def fcn():
    # FCN segmentation head on a narrow dilated ResNet, bilinear upsampling to the input size.
    from torchvision.models.resnet import ResNet, BasicBlock
    from torchvision.models._utils import IntermediateLayerGetter
    from torchvision.models.segmentation.fcn import FCN, FCNHead
    from .zoo import _Out

    class Narrow(ResNet):
        def _make_layer(self, block, planes, *a, **k):
            return super()._make_layer(block, planes // 8, *a, **k)

    backbone = IntermediateLayerGetter(Narrow(BasicBlock, [1, 1, 1, 1]), return_layers={"layer4": "out"})
    return _Out(FCN(backbone, FCNHead(64, 4)))


def _video():
    return (torch.randn(1, 3, 4, 32, 32),)


# ---- transformers: encoders, decoders, encoder-decoders -----------------------------------------

def _small(**k):
    return dict(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                intermediate_size=128, max_position_embeddings=64, attn_implementation="eager", **k)


def t5():
    # Relative-position buckets: log, min/max and a Mul on computed integers; T5's RMSNorm.
    from transformers import T5Config, T5EncoderModel
    c = T5Config(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                 relative_attention_num_buckets=32, attn_implementation="eager")
    return _Hidden(T5EncoderModel(c))


def bart():
    # An encoder-decoder: cross attention, learned positions with an offset.
    from transformers import BartConfig, BartModel
    c = BartConfig(vocab_size=VOCAB, d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                   decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64,
                   attn_implementation="eager")
    return _Hidden(BartModel(c), keys=("input_ids", "attention_mask", "decoder_input_ids"))


def _tokens_and_decoder():
    return _tokens() + (torch.randint(0, VOCAB, (1, SEQ)),)


def roberta():
    from transformers import RobertaConfig, RobertaModel
    return _Hidden(RobertaModel(RobertaConfig(**_small(pad_token_id=1)), add_pooling_layer=False))


def distilbert():
    from transformers import DistilBertConfig, DistilBertModel
    c = DistilBertConfig(vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4, hidden_dim=128, max_position_embeddings=64,
                         attn_implementation="eager")
    return _Hidden(DistilBertModel(c))


def albert():
    # Factorized embeddings (a projection), one layer's weights shared by every layer.
    from transformers import AlbertConfig, AlbertModel
    return _Hidden(AlbertModel(AlbertConfig(embedding_size=32, **_small()), add_pooling_layer=False))


def deberta_v2():
    # Disentangled attention: relative positions gathered with computed indices.
    from transformers import DebertaV2Config, DebertaV2Model
    c = DebertaV2Config(relative_attention=True, position_buckets=16, max_relative_positions=32,
                        pos_att_type=["p2c", "c2p"], **_small())
    return _Hidden(DebertaV2Model(c))


def phi3():
    from transformers import Phi3Config, Phi3Model
    c = Phi3Config(num_key_value_heads=2, use_cache=False, pad_token_id=0, bos_token_id=0, eos_token_id=0, **_small())
    return _Hidden(Phi3Model(c))


def mistral():
    from transformers import MistralConfig, MistralModel
    return _Hidden(MistralModel(MistralConfig(num_key_value_heads=2, use_cache=False, **_small())))


def gemma():
    from transformers import GemmaConfig, GemmaModel
    return _Hidden(GemmaModel(GemmaConfig(num_key_value_heads=2, head_dim=16, use_cache=False, **_small())))


def qwen3():
    # Qwen3: RMSNorm on queries and keys per head.
    from transformers import Qwen3Config, Qwen3Model
    return _Hidden(Qwen3Model(Qwen3Config(num_key_value_heads=2, head_dim=16, use_cache=False, **_small())))


def opt():
    from transformers import OPTConfig, OPTModel
    c = OPTConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, ffn_dim=128, num_attention_heads=4,
                  max_position_embeddings=64, word_embed_proj_dim=64, use_cache=False, attn_implementation="eager")
    return _Hidden(OPTModel(c))


def bloom():
    # ALiBi: position biases computed from the attention mask (cumsum, arithmetic on integers).
    from transformers import BloomConfig, BloomModel
    c = BloomConfig(vocab_size=VOCAB, hidden_size=64, n_layer=2, n_head=4, use_cache=False,
                    attn_implementation="eager")
    return _Hidden(BloomModel(c))


def falcon():
    from transformers import FalconConfig, FalconModel
    c = FalconConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     use_cache=False, attn_implementation="eager")
    return _Hidden(FalconModel(c))


def gpt_neo():
    from transformers import GPTNeoConfig, GPTNeoModel
    c = GPTNeoConfig(vocab_size=VOCAB, hidden_size=64, num_layers=2, num_heads=4, max_position_embeddings=64,
                     attention_types=[[["global", "local"], 1]], window_size=8, use_cache=False,
                     attn_implementation="eager")
    return _Hidden(GPTNeoModel(c))


# ---- transformers: vision and audio -------------------------------------------------------------

def mobilevit():
    # MobileViT: patches unfolded and folded back with reshapes/transposes of rank 4..6.
    from transformers import MobileViTConfig, MobileViTModel
    c = MobileViTConfig(image_size=IMG, hidden_sizes=[32, 40, 48], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64],
                        num_attention_heads=2, attn_implementation="eager")
    return _Hidden(MobileViTModel(c, expand_output=False), keys=("pixel_values",))


def segformer():
    # SegFormer: overlapping patch embeddings, efficient attention with a strided reduction conv.
    from transformers import SegformerConfig, SegformerModel
    c = SegformerConfig(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[4, 2], hidden_sizes=[16, 32],
                        patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2],
                        attn_implementation="eager")
    return _Hidden(SegformerModel(c), keys=("pixel_values",))


def deit():
    from transformers import DeiTConfig, DeiTModel
    c = DeiTConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                   intermediate_size=128, attn_implementation="eager")
    return _Hidden(DeiTModel(c, add_pooling_layer=False), keys=("pixel_values",))


def convnext_hf():
    from transformers import ConvNextConfig, ConvNextModel
    c = ConvNextConfig(num_stages=2, hidden_sizes=[16, 32], depths=[1, 1])
    return _Hidden(ConvNextModel(c), keys=("pixel_values",))


def _speech(**k):
    """A wav2vec2-style speech encoder's reduced config (the audio models share it)."""
    return dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
                num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, **k)


def wav2vec2():
    # A Conv1d feature extractor on raw audio, GroupNorm, a grouped positional Conv1d.
    from transformers import Wav2Vec2Config, Wav2Vec2Model
    return _Hidden(Wav2Vec2Model(Wav2Vec2Config(**_speech(attn_implementation="eager"))), keys=("input_values",))


def whisper_encoder():
    # Whisper's encoder: two Conv1d on log-mel features, GELU, sinusoidal positions.
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    c = WhisperConfig(num_mel_bins=16, d_model=64, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=128,
                      max_source_positions=16, attn_implementation="eager")
    return _Hidden(WhisperEncoder(c), keys=("input_features",))


MODELS = {
    "maxvit": (maxvit, _image),
    "swin": (swin, _image),
    "convnext": (convnext, _image),
    "densenet": (densenet, _image),
    "mnasnet": (mnasnet, _image),
    "resnext": (resnext, _image),
    "efficientnet_v2": (efficientnet_v2, _image),
    "mobilenet_v3_large": (mobilenet_v3_large, _image),
    "vit_torchvision": (vit_torchvision, lambda: (torch.randn(1, 3, 32, 32),)),
    "r3d": (r3d, _video),
    "fcn": (fcn, _image),
    "t5": (t5, _tokens),
    "bart": (bart, _tokens_and_decoder),
    "roberta": (roberta, _tokens),
    "distilbert": (distilbert, _tokens),
    "albert": (albert, _tokens),
    "deberta_v2": (deberta_v2, _tokens),
    "phi3": (phi3, _tokens),
    "mistral": (mistral, _tokens),
    "gemma": (gemma, _tokens),
    "qwen3": (qwen3, _tokens),
    "opt": (opt, _tokens),
    "bloom": (bloom, _tokens),
    "falcon": (falcon, _tokens),
    "gpt_neo": (gpt_neo, _tokens),
    "mobilevit": (mobilevit, _image),
    "segformer": (segformer, _image),
    "deit": (deit, lambda: (torch.randn(1, 3, 32, 32),)),
    "convnext_hf": (convnext_hf, _image),
    "wav2vec2": (wav2vec2, lambda: (torch.randn(1, 1600),)),
    "whisper_encoder": (whisper_encoder, lambda: (torch.randn(1, 16, 32),)),
}
