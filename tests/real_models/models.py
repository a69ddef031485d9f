"""Models from torchvision, timm and transformers in tiny configurations, with their dynamic dims.

Every model is built from its library's own constructors and config classes, randomly initialised
(seeded; no ``from_pretrained``, no ``pretrained=True``: nothing is downloaded), in eval mode. The
dynamic dims are the batch and, for text and audio, the sequence length, each a
``torch.export.Dim(min=1, max=...)`` (size 1 included). torch, torchvision, timm and transformers
are imported inside the functions only: this module imports without them (the benchmark
``benchmarks/torch_models_export.py`` uses it too).

torchvision 0.28's wheel fails to import beside torch's CPU wheel: its
``torchvision/_meta_registrations.py`` registers meta kernels for ``torchvision::nms``, an operator
the CPU torch wheel does not have. :func:`shim_torchvision` puts an empty module in its place
before torchvision (or timm or transformers, which import it) is imported; the models here never call
torchvision's custom ops.

>>> len(CASES) >= 25
True
>>> CASES["gpt2"].dims, CASES["resnet18"].dims
(('batch', 'seq'), ('batch',))
"""

from __future__ import annotations

import random
import sys
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

__all__ = ["CASES", "Case", "shim_torchvision"]

#: The largest batch and sequence length the Dims allow.
MAX_BATCH = 64
MAX_SEQ = 32


def shim_torchvision() -> None:
    """An empty ``torchvision._meta_registrations`` (see the module docstring); import torchvision after this."""
    sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))


@dataclass(frozen=True)
class Case:
    """One model: how to build it, its keyword inputs with named dynamic dims, and how to make real inputs.

    Attributes:
        name: the case's name.
        library: ``torchvision``, ``timm`` or ``transformers``.
        build_fn: builds the model (called with torch seeded).
        inputs: input name -> pattern: an int is a static size, a str names a dynamic dim.
        kinds: input name -> ``"float"`` (randn), ``"ids"`` (token ids below :attr:`vocab`) or
            ``"mask"`` (an attention mask: ones, with trailing zeros in the first row when it is
            longer than 2, a padded sequence).
        example: the sizes the programs are traced with.
        maxima: dim name -> the Dim's max (its min is 1).
    """

    name: str
    library: str
    build_fn: Callable[[], Any]
    inputs: Mapping[str, tuple]
    kinds: Mapping[str, str] = field(default_factory=dict)
    example: Mapping[str, int] = field(default_factory=lambda: {"batch": 2})
    maxima: Mapping[str, int] = field(default_factory=lambda: {"batch": MAX_BATCH})
    vocab: int = 96

    @property
    def dims(self) -> tuple[str, ...]:
        return tuple(self.maxima)

    def build(self) -> Any:
        """The model, seeded and in eval mode."""
        import torch

        shim_torchvision()
        torch.manual_seed(0)
        return self.build_fn().eval()

    def dynamic_shapes(self) -> dict[str, dict[int, Any]]:
        """``torch.export.Dim(name, min=1, max=...)`` for each dynamic dim, by input name (one Dim object per name)."""
        from torch.export import Dim

        made = {name: Dim(name, min=1, max=hi) for name, hi in self.maxima.items()}
        return {inp: {i: made[d] for i, d in enumerate(pattern) if isinstance(d, str)} for inp, pattern in self.inputs.items()}

    def kwargs(self, sizes: Mapping[str, int] | None = None, seed: int = 0) -> dict[str, Any]:
        """Real inputs at ``sizes`` (default: the example sizes), seeded."""
        import torch

        sizes = dict(self.example if sizes is None else sizes)
        gen = torch.Generator().manual_seed(seed)
        out = {}
        for inp, pattern in self.inputs.items():
            shape = tuple(sizes[d] if isinstance(d, str) else d for d in pattern)
            kind = self.kinds.get(inp, "float")
            if kind == "ids":
                out[inp] = torch.randint(0, self.vocab, shape, generator=gen)
            elif kind == "mask":
                mask = torch.ones(shape, dtype=torch.long)
                if shape[0] and shape[-1] > 2:
                    mask[0, shape[-1] // 2:] = 0
                out[inp] = mask
            else:
                out[inp] = torch.randn(shape, generator=gen)
        return out

    def draw(self, rng: random.Random) -> dict[str, int]:
        """Random sizes inside the Dims' ranges: 1, the max, or uniform in [1, 12] (to stay fast)."""
        out = {}
        for name, hi in self.maxima.items():
            r = rng.random()
            out[name] = 1 if r < 0.2 else hi if r < 0.3 else rng.randint(1, min(hi, 12))
        return out


# -- torchvision ---------------------------------------------------------------------------------------
def _tv_resnet18():
    from torchvision.models import resnet18

    return resnet18(weights=None, num_classes=10)


def _tv_mobilenet_v3_small():
    from torchvision.models import mobilenet_v3_small

    return mobilenet_v3_small(weights=None, num_classes=10)


def _tv_vit():
    from torchvision.models.vision_transformer import VisionTransformer

    return VisionTransformer(image_size=32, patch_size=8, num_layers=1, num_heads=2, hidden_dim=32, mlp_dim=64,
                             num_classes=10)


def _tv_swin():
    from torchvision.models.swin_transformer import SwinTransformer

    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=[2, 2],
                           num_classes=10)


def _tv_convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt

    return ConvNeXt([CNBlockConfig(8, 16, 1), CNBlockConfig(16, None, 1)], num_classes=10)


def _tv_efficientnet():
    from torchvision.models.efficientnet import MBConvConfig, EfficientNet

    setting = [MBConvConfig(1, 3, 1, 8, 8, 1), MBConvConfig(4, 3, 2, 8, 16, 1), MBConvConfig(4, 5, 2, 16, 24, 1)]
    return EfficientNet(setting, dropout=0.0, num_classes=10, last_channel=32)


def _tv_regnet():
    from torchvision.models.regnet import BlockParams, RegNet

    return RegNet(BlockParams.from_init_params(depth=2, w_0=8, w_a=8.0, w_m=2.0, group_width=8), num_classes=10)


def _tv_squeezenet():
    from torchvision.models import squeezenet1_1

    return squeezenet1_1(weights=None, num_classes=10)


def _tv_shufflenet():
    from torchvision.models import shufflenet_v2_x0_5

    return shufflenet_v2_x0_5(weights=None, num_classes=10)


# -- timm ------------------------------------------------------------------------------------------------
def _timm(name: str, **kw):
    def build():
        import timm

        return timm.create_model(name, pretrained=False, num_classes=10, **kw)

    build.__name__ = f"timm_{name}"
    return build


def _timm_mixer():
    from timm.models.mlp_mixer import MlpMixer

    return MlpMixer(num_classes=10, img_size=32, patch_size=8, num_blocks=1, embed_dim=32)


def _timm_poolformer():
    """timm's poolformer_s12 (MetaFormer with pooling token mixers, GroupNorm1), one block per stage, narrow."""
    from timm.models.metaformer import GroupNorm1, MetaFormer, Pooling
    from torch import nn

    return MetaFormer(depths=(1, 1, 1, 1), dims=(8, 16, 24, 32), token_mixers=Pooling, downsample_norm=None,
                      mlp_act=nn.GELU, mlp_bias=True, norm_layers=GroupNorm1, layer_scale_init_values=1e-5,
                      res_scale_init_values=None, use_mlp_head=False, num_classes=10)


# -- transformers ------------------------------------------------------------------------------------------
_TEXT = dict(vocab_size=96, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
             max_position_embeddings=64)
#: Decoders return a DynamicCache by default, which torch.export cannot return (no pytree for it): off.
_NO_CACHE = dict(use_cache=False, bos_token_id=1, eos_token_id=2)


def _hf(model_cls: str, config_cls: str, **kw):
    def build():
        import transformers

        config = getattr(transformers, config_cls)(**kw)
        config._attn_implementation = "sdpa"
        module = transformers.models.whisper.modeling_whisper if model_cls == "WhisperEncoder" else transformers
        return getattr(module, model_cls)(config)

    build.__name__ = f"hf_{model_cls}"
    return build


def _hf_llama_decode():
    """Llama with ``use_cache=True``: a prefill fills a ``DynamicCache``, one decode step reads it."""
    import torch
    import transformers

    config = transformers.LlamaConfig(**_TEXT, num_key_value_heads=1, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    inner = transformers.LlamaForCausalLM(config)

    class PrefillThenDecode(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = inner

        def forward(self, input_ids, next_ids):
            prefill = self.lm(input_ids=input_ids, use_cache=True)
            step = self.lm(input_ids=next_ids, past_key_values=prefill.past_key_values, use_cache=True)
            cache = step.past_key_values
            return step.logits, cache.layers[0].keys, cache.layers[0].values

    return PrefillThenDecode()


_IMAGE = {"x": ("batch", 3, 32, 32)}
_IMAGE64 = {"x": ("batch", 3, 64, 64)}
_IDS = {"input_ids": ("batch", "seq")}
_IDS_MASK = {"input_ids": ("batch", "seq"), "attention_mask": ("batch", "seq")}
_TEXT_KINDS = {"input_ids": "ids", "attention_mask": "mask", "next_ids": "ids"}
_SEQ = {"example": {"batch": 2, "seq": 8}, "maxima": {"batch": MAX_BATCH, "seq": MAX_SEQ}}


def _vision(name: str, library: str, build: Callable, inputs: Mapping[str, tuple] = _IMAGE) -> Case:
    return Case(name, library, build, inputs)


def _text(name: str, build: Callable, inputs: Mapping[str, tuple] = _IDS) -> Case:
    return Case(name, "transformers", build, inputs, _TEXT_KINDS, **_SEQ)


CASES: dict[str, Case] = {c.name: c for c in [
    _vision("resnet18", "torchvision", _tv_resnet18),
    _vision("mobilenet_v3_small", "torchvision", _tv_mobilenet_v3_small),
    _vision("tv_vit", "torchvision", _tv_vit),
    _vision("tv_swin", "torchvision", _tv_swin),
    _vision("tv_convnext", "torchvision", _tv_convnext),
    _vision("tv_efficientnet", "torchvision", _tv_efficientnet),
    _vision("tv_regnet", "torchvision", _tv_regnet),
    _vision("squeezenet1_1", "torchvision", _tv_squeezenet),
    _vision("shufflenet_v2_x0_5", "torchvision", _tv_shufflenet),
    _vision("vit_tiny", "timm", _timm("vit_tiny_patch16_224", img_size=32, patch_size=8, depth=1)),
    _vision("deit_tiny", "timm", _timm("deit_tiny_patch16_224", img_size=32, patch_size=8, depth=1)),
    _vision("mixer", "timm", _timm_mixer),
    _vision("mobilevit_xxs", "timm", _timm("mobilevit_xxs"), _IMAGE64),
    _vision("convnext_atto", "timm", _timm("convnext_atto", depths=(1, 1, 1, 1), dims=(8, 16, 24, 32))),
    _vision("resnet10t", "timm", _timm("resnet10t")),
    _vision("tinynet_e", "timm", _timm("tinynet_e")),
    _vision("levit_128s", "timm", _timm("levit_128s", img_size=64), _IMAGE64),
    _vision("poolformer", "timm", _timm_poolformer),
    _text("gpt2", _hf("GPT2Model", "GPT2Config", vocab_size=96, n_embd=32, n_layer=1, n_head=2, n_positions=64, **_NO_CACHE)),
    _text("gpt2_mask", _hf("GPT2Model", "GPT2Config", vocab_size=96, n_embd=32, n_layer=1, n_head=2, n_positions=64, **_NO_CACHE),
          _IDS_MASK),
    _text("bert", _hf("BertModel", "BertConfig", **_TEXT)),
    _text("bert_mask", _hf("BertModel", "BertConfig", **_TEXT), _IDS_MASK),
    _text("llama", _hf("LlamaModel", "LlamaConfig", **_TEXT, num_key_value_heads=1, **_NO_CACHE)),
    _text("llama_mask", _hf("LlamaModel", "LlamaConfig", **_TEXT, num_key_value_heads=1, **_NO_CACHE), _IDS_MASK),
    _text("mistral", _hf("MistralModel", "MistralConfig", **_TEXT, num_key_value_heads=1, **_NO_CACHE)),
    _text("qwen2", _hf("Qwen2Model", "Qwen2Config", **_TEXT, num_key_value_heads=1, **_NO_CACHE)),
    _text("t5_encoder", _hf("T5EncoderModel", "T5Config", vocab_size=96, d_model=32, d_kv=16, d_ff=64, num_layers=1,
                            num_heads=2)),
    _text("distilbert", _hf("DistilBertModel", "DistilBertConfig", vocab_size=96, dim=32, n_layers=1, n_heads=2,
                            hidden_dim=64, max_position_embeddings=64)),
    _text("roberta_mask", _hf("RobertaModel", "RobertaConfig", **{**_TEXT, "max_position_embeddings": 72}), _IDS_MASK),
    _text("llama_decode", _hf_llama_decode, {"input_ids": ("batch", "seq"), "next_ids": ("batch", 1)}),
    Case("whisper_encoder", "transformers",
         _hf("WhisperEncoder", "WhisperConfig", vocab_size=96, d_model=32, encoder_layers=1, encoder_attention_heads=2,
             encoder_ffn_dim=64, decoder_layers=1, decoder_attention_heads=2, decoder_ffn_dim=64, num_mel_bins=8,
             max_source_positions=16, pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1),
         {"input_features": ("batch", 8, 32)}),
    Case("wav2vec2", "transformers",
         _hf("Wav2Vec2Model", "Wav2Vec2Config", vocab_size=96, hidden_size=32, num_hidden_layers=1,
             num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
             num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2),
         {"input_values": ("batch", 400)}),
]}
