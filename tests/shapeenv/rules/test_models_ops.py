"""Unit tests of the ops real models use: the decisions they record, data-dependent sizes, in-place writes,
SymFloat arithmetic with tensors, and the ``shapeenv.ops`` signatures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shapeenv import Dim, ShapeEnv, ShapeError, export, ops
from shapeenv.backends import numpy_backend
from shapeenv.ops.rules.pooling import scaled_size
from symint import SymFloat, SymInt, evaluate, sym_sqrt


def _guards(env: ShapeEnv) -> list[str]:
    return [str(g.expr) for g in env.guards]


def _asserts(env: ShapeEnv) -> list[str]:
    return [str(r.expr) for r in env.runtime_asserts]


# -- SymFloat x tensor -----------------------------------------------------------------------------
def test_tensor_times_symfloat_keeps_shapes_and_promotes_like_a_python_float() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 8), name="x")
    c = x.shape[1]
    scale = c ** 0.5
    assert isinstance(scale, SymFloat)
    for y in (x * scale, scale * x, x * c ** -0.5, scale - x, x / scale, ops.mul(x, scale), x / sym_sqrt(c)):
        assert y.shape == x.shape and y.dtype.name == "float32"
    assert (x.long() * scale).dtype.name == "float32"  # an integer tensor times a float scalar: float32, as in torch
    assert (x.half() * scale).dtype.name == "float16"
    assert _guards(env) == []


def test_math_sqrt_of_a_size_specialises_it() -> None:
    """``math.sqrt`` calls ``float()``, which must return a real float: the size is pinned to its hint (a guard).
    Symbolic code writes ``d ** 0.5`` or ``symint.sym_sqrt(d)`` instead."""
    env = ShapeEnv()
    x = env.fake_tensor((4, 8), name="x")
    y = x / math.sqrt(x.shape[1])
    assert y.shape == x.shape and _guards(env) == ["Eq(s1, 8)"]


def test_attention_scores_scaled_by_a_symbolic_head_dim_export_and_run() -> None:
    def attn(q, k):
        return (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5

    d = Dim("d")
    program = export(attn, ((2, 5, 8), (2, 6, 8)), dynamic_shapes=({1: Dim.DYNAMIC, 2: d}, {1: Dim.DYNAMIC, 2: d}))
    q, k = np.ones((2, 3, 4), np.float32), np.ones((2, 7, 4), np.float32)
    out = numpy_backend(program)(q, k)
    assert out.shape == (2, 3, 7) and np.allclose(out, 4 / 2.0)


# -- decisions recorded -------------------------------------------------------------------------------
def test_norms_guard_only_where_torch_must_decide() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((2, 8, 6, 6), name="x")
    w = env.fake_tensor((6,), name="w", dynamic=[Dim.DYNAMIC])  # its own symbol
    ops.layer_norm(x, (x.shape[-1],), w, w)  # the weight's size must equal the last dim: one unifying guard
    assert _guards(env) == ["Eq(s3, s2)"]
    env = ShapeEnv()
    x = env.fake_tensor((2, 8, 6, 6), name="x")
    ops.layer_norm(x, x.shape[-2:])
    ops.group_norm(x, 1)
    assert _guards(env) == []  # provable: same symbols, and N*C*H*W != 1 for sizes >= 2
    ops.group_norm(x, 4)
    assert _guards(env) == ["Eq(Mod(s1, 4), 0)"]


def test_batch_norm_training_on_a_data_dependent_batch_is_a_runtime_assert() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((8, 3), name="x", dynamic={0: Dim.UNBACKED})
    ops.batch_norm(x, None, None, training=True)
    assert _guards(env) == [] and _asserts(env) == ["Ne(u0, 1)"]  # N * prod(spatial) != 1, deferred to run time
    with pytest.raises(ShapeError, match="more than 1 value per channel"):
        ops.batch_norm(ShapeEnv().fake_tensor((1, 3), dynamic=False), None, None, training=True)


def test_topk_k_is_checked_against_the_size() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 6), name="x")
    assert ops.topk(x, x.shape[1] // 2).values.shape[1] is not None and _guards(env) == []
    ops.topk(x, 5)
    assert _guards(env) == ["s1 >= 5"]
    with pytest.raises(ShapeError, match="selected index k out of range"):
        ops.topk(x, 7)


def test_conv_transpose_output_padding_must_be_below_stride_or_dilation() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((2, 3, 7, 9), name="x", dynamic={0, 2, 3})
    w = env.fake_tensor((3, 4, 3, 3), name="w", dynamic=False)
    assert ops.conv_transpose2d(x, w, None, 2, 1, 1).shape[1] == 4
    with pytest.raises(ShapeError, match="output padding must be smaller than either stride or dilation"):
        ops.conv_transpose2d(x, w, None, 2, 0, 2)


# -- data-dependent sizes -------------------------------------------------------------------------------
def test_one_hot_without_num_classes_is_one_unbacked_count_per_data() -> None:
    env = ShapeEnv()
    i = env.fake_tensor((5,), "int64", name="i")
    a, b = ops.one_hot(i), ops.one_hot(i)
    u = a.shape[-1]
    assert isinstance(u, SymInt) and u.node.hint is None and b.shape[-1] is u
    assert str(env.bound(u)) == "[1, oo]"
    i.add_(1)  # new data: a new count
    assert ops.one_hot(i).shape[-1] is not u
    with pytest.raises(ShapeError, match="Can not infer total number of classes from empty tensor"):
        ops.one_hot(ShapeEnv().fake_tensor((0,), "int64", dynamic=False))


def test_repeat_interleave_with_tensor_repeats() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((3, 4), name="x")
    r = env.fake_tensor((3,), "int64", name="r")
    y = ops.repeat_interleave(x, r, dim=0)
    assert y.shape[0].node.hint is None and y.shape[1] is x.shape[1]
    assert ops.repeat_interleave(x, r, dim=0, output_size=9).shape[0] == 9
    assert ops.repeat_interleave(r).shape[0] is y.shape[0]  # the same sum of the same repeats


def test_setitem_through_a_mask_asserts_the_value_length() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 5), name="x")
    v = env.fake_tensor((3,), name="v", dynamic=False)
    x[x > 0] = v
    assert x.version == 1 and _asserts(env) == ["u0 <= s0*s1", "Eq(u0, 3)"]  # the mask selects len(v) elements


def test_setitem_writes_through_views_and_keeps_the_shape() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 5), name="x")
    t = x.t()
    t[0] = 1.0
    x[:, 1] = env.fake_tensor((1, 4), name="v")
    assert x.shape == (x.shape[0], x.shape[1]) and x.version == t.version == 2
    with pytest.raises(ShapeError, match="cannot be broadcast to indexing result"):
        x[:, 1] = env.fake_tensor((2, 4), name="w", dynamic=False)


def test_setitem_runs_on_the_numpy_backend_and_eagerly() -> None:
    def fn(x, v):
        y = x.clone()
        y[:, 0] = v
        y[y > 2] = 0.0
        return y

    program = export(fn, ((4, 3), (4,)), dynamic_shapes=({0: Dim("n")}, {0: Dim("n")}))
    x = np.arange(15, dtype=np.float32).reshape(5, 3) / 5
    v = np.full(5, 9.0, np.float32)
    out = numpy_backend(program)(x, v)
    expected = x.copy()
    expected[:, 0] = v
    expected[expected > 2] = 0
    assert np.array_equal(out, expected)


# -- dropout, embedding ---------------------------------------------------------------------------------
def test_dropout_aliases_exactly_when_torch_does() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 3), name="x")
    assert ops.dropout(x, 0.5, training=False) is x and ops.dropout(x, 0.0) is x
    assert ops.dropout(x) is not x and ops.dropout(x, inplace=True) is x
    with pytest.raises(ShapeError, match="between 0 and 1"):
        ops.dropout(x, -0.1)


def test_embedding_padding_idx_out_of_range() -> None:
    env = ShapeEnv()
    i = env.fake_tensor((2,), "int64", name="i")
    w = env.fake_tensor((10, 4), name="w", dynamic=False)
    assert ops.embedding(i, w, padding_idx=-10).shape == (i.shape[0], 4)
    for bad in (10, -11):
        with pytest.raises(ShapeError, match="Padding_idx must be within num_embeddings"):
            ops.embedding(i, w, padding_idx=bad)


# -- interpolate's scaled sizes ---------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [0.5, 1.5, 2.0, 0.25, 1.75, 3.0])
def test_dyadic_scales_give_exact_integer_sizes(scale: float) -> None:
    env = ShapeEnv()
    n = env.fake_tensor((7,), name="x").shape[0]
    size = scaled_size(n, scale)
    assert "FloorToInt" not in str(size)
    for value in range(2, 200):
        assert _at(size, n, value) == math.floor(value * scale), (scale, value)


def test_a_symfloat_scale_gives_a_floor_of_the_product() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((2, 3, 8, 8), name="x")
    y = env.fake_tensor((2, 3, 5, 5), name="y")
    scale = y.shape[2] / x.shape[2]  # a SymFloat
    out = ops.interpolate(x, scale_factor=scale)
    assert "FloorToInt" in str(out.shape[2]) and out.shape[2].node.hint == 5


def _at(size, n, value):
    return evaluate(size.node.expr, {n.node.expr: value}) if isinstance(size, SymInt) else size
