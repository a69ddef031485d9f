"""Matrix products: ``matmul`` (``@``), ``mm``, ``bmm``, ``linear`` and ``outer``.

``matmul`` follows torch: 1-d x 1-d is a dot product (shape ``()``), a 1-d first argument
is a row vector and a 1-d second argument a column vector (their dim is dropped from the result),
and with 3 or more dims the batch dims broadcast. The inner sizes must be equal: a guard when
only the hints say so (which unifies the two symbols), nothing when provable. ``outer(input, vec2)``
takes two 1-d tensors and gives a contiguous ``(n, m)`` result of the promoted dtype.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); a = env.fake_tensor((7, 1, 2, 3), name="a"); b = env.fake_tensor((5, 3, 4), name="b")
>>> matmul(a, b).shape, len(env.guards)
((s0, s3, s1, s4), 0)
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import check_tensor, fmt_shape, known_true, new_tensor, require
from shapeenv.ops.rules.elementwise import _result_dtype, broadcast_shapes
from shapeenv.core.messages import hint_text, user_label
from shapeenv.ops.registry import rule

__all__ = ["matmul", "mm", "bmm", "linear"]


def _same_dtype(a: FakeTensor, b: FakeTensor, op: str) -> None:
    if a.dtype != b.dtype:
        raise ShapeError(f"{op}: expected both arguments to have the same dtype, but got {a.dtype} != {b.dtype}")


def _inner(m: Any, k: Any, op: str, a: FakeTensor, b: FakeTensor) -> None:
    require(m == k, lambda: (f"{op}: shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)} cannot be multiplied "
                             f"(the inner sizes {m} and {k} differ): the last dimension of {user_label(a, 'the first argument')} is {hint_text(m)} ({m}) but "
                             f"{'the only' if b.ndim == 1 else 'the second-to-last'} dimension of "
                             f"{user_label(b, 'the second argument')} is {hint_text(k)} ({k})"),
            lambda: _inner_fix(op, a, b))


def _inner_fix(op: str, a: FakeTensor, b: FakeTensor) -> str:
    """A transpose that makes the inner sizes agree, if there is one; else what must agree."""
    an, bn = user_label(a, "a"), user_label(b, "b")
    fn = "ops.matmul" if op == "matmul" else f"ops.{op}"
    if b.ndim >= 2 and hint_text(a.shape[-1]) == hint_text(b.shape[-1]):
        return f"transpose {bn}: {fn}({an}, {bn}.transpose(-2, -1))"
    if a.ndim >= 2 and hint_text(a.shape[-2]) == hint_text(b.shape[-2 if b.ndim >= 2 else 0]):
        return f"transpose {an}: {fn}({an}.transpose(-2, -1), {bn})"
    return (f"the inner sizes must agree: reshape one operand so that {an}.shape[-1] == {bn}.shape"
            f"[{-2 if b.ndim >= 2 else 0}] (e.g. a weight of shape ({hint_text(a.shape[-1])}, N))")


def matmul_shape(a: FakeTensor, b: FakeTensor, op: str = "matmul") -> tuple:
    """The shape of ``a @ b`` (validating it), without creating a tensor."""
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError(f"{op}: both arguments need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    _same_dtype(a, b, op)
    if a.ndim == 1 and b.ndim == 1:
        _inner(a.shape[0], b.shape[0], op, a, b)
        return ()
    if a.ndim <= 2 and b.ndim <= 2:
        _inner(a.shape[-1], b.shape[0], op, a, b)
        return a.shape[:-1] + b.shape[1:]
    n = a.shape[-2:-1]  # () for a 1-d a
    p = b.shape[-1:] if b.ndim >= 2 else ()
    k_b = b.shape[-2] if b.ndim >= 2 else b.shape[0]
    _inner(a.shape[-1], k_b, op, a, b)
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2], op=op)
    return batch + n + p


@rule("matmul")
def matmul(a: FakeTensor, b: FakeTensor) -> FakeTensor:
    """``a @ b`` with torch's 1-d and batched rules (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); a = env.fake_tensor((2, 3), name="a"); v = env.fake_tensor((3,), name="v")
    >>> matmul(a, v).shape, matmul(v, v).shape
    ((s0,), ())
    """
    check_tensor(a, "matmul", "first argument")
    check_tensor(b, "matmul", "second argument")
    return new_tensor(a.env, matmul_shape(a, b), a.dtype)


@rule("mm")
def mm(a: FakeTensor, b: FakeTensor) -> FakeTensor:
    """``torch.mm``: two matrices only.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); a = env.fake_tensor((2, 3), name="a"); b = env.fake_tensor((3, 5), name="b")
    >>> mm(a, b).shape
    (s0, s2)
    """
    check_tensor(a, "mm", "first argument")
    check_tensor(b, "mm", "second argument")
    if a.ndim != 2 or b.ndim != 2:
        raise ShapeError(f"mm: both arguments must be matrices, got shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)}")
    return new_tensor(a.env, matmul_shape(a, b, "mm"), a.dtype)


@rule("bmm")
def bmm(a: FakeTensor, b: FakeTensor) -> FakeTensor:
    """``torch.bmm``: two 3-d tensors with equal batch sizes (no broadcasting).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); a = env.fake_tensor((4, 2, 3), name="a"); b = env.fake_tensor((4, 3, 5), name="b")
    >>> bmm(a, b).shape
    (s0, s1, s3)
    """
    check_tensor(a, "bmm", "first argument")
    check_tensor(b, "bmm", "second argument")
    if a.ndim != 3 or b.ndim != 3:
        raise ShapeError(f"bmm: both arguments must be 3D tensors, got shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)}")
    require(a.shape[0] == b.shape[0], lambda: (
        f"bmm: batch sizes must be equal, got shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)}"))
    _same_dtype(a, b, "bmm")
    _inner(a.shape[2], b.shape[1], "bmm", a, b)
    return new_tensor(a.env, (a.shape[0], a.shape[1], b.shape[2]), a.dtype)


@rule("linear")
def linear(x: FakeTensor, weight: FakeTensor, bias: FakeTensor | None = None) -> FakeTensor:
    """``torch.nn.functional.linear``: ``x @ weight.T + bias``; ``weight`` is ``(out, in)`` or ``(in,)``.

    ``bias`` must broadcast to the output shape without growing it.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((8, 3), name="x"); w = env.fake_tensor((5, 3), name="w")
    >>> linear(x, w, env.fake_tensor((5,), name="b")).shape
    (s0, s2)
    """
    check_tensor(x, "linear", "input")
    check_tensor(weight, "linear", "weight")
    if weight.ndim not in (1, 2):
        raise ShapeError(f"linear: weight must be 1-D or 2-D, got shape {fmt_shape(weight.shape)}")
    if weight.ndim == 2:
        wt = FakeTensor(weight.env, weight.shape[::-1], weight.dtype, stride=weight.stride()[::-1])
    else:
        wt = weight
    shape = matmul_shape(x, wt, "linear")
    if bias is not None:
        check_tensor(bias, "linear", "bias")
        _same_dtype(x, bias, "linear")
        if weight.ndim == 1 and bias.ndim:
            raise ShapeError(f"linear: a 1-D weight {fmt_shape(weight.shape)} takes at most a 0-D bias, got {fmt_shape(bias.shape)}")
        if bias.ndim > len(shape):
            raise ShapeError(f"linear: bias of shape {fmt_shape(bias.shape)} has more dims than the output {fmt_shape(shape)}")
        for k in range(1, bias.ndim + 1):
            b, o = bias.shape[-k], shape[-k]
            if not known_true(b == 1):
                require(b == o, lambda b=b, o=o, k=k: (
                    f"linear: bias of shape {fmt_shape(bias.shape)} does not broadcast to the output "
                    f"{fmt_shape(shape)}: size {b} vs {o} at dimension {-k}"))
    return new_tensor(x.env, shape, x.dtype)


@rule("outer")
def outer(input: FakeTensor, vec2: FakeTensor) -> FakeTensor:  # noqa: A002
    """``torch.outer(input, vec2)``: ``(len(input), len(vec2))``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); outer(env.fake_tensor((3,), name="a"), env.fake_tensor((5,), "int64", name="b")).dtype
    float32
    """
    for what, t in (("self", input), ("vec2", vec2)):
        check_tensor(t, "outer", what)
        if t.ndim != 1:
            raise ShapeError(f"outer: Expected 1-D argument {what}, but got {t.ndim}-D",
                             fix="flatten it first: torch.outer(a.flatten(), b.flatten())")
    return new_tensor(input.env, (input.shape[0], vec2.shape[0]), _result_dtype(input, vec2))
