"""Reductions and normalisations: ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``,
``argmax``/``argmin``, ``softmax``/``log_softmax``, ``logsumexp`` and ``all``/``any``.

``dim`` is an int, a list of distinct ints (negative ok), or None (or ``[]``) for all dims;
``keepdim`` keeps reduced dims as size 1. Reductions without an identity (``max``, ``amax``,
``argmax``...) need each reduced dim to be non-empty: free for backed sizes (which are at least 2),
a runtime assert for unbacked ones.

* ``logsumexp(input, dim, keepdim=False)``: ``dim`` is required (an int or a list); integer and bool
  inputs give float32 (torch's default dtype); contiguous. ``dim=()`` reduces nothing and fails
  (torch: the keepdim-ed max does not broadcast to the result) unless ``keepdim`` or a 0-d input.
* ``all``/``any(input, dim=None, keepdim=False)``: bool (uint8 for uint8 inputs, as torch and numpy),
  contiguous; ``dim`` an int, a tuple or None (all dims).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 3, 5), name="x")
>>> sum_(x, [0, -1]).shape, mean(x, 1, keepdim=True).shape, max_(x, 2).indices.shape, len(env.guards)
((s1,), (s0, 1, s2), (s0, s1), 0)
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import DType, bool_, float32, int64, uint8
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import as_dtype_arg, canonical_dim, canonical_dims, check_tensor, fmt_shape, new_tensor, require
from shapeenv.ops.rules.elementwise import maximum_impl, minimum_impl
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule

__all__ = ["sum_", "mean", "max_", "min_", "amax", "amin", "argmax", "argmin", "softmax", "log_softmax", "logsumexp",
           "all_", "any_"]

MaxResult = namedtuple("max", ["values", "indices"])
MinResult = namedtuple("min", ["values", "indices"])


def reduced_dims(t: FakeTensor, dim: Any, op: str) -> list[int]:
    """The dimensions a reduction over ``dim`` removes: all of them for None or an empty list.

    >>> from shapeenv import ShapeEnv
    >>> t = ShapeEnv().fake_tensor((2, 3, 4), dynamic=False)
    >>> reduced_dims(t, None, "sum"), reduced_dims(t, -1, "sum"), reduced_dims(t, (0, 2), "sum")
    ([0, 1, 2], [2], [0, 2])
    """
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return list(range(t.ndim))
    return canonical_dims(dim, t.ndim, op)


def reduced_shape(t: FakeTensor, dims: list[int], keepdim: bool) -> tuple:
    """``t``'s shape with ``dims`` removed (or set to 1 when ``keepdim``)."""
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(t.shape))
    return tuple(s for d, s in enumerate(t.shape) if d not in dims)


def _nonempty(t: FakeTensor, dims: list[int] | None, op: str) -> None:
    """Reductions without an identity: the reduced dims (all, if None) must not be empty."""
    if dims is None:
        require(t.numel() != 0, lambda: (
            f"{op}: expected reduction dim to be specified for input.numel() == 0 (input shape {fmt_shape(t.shape)}); "
            "specify the reduction dim with the 'dim' argument"))
        return
    for d in dims:
        if t.ndim:
            require(t.shape[d] != 0, lambda d=d: (
                f"{op}: expected reduction dim {d} to have non-zero size (input shape {fmt_shape(t.shape)})"))


def _sum_dtype(t: FakeTensor, dtype: DType | None) -> DType:
    if dtype is not None:
        return dtype
    return t.dtype if t.dtype.is_floating_point else int64


@rule("sum")
def sum_(input: FakeTensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> FakeTensor:  # noqa: A002
    """``input.sum(dim, keepdim, dtype)``; integer and bool inputs sum to int64, as in torch.

    >>> from shapeenv import ShapeEnv
    >>> sum_(ShapeEnv().fake_tensor((2, 3), "bool")).dtype
    int64
    """
    check_tensor(input, "sum")
    dims = reduced_dims(input, dim, "sum")
    return new_tensor(input.env, reduced_shape(input, dims, keepdim), _sum_dtype(input, as_dtype_arg(dtype, "sum")))


@rule("mean")
def mean(input: FakeTensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> FakeTensor:  # noqa: A002
    """``input.mean(dim, keepdim, dtype)``: needs a floating-point input or ``dtype``.

    >>> from shapeenv import ShapeEnv
    >>> mean(ShapeEnv().fake_tensor((2, 3)), -1).shape
    (s0,)
    """
    check_tensor(input, "mean")
    out_dtype = as_dtype_arg(dtype, "mean") or input.dtype
    if not out_dtype.is_floating_point:
        raise ShapeError(f"mean: could not infer output dtype; the input dtype must be floating point, got {input.dtype} "
                         "(pass dtype=float32 or convert the input)")
    dims = reduced_dims(input, dim, "mean")
    return new_tensor(input.env, reduced_shape(input, dims, keepdim), out_dtype)


def _max_min(op: str, result: type, other_impl, t: FakeTensor, dim: Any, keepdim: bool) -> Any:
    check_tensor(t, op)
    if is_tensor(dim):
        return other_impl(t, dim, op)
    if dim is None:
        if keepdim:
            raise ShapeError(f"{op}: keepdim needs a dim")
        _nonempty(t, None, op)
        return new_tensor(t.env, (), t.dtype)
    d = canonical_dim(dim, t.ndim, op)
    _nonempty(t, [d], op)
    shape = reduced_shape(t, [d] if t.ndim else [], keepdim)
    return result(new_tensor(t.env, shape, t.dtype), new_tensor(t.env, shape, int64))


@rule("max")
def max_(t: FakeTensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.max``: of all elements (0-d), ``(values, indices)`` along ``dim``, or elementwise with a tensor.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((2, 3), name="x")
    >>> max_(x).shape, max_(x, 1, True).values.shape, max_(x, env.fake_tensor((3,), name="y")).shape
    ((), (s0, 1), (s0, s1))
    """
    return _max_min("max", MaxResult, maximum_impl, t, dim, keepdim)


@rule("min")
def min_(t: FakeTensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.min``: like :func:`max_`.

    >>> from shapeenv import ShapeEnv
    >>> min_(ShapeEnv().fake_tensor((2, 3)), 0).values.shape
    (s1,)
    """
    return _max_min("min", MinResult, minimum_impl, t, dim, keepdim)


def _amax_amin(op: str, t: FakeTensor, dim: Any, keepdim: bool) -> FakeTensor:
    check_tensor(t, op)
    dims = reduced_dims(t, dim, op)
    _nonempty(t, None if len(dims) == t.ndim else dims, op)
    return new_tensor(t.env, reduced_shape(t, dims, keepdim), t.dtype)


@rule("amax")
def amax(input: FakeTensor, dim: Any = (), keepdim: bool = False) -> FakeTensor:  # noqa: A002
    """``torch.amax(input, dim, keepdim)``: the maximum over ``dim`` (all dims for ``()``); values only.

    >>> from shapeenv import ShapeEnv
    >>> amax(ShapeEnv().fake_tensor((2, 3, 4)), (0, 2)).shape
    (s1,)
    """
    return _amax_amin("amax", input, dim, keepdim)


@rule("amin")
def amin(input: FakeTensor, dim: Any = (), keepdim: bool = False) -> FakeTensor:  # noqa: A002
    """``torch.amin``: like :func:`amax`.

    >>> from shapeenv import ShapeEnv
    >>> amin(ShapeEnv().fake_tensor((2, 3)), 1, True).shape
    (s0, 1)
    """
    return _amax_amin("amin", input, dim, keepdim)


def _arg(op: str, t: FakeTensor, dim: Any, keepdim: bool) -> FakeTensor:
    check_tensor(t, op)
    if dim is None:
        _nonempty(t, None, op)
        return new_tensor(t.env, (1,) * t.ndim if keepdim else (), int64)
    d = canonical_dim(dim, t.ndim, op)
    _nonempty(t, [d], op)
    return new_tensor(t.env, reduced_shape(t, [d] if t.ndim else [], keepdim), int64)


@rule("argmax")
def argmax(input: FakeTensor, dim: Any = None, keepdim: bool = False) -> FakeTensor:  # noqa: A002
    """``torch.argmax``: int64 indices along ``dim`` (of the flattened tensor for None).

    >>> from shapeenv import ShapeEnv
    >>> argmax(ShapeEnv().fake_tensor((2, 3)), 1).shape
    (s0,)
    """
    return _arg("argmax", input, dim, keepdim)


@rule("argmin")
def argmin(input: FakeTensor, dim: Any = None, keepdim: bool = False) -> FakeTensor:  # noqa: A002
    """``torch.argmin``: like :func:`argmax`.

    >>> from shapeenv import ShapeEnv
    >>> argmin(ShapeEnv().fake_tensor((2, 3))).shape
    ()
    """
    return _arg("argmin", input, dim, keepdim)


def _softmax(op: str, t: FakeTensor, dim: Any, dtype: Any) -> FakeTensor:
    check_tensor(t, op)
    if dim is None:
        raise ShapeError(f"{op}: pass dim explicitly (torch's implicit choice of dim is deprecated)")
    canonical_dim(dim, t.ndim, op)
    out_dtype = as_dtype_arg(dtype, op) or t.dtype
    if not out_dtype.is_floating_point:
        raise ShapeError(f"{op}: not implemented for {t.dtype}; pass a floating-point dtype or convert the input")
    return new_tensor(t.env, t.shape, out_dtype)


@rule("softmax")
def softmax(t: FakeTensor, dim: Any = None, dtype: Any = None) -> FakeTensor:
    """``torch.softmax(t, dim, dtype)``: same shape; needs a floating-point input or ``dtype``.

    >>> from shapeenv import ShapeEnv
    >>> softmax(ShapeEnv().fake_tensor((2, 3)), -1).shape
    (s0, s1)
    """
    return _softmax("softmax", t, dim, dtype)


@rule("log_softmax")
def log_softmax(t: FakeTensor, dim: Any = None, dtype: Any = None) -> FakeTensor:
    """``torch.log_softmax``: like :func:`softmax`.

    >>> from shapeenv import ShapeEnv
    >>> log_softmax(ShapeEnv().fake_tensor((2, 3)), 0).shape
    (s0, s1)
    """
    return _softmax("log_softmax", t, dim, dtype)


@rule("logsumexp")
def logsumexp(input: FakeTensor, dim: Any, keepdim: bool = False) -> FakeTensor:  # noqa: A002
    """``torch.logsumexp(input, dim, keepdim=False)``.

    >>> from shapeenv import ShapeEnv
    >>> logsumexp(ShapeEnv().fake_tensor((2, 3), "int64"), [0, 1], keepdim=True).shape
    (1, 1)
    """
    check_tensor(input, "logsumexp")
    if dim is None:
        raise ShapeError("logsumexp: dim is required", fix="pass the dims to reduce: torch.logsumexp(x, dim=-1)")
    dims = canonical_dims(dim, input.ndim, "logsumexp")
    if not dims:
        if input.ndim and not keepdim:
            raise ShapeError(f"logsumexp: dim=() on a {input.ndim}-d input reduces all dims for the max but none for "
                             f"the sum (torch: output with shape [] doesn't match the broadcast shape)",
                             fix="pass the dims to reduce explicitly: torch.logsumexp(x, dim=tuple(range(x.ndim)))")
        dims = list(range(input.ndim))
    dtype = input.dtype if input.dtype.is_floating_point else float32
    return new_tensor(input.env, reduced_shape(input, dims if input.ndim else [], bool(keepdim)), dtype)


def _all_any(op: str, input: FakeTensor, dim: Any, keepdim: bool) -> FakeTensor:
    check_tensor(input, op)
    dims = reduced_dims(input, dim, op)
    return new_tensor(input.env, reduced_shape(input, dims, bool(keepdim)), uint8 if input.dtype == uint8 else bool_)


@rule("all")
def all_(input: FakeTensor, dim: Any = None, keepdim: bool = False) -> FakeTensor:  # noqa: A002
    """``torch.all(input, dim=None, keepdim=False)`` (and ``Tensor.all``).

    >>> from shapeenv import ShapeEnv
    >>> all_(ShapeEnv().fake_tensor((2, 3), "uint8"), 1, True).dtype
    uint8
    """
    return _all_any("all", input, dim, keepdim)


@rule("any")
def any_(input: FakeTensor, dim: Any = None, keepdim: bool = False) -> FakeTensor:  # noqa: A002
    """``torch.any(input, dim=None, keepdim=False)`` (and ``Tensor.any``).

    >>> from shapeenv import ShapeEnv
    >>> any_(ShapeEnv().fake_tensor((2, 3)), (0, 1)).shape
    ()
    """
    return _all_any("any", input, dim, keepdim)
