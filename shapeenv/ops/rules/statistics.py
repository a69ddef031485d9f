"""Variance and standard deviation: ``var``, ``std``, ``var_mean``, ``std_mean``.

``dim`` is an int, a list of ints or None (all dims); ``correction`` (default 1, Bessel's) or
the legacy ``unbiased`` flag changes values, not shapes; ``keepdim`` keeps reduced dims as
size 1. Floating-point inputs only (torch: "std and var only support floating point and complex
dtypes"); contiguous results of the input's dtype. ``var(x, False)`` is the legacy
``var(input, unbiased)`` form. An empty reduction gives nan in torch, not an error, so no size
is asked about.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 3, 5), name="x")
>>> var(x, [0, 2]).shape, std(x, 1, keepdim=True).shape, [t.shape for t in var_mean(x, -1)]
((s1,), (s0, 1, s2), [(s0, s1), (s0, s1)])
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import canonical_dims, check_tensor, new_tensor
from shapeenv.ops.rules.reductions import reduced_shape
from shapeenv.ops.registry import rule

__all__ = ["var", "std", "var_mean", "std_mean"]


def _stat(op: str, input: FakeTensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any) -> FakeTensor:
    check_tensor(input, op)
    if not input.dtype.is_floating_point:
        raise ShapeError(f"{op}: std and var only support floating point and complex dtypes, got {input.dtype}",
                         fix="convert the input first: x.float()")
    if isinstance(dim, bool):  # the legacy var(input, unbiased) overload
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise ShapeError(f"{op}: pass either unbiased or correction, not both")
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        dims = list(range(input.ndim))
    else:
        dims = canonical_dims(dim, input.ndim, op)
    return new_tensor(input.env, reduced_shape(input, dims, bool(keepdim)), input.dtype)


@rule("var")
def var(input: FakeTensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
        correction: Any = None) -> FakeTensor:
    """``torch.var(input, dim=None, unbiased=None, keepdim=False, *, correction=None)``.

    >>> from shapeenv import ShapeEnv
    >>> var(ShapeEnv().fake_tensor((2, 3)), None, keepdim=True).shape
    (1, 1)
    """
    return _stat("var", input, dim, unbiased, keepdim, correction)


@rule("std")
def std(input: FakeTensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
        correction: Any = None) -> FakeTensor:
    """``torch.std`` (same arguments as :func:`var`).

    >>> from shapeenv import ShapeEnv
    >>> std(ShapeEnv().fake_tensor((2, 3), "float16"), 0).dtype
    float16
    """
    return _stat("std", input, dim, unbiased, keepdim, correction)


@rule("var_mean")
def var_mean(input: FakeTensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             correction: Any = None) -> tuple:
    """``torch.var_mean``: ``(var, mean)``.

    >>> from shapeenv import ShapeEnv
    >>> [t.shape for t in var_mean(ShapeEnv().fake_tensor((2, 3)), 1)]
    [(s0,), (s0,)]
    """
    out = _stat("var_mean", input, dim, unbiased, keepdim, correction)
    return out, new_tensor(out.env, out.shape, out.dtype)


@rule("std_mean")
def std_mean(input: FakeTensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             correction: Any = None) -> tuple:
    """``torch.std_mean``: ``(std, mean)``.

    >>> from shapeenv import ShapeEnv
    >>> [t.shape for t in std_mean(ShapeEnv().fake_tensor((2, 3)))]
    [(), ()]
    """
    out = _stat("std_mean", input, dim, unbiased, keepdim, correction)
    return out, new_tensor(out.env, out.shape, out.dtype)
