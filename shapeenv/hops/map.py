"""``map``: apply ``f`` to every slice of ``xs`` along dim 0 and stack the results.

Semantics (torch's ``torch._higher_order_ops.map``)::

    torch.stack([f(xs.select(0, i), *args) for i in range(xs.size(0))])

``f`` is traced once, on the first slice; its outputs get the batch size prepended.

Note [Empty batches]
    torch rejects a leading dimension of 0 (there is no slice to run ``f`` on).
    A constant 0 (or a size provably 0, or one whose traced value is 0) is an
    error here too. A symbolic leading size that is not provably non-zero (a
    backed size declared with ``min=0``, or an unbacked one) gets a *runtime
    assert* ``n >= 1`` rather than a guard: an empty batch is an error, not
    another valid program, so it should fail when the program runs rather than
    trigger a recompile; and an assert also works for data-dependent sizes,
    where a guard cannot be taken.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> xs = env.fake_tensor((3, 4, 5), name="xs")
>>> map(lambda x: x * 2, xs).shape
(s0, s1, s2)
"""

from __future__ import annotations

from typing import Any, Callable

from symint import SymBool, SymFloat, SymInt

from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.dispatch import is_tensor
from shapeenv.hops.common import (decide_equal, fail, fmt_shape, leaf_name, record_hop, select_view, tensor_leaves,
                                   trace_body)
from shapeenv.hops.eager import any_real, eager_map
from shapeenv.hops.pytree import leaf_items, tree_map

__all__ = ["map"]

HOP = "map"
_ARG_TYPES = (int, float, bool, SymInt, SymBool, SymFloat, type(None))


def _require_nonzero(env, n: Any) -> None:
    """Leading size ``n`` must be non-zero (see Note [Empty batches])."""
    message = (f"the leading dimension of xs is {n}, which is 0; map needs at least one slice "
               "(handle the empty batch before calling map)")
    if isinstance(n, int):
        if n == 0:
            raise fail(HOP, message)
        return
    if env.statically_known_true(n >= 1):
        return
    if env.statically_known_false(n >= 1) or n.node.hint == 0:
        raise fail(HOP, message)
    env.check(n >= 1, "map: the leading dimension of xs must be non-zero")


def map(f: Callable[..., Any], xs: Any, *args: Any) -> Any:
    """Shapes of ``map(f, xs, *args)``: ``f``'s outputs with the batch size prepended.

    Args:
        f: ``(x, *args) -> outputs``, a pytree of tensors; must not mutate or return its inputs.
        xs: a tensor or a pytree of tensors, mapped over dim 0 (all leading sizes equal, non-zero).
        *args: values passed unchanged to every call (tensors, numbers, SymInts, None, in pytrees).

    Returns:
        ``f``'s output pytree, each tensor leaf with the batch size prepended.

    Raises:
        HigherOrderOpError: a restriction is broken (the message names the leaf and the fix).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv()
    >>> xs = [env.fake_tensor((2, 3), dynamic=False, name="a"), env.fake_tensor((2, 3), dynamic=False, name="b")]
    >>> map(lambda x, c: x[0] + x[1] + c, xs, 1.0).shape
    (2, 3)
    """
    if any_real(xs, args):  # outside a trace, on real arrays: run the loop itself
        return eager_map(f, xs, *args)
    if not callable(f):
        raise fail(HOP, f"f must be callable, got {type(f).__name__}")
    items = tensor_leaves(HOP, "xs", xs, "mapped xs can only consist of tensors",
                          fix="map over tensors and pass other values through *args: map(lambda x, k: x * k, xs, 2)")
    if not items:
        raise fail(HOP, "xs has no leaves; map needs at least one tensor to map over")
    for path, leaf in items:
        if leaf.ndim == 0:
            raise fail(HOP, f"{leaf_name('xs', path)} is 0-d; every mapped tensor needs a leading dimension to map over")
    for path, leaf in leaf_items(args):
        if not is_tensor(leaf) and not isinstance(leaf, _ARG_TYPES):
            raise fail(HOP, f"args{path} is {leaf!r} ({type(leaf).__name__}); args leaves must be tensors, "
                            "numbers, SymInts or None")
    path0, first = items[0]
    env = first.env
    with env.operation(HOP):
        n = first.shape[0]
        for path, leaf in items[1:]:
            same = decide_equal(leaf.shape[0], n)
            if not same:
                how = "cannot be proven equal to" if same is None else "differs from"
                raise fail(HOP, f"{leaf_name('xs', path)} of shape {fmt_shape(leaf.shape)} has leading size "
                                f"{leaf.shape[0]}, which {how} {n} of {leaf_name('xs', path0)} {fmt_shape(first.shape)}; "
                                "the leading dimensions of mapped xs must be equal")
        _require_nonzero(env, n)
        x_in = tree_map(lambda t: select_view(t, 0), xs)
        inputs = [("xs", x_in)] + [(f"arg{i}", a) for i, a in enumerate(args)]
        body = trace_body(env, HOP, "body", f, inputs, [("xs", xs), ("args", args)])
        for path, leaf in leaf_items(body.output):
            if not is_tensor(leaf):
                raise fail(HOP, f"f returns {leaf!r} ({type(leaf).__name__}) at output{path or ' (the root)'}; "
                                "map stacks f's outputs, so they must be tensors")
        body.check_aliases("its output", body.output)
        graph = body.finish(body.output)
        result = tree_map(lambda t: FakeTensor(env, (n, *t.shape), t.dtype), body.output)
    record_hop(env, HOP, (xs, args), {}, {"body": graph}, result)
    return result
