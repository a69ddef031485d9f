"""``scan``: a loop that threads a carry through ``combine_fn`` over slices of ``xs`` and stacks the outputs.

Semantics (torch's ``torch._higher_order_ops.scan``)::

    carry, ys = init, []
    for i in range(xs.size(dim)):            # reversed when reverse=True
        carry, y = combine_fn(carry, xs.select(dim, i))
        ys.append(y)
    return carry, stack(ys)                  # every y leaf stacked along dim 0

Only shapes are computed: ``combine_fn`` is traced once on a slice of ``xs``
(its leaves with ``dim`` removed) and a carry shaped like ``init``.

Note [Empty scans]
    A scan of length 0 never calls ``combine_fn`` at run time, yet the shapes of
    ``ys`` must be known. As torch's tracer does, we trace ``combine_fn`` anyway,
    on a slice shaped like the rows ``xs`` would have (``xs`` of shape
    ``(0, 3)`` gives slices of shape ``(3,)``); its restrictions (carry matches
    init, no aliasing or mutation) are checked as for any length. The result is
    a final carry with init's metadata (fresh tensors, as for every scan: the
    values equal init's) and ys of shape ``(0, *y.shape)``.

Note [Where ys are stacked]
    ys are stacked along dim 0, whatever ``dim`` is, as the issue and torch's
    docstring say. torch 2.13's implementation moves the stacked dim back to
    ``dim`` (``movedim(y, 0, dim)`` when ``dim < y.ndim``); we do not, so a scan
    over ``dim=1`` returns ys of shape ``(n, *y.shape)``.

>>> from shapeenv import ShapeEnv, ops
>>> env = ShapeEnv()
>>> xs = env.fake_tensor((5, 3), name="xs"); init = env.fake_tensor((3,), name="init")
>>> def cumsum(carry, x):
...     nxt = carry + x
...     return nxt, nxt.clone()
>>> final, ys = scan(cumsum, init, xs)
>>> final.shape, ys.shape
((s1,), (s0, s1))
"""

from __future__ import annotations

from typing import Any, Callable

from symint import SymInt

from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.dispatch import is_tensor
from shapeenv.core.messages import hint_text
from shapeenv.hops.common import (decide_equal, describe_tree, fail, fmt_shape, fresh_like, leaf_name, record_hop, select_view,
                                   tensor_leaves, trace_body)
from shapeenv.hops.eager import any_real, eager_scan
from shapeenv.hops.pytree import flatten, leaf_items, paths, structure_diff, tree_map

__all__ = ["scan"]

HOP = "scan"


def _is_size(value: Any) -> bool:
    return isinstance(value, SymInt) or (isinstance(value, int) and not isinstance(value, bool))


def _check_inputs(combine_fn: Callable, init: Any, xs: Any, dim: Any, reverse: Any) -> None:
    if not callable(combine_fn):
        raise fail(HOP, f"combine_fn must be callable, got {type(combine_fn).__name__}")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise fail(HOP, f"dim must be an int, got {dim!r}")
    if not isinstance(reverse, bool):
        raise fail(HOP, f"reverse must be a bool, got {reverse!r}")
    if not tensor_leaves(HOP, "init", init, "init leaves must be tensors"):
        raise fail(HOP, "init has no leaves; the carry must hold at least one tensor")
    if xs is not None:
        tensor_leaves(HOP, "xs", xs, "xs leaves must be tensors (for a loop without inputs pass xs=None and length=N)")


def _length(env, xs_items: list[tuple[str, FakeTensor]], dim: int, length: Any) -> tuple[Any, int]:
    """The number of iterations and the canonical dim; checks xs against each other and ``length``."""
    if length is not None and not _is_size(length):
        raise fail(HOP, f"length must be an int or a SymInt, got {length!r}")
    if not xs_items:
        if length is None:
            raise fail(HOP, "xs has no tensor leaves, so the number of iterations is unknown; "
                            "pass length=N (combine_fn then receives x=None)")
        _require_non_negative(env, length)
        return length, dim
    path0, first = xs_items[0]
    if not -first.ndim <= dim < first.ndim:
        raise fail(HOP, f"dim={dim} is out of range for {leaf_name('xs', path0)} of shape {fmt_shape(first.shape)}; "
                        f"pass a dim in [{-first.ndim}, {first.ndim - 1}]")
    dim %= first.ndim
    for path, leaf in xs_items:
        if leaf.ndim <= dim:
            raise fail(HOP, f"{leaf_name('xs', path)} of shape {fmt_shape(leaf.shape)} has no dimension {dim}; "
                            f"every xs leaf needs more than dim={dim} dimensions")
    n = first.shape[dim]
    for path, leaf in xs_items[1:]:
        same = decide_equal(leaf.shape[dim], n)
        if not same:
            how = "cannot be proven equal to" if same is None else "differs from"
            fix = f" (add shapeenv.check({leaf.shape[dim]} == {n}) if it always holds)" if same is None else ""
            raise fail(HOP, f"{leaf_name('xs', path)} has size {leaf.shape[dim]} along dim {dim}, which {how} the size "
                            f"{n} of {leaf_name('xs', path0)}; all xs leaves must have the same size along dim{fix}",
                       fix=None if fix else f"scan the common length of the leaves, e.g. ops.narrow(leaf, {dim}, 0, n) "
                                            f"on each xs leaf with n = min of their sizes along dim {dim}")
    if length is not None:
        same = decide_equal(length, n)
        if not same:
            how = "cannot be proven equal to" if same is None else "does not match"
            raise fail(HOP, f"length={length} {how} the size {n} of xs along dim {dim}; "
                            "drop length or pass the size of xs")
    return n, dim


def _require_non_negative(env, length: Any) -> None:
    if isinstance(length, int):
        if length < 0:
            raise fail(HOP, f"length={length} is negative; a scan runs length >= 0 times")
        return
    if env.statically_known_true(length >= 0):
        return
    if env.statically_known_false(length >= 0) or length.node.hint is not None and length.node.hint < 0:
        raise fail(HOP, f"length={length} is negative; a scan runs length >= 0 times")
    env.check(length >= 0, "scan: length must be >= 0")


def _check_carry(init: Any, next_carry: Any) -> None:
    init_leaves, init_spec = flatten(init)
    carry_leaves, carry_spec = flatten(next_carry)
    diff = structure_diff(init_spec, carry_spec, "init", "next_carry")
    if diff is not None:
        raise fail(HOP, f"next_carry does not have init's structure ({diff}); combine_fn must return "
                        "(next_carry, y) with next_carry shaped exactly like init")
    for path, i, c in zip(paths(init_spec), init_leaves, carry_leaves):
        name = leaf_name("carry", path)
        if not is_tensor(c):
            raise fail(HOP, f"{name} is {c!r} ({type(c).__name__}), but init holds a tensor there")
        if c.dtype != i.dtype:
            raise fail(HOP, f"{name}: dtype {c.dtype} does not match init ({i.dtype})",
                       fix=f"cast the carry in combine_fn: return next_carry.to({str(i.dtype)!r}), y")
        same: bool | None = len(c.shape) == len(i.shape)
        for a, b in zip(c.shape, i.shape) if same else ():
            same = decide_equal(a, b)
            if not same:
                break
        if same is None:
            raise fail(HOP, f"{name}: shape {fmt_shape(c.shape)} cannot be proven to match init {fmt_shape(i.shape)}; "
                            "add shapeenv.check(...) on the data-dependent sizes or keep init's shape")
        if not same:
            same_rank = len(c.shape) == len(i.shape)
            raise fail(HOP, f"{name}: shape {fmt_shape(c.shape)} does not match init {fmt_shape(i.shape)}: combine_fn "
                            f"returned a carry of shape {fmt_shape(c.shape)}{_in_trace(c.shape)} for init{path} of shape "
                            f"{fmt_shape(i.shape)}; the carry keeps init's shape and dtype across iterations",
                       fix="return a carry shaped like init and put what grows in y (ys stacks it over the iterations): "
                           "def combine_fn(carry, x): ...; return new_carry, y  # new_carry.shape == carry.shape"
                       + ("" if same_rank else f"; to change its rank, reshape: new_carry.reshape({fmt_shape(i.shape)[1:-1] or '()'})"))


def _check_output_aliasing(next_carry: Any, y: Any) -> None:
    seen: dict[int, str] = {}
    for kind, tree in (("next_carry", next_carry), ("y", y)):
        for path, leaf in leaf_items(tree):
            name = f"{kind}{path}"
            other = seen.setdefault(id(leaf.storage), name)
            if other != name:
                raise fail(HOP, f"combine_fn returns {other} and {name}, which share storage (the same tensor or "
                                "views of one); clone one of them, e.g. return nxt, nxt.clone()")


def scan(combine_fn: Callable[[Any, Any], tuple[Any, Any]], init: Any, xs: Any, *, dim: int = 0,
         reverse: bool = False, length: int | SymInt | None = None) -> tuple[Any, Any]:
    """Shapes of ``scan(combine_fn, init, xs)``: ``(final_carry, ys)`` (see the module docstring).

    Args:
        combine_fn: ``(carry, x) -> (next_carry, y)``; must not mutate or return its inputs.
        init: the initial carry, a pytree of tensors.
        xs: a pytree of tensors scanned along ``dim``, or None with ``length``.
        dim: the scanned dimension of every xs leaf (negative counts from the end of the first leaf).
        reverse: scan from the last slice to the first (shapes are the same).
        length: the number of iterations; must equal the size of xs along ``dim``, or
            stand alone with ``xs=None`` (combine_fn then receives ``x=None``).

    Returns:
        ``(final_carry, ys)``: the final carry shaped like init, and y's leaves with the
        scan length prepended.

    Raises:
        HigherOrderOpError: a restriction is broken (the message names the leaf and the fix).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); init = env.fake_tensor((2,), dynamic=False, name="init")
    >>> final, ys = scan(lambda c, x: (c * 2, {"c": c.clone()}), init, None, length=4)
    >>> final.shape, ys["c"].shape
    ((2,), (4, 2))
    """
    if any_real(init, xs):  # outside a trace, on real arrays: run the loop itself
        return eager_scan(combine_fn, init, xs, dim=dim, reverse=reverse, length=length)
    _check_inputs(combine_fn, init, xs, dim, reverse)
    env = flatten(init)[0][0].env
    xs_items = leaf_items(xs) if xs is not None else []
    with env.operation(HOP):
        n, dim = _length(env, xs_items, dim, length)
        carry_in = tree_map(fresh_like, init)
        x_in = tree_map(lambda t: select_view(t, dim), xs) if xs_items else None
        body = trace_body(env, HOP, "combine_fn", combine_fn, [("carry", carry_in), ("xs", x_in)],
                          [("init", init), ("xs", xs)])
        out = body.output
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise fail(HOP, f"combine_fn must return a pair (next_carry, y), got {describe_tree(out)}")
        next_carry, y = out
        _check_carry(init, next_carry)
        tensor_leaves(HOP, "y", y, "y is stacked over the iterations, so its leaves must be tensors")
        body.check_aliases("next_carry", next_carry)
        body.check_aliases("y", y)
        _check_output_aliasing(next_carry, y)
        graph = body.finish(out)
        final = tree_map(lambda t: FakeTensor(env, t.shape, t.dtype), init)
        ys = tree_map(lambda t: FakeTensor(env, (n, *t.shape), t.dtype), y)
    result = (final, ys)
    record_hop(env, HOP, (init, xs), {"dim": dim, "reverse": reverse, "length": n}, {"combine_fn": graph}, result)
    return result


def _in_trace(shape: tuple) -> str:
    """`` (6 x 3 in this trace)`` for a symbolic shape, nothing for a static one."""
    if all(isinstance(d, int) for d in shape):
        return ""
    return f" ({' x '.join(hint_text(d) for d in shape)} in this trace)"
