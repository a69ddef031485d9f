"""``switch``: run one of N branches chosen by an index, ``branches[clamp(index, 0, N-1)](*operands)``.

* An ``int`` index (or a SymInt whose range clamps to a single branch) specialises:
  only that branch runs, inline (its ops go to the enclosing graph), as torch's
  ``cond`` does with a constant predicate. It is still checked for mutating or
  returning its operands and the tensors in its closure and globals (by version
  counters and storage; with no sub-graph, tensors it reaches only through
  attributes are not watched, see Note [Purity of HOP bodies] in ``common``).
* A SymInt index, or a tensor index (its value is data, so always unknown), keeps
  the choice symbolic: every branch is traced into a sub-graph, and their outputs
  are joined into one output that is right for every branch.

Joining outputs: the branches must return the same pytree structure, the same
kind of leaf at each position (tensor, int or None; None at the same places)
and the same dtypes and ranks. Sizes and ints that are equal in every branch
(statically, no guard) are kept; others become a fresh *unbacked* SymInt whose
range is the hull of the branches' ranges, stated as runtime asserts. Positions
with the same values in every branch share one symbol (sound: one run takes one
branch, so such positions are equal in every run; and it keeps ``a + b`` of two
such outputs broadcastable without a data-dependent question).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> x = env.fake_tensor((6, 3), dynamic=False, name="x"); i = env.fake_tensor((), "int64", name="i")
>>> out = switch(i, [lambda t: (t * 2, 2), lambda t: (t + 1, 5)], (x,))
>>> out[0].shape, out[1], str(env.bound(out[1]))
((6, 3), u0, '[2, 5]')
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Callable, Sequence

from symint.lazy_sympy import sympy

from symint import SymInt

from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.dispatch import env_of, is_tensor
from shapeenv.hops.common import Watch, closure_tensors, decide_equal, describe_tree, fail, fmt_shape, record_hop, trace_body
from shapeenv.hops.eager import any_real, eager_switch
from shapeenv.hops.pytree import flatten, paths, structure_diff, unflatten, leaf_items

__all__ = ["switch"]

HOP = "switch"


def _kind(value: Any) -> str | None:
    if is_tensor(value):
        return "tensor"
    if value is None:
        return "None"
    if isinstance(value, SymInt) or (isinstance(value, int) and not isinstance(value, bool)):
        return "int"
    return None


def _check_args(branches: Any, operands: Any) -> None:
    if not isinstance(branches, (list, tuple)) or not branches:
        raise fail(HOP, f"branches must be a non-empty list or tuple of callables, got {branches!r}")
    for i, branch in enumerate(branches):
        if not callable(branch):
            raise fail(HOP, f"branch {i} is {branch!r} ({type(branch).__name__}), not a callable")
    if not isinstance(operands, (list, tuple)):
        raise fail(HOP, f"operands must be a tuple of inputs, got {type(operands).__name__}; "
                        "wrap a single tensor as (x,)")
    for path, leaf in leaf_items(tuple(operands)):
        if _kind(leaf) is None:
            raise fail(HOP, f"operands{path} is {leaf!r} ({type(leaf).__name__}); operands must be tensors, ints "
                            "or None, possibly nested in tuples, lists and dicts")


def _check_outputs(label: str, out: Any) -> None:
    for path, leaf in leaf_items(out):
        if _kind(leaf) is None:
            raise fail(HOP, f"{label} returns {leaf!r} ({type(leaf).__name__}) at output{path or ' (the root)'}; "
                            "branch outputs must be tensors, ints or None, possibly nested in tuples, lists and dicts")


def _static_choice(env, index: Any, n: int) -> int | None:
    """The branch an index picks when that is known without a guard (after clamping), else None."""
    if isinstance(index, int):
        return min(max(index, 0), n - 1)
    rng = env.bound(index)
    lo, hi = (min(max(v, 0), n - 1) for v in (rng.lower, rng.upper))
    return int(lo) if lo == hi else None


def _selects(index: Any, i: int, n: int) -> Any:
    """The condition under which ``index`` selects branch ``i`` of ``n`` (clamped); True for a tensor index (unknown data)."""
    if is_tensor(index):
        return True
    if i == 0:
        return index <= 0
    if i == n - 1:
        return index >= n - 1
    return index == i


def _check_tensor_index(index: FakeTensor) -> None:
    same = decide_equal(index.numel(), 1)
    if not same:
        how = "cannot be proven to hold" if same is None else "does not hold"
        raise fail(HOP, f"a tensor index must hold exactly one element, but the index of shape "
                        f"{fmt_shape(index.shape)} {how} one; pass a one-element tensor (e.g. index.reshape(()))")
    if index.dtype.is_floating_point:
        raise fail(HOP, f"the index tensor has dtype {index.dtype}; use an integer tensor (e.g. index.long())")


def _run_one(chosen: int, branches: Sequence[Callable], operands: tuple) -> Any:
    """Run the chosen branch inline (its ops go to the current graph) with the same purity checks."""
    label = f"branch_{chosen}"
    watch = Watch(HOP, label)
    watch.add("operands", operands)
    for desc, t in closure_tensors(branches[chosen]):
        watch.add_tensor(desc, t)
    out = branches[chosen](*operands)
    watch.check_versions()
    _check_outputs(label, out)
    for path, leaf in leaf_items(out):
        watch.check_alias(f"output{path}", leaf)
    return out


class _Joiner:
    """Joins per-branch sizes and ints into one value, sharing a symbol between equal joins."""

    def __init__(self, env):
        self.env = env
        self._memo: dict[tuple, Any] = {}

    def join(self, values: list[Any], size_like: bool, where: str) -> Any:
        first = values[0]
        if all(v is first or self.env.statically_known_true(v == first) for v in values[1:]):
            return first
        key = (size_like, tuple(sympy.Integer(v) if isinstance(v, int) else self.env.simplify(v.node.expr)
                                for v in values))
        if key not in self._memo:
            self._memo[key] = self._fresh(values, size_like, where)
        return self._memo[key]

    def _fresh(self, values: list[Any], size_like: bool, where: str) -> SymInt:
        ranges = [self.env.bound(v) for v in values]
        lo, hi = min(r.lower for r in ranges), max(r.upper for r in ranges)
        u = self.env.create_unbacked_symint(size_like=size_like)
        floor = 0 if size_like else -math.inf
        if lo > floor:
            self.env.check(u >= int(lo), f"switch: {where} is at least the smallest branch value")
        if hi < math.inf:
            self.env.check(u <= int(hi), f"switch: {where} is at most the largest branch value")
        return u


def _join(env, outs: list[Any]) -> Any:
    specs = [flatten(o) for o in outs]
    _, spec0 = specs[0]
    for i, (_, spec) in enumerate(specs[1:], 1):
        diff = structure_diff(spec0, spec, "branch_0", f"branch_{i}")
        if diff is not None:
            raise fail(HOP, f"the branches return different structures ({diff}); every branch must return "
                            "the same pytree structure")
    joiner = _Joiner(env)
    joined = []
    for k, path in enumerate(paths(spec0)):
        where = f"output{path}"
        column = [leaves[k] for leaves, _ in specs]
        kinds = [_kind(v) for v in column]
        odd = next((i for i, kind in enumerate(kinds) if kind != kinds[0]), None)
        if odd is not None:
            detail = (" None must stand in the same positions in every branch"
                      if "None" in (kinds[0], kinds[odd]) else " every branch must return the same kind of value there")
            raise fail(HOP, f"{where} is {describe_tree(column[0])} in branch_0 but {describe_tree(column[odd])} "
                            f"in branch_{odd};{detail}")
        if kinds[0] == "None":
            joined.append(None)
        elif kinds[0] == "int":
            joined.append(joiner.join(column, False, where))
        else:
            joined.append(_join_tensors(env, joiner, column, where))
    return unflatten(joined, spec0)


def _join_tensors(env, joiner: _Joiner, column: list[FakeTensor], where: str) -> FakeTensor:
    first = column[0]
    for i, t in enumerate(column[1:], 1):
        if t.dtype != first.dtype:
            raise fail(HOP, f"{where} has dtype {first.dtype} in branch_0 but {t.dtype} in branch_{i}; "
                            "all branches must return the same dtypes (cast with .to())")
        if t.ndim != first.ndim:
            raise fail(HOP, f"{where} has shape {fmt_shape(first.shape)} in branch_0 but {fmt_shape(t.shape)} in "
                            f"branch_{i}; all branches must return tensors of the same rank",
                       fix=f"make branch_{i} return a {first.ndim}-d tensor there, e.g. "
                           f"{'out.unsqueeze(0)' if t.ndim < first.ndim else 'out.flatten()' if first.ndim == 1 else 'out.reshape(...)'}"
                           " (sizes may differ between branches; ranks may not)")
    shape = tuple(joiner.join([t.shape[d] for t in column], True, f"{where}.size()[{d}]") for d in range(first.ndim))
    return FakeTensor(env, shape, first.dtype)


def switch(index: int | SymInt | FakeTensor, branches: Sequence[Callable[..., Any]], operands: tuple = ()) -> Any:
    """Shapes of ``branches[clamp(index, 0, len(branches) - 1)](*operands)`` (see the module docstring).

    Args:
        index: an int, a SymInt, or an integer tensor with exactly one element.
        branches: a non-empty list of callables taking ``*operands``.
        operands: a tuple of tensors, ints or None (possibly nested pytrees).

    Returns:
        The chosen branch's output when the index is known; otherwise the join of all
        branches' outputs (differing sizes and ints become unbacked SymInts with the hull range).

    Raises:
        HigherOrderOpError: a restriction is broken (the message names the branch and the fix).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4,), name="x")
    >>> switch(7, [lambda t: t + 1, lambda t: t * 2], (x,)).shape   # 7 clamps to branch 1
    (s0,)
    """
    if any_real((index, operands)) or (isinstance(index, int) and any_real(operands)):
        return eager_switch(index, branches, tuple(operands))  # outside a trace, on real values
    _check_args(branches, operands)
    operands = tuple(operands)
    n = len(branches)
    if isinstance(index, bool) or not (isinstance(index, (int, SymInt)) or is_tensor(index)):
        raise fail(HOP, f"index must be an int, a SymInt or an integer tensor with one element, got {index!r}")
    env = env_of(index, operands)
    if is_tensor(index):
        _check_tensor_index(index)
        chosen = None
    else:
        chosen = _static_choice(env, index, n)
    if chosen is not None:
        with env.operation(HOP) if env is not None else contextlib.nullcontext():
            return _run_one(chosen, branches, operands)
    with env.operation(HOP):
        bodies = []
        for i, branch in enumerate(branches):
            with env.assuming(_selects(index, i, n)):  # path-sensitive: the index is known in its branch
                body = trace_body(env, HOP, f"branch_{i}", branch, [(f"operand{j}", op) for j, op in enumerate(operands)],
                                  [("operands", operands)])
            _check_outputs(f"branch_{i}", body.output)
            body.check_aliases("output", body.output)
            bodies.append(body)
        result = _join(env, [b.output for b in bodies])
        subgraphs = {f"branch_{i}": b.finish(b.output) for i, b in enumerate(bodies)}
    record_hop(env, HOP, (index, operands), {}, subgraphs, result)
    return result
