"""The helpers behind every rule: what each kind of question records, and the size arithmetic."""

from __future__ import annotations

import math

import pytest

from guards import Source
from shapeenv import CheckFailedError, ShapeEnv, ShapeError
from shapeenv.tensor import contiguous_strides
from shapeenv.ops.common import (
    canonical_dim,
    canonical_dims,
    ceil_div,
    decide,
    is_contiguous,
    known_false,
    known_true,
    like_strides,
    require,
    size_args,
    smax,
    smin,
)
from symint import SymInt, evaluate


def _env_and_size(hint: int = 6):
    env = ShapeEnv()
    return env, env.create_symint(hint, Source.size("x", 0))


@pytest.mark.parametrize(
    "make_cond, guards, asserts, raises",
    [
        (lambda n, u: n >= 2, 0, 0, False),  # provable from the range [2, oo]
        (lambda n, u: n % 3 == 0, 1, 0, False),  # true at the hint 6: a guard
        (lambda n, u: n % 4 == 0, 1, 0, True),  # false at the hint: a guard on the negation, then an error
        (lambda n, u: n < 2, 0, 0, True),  # provably false: an error, nothing recorded
        (lambda n, u: u <= n, 0, 1, False),  # unbacked: a runtime assert
        (lambda n, u: True, 0, 0, False),
        (lambda n, u: False, 0, 0, True),
    ],
)
def test_require_records_what_torch_check_would(make_cond, guards, asserts, raises) -> None:
    env, n = _env_and_size()
    u = env.create_unbacked_symint(size_like=True)
    cond = make_cond(n, u)
    if raises:
        with pytest.raises(ShapeError, match="the message"):
            require(cond, lambda: "the message")
    else:
        require(cond, lambda: "the message")
    assert (len(env.guards), len(env.runtime_asserts)) == (guards, asserts)


def test_require_on_contradicting_unbacked_fact_fails() -> None:
    env, n = _env_and_size()
    u = env.create_unbacked_symint(size_like=True)
    require(u < 3, lambda: "u < 3")
    with pytest.raises((ShapeError, CheckFailedError)):
        require(u > 5, lambda: "u > 5")


def test_decide_guards_backed_and_gives_up_on_unbacked() -> None:
    env, n = _env_and_size()
    u = env.create_unbacked_symint()
    assert decide(n > 3) is True and len(env.guards) == 1
    assert decide(n > 1) is True and len(env.guards) == 1
    assert decide(u > 3) is None and len(env.guards) == 1
    assert decide(4 > 3) is True


def test_known_true_and_false_record_nothing() -> None:
    env, n = _env_and_size()
    table = [(n >= 2, True, False), (n > 5, False, False), (n < 2, False, True), (n * 2 == n + n, True, False)]
    for cond, true, false in table:
        assert (known_true(cond), known_false(cond)) == (true, false), cond
    assert env.guards == [] and env.runtime_asserts == []


@pytest.mark.parametrize("a,b,expected", [(1, "n", 1), ("n", 1, 1), ("n", "n+1", "n"), (3, "n", "Min(3, s0)")])
def test_smin_simplifies_only_when_provable(a, b, expected) -> None:
    env, n = _env_and_size()
    val = {"n": n, "n+1": n + 1}
    result = smin(val.get(a, a), val.get(b, b))
    assert str(result) == str(val.get(expected, expected))
    assert env.guards == []


def test_smax_of_difference_and_zero() -> None:
    env, n = _env_and_size()
    assert smax(n - 2, 0) is not None and str(smax(n - 2, 0)) == "s0 - 2"
    assert str(smax(n - 7, 0)) == "Max(0, s0 - 7)"
    assert env.guards == []


def test_ceil_div_is_pythons_ceiling() -> None:
    env = ShapeEnv(specialize_zero_one=False)
    for a in range(-9, 10):
        s = env.create_symint(a, Source.value(f"a{a + 9}"), min=-100)
        for b in [-4, -3, -1, 1, 2, 3, 5]:
            assert ceil_div(a, b) == math.ceil(a / b)
            got = ceil_div(s, b)
            assert isinstance(got, SymInt) or b in (1, -1)
            value = evaluate(got.node.expr, {s.node.expr: a}) if isinstance(got, SymInt) else got
            assert value == math.ceil(a / b) == (got.node.hint if isinstance(got, SymInt) else got), (a, b, got)


@pytest.mark.parametrize(
    "dim,ndim,expected",
    [(0, 3, 0), (-1, 3, 2), (2, 3, 2), (-3, 3, 0), (3, 3, ShapeError), (-4, 3, ShapeError),
     (0, 0, 0), (-1, 0, 0), (1, 0, ShapeError), (True, 2, ShapeError), (1.0, 2, ShapeError)],
)
def test_canonical_dim(dim, ndim, expected) -> None:
    if expected is ShapeError:
        with pytest.raises(ShapeError, match="sum"):
            canonical_dim(dim, ndim, "sum")
    else:
        assert canonical_dim(dim, ndim, "sum") == expected


def test_canonical_dims_rejects_repeats() -> None:
    assert canonical_dims([0, -1], 3, "sum") == [0, 2]
    with pytest.raises(ShapeError, match="dim 2 appears multiple times"):
        canonical_dims([2, -1], 3, "sum")


def test_size_args_accepts_both_spellings_and_rejects_non_ints() -> None:
    assert size_args((2, 3), "zeros") == size_args(([2, 3],), "zeros") == (2, 3)
    for bad in [(2.0,), (True,), ("3",)]:
        with pytest.raises(ShapeError, match="zeros: size 0 must be an int or SymInt"):
            size_args(bad, "zeros")


def test_contiguity_and_like_strides() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((2, 3, 4), name="x")
    t = x.transpose(0, 2)
    cases = [
        (x, True, x.stride()),
        (t, False, t.stride()),  # a dense permutation keeps its layout
        (x[:, ::2], False, None),  # not dense: row-major
        (x.unsqueeze(1).expand(-1, 5, -1, -1), False, None),  # overlapping: row-major
        (x[:1], True, None),  # a size-1 dim's stride does not matter
    ]
    for t, contiguous, strides in cases:
        assert is_contiguous(t) is contiguous, t
        expected = strides if strides is not None else contiguous_strides(t.shape)
        before = len(env.guards)
        assert [str(s) for s in like_strides(t)] == [str(s) for s in expected], t
        # torch's density test asks which dims have size < 2; only the stepped slice's CeilDiv(s1, 2) is not provable
        assert all(env.hint_of(g.expr) for g in env.guards[before:]), t
        assert len(env.guards) == before or t.shape[1] is not x.shape[1], (t, env.guards[before:])
