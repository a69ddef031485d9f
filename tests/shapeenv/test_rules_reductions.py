"""sum / mean / max / min / amax / argmax / softmax: dims, keepdim, dtypes, empty reductions."""

from __future__ import annotations

import pytest

from shapeenv import ShapeEnv, ShapeError, ops


@pytest.mark.parametrize(
    "fn,shape,dtype",
    [
        (lambda x: x.sum(), "()", "float32"),
        (lambda x: x.sum([0, -1]), "(s1,)", "float32"),
        (lambda x: x.sum((1,), keepdim=True), "(s0, 1, s2)", "float32"),
        (lambda x: x.sum(0, dtype="float64"), "(s1, s2)", "float64"),
        (lambda x: x.bool().sum(0), "(s1, s2)", "int64"),
        (lambda x: x.mean([]), "()", "float32"),
        (lambda x: x.max(), "()", "float32"),
        (lambda x: x.max(-1).values, "(s0, s1)", "float32"),
        (lambda x: x.max(1, True).indices, "(s0, 1, s2)", "int64"),
        (lambda x: x.min(0).indices, "(s1, s2)", "int64"),
        (lambda x: x.amax((0, 2), keepdim=True), "(1, s1, 1)", "float32"),
        (lambda x: x.amin(), "()", "float32"),
        (lambda x: x.argmax(), "()", "int64"),
        (lambda x: x.argmin(2, True), "(s0, s1, 1)", "int64"),
        (lambda x: x.softmax(1), "(s0, s1, s2)", "float32"),
        (lambda x: x.long().softmax(1, dtype="float64"), "(s0, s1, s2)", "float64"),
        (lambda x: x.log_softmax(-1), "(s0, s1, s2)", "float32"),
    ],
)
def test_reduction_shapes_and_dtypes(fn, shape, dtype) -> None:
    env = ShapeEnv()
    x = env.fake_tensor((2, 3, 4), name="x")
    out = fn(x)
    assert (str(out.shape), out.dtype.name) == (shape, dtype)
    assert env.guards == []


def test_max_of_an_unbacked_dim_asserts_it_is_not_empty() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint(size_like=True)
    z = ops.zeros(u, 3, env=env)
    assert str(z.max(0).values.shape) == "(3,)" and [str(a.expr) for a in env.runtime_asserts] == ["Ne(u0, 0)"]
    assert str(z.sum(0).shape) == "(3,)" and len(env.runtime_asserts) == 1  # sum has an identity: no assert


@pytest.mark.parametrize(
    "fn,match",
    [
        (lambda x: x.mean(), "mean: could not infer output dtype; the input dtype must be floating point, got int64"),
        (lambda x: x.softmax(0), "softmax: not implemented for int64"),
        (lambda x: x.sum(2), r"sum: dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
        (lambda x: x.sum([0, 0]), "sum: dim 0 appears multiple times"),
        (lambda x: x[:0].max(), "max: expected reduction dim to be specified for input.numel\\(\\) == 0"),
        (lambda x: x[:0].amax(0), "amax: expected reduction dim 0 to have non-zero size"),
        (lambda x: x[:0].argmax(0), "argmax: expected reduction dim 0 to have non-zero size"),
        (lambda x: ops.softmax(x.float(), None), "softmax: pass dim explicitly"),
    ],
)
def test_errors_name_the_op_arguments_and_condition(fn, match) -> None:
    x = ShapeEnv().fake_tensor((2, 3), "int64", dynamic=False, name="x")
    with pytest.raises(ShapeError, match=match):
        fn(x)
