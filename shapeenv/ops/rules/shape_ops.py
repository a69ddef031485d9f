"""Joining, splitting and rearranging dims: cat, stack, split, chunk, unbind, unsqueeze, squeeze,
expand, permute, transpose, t, movedim, flip, repeat.

Views (``unsqueeze``, ``squeeze``, ``expand``, ``permute``, ``transpose``, ``movedim`` and the
pieces of ``split``/``chunk``/``unbind``) share their input's storage and get torch's strides;
``cat``, ``stack``, ``flip`` and ``repeat`` make new tensors.

Equalities an op needs (``cat``'s other dims, ``stack``'s shapes) go through
:func:`~shapeenv.ops.common.require`: free when provable, so ``cat([x, x])`` records nothing.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
>>> cat([x, x], 0).shape, stack([x, x], 1).shape, len(env.guards)
((2*s0, s1), (s0, 2, s1), 0)
"""

from __future__ import annotations

from typing import Any, Sequence

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import promote
from shapeenv.tensor import layout
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import (canonical_dim, canonical_dims, ceil_div, check_size, check_tensor, decide, fmt_shape,
                                 known_true, like_strides, make_view, new_tensor, require, size_args, unsqueeze_view)
from shapeenv.ops.rules.indexing import narrow_impl, select_impl
from shapeenv.core.messages import hint_text, user_label
from shapeenv.ops.registry import rule

__all__ = ["cat", "stack", "split", "chunk", "unbind", "unsqueeze", "squeeze", "expand", "permute",
           "transpose", "t", "movedim", "flip", "repeat"]


def _tensor_list(tensors: Any, op: str) -> list[FakeTensor]:
    if not isinstance(tensors, (list, tuple)) or not tensors:
        raise ShapeError(f"{op}: expected a non-empty list or tuple of tensors, got {tensors!r}")
    for i, t in enumerate(tensors):
        check_tensor(t, op, f"tensor {i}")
    return list(tensors)


def _result_dtype(tensors: Sequence[FakeTensor]):
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = promote(dtype, t.dtype)
    return dtype


def _cat_fix(tensors: Sequence[FakeTensor], i0: int, ref: FakeTensor, i: int, t: FakeTensor, d: int, k: int) -> str:
    """What to paste when tensor ``i`` differs from ``ref`` in dim ``k``: cat along ``k``, or make the sizes agree."""
    names = [user_label(x, f"t{j}") for j, x in enumerate(tensors)]
    listed = ", ".join(names)
    others_agree = all(
        j == k or hint_text(x.shape[j]) == hint_text(ref.shape[j]) for x in tensors if x.ndim == ref.ndim for j in range(ref.ndim)
    )
    if others_agree:
        return f"concatenate along dimension {k}, where they differ: ops.cat([{listed}], dim={k})"
    big, small = (t, ref) if _hint_int(t.shape[k]) > _hint_int(ref.shape[k]) else (ref, t)
    index = ", ".join([":"] * k + [f":{hint_text(small.shape[k])}"])
    name = names[[id(x) for x in tensors].index(id(big))]
    return (f"make every dimension except {d} agree before the cat, e.g. slice the larger one, {name}[{index}] "
            f"(or ops.pad the smaller one), then ops.cat([{listed}], dim={d})")


def _hint_int(size: Any) -> int:
    text = hint_text(size)
    return int(text) if text.lstrip("-").isdigit() else 0


@rule("cat")
def cat(tensors: Sequence[FakeTensor], dim: int = 0) -> FakeTensor:
    """``torch.cat(tensors, dim)``: sizes add along ``dim`` and must match elsewhere.

    As in torch, 1-d empty tensors (shape ``(0,)``) are skipped whatever their rank.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((2, 5), name="x"); y = env.fake_tensor((3, 5), name="y")
    >>> cat([x, y]).shape
    (s0 + s2, s1)
    """
    tensors = _tensor_list(tensors, "cat")
    kept = [(i, t) for i, t in enumerate(tensors) if not (t.ndim == 1 and known_true(t.shape[0] == 0))]
    dtype = _result_dtype(tensors)
    if not kept:
        return new_tensor(tensors[0].env, (0,), dtype)
    i0, ref = kept[0]
    if ref.ndim == 0:
        raise ShapeError(f"cat: zero-dimensional tensor (at position {i0}) cannot be concatenated")
    d = canonical_dim(dim, ref.ndim, "cat")
    total: Any = 0
    for i, t in kept:
        if t.ndim != ref.ndim:
            name = user_label(t, f"tensors[{i}]")
            raise ShapeError(f"cat: tensors must have same number of dimensions: got {ref.ndim} and {t.ndim} "
                             f"(tensor number {i}, {name}, has shape {fmt_shape(t.shape)})",
                             fix=f"give {name} {ref.ndim} dims before the cat, e.g. "
                                 + (f"{name}.unsqueeze(-1)" if t.ndim + 1 == ref.ndim else f"{name}.reshape(...)")
                                 if t.ndim < ref.ndim else f"flatten the extra dims: {name}.flatten({ref.ndim - 1})")
        for k in range(ref.ndim):
            if k != d:
                require(t.shape[k] == ref.shape[k], lambda i=i, k=k, t=t: (
                    f"cat: sizes of tensors must match except in dimension {d}. Expected size {ref.shape[k]} "
                    f"but got size {t.shape[k]} for tensor number {i} in the list (dimension {k}): "
                    f"{user_label(t, f'tensor {i}')} has {hint_text(t.shape[k])} there and "
                    f"{user_label(ref, f'tensor {i0}')} has {hint_text(ref.shape[k])}"),
                    lambda i=i, k=k, t=t: _cat_fix(tensors, i0, ref, i, t, d, k))
        total = total + t.shape[d]
    shape = ref.shape[:d] + (total,) + ref.shape[d + 1:]
    channels_last = len(shape) == 4 and all(
        layout.suggest_memory_format(t.shape, t.stride()) == "channels_last" for _, t in kept)
    return new_tensor(ref.env, shape, dtype, layout.channels_last_strides(shape) if channels_last else None)


@rule("stack")
def stack(tensors: Sequence[FakeTensor], dim: int = 0) -> FakeTensor:
    """``torch.stack(tensors, dim)``: equal shapes, joined along a new dim ``dim``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 5), name="x")
    >>> stack([x, x, x], -1).shape
    (s0, s1, 3)
    """
    tensors = _tensor_list(tensors, "stack")
    ref = tensors[0]
    d = canonical_dim(dim, ref.ndim + 1, "stack")
    for i, t in enumerate(tensors[1:], 1):
        if t.ndim != ref.ndim:
            raise ShapeError(f"stack: expects each tensor to be equal size, but got {fmt_shape(ref.shape)} at entry 0 "
                             f"and {fmt_shape(t.shape)} at entry {i}")
        for k in range(ref.ndim):
            require(t.shape[k] == ref.shape[k], lambda i=i, t=t: (
                f"stack: expects each tensor to be equal size, but got {fmt_shape(ref.shape)} at entry 0 "
                f"and {fmt_shape(t.shape)} at entry {i}"))
    shape = ref.shape[:d] + (len(tensors),) + ref.shape[d:]
    return new_tensor(ref.env, shape, _result_dtype(tensors))


def _split_sizes(t: FakeTensor, d: int, sizes: Sequence[Any]) -> tuple:
    pieces, start = [], 0
    for length in sizes:
        pieces.append(narrow_impl(t, d, start, length))
        start = start + length
    return tuple(pieces)


def split_impl(t: FakeTensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """``split`` without graph recording."""
    d = canonical_dim(dim, t.ndim, "split")
    if t.ndim == 0:
        raise ShapeError("split: cannot split a 0-d tensor")
    size = t.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sections = [check_size(s, "split", f"split size {i}") for i, s in enumerate(split_size_or_sections)]
        for s in sections:
            require(s >= 0, lambda s=s: f"split_with_sizes: split sizes must be non-negative, got {list(sections)}")
        total = sum(sections, 0)
        require(total == size, lambda: (
            f"split_with_sizes: expects split_sizes to sum exactly to {size} (the input's size at dimension {d}), "
            f"but got split_sizes={list(sections)}"))
        return _split_sizes(t, d, sections)
    step = check_size(split_size_or_sections, "split", "split_size")
    require(step >= 0, lambda: f"split: expects split_size be non-negative, but got split_size={step}")
    if decide(step == 0):
        require(size == 0, lambda: f"split: split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        return (narrow_impl(t, d, 0, 0),)
    # The number of pieces is a Python int: a guard on ceil(size / step) unless it is provable.
    count = max(int(ceil_div(size, step)), 1)
    sizes = [step] * (count - 1) + [size - step * (count - 1)]
    return _split_sizes(t, d, sizes)


@rule("split")
def split(t: FakeTensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """``torch.split``: pieces of ``split_size`` (the last one smaller), or of the given sizes; views.

    With a symbolic dim size, the number of pieces is specialised (a guard on ``ceil(size / split_size)``).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((10, 3), dynamic=False)
    >>> [p.shape for p in split(x, 4)]
    [(4, 3), (4, 3), (2, 3)]
    """
    check_tensor(t, "split")
    return split_impl(t, split_size_or_sections, dim)


@rule("chunk")
def chunk(t: FakeTensor, chunks: int, dim: int = 0) -> tuple:
    """``torch.chunk``: split into pieces of ``ceil(size / chunks)``; there may be fewer than ``chunks``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((5,), dynamic=False)
    >>> [p.shape for p in chunk(x, 4)]
    [(2,), (2,), (1,)]
    """
    check_tensor(t, "chunk")
    if isinstance(chunks, bool) or not isinstance(chunks, int) or chunks <= 0:
        raise ShapeError(f"chunk: expects `chunks` to be an int greater than 0, got: {chunks!r}")
    d = canonical_dim(dim, t.ndim, "chunk")
    if t.ndim == 0:
        raise ShapeError("chunk: cannot chunk a 0-d tensor")
    size = t.shape[d]
    if known_true(size == 0):  # torch keeps the number of (empty) chunks
        return _split_sizes(t, d, [0] * chunks)
    return split_impl(t, ceil_div(size, chunks), d)


@rule("unbind")
def unbind(t: FakeTensor, dim: int = 0) -> tuple:
    """``torch.unbind``: the slices along ``dim`` (views); a symbolic size is specialised.

    >>> from shapeenv import ShapeEnv
    >>> [p.shape for p in unbind(ShapeEnv().fake_tensor((2, 3), dynamic=False), 1)]
    [(2,), (2,), (2,)]
    """
    check_tensor(t, "unbind")
    if t.ndim == 0:
        raise ShapeError("unbind: dimension specified as 0 but tensor has no dimensions")
    d = canonical_dim(dim, t.ndim, "unbind")
    return tuple(select_impl(t, d, i) for i in range(int(t.shape[d])))


def unsqueeze_impl(t: FakeTensor, dim: int) -> FakeTensor:
    """``unsqueeze`` without graph recording."""
    return unsqueeze_view(t, canonical_dim(dim, t.ndim + 1, "unsqueeze"))


@rule("unsqueeze")
def unsqueeze(t: FakeTensor, dim: int) -> FakeTensor:
    """``t.unsqueeze(dim)``: a new size-1 dim at ``dim`` (in ``[-ndim-1, ndim]``); a view.

    >>> from shapeenv import ShapeEnv
    >>> unsqueeze(ShapeEnv().fake_tensor((2, 3)), -1).shape
    (s0, s1, 1)
    """
    check_tensor(t, "unsqueeze")
    return unsqueeze_impl(t, dim)


@rule("squeeze")
def squeeze(t: FakeTensor, dim: Any = None) -> FakeTensor:
    """``t.squeeze(dim)``: drop the given dims (all if None) whose size is 1; a view.

    A symbolic size is 1 only if provable, or (for backed sizes) by a guard; an unbacked size
    that might be 1 is kept (torch's size-oblivious choice).

    >>> from shapeenv import ShapeEnv
    >>> squeeze(ShapeEnv().fake_tensor((2, 1, 3))).shape
    (s0, s1)
    """
    check_tensor(t, "squeeze")
    dims = range(t.ndim) if dim is None else canonical_dims(dim, t.ndim, "squeeze")
    drop = {d for d in dims if t.ndim and decide(t.shape[d] == 1)}
    keep = [d for d in range(t.ndim) if d not in drop]
    return make_view(t, [t.shape[d] for d in keep], [t.stride(d) for d in keep])


def expand_impl(t: FakeTensor, sizes: Sequence[Any]) -> FakeTensor:
    """``expand`` without graph recording."""
    sizes = size_args(tuple(sizes), "expand")
    lead = len(sizes) - t.ndim
    if lead < 0:
        raise ShapeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
                         f"number of dimensions in the tensor ({t.ndim})")
    shape: list[Any] = []
    strides: list[Any] = []
    for i, new in enumerate(sizes):
        if i < lead:
            if isinstance(new, int) and new == -1:
                raise ShapeError(f"expand: the expanded size of the tensor (-1) isn't allowed in a leading, "
                                 f"non-existing dimension {i}")
            require(new >= 0, lambda new=new: f"expand: invalid size {new} in {fmt_shape(sizes)}")
            shape.append(new)
            strides.append(0)
            continue
        old, stride = t.shape[i - lead], t.stride(i - lead)
        if (isinstance(new, int) and new == -1) or known_true(old == new):
            shape.append(old)
            strides.append(stride)
        elif _expands(old, new, i, sizes, t):
            shape.append(new)
            strides.append(0)
        else:
            shape.append(old)
            strides.append(stride)
    return make_view(t, shape, strides)


def _expands(old: Any, new: Any, i: int, sizes: Sequence[Any], t: FakeTensor) -> bool:
    """Whether dim ``i`` broadcasts from ``old == 1`` (True) or keeps ``old == new`` (False)."""
    message = lambda: (  # noqa: E731
        f"expand: the expanded size of the tensor ({new}) must match the existing size ({old}) at non-singleton "
        f"dimension {i}. Target sizes: {fmt_shape(sizes)}. Tensor sizes: {fmt_shape(t.shape)}")
    if known_true(old == 1):
        require(new >= 0, lambda: f"expand: invalid size {new} in {fmt_shape(sizes)}")
        return True
    same = decide(old == new)
    if same is None:  # unbacked: assume it is not the broadcast case, and assert so at runtime
        require(old == new, message)
        return False
    if same:
        return False
    if decide(old == 1):
        require(new >= 0, lambda: f"expand: invalid size {new} in {fmt_shape(sizes)}")
        return True
    raise ShapeError(message())


@rule("expand")
def expand(t: FakeTensor, *sizes: Any) -> FakeTensor:
    """``t.expand(*sizes)``: broadcast size-1 dims (stride 0) and add leading dims; ``-1`` keeps a size.

    >>> from shapeenv import ShapeEnv
    >>> y = expand(ShapeEnv().fake_tensor((3, 1), dynamic=False), 2, -1, 4); y.shape, y.stride()
    ((2, 3, 4), (0, 1, 0))
    """
    check_tensor(t, "expand")
    return expand_impl(t, sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)) else sizes)


def permute_impl(t: FakeTensor, dims: Sequence[int], op: str = "permute") -> FakeTensor:
    """``permute`` without graph recording."""
    if len(dims) != t.ndim:
        raise ShapeError(f"{op}: number of dims don't match in permute: the tensor has {t.ndim} dimensions "
                         f"but {len(dims)} were given ({list(dims)})")
    order = canonical_dims(dims, t.ndim, op)
    return make_view(t, [t.shape[d] for d in order], [t.stride(d) for d in order])


@rule("permute")
def permute(t: FakeTensor, *dims: Any) -> FakeTensor:
    """``t.permute(*dims)``: reorder the dims (a permutation of ``range(ndim)``); a view.

    >>> from shapeenv import ShapeEnv
    >>> permute(ShapeEnv().fake_tensor((2, 3, 4)), 2, 0, 1).shape
    (s2, s0, s1)
    """
    check_tensor(t, "permute")
    dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims
    return permute_impl(t, tuple(dims))


def transpose_impl(t: FakeTensor, dim0: int, dim1: int, op: str = "transpose") -> FakeTensor:
    """``transpose`` without graph recording."""
    a, b = canonical_dim(dim0, t.ndim, op), canonical_dim(dim1, t.ndim, op)
    order = list(range(t.ndim))
    if t.ndim:
        order[a], order[b] = order[b], order[a]
    return make_view(t, [t.shape[d] for d in order], [t.stride(d) for d in order])


@rule("transpose")
def transpose(t: FakeTensor, dim0: int, dim1: int) -> FakeTensor:
    """``t.transpose(dim0, dim1)``: swap two dims; a view.

    >>> from shapeenv import ShapeEnv
    >>> y = transpose(ShapeEnv().fake_tensor((2, 3)), 0, 1); y.shape, y.stride()
    ((s1, s0), (1, s1))
    """
    check_tensor(t, "transpose")
    return transpose_impl(t, dim0, dim1)


@rule("t")
def t(x: FakeTensor) -> FakeTensor:
    """``x.t()``: transpose a tensor of at most 2 dims (0-d and 1-d come back as views of themselves).

    >>> from shapeenv import ShapeEnv
    >>> t(ShapeEnv().fake_tensor((2, 3))).shape
    (s1, s0)
    """
    check_tensor(x, "t")
    if x.ndim > 2:
        raise ShapeError(f"t: expects a tensor with <= 2 dimensions, but the input is {x.ndim}D; use transpose or .mT")
    return transpose_impl(x, 0, -1, "t") if x.ndim == 2 else make_view(x, x.shape, x.stride())


@rule("movedim")
def movedim(input: FakeTensor, source: Any, destination: Any) -> FakeTensor:  # noqa: A002
    """``torch.movedim``: move dims ``source`` to positions ``destination``; the others keep their order.

    >>> from shapeenv import ShapeEnv
    >>> movedim(ShapeEnv().fake_tensor((2, 3, 4)), 0, -1).shape
    (s1, s2, s0)
    """
    check_tensor(input, "movedim")
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ShapeError(f"movedim: invalid source or destination dims: source ({src}) and destination ({dst}) "
                         "dims must have the same number of elements")
    src = canonical_dims(src, input.ndim, "movedim")
    dst = canonical_dims(dst, input.ndim, "movedim")
    order: list[int | None] = [None] * input.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(input.ndim) if d not in src)
    full = [o if o is not None else next(rest) for o in order]
    return permute_impl(input, full, "movedim")


@rule("flip")
def flip(input: FakeTensor, dims: Any) -> FakeTensor:  # noqa: A002
    """``torch.flip(input, dims)``: same shape, reversed along ``dims`` (distinct); a new tensor.

    >>> from shapeenv import ShapeEnv
    >>> flip(ShapeEnv().fake_tensor((2, 3)), [0, 1]).shape
    (s0, s1)
    """
    check_tensor(input, "flip")
    canonical_dims(dims, input.ndim, "flip")
    return new_tensor(input.env, input.shape, input.dtype, like_strides(input))


@rule("repeat")
def repeat(t: FakeTensor, *repeats: Any) -> FakeTensor:
    """``t.repeat(*repeats)``: tile; ``len(repeats) >= ndim``, leading repeats add dims; a new tensor.

    >>> from shapeenv import ShapeEnv
    >>> repeat(ShapeEnv().fake_tensor((2, 3)), 4, 1, 2).shape
    (4, s0, 2*s1)
    """
    check_tensor(t, "repeat")
    reps = size_args(repeats, "repeat")
    if len(reps) < t.ndim:
        raise ShapeError(f"repeat: number of dimensions of repeat dims ({len(reps)}) can not be smaller than the "
                         f"number of dimensions of the tensor ({t.ndim})")
    for r in reps:
        require(r >= 0, lambda r=r: f"repeat: repeats must be non-negative, got {r} in {fmt_shape(reps)}")
    padded = (1,) * (len(reps) - t.ndim) + t.shape
    return new_tensor(t.env, [s * r for s, r in zip(padded, reps)], t.dtype)
