"""Small models using ``outer``, ``logsumexp``, ``roll``, ``diff``, ``isnan``, ``all``/``any``, ``lerp``, the ops of
``shapeenv.ops.rules.rearrange`` and the losses through
``shapeenv.torch.export``, against ``torch.export`` (output shapes, strides, dtypes as expressions)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.export import Dim  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from shapeenv import ShapeError  # noqa: E402
from shapeenv.export.export import ExportConstraintError  # noqa: E402

from .helpers import as_module, assert_same_as_torch_export  # noqa: E402


class Classifier(nn.Module):
    """Logits, a cross-entropy loss (ignored targets), its accuracy and a logsumexp-based confidence."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)

    def forward(self, x, target):
        logits = self.fc(x)
        loss = F.cross_entropy(logits, target, ignore_index=0, label_smoothing=0.1)
        per_item = F.nll_loss(logits.log_softmax(-1), target, reduction="none")
        correct = (logits.argmax(-1) == target).all()
        return loss, per_item, correct, torch.logsumexp(logits, dim=-1), torch.isfinite(logits).any(dim=1, keepdim=True)


class Upsampler(nn.Module):
    """An ESPCN-style sub-pixel upsampler with a pixel_unshuffle skip and a reconstruction loss."""

    def __init__(self, c=3, r=2):
        super().__init__()
        self.conv = nn.Conv2d(c, c * r * r, 3, padding=1)
        self.r = r

    def forward(self, x):
        up = F.pixel_shuffle(self.conv(x), self.r)
        back = F.pixel_unshuffle(up, self.r)
        return up, back, F.mse_loss(up[:, :, ::2, ::2], x), F.l1_loss(up.roll(1, -1), up, reduction="none")


class GridFeatures(nn.Module):
    """Coordinates from a meshgrid, differences along the sequence, similarity of neighbours."""

    def forward(self, x):
        ys, xs = torch.meshgrid(torch.arange(x.shape[1]), torch.arange(x.shape[2]), indexing="ij")
        grid = torch.stack([ys, xs], -1).float()
        d = torch.diff(x, dim=1)
        sim = F.cosine_similarity(x[:, 1:], x[:, :-1], dim=-1)
        return grid, d, sim, torch.lerp(x, x.flip(1), 0.25), torch.outer(x[0, :, 0], x[0, 0, :])


def test_classifier_with_cross_entropy_matches_torch_export():
    torch.manual_seed(0)
    b = Dim("b")
    assert_same_as_torch_export(Classifier(), (torch.randn(6, 8), torch.randint(0, 5, (6,))),
                                dynamic_shapes={"x": {0: b}, "target": {0: b}})


def test_pixel_shuffle_upsampler_matches_torch_export():
    torch.manual_seed(0)
    assert_same_as_torch_export(Upsampler(), (torch.randn(2, 3, 6, 8),),
                                dynamic_shapes={"x": {0: Dim("b"), 2: Dim("h"), 3: Dim("w")}})


def test_grid_features_match_torch_export():
    torch.manual_seed(0)
    assert_same_as_torch_export(GridFeatures(), (torch.randn(2, 5, 4),),
                                dynamic_shapes={"x": {0: Dim("b"), 1: Dim("t", min=3), 2: Dim("c")}})


def test_pixel_shuffle_of_a_dynamic_channel_count_guards_its_divisibility():
    def shuffle(x):
        return F.pixel_shuffle(x, 2)

    x = torch.randn(1, 8, 3, 3)
    with pytest.raises(ExportConstraintError, match="multiple of 4"):  # as torch.export, a plain Dim is too general
        st.export(shuffle, (x,), dynamic_shapes={"x": {1: Dim("c")}})
    with pytest.raises(torch._dynamo.exc.UserError, match=r"% 4\) == 0"):
        torch.export.export(as_module(shuffle), (x,), dynamic_shapes={"x": {1: Dim("c")}})
    program = st.export(shuffle, (x,), dynamic_shapes={"x": {1: Dim.DYNAMIC}})
    assert any("Mod" in str(g) and "4" in str(g) for g in program.guards), program.guards
    assert_same_as_torch_export(shuffle, (x,), dynamic_shapes={"x": {1: 4 * Dim("c")}})
    with pytest.raises(ShapeError, match="divisible by the square of upscale_factor"):
        st.export(shuffle, (torch.randn(1, 6, 3, 3),))


def test_cross_entropy_target_of_the_wrong_batch_is_an_error_naming_the_op():
    with pytest.raises(ShapeError, match="cross_entropy: Expected input batch_size"):
        st.export(lambda x, t: F.cross_entropy(x, t), (torch.randn(4, 5), torch.zeros(3, dtype=torch.long)))
