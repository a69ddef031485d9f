"""The functions of :mod:`shapeenv.ops` and the Tensor methods, made from the op table.

Each spelling of an op (:class:`~shapeenv.ops.registry.Spelling`) becomes a callable that binds
its arguments to the spelling's signature, fills in the defaults, and passes every value
positionally, in the signature's order, to :func:`shapeenv.ops.dispatch.call` (keyword-only
parameters too, as the rules take them). That is what the hand-written one-line forwards did,
so graph nodes record the same arguments.

Note [Signatures of generated ops]
    A function's signature is its spelling's ``like``, else the op's ``like``, else the shape
    rule's: ``help(shapeenv.ops.matmul)`` and :func:`inspect.signature` (which the torch
    frontend uses to drop torch's no-op keywords) see it through ``__signature__``. A method's
    signature is resolved on first use, not when the tensor class is built: the tensor class is
    made before the rules' modules are imported (they import it), and the default method
    signature is the rule's with its first parameter named ``self``.

>>> from shapeenv import ShapeEnv, ops
>>> import inspect
>>> str(inspect.signature(ops.gelu)), ops.gelu.__module__
("(input: 'FakeTensor', approximate: 'str' = 'none') -> 'FakeTensor'", 'shapeenv.ops')
>>> x = ShapeEnv().fake_tensor((2, 3), name="x")
>>> str(inspect.signature(x.softmax)), x.softmax(-1).shape
('(dim, dtype=None)', (s0, s1))
"""

from __future__ import annotations

import inspect
import types
from typing import Any, Callable, Iterable

from shapeenv.errors import ShapeError
from shapeenv.ops.dispatch import call
from shapeenv.ops.registry import OpDef, Spelling, rule_of

__all__ = ["function_of", "OpMethod", "functions_of", "methods_of"]

_VAR = inspect.Parameter.VAR_POSITIONAL
_KW_ONLY = inspect.Parameter.KEYWORD_ONLY


class _Binder:
    """Arguments -> the tuple of values passed to the rule (see the module docstring)."""

    __slots__ = ("signature", "params", "defaults", "positional", "required", "fast", "index")

    def __init__(self, signature: inspect.Signature) -> None:
        self.signature = signature
        self.params = tuple(signature.parameters.values())
        self.positional = sum(p.kind is not _KW_ONLY for p in self.params)
        self.defaults = tuple(p.default for p in self.params)
        empty = inspect.Parameter.empty
        self.required = max((i + 1 for i, p in enumerate(self.params) if p.default is empty and p.kind is not _VAR), default=0)
        # positional calls bind by position alone when there is no *args and no required keyword-only
        self.fast = all(p.kind is not _VAR for p in self.params) and self.required <= self.positional
        self.index = {p.name: i for i, p in enumerate(self.params) if p.kind is not inspect.Parameter.POSITIONAL_ONLY}

    def values(self, args: tuple, kwargs: dict) -> tuple:
        if self.fast and len(args) <= self.positional:
            if not kwargs:
                if self.required <= len(args):
                    return args + self.defaults[len(args):]
            else:
                given = [*args, *self.defaults[len(args):]]
                for name, value in kwargs.items():
                    i = self.index.get(name, -1)
                    if i < len(args):  # unknown, or given twice: Signature.bind below says which
                        break
                    given[i] = value
                else:  # by identity: == on tensors and arrays is elementwise
                    if not any(v is inspect.Parameter.empty for v in given[:self.required]):
                        return tuple(given)
        bound = self.signature.bind(*args, **kwargs).arguments  # Python's own TypeError on a bad call
        out: list[Any] = []
        for p in self.params:
            value = bound.get(p.name, p.default)
            if p.kind is _VAR:
                out.extend(value if p.name in bound else ())
            else:
                out.append(value)
        return tuple(out)


def _signature(like: Callable[..., Any] | None, fallback: Callable[..., Any] | None, op: str) -> inspect.Signature:
    source = like if like is not None else fallback
    if source is None:
        raise ShapeError(f"op {op!r} has no shape rule to take a signature from",
                         fix="import the module of shapeenv.ops.rules that registers it, or give the OpDef like=")
    return inspect.signature(source)


def function_of(op: OpDef, spelling: Spelling) -> Callable[..., Any]:
    """The ``shapeenv.ops`` function of ``spelling`` (the op's rule must be registered)."""
    signature = _signature(spelling.like or op.like, rule_of(op.name), op.name)
    binder = _Binder(signature)
    name = op.name

    def forward(*args: Any, **kwargs: Any) -> Any:
        return call(name, *binder.values(args, kwargs))

    forward.__name__ = forward.__qualname__ = spelling.name
    forward.__module__ = "shapeenv.ops"
    forward.__doc__ = spelling.doc or op.doc
    forward.__signature__ = signature  # type: ignore[attr-defined]
    return forward


class OpMethod:
    """A Tensor method calling an op: a descriptor, so ``x.add(y)`` binds ``x`` as ``self``.

    Its signature is resolved on first use (Note [Signatures of generated ops]).
    """

    def __init__(self, op: OpDef, spelling: Spelling) -> None:
        self.op = op
        self.spelling = spelling
        self.__doc__ = spelling.doc or op.doc  # an instance attribute: help(x.add) shows the op's doc
        self.__name__ = spelling.name
        self.__qualname__ = f"TensorMethods.{spelling.name}"
        self._binder: _Binder | None = None

    @property
    def __signature__(self) -> inspect.Signature:
        return self._bind().signature

    def _bind(self) -> _Binder:
        if self._binder is None:
            like = self.spelling.like
            if like is not None:
                signature = inspect.signature(like)
            else:
                public = _signature(self.op.like, rule_of(self.op.name), self.op.name)
                first, *rest = public.parameters.values()
                signature = public.replace(parameters=[first.replace(name="self", annotation=inspect.Parameter.empty), *rest])
            self._binder = _Binder(signature)
        return self._binder

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self if instance is None else types.MethodType(self, instance)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values = (self._binder or self._bind()).values(args, kwargs)
        if self.spelling.reflected:
            values = values[::-1]
        return call(self.op.name, *values)

    def __repr__(self) -> str:
        return f"<op method {self.spelling.name} of {self.op.name!r}>"


def functions_of(ops: Iterable[OpDef]) -> dict[str, Callable[..., Any]]:
    """Name -> function, for every function spelling of ``ops``."""
    return {s.name: function_of(op, s) for op in ops for s in op.functions}


def methods_of(ops: Iterable[OpDef]) -> dict[str, OpMethod]:
    """Name -> method, for every method spelling of ``ops`` (a class namespace for the tensor classes)."""
    return {s.name: OpMethod(op, s) for op in ops for s in op.methods}
