"""Lookups and counts: ``embedding``, ``embedding_bag``, ``one_hot``, ``repeat_interleave``.

* ``embedding(input, weight, ...)``: integer indices of any shape, a 2-d weight ``(num, dim)``;
  the result is ``input.shape + (dim,)``, contiguous, of the weight's dtype. ``padding_idx`` must
  lie in ``[-num, num)``; ``max_norm`` renormalises rows of ``weight`` in place.
* ``embedding_bag``: a 2-d input is ``N`` bags of fixed length (``offsets`` must be None); a 1-d
  input needs 1-d ``offsets``, one per bag (``include_last_offset``: one more). The result is
  ``(bags, dim)``.
* ``one_hot(tensor, num_classes=-1)``: int64 indices; ``num_classes=-1`` means ``max + 1``,
  which depends on the data: an unbacked size ``u >= 1`` (the same ``u`` for the same,
  unmodified tensor), and an empty tensor is an error (torch cannot infer the count).
* ``repeat_interleave``: an int (or SymInt) ``repeats`` scales a size; a tensor ``repeats``
  makes the size data-dependent (an unbacked ``u``) unless ``output_size`` is given.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); i = env.fake_tensor((4, 7), "int64", name="i"); w = env.fake_tensor((100, 16), name="w", dynamic=False)
>>> embedding(i, w).shape, one_hot(i, 10).shape, one_hot(i).shape, repeat_interleave(i, 2, 1).shape
((s0, s1, 16), (s0, s1, 10), (s0, s1, u0), (s0, 2*s1))
"""

from __future__ import annotations

from typing import Any

from symint import SymInt

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import int32, int64
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import canonical_dim, check_size, check_tensor, decide, fmt_shape, new_tensor, require
from shapeenv.ops.rules.data_dependent import _data_key, memo_count, need_env
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule

__all__ = ["embedding", "embedding_bag", "one_hot", "repeat_interleave"]

_INDEX = (int64, int32)


def _indices(op: str, t: Any, what: str = "indices") -> FakeTensor:
    check_tensor(t, op, what)
    if t.dtype not in _INDEX:
        raise ShapeError(f"{op}: Expected tensor for argument '{what}' to have one of the following scalar types: "
                         f"Long, Int; but got {t.dtype}", fix=f"convert it: {what}.long()")
    return t


def _weight(op: str, weight: Any) -> FakeTensor:
    check_tensor(weight, op, "weight")
    if weight.ndim != 2:
        raise ShapeError(f"{op}: 'weight' must be 2-D (num_embeddings, embedding_dim), got shape {fmt_shape(weight.shape)}")
    return weight


def _padding_idx(op: str, padding_idx: Any, num: Any) -> None:
    if padding_idx is None:
        return
    check_size(padding_idx, op, "padding_idx")
    message = lambda: f"{op}: Padding_idx must be within num_embeddings (got {padding_idx} for {num} embeddings)"  # noqa: E731
    require(padding_idx < num, message)
    require(padding_idx >= -num, message)


@rule("embedding")
def embedding(input: FakeTensor, weight: FakeTensor, padding_idx: Any = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> FakeTensor:
    """``F.embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
    sparse=False)``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); w = env.fake_tensor((10, 4), name="w")
    >>> embedding(env.fake_tensor((), "int32", name="i"), w).shape
    (s1,)
    """
    _indices("embedding", input)
    _weight("embedding", weight)
    _padding_idx("embedding", padding_idx, weight.shape[0])
    if max_norm is not None:
        weight.storage.version += 1  # rows are renormalised in place
    return new_tensor(input.env, input.shape + (weight.shape[1],), weight.dtype)


@rule("embedding_bag")
def embedding_bag(input: FakeTensor, weight: FakeTensor, offsets: FakeTensor | None = None, max_norm: Any = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: FakeTensor | None = None, include_last_offset: bool = False,
                  padding_idx: Any = None) -> FakeTensor:
    """``F.embedding_bag(...)`` with torch's arguments (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); w = env.fake_tensor((10, 4), name="w", dynamic=False)
    >>> i = env.fake_tensor((12,), "int64", name="i"); o = env.fake_tensor((3,), "int64", name="o")
    >>> embedding_bag(i, w, o).shape, embedding_bag(i, w, o, include_last_offset=True, mode="sum").shape
    ((s1, 4), (s1 - 1, 4))
    """
    op = "embedding_bag"
    _indices(op, input, "input")
    _weight(op, weight)
    if mode not in ("sum", "mean", "max"):
        raise ShapeError(f"{op}: mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None:
        check_tensor(per_sample_weights, op, "per_sample_weights")
        if mode != "sum":
            raise ShapeError(f"{op}: per_sample_weights was not None. per_sample_weights is only supported for "
                             f"mode='sum' (got mode={mode!r})", fix="pass mode='sum' or drop per_sample_weights")
        message = lambda: (f"{op}: If per_sample_weights ({fmt_shape(per_sample_weights.shape)}) is not None, then it "  # noqa: E731
                           f"must have the same shape as the input ({fmt_shape(input.shape)})")
        if per_sample_weights.ndim != input.ndim:
            raise ShapeError(message())
        for a, b in zip(per_sample_weights.shape, input.shape):
            require(a == b, message)
    if input.ndim == 2:
        if offsets is not None:
            raise ShapeError(f"{op}: if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                             "of fixed length sequences", fix="drop offsets, or flatten the input to 1-D")
        bags = input.shape[0] - 1 if include_last_offset else input.shape[0]
    elif input.ndim == 1:
        if offsets is None or not is_tensor(offsets) or offsets.ndim != 1:
            got = "None" if offsets is None else (fmt_shape(offsets.shape) if is_tensor(offsets) else repr(offsets))
            raise ShapeError(f"{op}: offsets has to be a 1D Tensor but got {got}",
                             fix="pass the start index of each bag: offsets=ops.arange(0, n, bag_length)")
        _indices(op, offsets, "offsets")
        bags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    else:
        raise ShapeError(f"{op}: input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if include_last_offset:
        require(bags >= 0, lambda: f"{op}: include_last_offset needs at least one offset")
    _padding_idx(op, padding_idx, weight.shape[0])
    if max_norm is not None:
        weight.storage.version += 1
    return new_tensor(input.env, (bags, weight.shape[1]), weight.dtype)


@rule("one_hot")
def one_hot(tensor: FakeTensor, num_classes: Any = -1) -> FakeTensor:
    """``F.one_hot(tensor, num_classes=-1)``: int64 ``tensor.shape + (num_classes,)``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); i = env.fake_tensor((5,), "int64", name="i")
    >>> c = one_hot(i).shape[-1]; c is one_hot(i).shape[-1], str(env.bound(c))
    (True, '[1, oo]')
    """
    check_tensor(tensor, "one_hot", "tensor")
    if tensor.dtype != int64:
        raise ShapeError(f"one_hot: one_hot is only applicable to index tensor of type LongTensor, got {tensor.dtype}",
                         fix="convert the indices: tensor.long()")
    check_size(num_classes, "one_hot", "num_classes")
    if isinstance(num_classes, int) and num_classes == -1:
        if decide(tensor.numel() == 0):
            raise ShapeError("one_hot: Can not infer total number of classes from empty tensor",
                             fix="pass num_classes explicitly")
        env = need_env(tensor.env, "one_hot")

        def make():
            u = env.create_unbacked_symint(size_like=True)
            env.check(u >= 1, "one_hot: the number of classes is the largest index + 1")
            return u

        classes = memo_count(env, ("one_hot", _data_key(tensor)), make)
    else:
        require(num_classes >= 0, lambda: f"one_hot: num_classes should be positive or -1, got {num_classes}")
        classes = num_classes
    return new_tensor(tensor.env, tensor.shape + (classes,), int64)


@rule("repeat_interleave")
def repeat_interleave(input: FakeTensor, repeats: Any = None, dim: Any = None, output_size: Any = None) -> FakeTensor:
    """``torch.repeat_interleave(input, repeats, dim=None, *, output_size=None)``, or ``(repeats)`` alone.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x"); r = env.fake_tensor((4,), "int64", name="r")
    >>> repeat_interleave(x, 3).shape, repeat_interleave(x, r, 0).shape, repeat_interleave(r).shape
    ((3*s0*s1,), (u0, s1), (u0,))
    """
    op = "repeat_interleave"
    check_tensor(input, op)
    if output_size is not None:
        check_size(output_size, op, "output_size")
    if repeats is None:  # repeat_interleave(repeats): arange(n) repeated repeats[i] times
        _indices(op, input, "repeats")
        if input.ndim != 1:
            raise ShapeError(f"{op}: repeats must be 0-dim or 1-dim tensor, got shape {fmt_shape(input.shape)}")
        size = output_size if output_size is not None else _total(input, input.numel())
        return new_tensor(input.env, (size,), int64)
    if dim is None:  # the flattened input
        shape, d = (input.numel(),), 0
    else:
        d = canonical_dim(dim, input.ndim, op)
        shape = input.shape if input.ndim else (1,)
    n = shape[d]
    if is_tensor(repeats):
        _indices(op, repeats, "repeats")
        if repeats.ndim > 1:
            raise ShapeError(f"{op}: repeats must be 0-dim or 1-dim tensor, got shape {fmt_shape(repeats.shape)}")
        if repeats.ndim == 1 and not (isinstance(repeats.shape[0], int) and repeats.shape[0] == 1):
            require(repeats.shape[0] == n, lambda: (
                f"{op}: repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{repeats.shape[0]} and input.size({d}) = {n}"))
        size = output_size if output_size is not None else _total(repeats, n)
    else:
        check_size(repeats, op, "repeats")
        require(repeats >= 0, lambda: f"{op}: repeats can not be negative, got {repeats}")
        size = n * repeats
    return new_tensor(input.env, shape[:d] + (size,) + shape[d + 1:], input.dtype)


def _total(repeats: FakeTensor, count: Any) -> Any:
    """The data-dependent sum of ``repeats`` (expanded to ``count`` entries): one unbacked size per data."""
    env = need_env(repeats.env, "repeat_interleave")
    key = ("repeat_interleave", _data_key(repeats), str(count) if isinstance(count, SymInt) else count)
    return memo_count(env, key, lambda: env.create_unbacked_symint(size_like=True))
