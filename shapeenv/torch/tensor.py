"""``TracedTensor``: a ``torch.Tensor`` that stands for one of this library's fake tensors while torch code is traced.

It is a wrapper subclass (``torch.Tensor._make_wrapper_subclass``) on the ``meta``
device: it has no storage, and its torch-visible sizes are the *hints* of the fake
tensor's (symbolic) sizes. Nothing reads those: every torch call made while tracing is
intercepted by :class:`shapeenv.torch.mode.ShapeTraceMode` before torch's kernels, and
``x.shape`` / ``x.size()`` answer with the fake tensor's SymInts. The subclass exists
so that torch's ``isinstance(x, torch.Tensor)`` checks accept it, and so that a traced
tensor that escapes the trace fails loudly (``__torch_dispatch__`` raises) instead of
computing on garbage.

:func:`wrap` and :func:`unwrap` convert nested values both ways; ``unwrap`` also turns
torch dtypes and memory formats into this library's names and real tensors (module
parameters, constants) into fake tensors through a lookup the caller supplies.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from symint import SymBool, SymFloat, SymInt

from shapeenv.errors import TracedTensorError
from shapeenv.ops.dispatch import describe, is_tensor
from shapeenv.torch.convert import to_ours, to_torch_dtype
from shapeenv.torch.symbolic import to_ours as sym_to_ours
from shapeenv.torch.symbolic import to_torch as sym_to_torch

__all__ = ["TracedTensor", "wrap", "unwrap", "hint_of"]


def hint_of(size: Any) -> int:
    """A concrete int for a size: its value, its SymInt's hint, or 2 for a data-dependent size (never read).

    >>> from shapeenv import ShapeEnv
    >>> from guards import Source
    >>> hint_of(ShapeEnv().create_symint(7, Source.size("x", 0))), hint_of(3)
    (7, 3)
    """
    if isinstance(size, SymInt):
        hint = size.node.hint
        return int(hint) if hint is not None else 2
    return int(size)


class TracedTensor(torch.Tensor):
    """A meta-device ``torch.Tensor`` carrying a fake tensor (``.fake``) during a trace; see the module docstring."""

    fake: Any
    fake_device: torch.device
    _shapeenv_traced = True  # exists only inside a trace (shapeenv.export.state.is_traced)

    @staticmethod
    def __new__(cls, fake, device: torch.device | None = None):
        sizes = [hint_of(d) for d in fake.shape]
        strides = [hint_of(d) for d in fake.stride()]
        with torch._C.DisableTorchFunction():
            self = torch.Tensor._make_wrapper_subclass(
                cls, sizes, strides=strides, dtype=to_torch_dtype(fake.dtype), device="meta", requires_grad=False)
        self.fake = fake
        self.fake_device = device if device is not None else torch.device("cpu")
        return self

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise TracedTensorError(
            f"a tensor traced by shapeenv.torch ({_short(args)}) reached torch's kernel {func} outside a trace: "
            "traced tensors have shapes but no data",
            fix="use the values shapeenv.torch.export / compile return (programs, shapes), not the tensors seen while "
                "tracing",
        )

    def __repr__(self, *, tensor_contents=None) -> str:  # noqa: D105
        return f"TracedTensor({describe(self.fake)})"


def _short(args: Any) -> str:
    for a in args:
        if isinstance(a, TracedTensor):
            return describe(a.fake)
    return "?"


def wrap(value: Any, device: torch.device | None = None) -> Any:
    """Fake tensors (nested in lists, tuples, dicts) as :class:`TracedTensor` s, SymInts as torch's; others unchanged.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3), name="x")
    >>> t, n = wrap((x, x.shape[0]))
    >>> t, type(n).__name__, unwrap(t, real=None) is x
    (TracedTensor(f32[s0, s1]), 'SymInt', True)
    """
    if is_tensor(value):
        return TracedTensor(value, device)
    if isinstance(value, (SymInt, SymFloat, SymBool)):
        return sym_to_torch(value)
    if isinstance(value, list):
        return [wrap(v, device) for v in value]
    if isinstance(value, tuple):
        items = [wrap(v, device) for v in value]
        return type(value)(*items) if _is_namedtuple(value) else type(value)(items)
    if isinstance(value, dict):
        return {k: wrap(v, device) for k, v in value.items()}
    return value


def _is_namedtuple(value: tuple) -> bool:
    return hasattr(value, "_fields")


def unwrap(value: Any, real: Callable[[torch.Tensor], Any]) -> Any:
    """:class:`TracedTensor` s as their fake tensors, real tensors through ``real``, torch's SymInts and dtypes as ours (nested)."""
    if isinstance(value, TracedTensor):
        return value.fake
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return sym_to_ours(value)
    if isinstance(value, torch.Tensor):
        return real(value)
    if isinstance(value, (torch.dtype, torch.memory_format)):
        return to_ours(value)
    if isinstance(value, torch.Size):
        return tuple(sym_to_ours(v) for v in value)
    if isinstance(value, list):
        return [unwrap(v, real) for v in value]
    if isinstance(value, tuple):
        items = [unwrap(v, real) for v in value]
        return type(value)(*items) if _is_namedtuple(value) else tuple(items)
    if isinstance(value, dict):
        return {k: unwrap(v, real) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(unwrap(value.start, real), unwrap(value.stop, real), unwrap(value.step, real))
    return value
