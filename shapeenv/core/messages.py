"""Wording errors in the user's terms: tensor names, sizes in this trace, and what each symbol stands for.

A shape rule words its error with symbols (``s1``) and argument positions; :func:`annotate`
adds the lines a user needs to map them back to their program: which of their variables each
tensor argument is, its shape with the sizes of this trace, and the input dim behind every
symbol the message mentions.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
>>> print(legend(env, "sizes s1 and 7 differ"))
s1 = x.size()[1] (3 in this trace)
>>> describe_tensor(x, "x")
'x: float32[s0, s1] (4 x 3 in this trace)'
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from symint import SymInt
from guards.text.printers import to_source_text

from .provenance import local_name, user_frame_object

__all__ = ["annotate", "legend", "describe_tensor", "tensor_label", "short_repr"]

_SYMBOL = re.compile(r"\b([su]\d+)\b")
_MAX_ARGS = 6  # inputs listed per error


def short_repr(value: Any, limit: int = 80) -> str:
    """``value`` as messages show it: arrays by type, shape and dtype (never their data), other values cut short.

    >>> import numpy as np
    >>> short_repr(np.ones((100, 100)))
    'a numpy.ndarray of shape (100, 100) and dtype float64'
    >>> short_repr("x" * 200)[-3:]
    '...'
    """
    if getattr(value, "_is_fake_tensor", False):
        return repr(value)
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        kind = f"{type(value).__module__.split('.')[0]}.{type(value).__name__}"
        return f"a {kind} of shape {tuple(shape)} and dtype {dtype}"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _symbol_text(env, sym) -> str | None:
    info = env.symbols.get(sym)
    if info is None:
        return None
    if not info.sources:
        made = f", from {info.origin}" if getattr(info, "origin", None) else ""
        return f"{sym} = a data-dependent size (no value while tracing{made})"
    sources = " = ".join(s.text() for s in info.sources[:3])
    hint = f" ({info.hint} in this trace)" if info.hint is not None else ""
    return f"{sym} = {sources}{hint}"


def legend(env, text: str, values: Iterable[Any] = ()) -> str | None:
    """What each symbol named in ``text`` (or in the shapes of ``values``) stands for, in allocation order.

    Args:
        env: the ShapeEnv that owns the symbols.
        text: a message that mentions symbols (``s0``, ``u1``).
        values: tensors or sizes whose symbols to include too.

    Returns:
        One ``s1 = x.size()[1] (3 in this trace)`` per symbol, joined by semicolons, or None if none.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); n = env.fake_tensor((5,), name="xs").shape[0]
    >>> legend(env, "", [n])
    's0 = xs.size()[0] (5 in this trace)'
    """
    names = set(_SYMBOL.findall(text))
    for v in values:
        for d in getattr(v, "shape", (v,)):
            if isinstance(d, SymInt):
                names.update(s.name for s in d.node.expr.free_symbols)
    if not names or env is None or not hasattr(env, "symbols"):
        return None
    infos = sorted((i for i in env.symbols.values() if i.name in names), key=lambda i: i.index)
    parts = [t for t in (_symbol_text(env, i.name) for i in infos) if t]
    return "; ".join(parts) or None


def _hint(size: Any) -> Any:
    return size.node.hint if isinstance(size, SymInt) else size


def describe_tensor(t: Any, label: str | None) -> str:
    """``x: float32[s0, 3] (4 x 3 in this trace)``: a tensor argument by the user's name for it.

    >>> from shapeenv import ShapeEnv
    >>> describe_tensor(ShapeEnv().fake_tensor((2,), dynamic=False), None)
    'float32[2]'
    """
    dims = ", ".join(str(d) for d in t.shape)
    text = f"{t.dtype}[{dims}]"
    if any(isinstance(d, SymInt) for d in t.shape):
        hints = [_hint(d) for d in t.shape]
        if all(h is not None for h in hints):
            text += f" ({' x '.join(str(h) for h in hints)} in this trace)"
    return f"{label}: {text}" if label else text


def tensor_label(t: Any, frame) -> str | None:
    """The user's name for tensor ``t``: a variable bound to it in their frame, else the input's name."""
    return local_name(t, frame) or getattr(t, "name", None)


def _tensor_args(args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple)) and any(getattr(v, "_is_fake_tensor", False) for v in a):
            out += [(f"[{i}][{j}]" if len(args) > 1 else f"tensors[{j}]", v) for j, v in enumerate(a)
                    if getattr(v, "_is_fake_tensor", False)]
        elif getattr(a, "_is_fake_tensor", False):
            out.append((f"argument {i}", a))
    out += [(k, v) for k, v in kwargs.items() if getattr(v, "_is_fake_tensor", False)]
    return out


def annotate(error: Any, env, args: tuple = (), kwargs: dict | None = None) -> None:
    """Add to ``error.context`` the inputs by the user's names and the symbols its message mentions.

    Does nothing if an inner op already annotated it (the innermost op knows best). The user's
    names for the tensors are read now (their frame is live); the lines are built only when the
    error is printed, so an error that is caught and handled costs almost nothing.

    >>> from shapeenv import ShapeEnv, ShapeError
    >>> env = ShapeEnv(); x = env.fake_tensor((4,), name="x")
    >>> e = ShapeError("neg: s0 is odd"); annotate(e, env, (x,)); e.context
    ('inputs: x: float32[s0] (4 in this trace)', 'where s0 = x.size()[0] (4 in this trace)')
    """
    if not hasattr(error, "add_context"):
        return
    tensors = _tensor_args(args, kwargs or {})[:_MAX_ARGS + 1]
    frame = user_frame_object(2) if tensors else None
    labels = [tensor_label(t, frame) or pos for pos, t in tensors]
    frame = None  # keep no reference to the user's frame

    def lines() -> list[str]:
        out = []
        if tensors:
            shown = [describe_tensor(t, label) for (_, t), label in zip(tensors[:_MAX_ARGS], labels)]
            more = ", and more" if len(tensors) > _MAX_ARGS else ""
            out.append("inputs: " + ", ".join(shown) + more)
        where = legend(env, error.message)
        if where:
            out.append(f"where {where}")
        return out

    error.add_context(lines)


def source_text(env, size: Any) -> str:
    """A size in the user's terms: ``x.size()[1]`` for a symbol with a source, else its expression.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
    >>> source_text(env, x.shape[1]), source_text(env, x.shape[0] * 2), source_text(env, 5)
    ('x.size()[1]', '2*x.size()[0]', '5')
    """
    if not isinstance(size, SymInt):
        return str(size)
    sources = {i.name: i.sources[0] for i in env.symbols.values() if i.sources}
    node = size.node
    return to_source_text(node.form if node.form is not None else node.expr, sources)


def user_label(t: Any, default: str) -> str:
    """The user's name for tensor ``t`` as seen from their innermost frame, else ``default``.

    >>> from shapeenv import ShapeEnv
    >>> weights = ShapeEnv().fake_tensor((2,), name="w"); user_label(weights, "tensor 0")
    'weights'
    """
    return tensor_label(t, user_frame_object(2)) or default


def hint_text(size: Any) -> str:
    """A size's value in this trace: ``3`` (or its expression when it has none).

    >>> hint_text(7)
    '7'
    """
    h = _hint(size)
    return str(size if h is None else h)
