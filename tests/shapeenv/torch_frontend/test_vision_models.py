"""Vision and audio models from torchvision, timm and transformers (tiny configs, random init) with a batch of 1..64.

Each exports with ``Dim("batch", min=1, max=64)``, as torch.export does, keeping the declared range
(Note [Sizes that may be 0 or 1] in :mod:`shapeenv.tensor.layout`); then the model runs in torch eager at
batches 1, 2 and 5, and the predicted output shapes must be eager's. No weights are downloaded.

torchvision 0.28's wheel is built against CUDA torch and fails to import beside the CPU wheel in
``torchvision/_meta_registrations.py``; a stand-in for that one module (registrations of torchvision's
own C++ ops, which these models do not call) is installed before importing torchvision or timm.
"""

from __future__ import annotations

import copy
import sys
import types

import pytest
import sympy

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
tvm = pytest.importorskip("torchvision.models", reason="needs torchvision")
timm = pytest.importorskip("timm", reason="needs timm")
transformers = pytest.importorskip("transformers", reason="needs transformers")

from torch.export import Dim  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from shapeenv.export.export import ExportConstraintError  # noqa: E402
from shapeenv.ops.dispatch import is_tensor  # noqa: E402


def _image(size: int = 32):
    return lambda n: (torch.randn(n, 3, size, size),)


def _whisper():
    cfg = transformers.WhisperConfig(d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                                     decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                                     num_mel_bins=16, max_source_positions=50)
    return transformers.WhisperModel(cfg).get_encoder()


def _wav2vec2():
    cfg = transformers.Wav2Vec2Config(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                                      conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                                      num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2)
    return transformers.Wav2Vec2Model(cfg)


MODELS = {
    "tv_resnet18": (lambda: tvm.resnet18(), _image()),
    "tv_mobilenet_v3_small": (lambda: tvm.mobilenet_v3_small(), _image()),
    "tv_vit": (lambda: tvm.VisionTransformer(image_size=32, patch_size=8, num_layers=1, num_heads=2, hidden_dim=32,
                                             mlp_dim=64), _image()),
    "tv_swin": (lambda: tvm.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[1, 1], num_heads=[1, 2],
                                            window_size=[2, 2]), _image()),
    "tv_convnext": (lambda: tvm.convnext.ConvNeXt([tvm.convnext.CNBlockConfig(8, 16, 1),
                                                   tvm.convnext.CNBlockConfig(16, None, 1)]), _image()),
    "timm_vit_tiny": (lambda: timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32), _image()),
    "timm_mixer": (lambda: timm.models.mlp_mixer.MlpMixer(img_size=32, patch_size=16, num_blocks=2, embed_dim=64),
                   _image()),
    "timm_convnext_atto": (lambda: timm.create_model("convnext_atto", pretrained=False), _image()),
    "timm_resnet10t": (lambda: timm.create_model("resnet10t", pretrained=False), _image()),
    "timm_efficientnet_b0": (lambda: timm.create_model("efficientnet_b0", pretrained=False), _image()),
    "timm_levit_128s": (lambda: timm.create_model("levit_128s", pretrained=False, img_size=64), _image(64)),
    "hf_whisper_encoder": (_whisper, lambda n: (torch.randn(n, 16, 100),)),
    "hf_wav2vec2": (_wav2vec2, lambda n: (torch.randn(n, 800),)),
}


def _outputs(value):
    if isinstance(value, dict) or hasattr(value, "to_tuple"):
        value = tuple(value.values()) if isinstance(value, dict) else value.to_tuple()
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _outputs(v)
    elif value is not None:
        yield value


@pytest.mark.parametrize("name", sorted(MODELS))
def test_exports_with_a_batch_of_one_to_64(name):
    make, inputs = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    eager = copy.deepcopy(model)  # timm's levit caches a tensor computed in forward (the traced one, in the traced model)
    p = st.export(model, inputs(3), dynamic_shapes=({0: Dim("batch", min=1, max=64)},))
    (sym, rng), = p.range_constraints.items()
    assert (int(rng.lower), int(rng.upper)) == (1, 64), p.guards.to_text("torch")
    fakes = [v for v in _outputs(p.outputs) if is_tensor(v)]
    for n in (1, 2, 5):
        with torch.no_grad():
            real = [t for t in _outputs(eager(*inputs(n))) if isinstance(t, torch.Tensor)]
        assert len(real) == len(fakes)
        for fake, out in zip(fakes, real):
            predicted = tuple(int(p.env.simplify(sympy.sympify(d.node.expr if hasattr(d, "node") else d)).subs(sym, n))
                              for d in fake.shape)
            assert predicted == tuple(out.shape), (name, n, predicted, tuple(out.shape))


def test_mobilevit_exports_batch_one_though_a_reshape_is_a_view_only_there():
    """timm's mobilevit reshapes (B, P, N, C) strided as a transpose to (B * P, N, C): a view at B == 1, a copy
    above. Export traces B == 1 again and compares the two programs (Note [Sizes 0 and 1 in export]): the same
    ops, shapes and output strides, so the declared range [1, 64] is kept (torch.export keeps it too, by assuming
    B >= 2), and the predicted shapes hold at 1."""
    model = timm.create_model("mobilevit_xxs", pretrained=False).eval()
    eager = copy.deepcopy(model)
    p = st.export(model, (torch.randn(3, 3, 64, 64),), dynamic_shapes=({0: Dim("batch", min=1, max=64)},))
    (sym, rng), = p.range_constraints.items()
    assert (int(rng.lower), int(rng.upper)) == (1, 64)
    fake, = [v for v in _outputs(p.outputs) if is_tensor(v)]
    for n in (1, 2):
        with torch.no_grad():
            out = eager(torch.randn(n, 3, 64, 64))
        predicted = tuple(int(p.env.simplify(sympy.sympify(d.node.expr if hasattr(d, "node") else d)).subs(sym, n))
                          for d in fake.shape)
        assert predicted == tuple(out.shape)
