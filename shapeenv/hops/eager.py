"""The reference semantics of scan, map and switch on real arrays, run eagerly.

When a HOP is called outside a trace on real arrays (numpy arrays, torch tensors),
as the eager stances of ``compile`` do, it runs the loop it stands for, exactly
as the seed documents define it: scan carries and stacks, map stacks the body's
results, switch runs the clamped branch.

>>> import numpy as np
>>> final, ys = eager_scan(lambda c, x: (c + x, c + x), np.zeros(2), np.ones((3, 2)))
>>> final.tolist(), ys.tolist()
([3.0, 3.0], [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

from ..errors import HigherOrderOpError, ShapeEnvTypeError
from .pytree import flatten, unflatten

__all__ = ["is_real_array", "any_real", "eager_scan", "eager_map", "eager_switch"]


def is_real_array(value: Any) -> bool:
    """An array with data: a numpy array or a torch tensor (not a fake tensor)."""
    return hasattr(value, "shape") and hasattr(value, "dtype") and not getattr(value, "_is_fake_tensor", False)


def any_real(*trees: Any) -> bool:
    """Whether any leaf of ``trees`` is a real array and none is a fake tensor."""
    leaves = [leaf for tree in trees for leaf in flatten(tree)[0]]
    return any(is_real_array(v) for v in leaves) and not any(getattr(v, "_is_fake_tensor", False) for v in leaves)


def _stack(items: list[Any], like: Any) -> Any:
    if getattr(like, "_is_eager_tensor", False):  # shapeenv.backends.eager.EagerTensor
        return type(like).stack(items)
    module = sys.modules.get(type(like).__module__.split(".")[0])
    stack = getattr(module, "stack", None)
    if stack is None:
        raise ShapeEnvTypeError(f"cannot stack values of type {type(like).__name__}: each output leaf of the body "
                                "must be an array (numpy, torch or eager tensor)", fix="return np.asarray(value) from the body")
    return stack(items, 0) if module.__name__ == "torch" else stack(items, axis=0)


def _select(x: Any, dim: int, i: int) -> Any:
    index = [slice(None)] * dim + [i]
    return x[tuple(index)]


def _stack_trees(results: list[Any]) -> Any:
    leaves0, spec = flatten(results[0])
    columns = [[flatten(r)[0][k] for r in results] for k in range(len(leaves0))]
    return unflatten([_stack(col, col[0]) for col in columns], spec)


def eager_scan(combine_fn: Callable, init: Any, xs: Any, *, dim: int = 0, reverse: bool = False,
               length: int | None = None) -> tuple[Any, Any]:
    """``scan`` on real arrays: carry through the slices along ``dim``, stack ys along dim 0."""
    leaves, spec = flatten(xs) if xs is not None else ([], None)
    if leaves:
        dim = dim % leaves[0].ndim
        n = int(leaves[0].shape[dim])
    elif length is not None:
        n = int(length)
    else:
        raise HigherOrderOpError("scan: give xs or length", fix="scan(f, init, xs) or scan(f, init, None, length=n)")
    order = range(n - 1, -1, -1) if reverse else range(n)
    carry, ys = init, []
    for i in order:
        x = unflatten([_select(leaf, dim, i) for leaf in leaves], spec) if leaves else None
        carry, y = combine_fn(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys:
        return carry, None
    return carry, _stack_trees(ys)


def eager_map(f: Callable, xs: Any, *args: Any) -> Any:
    """``map`` on real arrays: ``f`` on each leading slice, results stacked."""
    leaves, spec = flatten(xs)
    n = int(leaves[0].shape[0])
    return _stack_trees([f(unflatten([leaf[i] for leaf in leaves], spec), *args) for i in range(n)])


def eager_switch(index: Any, branches: Sequence[Callable], operands: tuple = ()) -> Any:
    """``switch`` on real values: run the branch the index picks, clamped into range."""
    i = int(index.reshape(-1)[0]) if is_real_array(index) else int(index)
    return branches[min(max(i, 0), len(branches) - 1)](*operands)
