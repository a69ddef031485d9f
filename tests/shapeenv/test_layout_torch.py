"""Output strides against real torch, for inputs of random layouts (permuted, stepped, expanded, channels-last).

Each sample makes torch tensors of some layout, gives fake tensors the same sizes and strides
(static, and symbolic evaluated at the hints), runs one op on both and compares the output
strides where the size is not 1 (torch's choice there is arbitrary), and whether the output
aliases the input.
"""

from __future__ import annotations

import random

import pytest

from shapeenv import ShapeEnv, ShapeError, ops
from shapeenv.tensor.factory import make_input_tensor

from .test_rules_cases import concrete

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch


def _layout(rng: random.Random, shape: tuple):
    """A random layout of a tensor of ``shape``: the torch tensor and how it was made."""
    kind = rng.choice(["contig", "t", "perm", "step", "expand", "unsq", "cl"])
    n = len(shape)
    if kind == "t" and n >= 2:
        return torch.randn(shape[::-1]).permute(*range(n - 1, -1, -1)), kind
    if kind == "perm" and n >= 2:
        order = list(range(n))
        rng.shuffle(order)
        inverse = sorted(range(n), key=order.__getitem__)
        return torch.randn([shape[d] for d in order]).permute(*inverse), f"perm{order}"
    if kind == "step":
        d = rng.randrange(n)
        big = list(shape)
        big[d] *= 2
        return torch.randn(big).narrow(d, 0, 2 * shape[d])[(slice(None),) * d + (slice(None, None, 2),)], f"step{d}"
    if kind == "expand":
        d = rng.randrange(n)
        small = list(shape)
        small[d] = 1
        return torch.randn(small).expand(*shape), f"expand{d}"
    if kind == "cl" and n == 4:
        return torch.randn(shape).contiguous(memory_format=torch.channels_last), kind
    return torch.randn(shape), "contig"


OPS = {
    "add-self": (lambda L, x, y: x + x),
    "mul-other": (lambda L, x, y: x * y),
    "sub-bcast": (lambda L, x, y: x - y[0]),
    "neg": (lambda L, x, y: -x),
    "exp": (lambda L, x, y: x.exp()),
    "where": (lambda L, x, y: L.where(x > 0, y, x)),
    "clone": (lambda L, x, y: x.clone()),
    "clone-contig": (lambda L, x, y: x.clone(memory_format=L.contiguous_format)),
    "contiguous": (lambda L, x, y: x.contiguous()),
    "empty-like": (lambda L, x, y: L.empty_like(x)),
    "to-int": (lambda L, x, y: x.to(L.int64)),
    "flip": (lambda L, x, y: x.flip(0)),
    "sum": (lambda L, x, y: x.sum(-1)),
    "cat": (lambda L, x, y: L.cat([x, y], 0)),
}
CL_OPS = {
    "clone-cl": (lambda L, x, y: x.clone(memory_format=L.channels_last)),
    "contiguous-cl": (lambda L, x, y: x.contiguous(memory_format=L.channels_last)),
}


class _TorchNS:
    where, empty_like, cat = torch.where, torch.empty_like, torch.cat
    int64, channels_last, contiguous_format = torch.int64, torch.channels_last, torch.contiguous_format


class _OurNS:
    where, empty_like, cat = ops.where, ops.empty_like, ops.cat
    int64, channels_last, contiguous_format = "int64", "channels_last", "contiguous_format"


def _fake(env: ShapeEnv, t, name: str, dynamic: bool):
    fake, _ = make_input_tensor(env, tuple(t.shape), "float32", dynamic, name, tuple(t.stride()), t.storage_offset())
    return fake


def _compare(label: str, want, got, inputs) -> None:
    if isinstance(want, Exception):
        assert isinstance(got, ShapeError), f"{label}: torch raises {want!r}, we give {got}"
        return
    assert not isinstance(got, ShapeError), f"{label}: we raise {got}; torch gives {tuple(want.shape)} {want.stride()}"
    shape = tuple(concrete(s) for s in got.shape)
    assert shape == tuple(want.shape), label
    if want.numel() == 0:
        return
    have = [concrete(s) for s, n in zip(got.stride(), shape) if n != 1]
    assert have == [s for s, n in zip(want.stride(), want.shape) if n != 1], (
        f"{label}: strides {tuple(concrete(s) for s in got.stride())} vs torch {want.stride()}")


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "symbolic"])
def test_output_strides_of_random_layouts_agree_with_torch(dynamic: bool) -> None:
    rng = random.Random(17)
    compared = 0
    for _ in range(160):
        shape = tuple(rng.choice([2, 3, 4, 5]) for _ in range(rng.choice([2, 3, 4])))
        x, kx = _layout(rng, shape)
        y, ky = _layout(rng, shape)
        table = dict(OPS, **(CL_OPS if len(shape) == 4 else {}))
        name = rng.choice(sorted(table))
        fn = table[name]
        label = f"{name} on {kx}{tuple(x.shape)}@{x.stride()}, {ky}@{y.stride()} ({'symbolic' if dynamic else 'static'})"
        try:
            want = fn(_TorchNS, x, y)
        except RuntimeError as e:
            want = e
        env = ShapeEnv()
        fx, fy = _fake(env, x, "x", dynamic), _fake(env, y, "y", dynamic)
        try:
            got = fn(_OurNS, fx, fy)
        except ShapeError as e:
            got = e
        _compare(label, want, got, (fx, fy))
        if not isinstance(want, Exception):
            aliases = want.data_ptr() == x.data_ptr() and want.numel() > 0
            assert bool(got.is_view_of(fx)) == aliases or want.numel() == 0, f"{label}: aliasing"
            compared += 1
        for g in env.guards:
            assert env.hint_of(g.expr) is True, f"{label}: guard {g.expr} false at the hints"
    assert compared > 120
