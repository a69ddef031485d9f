"""``view``, ``reshape``, ``flatten``, ``unflatten`` and ``contiguous``: new shapes over the same elements.

Note [Guards of view and reshape]
    A ``-1`` is inferred as ``numel // known`` where ``known`` is the product of the other sizes.
    The op needs ``known != 0`` and ``numel % known == 0``; an explicit shape needs
    ``numel == known``. Each condition goes through :func:`~shapeenv.ops.common.require`: it
    costs nothing when provable (``(s0*s1).view(s1, -1)``), one guard when only the hints decide
    it (``x.view(-1, 4)`` on a 1-d ``x`` guards ``s0 % 4 == 0``), and a runtime assert when it
    reads an unbacked size. Nothing else is decided for a provably contiguous input.

Note [Viewability]
    A view of a non-contiguous input must express each new dimension with one stride. We port
    torch's ``computeStride``: the input's dims split into chunks that are contiguous among
    themselves, and the new shape must split into chunks of the same element counts. A provably
    contiguous input skips all this (no question, no guard). Otherwise each question that is not
    provable is decided by the hints with a guard (so the answer is exact for the traced sizes and
    the guard set keeps it valid), and, when it reads an unbacked size, the conservative way
    (torch's ``guard_or_true``/``guard_or_false``): at worst a view that might have been possible
    is refused with an error that says to call ``.contiguous()`` first or use ``reshape``, which
    copies when it cannot view.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((12,), name="x")
>>> y = view(x, -1, 4); y.shape, y.is_view_of(x), [str(g.expr) for g in env.guards]
((FloorDiv(s0, 4), 4), True, ['Eq(Mod(s0, 4), 0)'])
"""

from __future__ import annotations

from typing import Any, Sequence

from symint import SymInt

from shapeenv.errors import ShapeError
from shapeenv.tensor import layout
from shapeenv.tensor.tensor import FakeTensor, contiguous_strides
from shapeenv.ops.common import (
    canonical_dim,
    check_size,
    check_tensor,
    fmt_shape,
    is_contiguous,
    known_true,
    make_view,
    new_tensor,
    prod,
    require,
    size_args,
)
from shapeenv.core.messages import hint_text, user_label
from shapeenv.ops.registry import rule

__all__ = ["infer_size", "compute_stride", "view", "reshape", "flatten", "unflatten", "contiguous", "as_strided", "unfold"]


def _is_minus_one(d: Any) -> bool:
    return d == -1 if isinstance(d, int) else known_true(d == -1)


def _view_fix(shape: Sequence[Any], numel: Any, op: str, tensor: Any) -> str:
    """Let one dim be inferred (``-1``), keeping the last requested size that divides the element count."""
    n = hint_text(numel)
    name = user_label(tensor, "x") if tensor is not None else "x"
    sizes = [hint_text(d) for d in shape]
    if n.isdigit():
        for j in range(len(sizes) - 1, -1, -1):
            if sizes[j].isdigit() and int(sizes[j]) > 0 and int(n) % int(sizes[j]) == 0:
                spec = f"-1, {shape[j]}" if j > 0 else f"{shape[0]}, -1"
                return (f"the new shape must hold exactly {n} elements; let {op} infer one dimension, "
                        f"e.g. {name}.{op}({spec})")
    return f"the new shape must hold exactly {n} elements (the input's numel); use -1 for one dimension: {name}.{op}(-1)"


def infer_size(shape: Sequence[Any], numel: Any, op: str = "view", tensor: Any = None) -> tuple:
    """``shape`` with its ``-1`` (if any) inferred from ``numel``; see Note [Guards of view and reshape].

    Raises:
        ShapeError: two ``-1``, a negative size, or a shape whose element count cannot match ``numel``.

    >>> infer_size((2, -1), 12)
    (2, 6)
    """
    infer = None
    known: Any = 1
    for i, d in enumerate(shape):
        if _is_minus_one(d):
            if infer is not None:
                raise ShapeError(f"{op}: only one dimension can be inferred, got shape {fmt_shape(shape)}",
                                 fix=f"give every size but one, e.g. {user_label(tensor, 'x') if tensor is not None else 'x'}"
                                     f".{op}(-1, {hint_text(tensor.shape[-1]) if tensor is not None and tensor.ndim else 1})")
            infer = i
            continue
        require(d >= 0, lambda d=d: f"{op}: invalid shape dimension {d} in {fmt_shape(shape)}")
        known = known * d
    invalid = lambda: (  # noqa: E731
        f"{op}: shape '{fmt_shape(shape)}' is invalid for input of size {numel} "
        f"({hint_text(numel)} elements in this trace; the shape holds {hint_text(known)}{' times the -1' if infer is not None else ''})")
    fix = lambda: _view_fix(shape, numel, op, tensor)  # noqa: E731
    if infer is None:
        require(numel == known, invalid, fix)
        return tuple(shape)
    require(known != 0, lambda: (
        f"{op}: cannot reshape tensor of {numel} elements into shape {fmt_shape(shape)} because the "
        "unspecified dimension size -1 can be any value and is ambiguous"))
    require(numel % known == 0, invalid, fix)
    inferred = numel // known
    if isinstance(inferred, SymInt):
        inferred.node.env.mark_size_like(inferred)
    out = list(shape)
    out[infer] = inferred
    return tuple(out)


def _ask(cond: Any, default: bool, guard: bool) -> bool:
    """``cond`` if provable; else, if ``guard``, by the hints (a guard); else (or if unbacked) ``default``."""
    return layout.ask(cond, default, guard)


@layout.decided_by_cases(2)
def compute_stride(oldshape: Sequence[Any], oldstride: Sequence[Any], newshape: Sequence[Any],
                   *, guard: bool = True) -> tuple | None:
    """Strides that view ``oldshape``/``oldstride`` as ``newshape``, or None; see Note [Viewability].

    ``guard=False`` records nothing: questions that are not provable get the conservative answer.

    >>> compute_stride((2, 3), (1, 2), (3, 2)) is None, compute_stride((2, 3, 4), (12, 1, 3), (6, 4))
    (True, None)
    >>> compute_stride((4, 3), (1, 4), (2, 2, 3))
    (2, 1, 4)
    """
    if not oldshape:
        return (1,) * len(newshape)
    numel = prod(oldshape)
    if layout.known(numel == 0):
        if len(oldshape) == len(newshape) and all(layout.known(a == b) for a, b in zip(oldshape, newshape)):
            return tuple(oldstride)
        out: list[Any] = [1] * len(newshape)
        for d in range(len(newshape) - 2, -1, -1):
            nxt = newshape[d + 1]
            out[d] = (nxt if layout.known(nxt >= 1) else 1) * out[d + 1]
        return tuple(out)
    newstride: list[Any] = [None] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel: Any = 1
    view_numel: Any = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel = tensor_numel * oldshape[tensor_d]
        chunk_ends = tensor_d == 0 or (
            _ask(oldshape[tensor_d - 1] != 1, True, guard)
            and _ask(oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride, True, guard)
        )
        if not chunk_ends:
            continue
        while view_d >= 0 and (_ask(view_numel < tensor_numel, True, guard) or _ask(newshape[view_d] == 1, False, guard)):
            newstride[view_d] = view_numel * chunk_base_stride
            view_numel = view_numel * newshape[view_d]
            view_d -= 1
        if _ask(view_numel != tensor_numel, True, guard):
            return None
        if tensor_d > 0:
            chunk_base_stride = oldstride[tensor_d - 1]
            tensor_numel = 1
            view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def _view(t: FakeTensor, shape: tuple, op: str) -> FakeTensor | None:
    """A view of ``t`` with ``shape`` (already inferred), or None if the strides do not allow one."""
    if is_contiguous(t):
        # Always viewable; torch's strides (which differ on size-1 dims) when provable without a guard.
        stride = compute_stride(t.shape, t.stride(), shape, guard=False)
        return make_view(t, shape, stride if stride is not None else contiguous_strides(shape))
    stride = compute_stride(t.shape, t.stride(), shape)
    return None if stride is None else make_view(t, shape, stride)


@rule("view")
def view(t: FakeTensor, *shape: Any) -> FakeTensor:
    """``t.view(*shape)``: the same elements in a new shape, sharing storage; at most one ``-1``.

    Raises:
        ShapeError: the shape does not match ``t.numel()``, or ``t``'s strides do not allow a view
            (call ``.contiguous()`` first, or use ``reshape``).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 6), name="x")
    >>> view(x, x.shape[1], -1).shape, view(x, 24).shape
    ((s1, s0), (24,))
    """
    check_tensor(t, "view")
    new = infer_size(size_args(shape, "view"), t.numel(), "view", t)
    out = _view(t, new, "view")
    if out is None:
        raise ShapeError(
            f"view: size {fmt_shape(new)} is not compatible with the input's size {fmt_shape(t.shape)} and "
            f"stride {fmt_shape(t.stride())} (at least one dimension spans across two contiguous subspaces, "
            "or it cannot be proven that none does). Use .reshape(...) instead, or call .contiguous() first."
        )
    return out


def reshape_impl(t: FakeTensor, shape: tuple, op: str = "reshape") -> FakeTensor:
    """``reshape`` without graph recording (used by other rules): a view if possible, else a copy."""
    new = infer_size(shape, t.numel(), op, t)
    out = _view(t, new, op)
    return out if out is not None else new_tensor(t.env, new, t.dtype)


@rule("reshape")
def reshape(t: FakeTensor, *shape: Any) -> FakeTensor:
    """``t.reshape(*shape)``: a view when the strides allow one, else a contiguous copy.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 6), dynamic=False)
    >>> y = reshape(x.t(), 24); y.shape, y.is_view_of(x)
    ((24,), False)
    """
    check_tensor(t, "reshape")
    return reshape_impl(t, size_args(shape, "reshape"))


def flatten_impl(t: FakeTensor, start_dim: int = 0, end_dim: int = -1) -> FakeTensor:
    """``flatten`` without graph recording."""
    if t.ndim == 0:
        return reshape_impl(t, (1,), "flatten")
    start = canonical_dim(start_dim, t.ndim, "flatten", what="start_dim")
    end = canonical_dim(end_dim, t.ndim, "flatten", what="end_dim")
    if start > end:
        raise ShapeError(f"flatten: start_dim {start_dim} cannot come after end_dim {end_dim} for a {t.ndim}-d tensor")
    if start == end:
        return t
    shape = t.shape[:start] + (prod(t.shape[start:end + 1]),) + t.shape[end + 1:]
    return reshape_impl(t, shape, "flatten")


@rule("flatten")
def flatten(input: FakeTensor, start_dim: int = 0, end_dim: int = -1) -> FakeTensor:  # noqa: A002
    """``input.flatten(start_dim, end_dim)``: merge the dims ``start_dim..end_dim`` (a reshape).

    >>> from shapeenv import ShapeEnv
    >>> flatten(ShapeEnv().fake_tensor((2, 3, 4)), 1).shape
    (s0, s1*s2)
    """
    check_tensor(input, "flatten")
    return flatten_impl(input, start_dim, end_dim)


@rule("unflatten")
def unflatten(input: FakeTensor, dim: int, sizes: Sequence[Any]) -> FakeTensor:  # noqa: A002
    """``input.unflatten(dim, sizes)``: split dim ``dim`` into ``sizes`` (one may be ``-1``); a view.

    >>> from shapeenv import ShapeEnv
    >>> unflatten(ShapeEnv().fake_tensor((6, 5), dynamic=False), 0, (2, -1)).shape
    (2, 3, 5)
    """
    check_tensor(input, "unflatten")
    d = canonical_dim(dim, input.ndim, "unflatten")
    sizes = size_args(tuple(sizes), "unflatten")
    if not sizes:
        raise ShapeError("unflatten: sizes must be non-empty")
    inner = infer_size(sizes, input.shape[d], "unflatten")
    return reshape_impl(input, input.shape[:d] + inner + input.shape[d + 1:], "unflatten")


@rule("contiguous")
def contiguous(t: FakeTensor, memory_format: Any = "contiguous_format") -> FakeTensor:
    """``t.contiguous(memory_format)``: ``t`` itself when it is contiguous in that format, else a copy laid out so.

    Decided as torch decides it (a guard when only the traced strides decide, see
    :mod:`shapeenv.tensor.layout`), so whether the result aliases ``t`` is exact.

    Raises:
        ShapeError: ``preserve_format`` (torch refuses it here), or a format that does not fit the rank.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3))
    >>> contiguous(x) is x, contiguous(x.t()).stride()
    (True, (s0, 1))
    """
    check_tensor(t, "contiguous")
    try:
        fmt = layout.memory_format_name(memory_format)
        if fmt == "preserve_format":
            raise ShapeError("preserve memory format is unsupported by the contiguous operator")
        strides = layout.contiguous_layout(t.shape, t.stride(), fmt)
        if all(a is b for a, b in zip(strides, t.stride())):
            return t
        return new_tensor(t.env, t.shape, t.dtype, strides)
    except ValueError as e:
        raise ShapeError(f"contiguous: {getattr(e, 'message', e)}") from None  # the message without the inner error's location


@rule("as_strided")
def as_strided(input: FakeTensor, size: Sequence[Any], stride: Sequence[Any], storage_offset: Any = None) -> FakeTensor:  # noqa: A002
    """``input.as_strided(size, stride, storage_offset)``: a view of ``input``'s storage; the offset defaults to ``input``'s.

    Sizes, strides and the offset must be non-negative and ``size``/``stride`` of the same length
    (the storage's extent is not known to a fake tensor; the numpy kernel checks it).

    Raises:
        ShapeError: mismatched lengths or a negative size, stride or offset.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3), dynamic=False)
    >>> y = as_strided(x, (3, 4), (1, 3)); y.stride(), y.is_view_of(x)
    ((1, 3), True)
    """
    check_tensor(input, "as_strided")
    sizes = size_args(tuple(size), "as_strided")
    strides = tuple(check_size(s, "as_strided", f"stride {i}") for i, s in enumerate(stride))
    if len(sizes) != len(strides):
        raise ShapeError(f"as_strided: mismatch in length of strides and shape ({len(strides)} vs {len(sizes)})")
    for what, values in (("size", sizes), ("stride", strides)):
        for v in values:
            require(v >= 0, lambda what=what, values=values: f"as_strided: negative {what} in {fmt_shape(values)}")
    offset = input.storage_offset() if storage_offset is None else check_size(storage_offset, "as_strided", "storage_offset")
    require(offset >= 0, lambda: f"as_strided: negative storage offset {offset}")
    return make_view(input, sizes, strides, offset)


@rule("unfold")
def unfold(t: FakeTensor, dimension: int, size: Any, step: Any) -> FakeTensor:
    """``t.unfold(dimension, size, step)``: windows of ``size`` every ``step`` along ``dimension``,
    as a new last dim (a view; strides ``step * stride`` and ``stride``).

    Raises:
        ShapeError: ``size`` larger than the dim, or ``step`` not positive.

    >>> from shapeenv import ShapeEnv
    >>> y = unfold(ShapeEnv().fake_tensor((7, 3), dynamic=False), 0, 3, 2); y.shape, y.stride()
    ((3, 3, 3), (6, 1, 3))
    """
    check_tensor(t, "unfold")
    d = canonical_dim(dimension, t.ndim, "unfold")
    check_size(size, "unfold", "size")
    check_size(step, "unfold", "step")
    n = t.shape[d] if t.ndim else 1
    stride = t.stride(d) if t.ndim else 1
    require(size <= n, lambda: f"unfold: maximum size for tensor at dimension {d} is {n} but size is {size}")
    require(size >= 0, lambda: f"unfold: size is {size} but must be >= 0")
    require(step > 0, lambda: f"unfold: step is {step} but must be > 0")
    if t.ndim == 0:
        return make_view(t, (size,), (1,))
    count = (n - size) // step + 1
    return make_view(t, t.shape[:d] + (count,) + t.shape[d + 1:] + (size,),
                     t.stride()[:d] + (step * stride,) + t.stride()[d + 1:] + (stride,))
