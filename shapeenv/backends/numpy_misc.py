"""numpy implementations of bitwise/logical ops, scans, sorting, statistics, lookups, writes through an
index, ``einsum``, more pointwise math, norms and recurrent cells.

Same contract as :mod:`shapeenv.backends.numpy_kernels` (one kernel per op, the shape rule's
parameters, torch's semantics): integer indices select before advanced ones in ``setitem`` as
in ``getitem``; ``sort``/``topk`` are stable (ties keep their order, descending too); the
interpreter casts each result to the dtype the program predicts.

>>> import numpy as np
>>> KERNELS["sort"](np.array([3, 1, 3, 2]), -1, True)[1].tolist()
[0, 2, 3, 1]
>>> KERNELS["repeat_interleave"](np.array([2, 0, 1]))
array([0, 0, 2])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .numpy_kernels import KERNELS, axis, kernel, np_dtype, split_index  # noqa: F401  (KERNELS: for the doctest)

__all__: list[str] = []

def _binary(name: str, fn: Any) -> None:
    def run(input: Any, other: Any) -> np.ndarray:
        return fn(input, other)

    run.__doc__ = f"``torch.{name}``."
    kernel(name)(run)


for _name, _fn in {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
                   "logical_and": np.logical_and, "logical_or": np.logical_or,
                   "logical_xor": np.logical_xor}.items():
    _binary(_name, _fn)


def _inplace_binary(name: str, fn: Any) -> None:
    def run(input: np.ndarray, other: Any) -> np.ndarray:
        fn(input, other, out=input)
        return input

    run.__doc__ = f"``torch.Tensor.{name}``."
    kernel(name)(run)


for _name, _fn in {"bitwise_and_": np.bitwise_and, "bitwise_or_": np.bitwise_or, "bitwise_xor_": np.bitwise_xor}.items():
    _inplace_binary(_name, _fn)


@kernel("logical_not_")
def logical_not_(input: np.ndarray) -> np.ndarray:
    """``input.logical_not_()``."""
    input[...] = np.logical_not(input)
    return input


@kernel("bitwise_not")
def bitwise_not(input: np.ndarray) -> np.ndarray:
    """``~input``."""
    return np.invert(input)


@kernel("logical_not")
def logical_not(input: np.ndarray) -> np.ndarray:
    """``torch.logical_not``."""
    return np.logical_not(input)


# -- scans, sorting, statistics --------------------------------------------------------------------
def _acc_dtype(input: np.ndarray, dtype: Any) -> Any:
    if dtype is not None:
        return np_dtype(dtype)
    return input.dtype if input.dtype.kind == "f" else np.int64


@kernel("cumsum")
def cumsum(input: np.ndarray, dim: Any, dtype: Any = None) -> np.ndarray:
    """``torch.cumsum``."""
    if input.ndim == 0:
        return input.astype(_acc_dtype(input, dtype))
    return np.cumsum(input, axis=axis(dim, input.ndim), dtype=_acc_dtype(input, dtype))


@kernel("cumprod")
def cumprod(input: np.ndarray, dim: Any, dtype: Any = None) -> np.ndarray:
    """``torch.cumprod``."""
    if input.ndim == 0:
        return input.astype(_acc_dtype(input, dtype))
    return np.cumprod(input, axis=axis(dim, input.ndim), dtype=_acc_dtype(input, dtype))


def _order(x: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """Stable argsort along ``d``; descending keeps equal elements in their original order too."""
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    n = x.shape[d]
    rev = np.argsort(np.flip(x, d), axis=d, kind="stable")
    return n - 1 - np.flip(rev, d)


@kernel("sort")
def sort(input: np.ndarray, dim: Any = -1, descending: bool = False, stable: bool = False) -> tuple:
    """``torch.sort``: ``(values, indices)``."""
    if input.ndim == 0:
        return input.copy(), np.zeros((), np.int64)
    d = axis(dim, input.ndim)
    idx = _order(input, d, descending)
    return np.take_along_axis(input, idx, d), idx.astype(np.int64)


@kernel("argsort")
def argsort(input: np.ndarray, dim: Any = -1, descending: bool = False, stable: bool = False) -> np.ndarray:
    """``torch.argsort``."""
    return sort(input, dim, descending, stable)[1]


@kernel("topk")
def topk(input: np.ndarray, k: Any, dim: Any = None, largest: bool = True, sorted: bool = True) -> tuple:  # noqa: A002
    """``torch.topk``: ``(values, indices)`` of the ``k`` largest (smallest), in order."""
    if input.ndim == 0:
        return input.copy(), np.zeros((), np.int64)
    d = axis(-1 if dim is None else dim, input.ndim)
    idx = np.take(_order(input, d, bool(largest)), np.arange(int(k)), axis=d)
    return np.take_along_axis(input, idx, d), idx.astype(np.int64)


def _ddof(dim: Any, unbiased: Any, correction: Any) -> tuple[Any, int]:
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is not None:
        return dim, correction
    return dim, 0 if unbiased is False else 1


def _axes(x: np.ndarray, dim: Any) -> Any:
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return None
    return tuple(axis(d, x.ndim) for d in ([dim] if isinstance(dim, int) else dim))


@kernel("var")
def var(input: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
        correction: Any = None) -> np.ndarray:
    """``torch.var``."""
    dim, ddof = _ddof(dim, unbiased, correction)
    return np.var(input.astype(np.float64), axis=_axes(input, dim), ddof=ddof, keepdims=bool(keepdim))


@kernel("std")
def std(input: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
        correction: Any = None) -> np.ndarray:
    """``torch.std``."""
    dim, ddof = _ddof(dim, unbiased, correction)
    return np.std(input.astype(np.float64), axis=_axes(input, dim), ddof=ddof, keepdims=bool(keepdim))


@kernel("var_mean")
def var_mean(input: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             correction: Any = None) -> tuple:
    """``torch.var_mean``."""
    d, _ = _ddof(dim, unbiased, correction)
    return var(input, dim, unbiased, keepdim, correction), np.mean(input, axis=_axes(input, d), keepdims=bool(keepdim))


@kernel("std_mean")
def std_mean(input: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             correction: Any = None) -> tuple:
    """``torch.std_mean``."""
    d, _ = _ddof(dim, unbiased, correction)
    return std(input, dim, unbiased, keepdim, correction), np.mean(input, axis=_axes(input, d), keepdims=bool(keepdim))


# -- lookups -----------------------------------------------------------------------------------------
def _renorm(weight: np.ndarray, rows: np.ndarray, max_norm: float, norm_type: float) -> None:
    for r in np.unique(rows):
        norm = np.linalg.norm(weight[r].astype(np.float64), ord=norm_type)
        if norm > max_norm:
            weight[r] = weight[r] * (max_norm / (norm + 1e-7))


@kernel("embedding")
def embedding(input: np.ndarray, weight: np.ndarray, padding_idx: Any = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> np.ndarray:
    """``F.embedding``: ``weight[input]`` (rows renormalised in place first with ``max_norm``)."""
    if max_norm is not None:
        _renorm(weight, np.asarray(input).reshape(-1), max_norm, norm_type)
    return weight[input]


@kernel("embedding_bag")
def embedding_bag(input: np.ndarray, weight: np.ndarray, offsets: Any = None, max_norm: Any = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Any = None, include_last_offset: bool = False,
                  padding_idx: Any = None) -> np.ndarray:
    """``F.embedding_bag``: bags by rows (2-d input) or by ``offsets``; padding entries are skipped."""
    flat = np.asarray(input).reshape(-1)
    psw = None if per_sample_weights is None else np.asarray(per_sample_weights, np.float64).reshape(-1)
    if input.ndim == 2:
        starts = list(range(0, flat.size, input.shape[1])) if input.shape[1] else [0] * input.shape[0]
        if include_last_offset:
            starts = starts[:-1]
        ends = [s + input.shape[1] for s in starts]
    else:
        offs = [int(o) for o in np.asarray(offsets).reshape(-1)]
        starts = offs[:-1] if include_last_offset else offs
        ends = offs[1:] if include_last_offset else offs[1:] + [flat.size]
    if max_norm is not None:
        _renorm(weight, flat, max_norm, norm_type)
    pad = None if padding_idx is None else padding_idx % weight.shape[0]
    out = np.zeros((len(starts), weight.shape[1]), np.float64)
    for b, (s, e) in enumerate(zip(starts, ends)):
        keep = [j for j in range(s, e) if pad is None or flat[j] != pad]
        if not keep:
            continue
        rows = weight[flat[keep]].astype(np.float64)
        if psw is not None:
            rows = rows * psw[keep][:, None]
        out[b] = rows.max(0) if mode == "max" else (rows.mean(0) if mode == "mean" else rows.sum(0))
    return out.astype(weight.dtype)


@kernel("one_hot")
def one_hot(tensor: np.ndarray, num_classes: Any = -1) -> np.ndarray:
    """``F.one_hot``."""
    classes = int(tensor.max()) + 1 if num_classes == -1 else int(num_classes)
    return np.eye(classes, dtype=np.int64)[tensor]


@kernel("repeat_interleave")
def repeat_interleave(input: np.ndarray, repeats: Any = None, dim: Any = None, output_size: Any = None) -> np.ndarray:
    """``torch.repeat_interleave`` (also the ``repeat_interleave(repeats)`` form)."""
    if repeats is None:
        return np.repeat(np.arange(input.shape[0], dtype=np.int64), input)
    r = np.asarray(repeats).reshape(-1) if isinstance(repeats, np.ndarray) else int(repeats)
    if isinstance(r, np.ndarray) and r.size == 1:
        r = int(r[0])
    if dim is None:
        return np.repeat(input.reshape(-1), r)
    x = input.reshape(1) if input.ndim == 0 else input
    return np.repeat(x, r, axis=axis(dim, x.ndim))


# -- writes through an index -------------------------------------------------------------------------
@kernel("setitem")
def setitem(input: np.ndarray, index: Any, value: Any) -> np.ndarray:
    """``input[index] = value`` in place."""
    view, rest = split_index(input, index)
    view[rest] = value
    return input


@kernel("index_put_")
def index_put_(input: np.ndarray, indices: Any, values: np.ndarray, accumulate: bool = False) -> np.ndarray:
    """``input.index_put_(indices, values, accumulate)``."""
    index = tuple(slice(None) if i is None else i for i in indices)
    if accumulate:
        np.add.at(input, index, values)
    else:
        input[index] = values
    return input


@kernel("index_put")
def index_put(input: np.ndarray, indices: Any, values: np.ndarray, accumulate: bool = False) -> np.ndarray:
    """``torch.index_put``: a copy."""
    return index_put_(input.copy(), indices, values, accumulate)


@kernel("einsum")
def einsum(equation: str, *operands: Any) -> np.ndarray:
    """``torch.einsum`` (operands may be one list)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return np.einsum(equation.replace(" ", ""), *operands)


# -- more pointwise math, norms ------------------------------------------------------------------------
def _f(x: np.ndarray) -> np.ndarray:
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def _math(name: str, fn: Any) -> None:
    def run(input: np.ndarray) -> np.ndarray:
        return fn(input)

    run.__doc__ = f"``torch.{name}``."
    kernel(name)(run)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


for _name, _fn in {"rsqrt": lambda x: 1.0 / np.sqrt(_f(x)), "erf": lambda x: _erf(_f(x)).astype(_f(x).dtype),
                   "erfc": lambda x: (1.0 - _erf(_f(x))).astype(_f(x).dtype), "log1p": lambda x: np.log1p(_f(x)),
                   "expm1": lambda x: np.expm1(_f(x)), "log2": lambda x: np.log2(_f(x)), "log10": lambda x: np.log10(_f(x)),
                   "exp2": lambda x: np.exp2(_f(x)), "reciprocal": lambda x: 1.0 / _f(x), "asin": lambda x: np.arcsin(_f(x)),
                   "acos": lambda x: np.arccos(_f(x)), "atan": lambda x: np.arctan(_f(x)), "sinh": lambda x: np.sinh(_f(x)),
                   "cosh": lambda x: np.cosh(_f(x)), "asinh": lambda x: np.arcsinh(_f(x)), "atanh": lambda x: np.arctanh(_f(x)),
                   "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
                   "frac": lambda x: x - np.trunc(x), "square": lambda x: np.square(x.astype(np.int64) if x.dtype == np.bool_ else x),
                   "sign": np.sign, "sgn": np.sign}.items():
    _math(_name, _fn)


@kernel("round")
def round_(input: np.ndarray, decimals: int = 0) -> np.ndarray:
    """``torch.round`` (half to even, as torch)."""
    return np.round(input, decimals)


@kernel("floor_divide")
def floor_divide(input: Any, other: Any) -> np.ndarray:
    """``torch.floor_divide`` (``//``)."""
    return np.floor_divide(input, other)


@kernel("remainder")
def remainder(input: Any, other: Any) -> np.ndarray:
    """``torch.remainder`` (``%``, Python's sign)."""
    return np.remainder(input, other)


@kernel("fmod")
def fmod(input: Any, other: Any) -> np.ndarray:
    """``torch.fmod`` (C's sign)."""
    return np.fmod(input, other)


@kernel("atan2")
def atan2(input: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``torch.atan2``."""
    return np.arctan2(_f(input), _f(other))


def _vector_norm(x: np.ndarray, ord: Any, dim: Any, keepdim: bool) -> np.ndarray:  # noqa: A002
    axes = _axes(x, dim)
    a = np.abs(x.astype(np.float64))
    if ord == float("inf"):
        return a.max(axis=axes, keepdims=bool(keepdim))
    if ord == 0:
        return (a != 0).sum(axis=axes, keepdims=bool(keepdim)).astype(np.float64)
    return (a ** ord).sum(axis=axes, keepdims=bool(keepdim)) ** (1.0 / ord)


@kernel("linalg_vector_norm")
def linalg_vector_norm(x: np.ndarray, ord: Any = 2, dim: Any = None, keepdim: bool = False,  # noqa: A002
                       dtype: Any = None) -> np.ndarray:
    """``torch.linalg.vector_norm``."""
    return _vector_norm(x, ord, dim, keepdim)


@kernel("norm")
def norm(input: np.ndarray, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> np.ndarray:
    """``torch.norm`` (``'fro'`` is the 2-norm of the flattened dims)."""
    return _vector_norm(input, 2 if p in ("fro", None) else p, dim, keepdim)


@kernel("normalize")
def normalize(input: np.ndarray, p: Any = 2.0, dim: Any = 1, eps: float = 1e-12) -> np.ndarray:
    """``F.normalize``."""
    return (input / np.maximum(_vector_norm(input, p, dim, True), eps)).astype(input.dtype)


# -- recurrent cells ----------------------------------------------------------------------------------
def _sig(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _gates(input: np.ndarray, h: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any, b_hh: Any) -> tuple:
    gi = input.astype(np.float64) @ w_ih.T.astype(np.float64) + (0 if b_ih is None else b_ih)
    gh = h.astype(np.float64) @ w_hh.T.astype(np.float64) + (0 if b_hh is None else b_hh)
    return gi, gh


@kernel("lstm_cell")
def lstm_cell(input: np.ndarray, hx: Any, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,
              b_hh: Any = None) -> tuple:
    """``torch.lstm_cell``: gates ``i, f, g, o``."""
    h, c = hx
    gi, gh = _gates(input, h, w_ih, w_hh, b_ih, b_hh)
    i, f, g, o = np.split(gi + gh, 4, axis=1)
    c2 = _sig(f) * c + _sig(i) * np.tanh(g)
    return (_sig(o) * np.tanh(c2)).astype(input.dtype), c2.astype(input.dtype)


@kernel("gru_cell")
def gru_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,
             b_hh: Any = None) -> np.ndarray:
    """``torch.gru_cell``: gates ``r, z, n``."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    ir, iz, i_n = np.split(gi, 3, axis=1)
    hr, hz, hn = np.split(gh, 3, axis=1)
    r, z = _sig(ir + hr), _sig(iz + hz)
    n = np.tanh(i_n + r * hn)
    return ((1 - z) * n + z * hx).astype(input.dtype)


@kernel("rnn_tanh_cell")
def rnn_tanh_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,
                  b_hh: Any = None) -> np.ndarray:
    """``torch.rnn_tanh_cell``."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return np.tanh(gi + gh).astype(input.dtype)


@kernel("rnn_relu_cell")
def rnn_relu_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,
                  b_hh: Any = None) -> np.ndarray:
    """``torch.rnn_relu_cell``."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return np.maximum(gi + gh, 0).astype(input.dtype)
