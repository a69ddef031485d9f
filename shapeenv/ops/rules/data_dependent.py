"""Ops whose output sizes depend on tensor data: ``nonzero``, ``masked_select``, ``unique``, ``item``.

Each data-dependent size is a fresh *unbacked*, size-like SymInt ``u`` (no hint, range ``[0, oo]``)
with what is known about it recorded as a runtime assert, so later code can reason with it:
``u <= numel`` always (a narrower range when ``numel`` is an int), and ``u >= 1`` for ``unique``
of a provably non-empty tensor. Branching on ``u`` where those facts do not decide raises
:class:`~shapeenv.errors.GuardOnDataDependentSymNode`, whose message suggests the ``check`` to add.

``item()`` of an integer or bool tensor is an unbacked SymInt (not size-like; ``[0, 1]`` for bool).
A float ``item()`` raises :class:`~shapeenv.errors.ShapeError`: shapeenv models integers only, and a
silent placeholder would let shape code compute with a value it does not know.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
>>> y = nonzero(x); y.shape, str(env.bound(y.shape[0])), env.statically_known_true(y.shape[0] <= x.numel())
((u0, 2), '[0, oo]', True)
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from symint import SymInt

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bool_, int64
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import canonical_dim, check_tensor, fmt_shape, known_true, new_tensor, require
from shapeenv.ops.rules.elementwise import broadcast_shapes
from shapeenv.ops.registry import rule

__all__ = ["unbacked_count", "need_env", "nonzero", "masked_select", "unique", "item"]

UniqueResult = namedtuple("UniqueResult", ["output", "inverse_indices", "counts"])


def _data_key(t: FakeTensor) -> tuple:
    """What a tensor's data is, as far as shapes can tell: storage (never reused), version, view geometry."""
    def expr(v: Any) -> Any:
        return t.env.simplify(v.node.expr) if isinstance(v, SymInt) else v

    return (t.storage.id, t.storage.version, expr(t.storage_offset()), tuple(map(expr, t.shape)), tuple(map(expr, t.stride())))


def need_env(env, op: str):
    """``env``, or a typed error: a data-dependent size is a symbol, which needs an environment.

    Raises:
        ShapeError: ``env`` is None (a detached tensor: plain-int sizes made outside any trace).
    """
    if env is None:
        raise ShapeError(f"{op}: the result has a data-dependent size, which needs a ShapeEnv, but the input was created "
                         "with plain-int sizes outside any trace (it has no environment)",
                         fix="create it with env=<ShapeEnv> (ops.zeros(2, 3, env=env)), or inside export/compile")
    return env


def memo_count(env, key: tuple, make):
    """The data-dependent count ``make()`` gives for ``key``, made once per unchanged data (torch reuses it too).

    ``nonzero(x)`` twice on the same, unmodified ``x`` is the same size ``u0``; after an
    in-place op on ``x`` (its version changes) it is a new one.
    """
    memo = need_env(env, key[0]).data_dependent_memo
    if key not in memo:
        memo[key] = make()
    return memo[key]


def unbacked_count(env, upper: Any, what: str, *, at_least_one: bool = False) -> Any:
    """A fresh size-like unbacked SymInt ``u`` with ``u <= upper`` asserted (0 when ``upper`` is provably 0).

    ``at_least_one``: also assert ``u >= 1`` (when the data provably has an element).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); u = unbacked_count(env, 10, "demo"); u, str(env.bound(u))
    (u0, '[0, 10]')
    """
    if known_true(upper == 0):
        return 0
    u = need_env(env, what).create_unbacked_symint(size_like=True)
    env.check(u <= upper, f"{what}: a data-dependent count is at most {upper}")
    if at_least_one:
        env.check(u >= 1, f"{what}: a non-empty input has at least one element")
    return u


@rule("nonzero")
def nonzero(input: FakeTensor) -> FakeTensor:  # noqa: A002
    """``torch.nonzero(input)``: an int64 tensor ``(u, ndim)``, ``u <= input.numel()`` data-dependent (strides ``(1, u)``).

    >>> from shapeenv import ShapeEnv
    >>> nonzero(ShapeEnv().fake_tensor((0, 3), dynamic=False)).shape
    (0, 2)
    """
    check_tensor(input, "nonzero")
    count = memo_count(input.env, ("nonzero", _data_key(input)), lambda: unbacked_count(input.env, input.numel(), "nonzero"))
    return new_tensor(input.env, (count, input.ndim), int64, (1, count))


@rule("masked_select")
def masked_select(input: FakeTensor, mask: FakeTensor) -> FakeTensor:  # noqa: A002
    """``torch.masked_select(input, mask)``: the elements where the (broadcast) bool ``mask`` is set; 1-d, data-dependent.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x"); m = env.fake_tensor((3,), "bool", name="m")
    >>> masked_select(x, m).shape
    (u0,)
    """
    check_tensor(input, "masked_select")
    check_tensor(mask, "masked_select", "mask")
    if mask.dtype != bool_:
        raise ShapeError(f"masked_select: expected a bool tensor for mask, got {mask.dtype}")
    shape = broadcast_shapes(input.shape, mask.shape, op="masked_select")
    numel: Any = 1
    for s in shape:
        numel = numel * s
    count = memo_count(input.env, ("masked_select", _data_key(input), _data_key(mask)),
                       lambda: unbacked_count(input.env, numel, "masked_select"))
    return new_tensor(input.env, (count,), input.dtype)


@rule("unique")
def unique(input: FakeTensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:  # noqa: A002
    """``torch.unique``: the distinct values (or slices along ``dim``), their count data-dependent.

    Returns the output tensor alone, or ``(output, inverse_indices, counts)`` filtered to what was
    asked for, as torch does.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
    >>> out, inv = unique(x, return_inverse=True); out.shape, inv.shape, str(env.bound(out.shape[0]))
    ((u0,), (s0, s1), '[1, oo]')
    """
    check_tensor(input, "unique")
    if dim is None:
        numel = input.numel()
        count = memo_count(input.env, ("unique", _data_key(input), None),
                           lambda: unbacked_count(input.env, numel, "unique", at_least_one=known_true(numel >= 1)))
        output = new_tensor(input.env, (count,), input.dtype)
        inverse = new_tensor(input.env, input.shape, int64)
    else:
        d = canonical_dim(dim, input.ndim, "unique")
        size = input.shape[d]
        count = memo_count(input.env, ("unique", _data_key(input), d),
                           lambda: unbacked_count(input.env, size, "unique", at_least_one=known_true(size >= 1)))
        output = new_tensor(input.env, input.shape[:d] + (count,) + input.shape[d + 1:], input.dtype)
        inverse = new_tensor(input.env, (size,), int64)
    counts = new_tensor(input.env, (count,), int64)
    if not (return_inverse or return_counts):
        return output
    picked = [output] + ([inverse] if return_inverse else []) + ([counts] if return_counts else [])
    return tuple(picked)


@rule("item")
def item(t: FakeTensor) -> SymInt:
    """``t.item()`` of a one-element integer or bool tensor: an unbacked SymInt (see the module docstring).

    Raises:
        ShapeError: ``t`` does not have exactly one element, or has a floating-point dtype.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); n = item(env.fake_tensor((), "int64", name="n")); n, str(env.bound(n))
    (u0, '[-oo, oo]')
    """
    check_tensor(t, "item")
    require(t.numel() == 1, lambda: f"item: a Tensor with {t.numel()} elements cannot be converted to Scalar "
                                    f"(shape {fmt_shape(t.shape)})")
    if t.dtype.is_floating_point:
        raise ShapeError(
            f"item: the value of a {t.dtype} tensor is a data-dependent float, which shapeenv does not model "
            "(only integer and bool item() become unbacked SymInts); keep it as a 0-d tensor instead")
    value = need_env(t.env, "item").create_unbacked_symint(size_like=False)
    if t.dtype == bool_:
        t.env.check(value >= 0, "item: a bool is 0 or 1")
        t.env.check(value <= 1, "item: a bool is 0 or 1")
    return value
