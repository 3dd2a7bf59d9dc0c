"""The models of the model-level conformance suite (issue 21): real architectures, random weights.

Every model is built from its library's own code (torchvision's model classes, `transformers`
configs) with seeded random weights and reduced widths, so the quantized ONNX files stay small
enough to commit; nothing is downloaded. `MODELS` maps a name to (builder, example inputs); a
builder returns an eval-mode torch module whose forward takes the example inputs positionally and
returns one tensor or a tuple of tensors.
"""
import torch

IMG = 64  # image side of the vision models


def _image(n=1, side=IMG):
    return (torch.randn(n, 3, side, side),)


def resnet18():
    # torchvision's ResNet-18 topology (BasicBlock, [2, 2, 2, 2]) at 1/8 width.
    from torchvision.models.resnet import ResNet, BasicBlock

    class Narrow(ResNet):
        def _make_layer(self, block, planes, *a, **k):
            return super()._make_layer(block, planes // 8, *a, **k)

    m = Narrow(BasicBlock, [2, 2, 2, 2], num_classes=10)
    m.fc = torch.nn.Linear(512 // 8, 10)
    return m


def mobilenet_v2():
    import torchvision
    return torchvision.models.mobilenet_v2(num_classes=10, width_mult=0.25)


def mobilenet_v3_small():
    import torchvision
    return torchvision.models.mobilenet_v3_small(num_classes=10, width_mult=0.25)


def shufflenet_v2():
    # torchvision's ShuffleNetV2 (channel shuffle, chunk) with x0.5 stages and a narrow conv5.
    from torchvision.models.shufflenetv2 import ShuffleNetV2
    return ShuffleNetV2([4, 8, 4], [24, 48, 96, 192, 256], num_classes=10)


def squeezenet():
    import torchvision
    return torchvision.models.squeezenet1_1(num_classes=10)


def efficientnet_b0():
    # torchvision's EfficientNet-B0 block structure (MBConv, SE, SiLU) at 1/4 width, 1/2 depth.
    from torchvision.models import efficientnet as E
    setting, last = E._efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.5)
    return E.EfficientNet(setting, dropout=0.2, last_channel=last, num_classes=10)


def regnet():
    # torchvision's RegNet (grouped bottlenecks, SE) with a small RegNetY block schedule.
    from torchvision.models import regnet as R
    params = R.BlockParams.from_init_params(depth=6, w_0=16, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25)
    return R.RegNet(params, num_classes=10)


def lraspp():
    # torchvision's LR-ASPP segmentation head on a MobileNetV3-Large backbone at 1/4 width.
    import torchvision
    from torchvision.models.segmentation.lraspp import _lraspp_mobilenetv3
    backbone = torchvision.models.mobilenet_v3_large(width_mult=0.25, dilated=True)
    return _Out(_lraspp_mobilenetv3(backbone, num_classes=3))


def deeplabv3():
    # torchvision's DeepLabV3 (ASPP: atrous convs, global pooling, bilinear resize) on a narrow
    # ResNet backbone with replace_stride_with_dilation, the way the ResNet variants are built.
    from torchvision.models.resnet import ResNet, BasicBlock
    from torchvision.models._utils import IntermediateLayerGetter
    from torchvision.models.segmentation.deeplabv3 import DeepLabV3, DeepLabHead, ASPP

    class Narrow(ResNet):
        def _make_layer(self, block, planes, *a, **k):
            return super()._make_layer(block, planes // 8, *a, **k)

    res = Narrow(BasicBlock, [1, 1, 1, 1])
    backbone = IntermediateLayerGetter(res, return_layers={"layer4": "out"})
    head = DeepLabHead(64, 4)
    head[0] = ASPP(64, [6, 12, 18], out_channels=32)
    head[1] = torch.nn.Conv2d(32, 32, 3, padding=1, bias=False)
    head[2] = torch.nn.BatchNorm2d(32)
    head[4] = torch.nn.Conv2d(32, 4, 1)
    return _Out(DeepLabV3(backbone, head))


class _Out(torch.nn.Module):
    """torchvision's segmentation models return a dict; ONNX export wants its tensor."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


class FpnSsd(torch.nn.Module):
    """A detection head the way torchvision's SSD/RetinaNet are built: a backbone's feature maps
    (torchvision's MobileNetV2 features at 1/4 width), torchvision's FeaturePyramidNetwork (nearest
    upsampling, lateral 1x1 convs, an extra max-pool level) and per-level class/box conv heads whose
    outputs are flattened to (N, anchors, C) and concatenated."""

    def __init__(self, classes=5, anchors=3, width=32):
        super().__init__()
        import torchvision
        from torchvision.ops import FeaturePyramidNetwork
        from torchvision.ops.feature_pyramid_network import LastLevelMaxPool
        feats = torchvision.models.mobilenet_v2(width_mult=0.25).features
        self.stages = torch.nn.ModuleList([feats[:7], feats[7:14], feats[14:18]])
        chans = [8, 24, 80]
        self.fpn = FeaturePyramidNetwork(chans, width, extra_blocks=LastLevelMaxPool())
        self.cls = torch.nn.Conv2d(width, anchors * classes, 3, padding=1)
        self.box = torch.nn.Conv2d(width, anchors * 4, 3, padding=1)
        self.classes = classes

    def forward(self, x):
        outs = {}
        for i, s in enumerate(self.stages):
            x = s(x)
            outs[str(i)] = x
        levels = list(self.fpn(outs).values())
        n = levels[0].shape[0]
        cls = [self.cls(f).permute(0, 2, 3, 1).reshape(n, -1, self.classes) for f in levels]
        box = [self.box(f).permute(0, 2, 3, 1).reshape(n, -1, 4) for f in levels]
        return torch.cat(cls, 1).sigmoid(), torch.cat(box, 1)


def fpn_ssd():
    return FpnSsd()


# Transformers: tiny configs, random weights, eager attention (what torch.onnx's TorchScript
# exporter traces), one fixed sequence length.
SEQ = 16
VOCAB = 128


class _Hidden(torch.nn.Module):
    """The last hidden state; inputs by keyword (positional order differs between models)."""

    def __init__(self, m, keys=("input_ids", "attention_mask")):
        super().__init__()
        self.m, self.keys = m, keys

    def forward(self, *args):
        return self.m(**dict(zip(self.keys, args)), return_dict=False)[0]


def _tokens():
    return (torch.randint(0, VOCAB, (1, SEQ)), torch.ones(1, SEQ, dtype=torch.int64))


def bert():
    from transformers import BertConfig, BertModel
    c = BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                   intermediate_size=128, max_position_embeddings=64, attn_implementation="eager")
    return _Hidden(BertModel(c, add_pooling_layer=False))


def gpt2():
    from transformers import GPT2Config, GPT2Model
    c = GPT2Config(vocab_size=VOCAB, bos_token_id=0, eos_token_id=0, n_embd=64, n_layer=2, n_head=2, n_positions=64, use_cache=False,
                   attn_implementation="eager")
    return _Hidden(GPT2Model(c))


def llama():
    from transformers import LlamaConfig, LlamaModel
    c = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, use_cache=False,
                    attn_implementation="eager")
    return _Hidden(LlamaModel(c))


def qwen2():
    from transformers import Qwen2Config, Qwen2Model
    c = Qwen2Config(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, use_cache=False,
                    attn_implementation="eager")
    return _Hidden(Qwen2Model(c))


def vit():
    from transformers import ViTConfig, ViTModel
    c = ViTConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                  intermediate_size=128, attn_implementation="eager")
    return _Hidden(ViTModel(c, add_pooling_layer=False), keys=("pixel_values",))


MODELS = {
    "resnet18": (resnet18, _image),
    "mobilenet_v2": (mobilenet_v2, _image),
    "mobilenet_v3_small": (mobilenet_v3_small, _image),
    "shufflenet_v2": (shufflenet_v2, _image),
    "squeezenet1_1": (squeezenet, _image),
    "efficientnet_b0": (efficientnet_b0, _image),
    "regnet_y": (regnet, _image),
    "lraspp_mobilenet_v3": (lraspp, _image),
    "deeplabv3": (deeplabv3, _image),
    "fpn_ssd": (fpn_ssd, _image),
    "bert": (bert, _tokens),
    "gpt2": (gpt2, _tokens),
    "llama": (llama, _tokens),
    "qwen2": (qwen2, _tokens),
    "vit": (vit, lambda: (torch.randn(1, 3, 32, 32),)),
}


def all_models():
    """The whole suite: the first fifteen, then the architectures zoo_wide.py and zoo_more.py add (issue 32), in a
    fixed order (a model's calibration seed is its index)."""
    from .zoo_more import MODELS as more
    from .zoo_wide import MODELS as wide
    return {**MODELS, **wide, **more}
