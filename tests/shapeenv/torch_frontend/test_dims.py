"""``torch.export.Dim`` specs translated to this library's Dims (shapeenv.torch.dims)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from torch.export import Dim as TorchDim  # noqa: E402

from shapeenv import Dim  # noqa: E402
from shapeenv.errors import DynamicShapesTypeError  # noqa: E402
from shapeenv.tensor.dims import DerivedDim  # noqa: E402
from shapeenv.torch.dims import translate, translate_dim  # noqa: E402

CASES = [  # (torch spec, ours)
    (TorchDim("b"), Dim("b")),
    (TorchDim("b", min=3), Dim("b", min=3)),
    (TorchDim("b", max=64), Dim("b", max=64)),
    (TorchDim("b", min=1, max=8), Dim("b", min=1, max=8)),
    (TorchDim.AUTO, Dim.AUTO),
    (TorchDim.STATIC, Dim.STATIC),
    (TorchDim.DYNAMIC, Dim.DYNAMIC),
    (None, None),
    (Dim("ours", max=4), Dim("ours", max=4)),
]


@pytest.mark.parametrize("theirs,ours", CASES, ids=lambda v: repr(v))
def test_translate_dim(theirs, ours):
    assert translate_dim(theirs) == ours, (theirs, translate_dim(theirs), ours)


def test_derived_dims_are_affine_in_their_root():
    d = TorchDim("d", max=10)
    for spec, coeff, offset in ((2 * d, 2, 0), (d + 1, 1, 1), (2 * d + 1, 2, 1), (4 * d - 2, 4, -2)):
        got = translate_dim(spec)
        assert got == DerivedDim(Dim("d", max=10), coeff, offset), (spec.__name__, got)


def test_nested_structures_keep_their_shape():
    b = TorchDim("b")
    specs = {"x": {0: b, 2: TorchDim.AUTO}, "ys": [(b, None), {1: 2 * b}], "n": None}
    assert translate(specs) == {"x": {0: Dim("b"), 2: Dim.AUTO}, "ys": [(Dim("b"), None), {1: 2 * Dim("b")}], "n": None}


def test_a_hint_with_bounds_is_refused_with_a_fix():
    with pytest.raises(DynamicShapesTypeError, match="name the dim"):
        translate_dim(TorchDim.DYNAMIC(min=3, max=10))
