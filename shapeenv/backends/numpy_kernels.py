"""numpy implementations of the ops with a shape rule: elementwise, views, shape ops, indexing, linalg.

One kernel per op name (the names of :func:`shapeenv.ops.dispatch.registered`), with the same
parameters as the op's shape rule, so that a recorded node's arguments can be passed unchanged.
Kernels follow torch's semantics, not numpy's, where the two differ: integer indices are applied
before advanced ones, ``cat`` skips 1-d empty tensors, ``view`` never copies, ``gather`` reads only
the leading part of other dims, and so on. Result dtypes need not be exact: the interpreter casts
each result to the dtype the program predicts (torch's promotion rules live in the shape rules).

Reductions, convolutions, pooling, padding and tensor creation are in
:mod:`shapeenv.backends.numpy_nn`. The interpreter runs kernels under ``np.errstate(all="ignore")``:
like torch, a division by zero gives inf or nan without a warning.

>>> import numpy as np
>>> KERNELS["cat"]([np.zeros((2, 3)), np.zeros(0), np.ones((1, 3))], 0).shape
(3, 3)
>>> KERNELS["getitem"](np.zeros((5, 6, 7)), (0, slice(None), [1, 2])).shape   # numpy alone gives (2, 6)
(6, 2)
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from guards.source import contiguous_strides_of, storage_offset_of

from shapeenv.errors import DimOutOfRangeError, IndexOutOfBoundsError, ShapeEnvTypeError, ShapeEnvValueError, ShapeError
from shapeenv.fake import layout
from shapeenv.fake.dtypes import DType, as_dtype
from shapeenv.ops.registry import eager_kernel

__all__ = ["KERNELS", "RANDOM_OPS", "kernel", "np_dtype", "axis", "as_sizes"]

Kernel = Callable[..., Any]
KERNELS: dict[str, Kernel] = {}
RANDOM_OPS = frozenset({"rand", "randn", "rand_like", "randn_like", "dropout", "dropout1d", "dropout2d", "dropout3d",
                        "alpha_dropout", "feature_alpha_dropout"})  # these take the program's generator as _rng


def kernel(*names: str) -> Callable[[Kernel], Kernel]:
    """Register ``fn`` as the numpy implementation of the ops ``names``."""

    def register(fn: Kernel) -> Kernel:
        for name in names:
            if name in KERNELS:
                raise ShapeEnvValueError(f"op {name!r} already has a numpy kernel", fix="register the kernel under another name")
            KERNELS[name] = fn
            if name not in RANDOM_OPS:  # those take the program's generator
                eager_kernel(name)(fn)
        return fn

    return register


_BY_NAME = {name: np.dtype(t) for name, t in {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64,
}.items()}


def np_dtype(dtype: Any) -> np.dtype:
    """The numpy dtype of a shapeenv dtype (a DType, a name, or an array whose dtype to copy).

    Raises:
        TypeError: ``bfloat16``, which numpy does not have.

    >>> np_dtype("float"), np_dtype(np.zeros(2, np.int32))
    (dtype('float32'), dtype('int32'))
    """
    if isinstance(dtype, DType):
        known = _BY_NAME.get(dtype.name)
        if known is not None:
            return known
    elif isinstance(dtype, np.ndarray):
        return dtype.dtype
    elif isinstance(dtype, np.dtype):
        return dtype
    d: DType = as_dtype(dtype)
    if d.name not in _BY_NAME:
        raise ShapeEnvTypeError(f"numpy has no {d.name}; convert to float32 before running the program on numpy",
                                fix="x.to(float32) in the traced function, or pass float32 inputs")
    return _BY_NAME[d.name]


def axis(dim: int, ndim: int) -> int:
    """``dim`` canonicalised for a tensor with ``ndim`` dims (a 0-d tensor accepts 0 and -1)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise DimOutOfRangeError(f"dimension {dim} is out of range for a {ndim}-d tensor (expected to be in [{-n}, {n - 1}])")
    return dim % n


def as_sizes(args: Sequence[Any]) -> tuple:
    """Sizes given as ``f(2, 3)`` or ``f((2, 3))``.

    >>> as_sizes((2, 3)), as_sizes(([2, 3],))
    ((2, 3), (2, 3))
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


def _arr(x: Any) -> np.ndarray:
    return np.asarray(x)


# -- layouts (torch's, see shapeenv.fake.layout: numpy picks its own for new arrays) -----------------
def element_strides(a: np.ndarray) -> tuple[int, ...]:
    """numpy's byte strides in elements (torch's ``stride()``; an empty array, whose numpy strides are 0, is
    laid out as torch lays it out)."""
    if a.size == 0:
        return contiguous_strides_of(a.shape)
    return tuple(s // a.itemsize for s in a.strides)


def empty_strided(shape: Sequence[int], strides: Sequence[int], dtype: Any) -> np.ndarray:
    """A new array with the given shape and element strides (``torch.empty_strided``)."""
    dtype = np.dtype(dtype)
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    buffer = np.empty(max(extent, 0), dtype)
    return np.lib.stride_tricks.as_strided(buffer, shape=tuple(shape), strides=[s * dtype.itemsize for s in strides])


def in_layout(result: np.ndarray, strides: Sequence[int]) -> np.ndarray:
    """``result`` itself if it has ``strides`` (in elements), else a copy laid out so."""
    if result.ndim < 2 or element_strides(result) == tuple(strides):
        return result
    out = empty_strided(result.shape, strides, result.dtype)
    out[...] = result
    return out


def _pointwise(result: Any, *operands: Any) -> np.ndarray:
    result = _arr(result)
    arrays = [x for x in operands if isinstance(x, np.ndarray)]
    if result.ndim < 2 or not arrays:
        return result
    return in_layout(result, layout.elementwise_strides(result.shape, [(x.shape, element_strides(x)) for x in arrays]))


# -- elementwise -------------------------------------------------------------------------------------
def _binary(fn: Callable) -> Kernel:
    def run(a: Any, b: Any) -> np.ndarray:
        return _pointwise(fn(a, b), a, b)

    return run


for _name, _fn in {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
                   "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
                   "gt": np.greater, "ge": np.greater_equal, "pow": np.power,
                   "maximum": np.maximum, "minimum": np.minimum}.items():
    kernel(_name)(_binary(_fn))


def _unary(fn: Callable) -> Kernel:
    def run(a: np.ndarray) -> np.ndarray:
        return _pointwise(fn(a), a)

    return run


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-a.astype(np.result_type(a.dtype, np.float32))))


for _name, _fn in {"neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
                   "cos": np.cos, "sin": np.sin, "tan": np.tan, "tanh": np.tanh, "sigmoid": _sigmoid,
                   "relu": lambda a: np.maximum(a, a.dtype.type(0))}.items():
    kernel(_name)(_unary(_fn))


def copy_in_format(a: np.ndarray, memory_format: Any = None, dtype: Any = None) -> np.ndarray:
    """A copy of ``a`` (converted to ``dtype``) laid out in ``memory_format`` (None: torch's ``preserve_format``)."""
    fmt = layout.memory_format_name(memory_format)
    shape, strides = a.shape, element_strides(a)
    target = layout.like_strides(shape, strides) if fmt == "preserve_format" else layout.format_strides(shape, fmt)
    out = empty_strided(shape, target, a.dtype if dtype is None else dtype)
    out[...] = a
    return out


@kernel("clone")
def clone(a: np.ndarray, memory_format: Any = None) -> np.ndarray:
    """A copy with its own memory in ``memory_format`` (torch's ``preserve_format`` by default)."""
    return copy_in_format(np.asarray(a), memory_format)


@kernel("where")
def where(cond: np.ndarray, a: Any, b: Any) -> np.ndarray:
    """``torch.where(cond, a, b)``."""
    return _pointwise(np.where(cond, a, b), cond, a, b)


@kernel("to")
def to(a: np.ndarray, dtype: Any) -> np.ndarray:
    """``a`` itself when the dtype is unchanged, else a converted copy (``dtype`` may be a tensor to copy it from)."""
    target = np_dtype(dtype)
    return a if a.dtype == target else copy_in_format(a, None, target)


def _inplace(fn: Callable) -> Kernel:
    def run(a: np.ndarray, b: Any) -> np.ndarray:
        fn(a, b, out=a)  # same_kind casting: float into an int tensor raises, as in torch
        return a

    return run


for _name, _fn in {"add_": np.add, "sub_": np.subtract, "mul_": np.multiply, "div_": np.true_divide}.items():
    kernel(_name)(_inplace(_fn))


@kernel("copy_")
def copy_(a: np.ndarray, src: np.ndarray) -> np.ndarray:
    """``a.copy_(src)``: broadcast and convert ``src`` into ``a``."""
    np.copyto(a, src, casting="unsafe")
    return a


@kernel("fill_")
def fill_(a: np.ndarray, value: Any) -> np.ndarray:
    """``a.fill_(value)``."""
    a[...] = value
    return a


@kernel("zero_")
def zero_(a: np.ndarray) -> np.ndarray:
    """``a.zero_()``."""
    a[...] = 0
    return a


@kernel("relu_")
def relu_(a: np.ndarray) -> np.ndarray:
    """``a.relu_()``."""
    np.maximum(a, a.dtype.type(0), out=a)
    return a


# -- joining, splitting, rearranging -----------------------------------------------------------------
@kernel("cat")
def cat(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    """``torch.cat``: 1-d empty tensors are skipped whatever the others' rank."""
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    if not kept:
        return np.zeros((0,), np.result_type(*tensors))
    return np.concatenate(kept, axis=axis(dim, kept[0].ndim))


@kernel("stack")
def stack(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    """``torch.stack``."""
    return np.stack(tensors, axis=axis(dim, tensors[0].ndim + 1))


def _pieces(t: np.ndarray, d: int, lengths: Sequence[int]) -> tuple:
    out, start = [], 0
    for n in lengths:
        out.append(t[(slice(None),) * d + (slice(start, start + n),)])
        start += n
    return tuple(out)


@kernel("split")
def split(t: np.ndarray, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """``torch.split``: views of ``split_size`` (the last one smaller) or of the given sizes."""
    d = axis(dim, t.ndim)
    size = t.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        if sum(split_size_or_sections) != size:
            raise ShapeError(f"split sizes {list(split_size_or_sections)} do not sum to {size}, the size of dim {d}")
        return _pieces(t, d, split_size_or_sections)
    step = int(split_size_or_sections)
    if step == 0:
        return _pieces(t, d, [0])
    count = max(-(-size // step), 1)
    return _pieces(t, d, [step] * (count - 1) + [size - step * (count - 1)])


@kernel("chunk")
def chunk(t: np.ndarray, chunks: int, dim: int = 0) -> tuple:
    """``torch.chunk``: pieces of ``ceil(size / chunks)``; an empty dim gives ``chunks`` empty pieces."""
    d = axis(dim, t.ndim)
    if t.shape[d] == 0:
        return _pieces(t, d, [0] * chunks)
    return split(t, -(-t.shape[d] // chunks), d)


@kernel("unbind")
def unbind(t: np.ndarray, dim: int = 0) -> tuple:
    """``torch.unbind``: the slices along ``dim`` (views)."""
    d = axis(dim, t.ndim)
    return tuple(t[(slice(None),) * d + (i, Ellipsis)] for i in range(t.shape[d]))


@kernel("unsqueeze")
def unsqueeze(t: np.ndarray, dim: int) -> np.ndarray:
    """``t.unsqueeze(dim)``."""
    return np.expand_dims(t, axis(dim, t.ndim + 1))


@kernel("squeeze")
def squeeze(t: np.ndarray, dim: Any = None) -> np.ndarray:
    """``t.squeeze(dim)``: drop the given (or all) dims of size 1; others are kept silently."""
    if t.ndim == 0:
        return t[...]
    dims = range(t.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
    return np.squeeze(t, tuple(d for d in (axis(d, t.ndim) for d in dims) if t.shape[d] == 1))


@kernel("expand")
def expand(t: np.ndarray, *sizes: Any) -> np.ndarray:
    """``t.expand(*sizes)``: ``-1`` keeps a size; a read-only broadcast view (in-place writes raise, as in torch)."""
    new = as_sizes(sizes)
    lead = len(new) - t.ndim
    target = tuple(t.shape[i - lead] if i >= lead and n == -1 else n for i, n in enumerate(new))
    return np.broadcast_to(t, target)


@kernel("permute")
def permute(t: np.ndarray, *dims: Any) -> np.ndarray:
    """``t.permute(*dims)``."""
    return np.transpose(t, as_sizes(dims))


@kernel("transpose")
def transpose(t: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    """``t.transpose(dim0, dim1)``."""
    return t[...] if t.ndim == 0 else np.swapaxes(t, axis(dim0, t.ndim), axis(dim1, t.ndim))


@kernel("t")
def t_(x: np.ndarray) -> np.ndarray:
    """``x.t()``: 0-d and 1-d tensors come back as views of themselves."""
    return x.T if x.ndim == 2 else x[...]


@kernel("movedim")
def movedim(t: np.ndarray, source: Any, destination: Any) -> np.ndarray:
    """``torch.movedim``."""
    return np.moveaxis(t, source, destination)


@kernel("flip")
def flip(t: np.ndarray, dims: Any) -> np.ndarray:
    """``torch.flip``: a copy in ``t``'s (preserved) layout."""
    flipped = np.flip(t, axis=tuple(dims) if isinstance(dims, (list, tuple)) else dims)
    return in_layout(flipped.copy(), layout.like_strides(t.shape, element_strides(t))) if t.ndim >= 2 else flipped.copy()


@kernel("repeat")
def repeat(t: np.ndarray, *repeats: Any) -> np.ndarray:
    """``t.repeat(*repeats)`` (numpy's ``tile``, which also prepends dims)."""
    return np.tile(t, as_sizes(repeats))


# -- views -------------------------------------------------------------------------------------------
def _infer(shape: Sequence[int], numel: int) -> tuple:
    shape = list(shape)
    if -1 in shape:
        i = shape.index(-1)
        known = math.prod(s for j, s in enumerate(shape) if j != i)
        if known == 0 or numel % known:
            raise ShapeError(f"shape {shape} is invalid for input of size {numel}")
        shape[i] = numel // known
    if math.prod(shape) != numel:
        raise ShapeError(f"shape {shape} is invalid for input of size {numel}")
    return tuple(shape)


@kernel("view")
def view(t: np.ndarray, *shape: Any) -> np.ndarray:
    """``t.view(*shape)``: never copies; raises when the strides do not allow it (as torch does)."""
    return t.reshape(_infer(as_sizes(shape), t.size), copy=False)


@kernel("reshape")
def reshape(t: np.ndarray, *shape: Any) -> np.ndarray:
    """``t.reshape(*shape)``: a view when possible, else a copy."""
    return t.reshape(_infer(as_sizes(shape), t.size))


@kernel("flatten")
def flatten(t: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    """``t.flatten(start_dim, end_dim)``."""
    if t.ndim == 0:
        return t.reshape(1)
    a, b = axis(start_dim, t.ndim), axis(end_dim, t.ndim)
    if a == b:
        return t
    return t.reshape(t.shape[:a] + (math.prod(t.shape[a:b + 1]),) + t.shape[b + 1:])


@kernel("unflatten")
def unflatten(t: np.ndarray, dim: int, sizes: Sequence[int]) -> np.ndarray:
    """``t.unflatten(dim, sizes)``."""
    d = axis(dim, t.ndim)
    return t.reshape(t.shape[:d] + _infer(as_sizes(tuple(sizes)), t.shape[d]) + t.shape[d + 1:])


@kernel("contiguous")
def contiguous(t: np.ndarray, memory_format: Any = "contiguous_format") -> np.ndarray:
    """``t.contiguous(memory_format)``: ``t`` itself when already contiguous in that format, else a copy laid out so."""
    fmt = layout.memory_format_name(memory_format)
    if layout.is_contiguous(t.shape, element_strides(t), fmt):
        return t
    return copy_in_format(t, fmt)


# -- indexing ----------------------------------------------------------------------------------------
@kernel("select")
def select(t: np.ndarray, dim: int, index: int) -> np.ndarray:
    """``t.select(dim, index)``."""
    d = axis(dim, t.ndim)
    if not -t.shape[d] <= index < t.shape[d]:
        raise IndexOutOfBoundsError(f"index {index} is out of bounds for dimension {d} with size {t.shape[d]}")
    return t[(slice(None),) * d + (index, Ellipsis)]  # Ellipsis: a 0-d view, not a scalar


@kernel("narrow")
def narrow(t: np.ndarray, dim: int, start: int, length: int) -> np.ndarray:
    """``t.narrow(dim, start, length)``."""
    d = axis(dim, t.ndim)
    start = start + t.shape[d] if start < 0 else start
    if start < 0 or length < 0 or start + length > t.shape[d]:
        raise IndexOutOfBoundsError(f"narrow: start {start} + length {length} exceeds dimension size {t.shape[d]}")
    return t[(slice(None),) * d + (slice(start, start + length),)]


@kernel("slice")
def slice_(t: np.ndarray, dim: int = 0, start: Any = None, stop: Any = None, step: Any = 1) -> np.ndarray:
    """``t[..., start:stop:step]`` along ``dim`` (positive steps, bounds clamped as in Python)."""
    return t[(slice(None),) * axis(dim, t.ndim) + (slice(start, stop, step),)]


def _consumed(item: Any) -> int:
    if item is None or item is Ellipsis or isinstance(item, (bool, np.bool_)):
        return 0
    if isinstance(item, np.ndarray) and item.dtype in (np.bool_, np.uint8):
        return item.ndim
    return 1


@kernel("getitem")
def getitem(t: Any, index: Any) -> Any:
    """``t[index]`` with torch's order: integer indices select first, then advanced indices gather.

    numpy treats an int next to an index array as one more advanced index, which moves the
    gathered dims to the front; torch applies the int as ``select`` first. On a tuple or list
    (a multi-output op's results) this is plain item access.
    """
    if isinstance(t, (tuple, list)):
        return t[index]
    view, rest = split_index(t, index)
    return view[rest]


def split_index(t: np.ndarray, index: Any) -> tuple[np.ndarray, tuple]:
    """``t`` with the integer indices of ``index`` applied as ``select`` (torch's order), and the rest of the index.

    >>> view, rest = split_index(np.zeros((2, 3, 4)), (1, slice(None), np.array([0, 2])))
    >>> view.shape, len(rest)
    ((3, 4), 2)
    """
    items = list(index) if isinstance(index, tuple) else [index]
    items = [i.astype(np.bool_) if isinstance(i, np.ndarray) and i.dtype == np.uint8 else i for i in items]
    consumed = sum(_consumed(i) for i in items)
    if consumed > t.ndim:
        raise IndexOutOfBoundsError(f"too many indices for a tensor of dimension {t.ndim}")
    rest, selects, d = [], [], 0
    for item in items:
        if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
            selects.append((d, int(item)))
            d += 1
            continue
        rest.append(item)
        d += t.ndim - consumed if item is Ellipsis else _consumed(item)
    for dim, i in reversed(selects):  # highest dim first, so the others keep their position
        t = select(t, dim, i)
    return t, tuple(rest) if rest else (Ellipsis,)


@kernel("index_select")
def index_select(t: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """``t.index_select(dim, index)``."""
    if t.ndim == 0:
        return t.reshape(1)[index.reshape(-1)].reshape(())
    return np.take(t, index.reshape(-1), axis=axis(dim, t.ndim))


@kernel("gather")
def gather(t: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """``torch.gather``: ``index`` may be smaller than ``t`` in the other dims (their leading part is read)."""
    if t.ndim == 0:
        return t.reshape(1)[index.reshape(-1)].reshape(index.shape)
    d = axis(dim, t.ndim)
    part = t[tuple(slice(None) if k == d else slice(0, index.shape[k]) for k in range(t.ndim))]
    return np.take_along_axis(part, index, axis=d)


# -- matrix products ---------------------------------------------------------------------------------
@kernel("matmul", "mm", "bmm")
def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (numpy's matmul has torch's 1-d and batch-broadcasting rules)."""
    return _arr(np.matmul(a, b))


@kernel("linear")
def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """``x @ weight.T + bias``."""
    out = _arr(np.matmul(x, weight.T if weight.ndim == 2 else weight))
    return out if bias is None else out + bias


# -- data-dependent sizes ----------------------------------------------------------------------------
@kernel("nonzero")
def nonzero(t: np.ndarray) -> np.ndarray:
    """``torch.nonzero``: ``(count, ndim)`` int64 indices."""
    return np.argwhere(t).astype(np.int64)


@kernel("masked_select")
def masked_select(t: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``torch.masked_select``: the elements where the broadcast mask is set, 1-d."""
    tb, mb = np.broadcast_arrays(t, mask)
    return tb[mb]


@kernel("unique")
def unique(t: np.ndarray, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """``torch.unique`` (always sorted here; torch's CPU ``sorted=False`` order is unspecified anyway)."""
    d = None if dim is None else axis(dim, t.ndim)
    values, inverse, counts = np.unique(t, return_inverse=True, return_counts=True, axis=d)
    inverse = inverse.reshape(t.shape if d is None else (t.shape[d],)).astype(np.int64)
    if not (return_inverse or return_counts):
        return values
    return tuple([values] + ([inverse] if return_inverse else []) + ([counts.astype(np.int64)] if return_counts else []))


@kernel("item")
def item(t: np.ndarray) -> int:
    """``t.item()`` of a one-element integer or bool tensor, as a Python int."""
    if t.size != 1:
        raise ShapeError(f"a tensor with {t.size} elements cannot be converted to a scalar")
    return int(t.reshape(()))


# -- strided views -----------------------------------------------------------------------------------
def _owner(t: np.ndarray) -> np.ndarray:
    root = t
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root


@kernel("as_strided")
def as_strided(t: np.ndarray, size: Sequence[int], stride: Sequence[int], storage_offset: Any = None) -> np.ndarray:
    """``torch.as_strided``: a view of the memory ``t`` lives in; refuses to reach outside it."""
    root = _owner(t)
    if not root.flags.c_contiguous:
        raise ShapeError("as_strided needs the array owning the memory to be contiguous", fix="np.ascontiguousarray(x)")
    offset = storage_offset_of(t) if storage_offset is None else int(storage_offset)
    size, stride = as_sizes(size), as_sizes(stride)
    last = offset + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else offset - 1
    if last >= root.size:
        raise IndexOutOfBoundsError(f"as_strided: sizes {list(size)} and strides {list(stride)} at offset {offset} are out of "
                         f"bounds for storage of {root.size} elements")
    flat = root.reshape(-1)[offset:] if root.size else root.reshape(-1)
    return np.lib.stride_tricks.as_strided(flat, shape=size, strides=[s * t.itemsize for s in stride])


@kernel("unfold")
def unfold(t: np.ndarray, dimension: int, size: int, step: int) -> np.ndarray:
    """``t.unfold(dimension, size, step)``: sliding windows (a view)."""
    if t.ndim == 0:
        return t.reshape(1)[:size]
    d = axis(dimension, t.ndim)
    windows = np.lib.stride_tricks.sliding_window_view(t, size, axis=d)
    return windows[(slice(None),) * d + (slice(None, None, step),)]
