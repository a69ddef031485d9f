"""The dispatch table: which of this library's ops answers a torch callable met while tracing.

A torch call is looked up by the callable torch hands to the function mode
(``torch.add``, ``torch.Tensor.add``, ``torch.nn.functional.linear``; a Tensor property
such as ``x.shape`` arrives as its getter and is keyed ``("attr", "shape")``):

1. an entry registered with :func:`register_torch_op` (or one of the built-in
   entries of :mod:`shapeenv.torch.handlers`), by the callable's identity;
2. otherwise by *name*, because :mod:`shapeenv.ops` mirrors torch's names and
   signatures: a Tensor method ``n`` goes to the fake tensor's method ``n``, then to
   ``shapeenv.ops.n(self, ...)``; a function ``torch.n`` / ``torch.nn.functional.n``
   goes to ``shapeenv.ops.n``; failing that, to the shape rule registered as ``n``.

A new shape rule (``@rule("foo")`` plus ``shapeenv.ops.foo``) is therefore reachable
from ``torch.foo`` with no table entry when the signatures agree; otherwise
:func:`register_torch_op` maps the callable to an op name or to an adapter function.
Keyword arguments torch passes that the op lacks are dropped when they are torch's
no-op values (``inplace=False`` and other ``False`` flags, ``device=...``, ``requires_grad``,
``memory_format=torch.preserve_format``, ``_stacklevel``, any ``None``); any other (``out=t``,
``alpha=2``) is an :class:`~shapeenv.errors.UnsupportedTorchOpError`.

>>> from shapeenv.torch.table import TorchOpTable
>>> import shapeenv.ops
>>> t = TorchOpTable()
>>> t.register(len, "relu")            # any callable can be a key; the op is looked up by name
>>> t.lookup(len).target
'shapeenv.ops.relu'
"""

from __future__ import annotations

import functools
import inspect
import sys
from dataclasses import dataclass
from typing import Any, Callable

from shapeenv.errors import UnsupportedTorchOpError
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops import dispatch, registry

__all__ = ["Entry", "TorchOpTable", "torch_name", "key_of", "DEFAULT", "register_torch_op", "adapt"]

#: Keyword arguments torch passes that change nothing about shapes when the op does not take them.
_IGNORED = frozenset({"device", "layout", "pin_memory", "requires_grad", "_stacklevel", "non_blocking", "generator"})


#: Operators whose torch method is a dunder, and the op of the same meaning.
_DUNDERS = {"__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor", "__invert__": "bitwise_not",
            "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor",
            "__floordiv__": "floor_divide", "__mod__": "remainder", "__lshift__": "bitwise_left_shift",
            "__rshift__": "bitwise_right_shift", "__rdiv__": "__rtruediv__", "__iand__": "bitwise_and_",
            "__ior__": "bitwise_or_", "__ixor__": "bitwise_xor_"}


@dataclass(frozen=True, slots=True)
class Entry:
    """What answers one torch callable.

    Attributes:
        fn: called with the unwrapped arguments (fake tensors, SymInts, dtype names); with ``context``,
            called as ``fn(ctx, *args, **kwargs)`` (``ctx``: the tracing mode, for its ShapeEnv and devices).
        target: what it is, for messages (``shapeenv.ops.linear``).
        context: whether ``fn`` takes the tracing context first.
    """

    fn: Callable[..., Any]
    target: str
    context: bool = False


def key_of(func: Any) -> Any:
    """The table key of a torch callable: itself, or ``("attr", name)`` for a Tensor property (or its getter).

    >>> key_of(len)
    <built-in function len>
    """
    if type(func).__name__ == "method-wrapper" and getattr(func, "__name__", "") in ("__get__", "__set__"):
        return ("attr", func.__self__.__name__)
    if type(func).__name__ == "getset_descriptor" or isinstance(func, property):
        return ("attr", getattr(func, "__name__", None) or func.fget.__name__)
    return func


def is_method(func: Any) -> bool:
    """Whether ``func`` is a ``torch.Tensor`` method (``torch.Tensor.add``, ``Tensor.__rsub__``) or property getter.

    >>> import torch
    >>> is_method(torch.Tensor.add), is_method(torch.add), is_method(torch.Tensor.shape.__get__)
    (True, False, True)
    """
    if isinstance(key_of(func), tuple):
        return True
    qual = getattr(func, "__qualname__", "") or ""
    return qual.startswith(("TensorBase.", "Tensor.", "_TensorBase."))


def torch_name(func: Any) -> str:
    """The name a user writes for ``func``: ``torch.Tensor.view``, ``torch.nn.functional.gelu``, ``torch.cat``.

    >>> torch_name(len)
    'len'
    """
    key = key_of(func)
    if isinstance(key, tuple):
        return f"torch.Tensor.{key[1]}"
    name = getattr(func, "__name__", None) or repr(func)
    if is_method(func):
        return f"torch.Tensor.{name}"
    module = getattr(func, "__module__", None) or ""
    functional = sys.modules.get("torch.nn.functional")
    if functional is not None and getattr(functional, name, None) is func:
        return f"torch.nn.functional.{name}"
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, name, None) is func:
        return f"torch.{name}"
    if module.startswith("torch"):
        return f"{module}.{name}"
    return f"{module}.{name}" if module and module != "builtins" else name


class TorchOpTable:
    """Torch callables -> :class:`Entry` (see the module docstring); lookups by name are cached on the table.

    Args:
        base: a table to fall back on for callables this one has no entry for (e.g. :data:`DEFAULT`,
            to add entries for one trace without changing the process-wide table).
    """

    def __init__(self, base: "TorchOpTable | None" = None) -> None:
        self.base = base
        self._explicit: dict[Any, Entry] = {}
        self._methods: dict[str, Entry] = {}  # by method name, for every spelling of it (__add__, add, ...)
        self._fallbacks: dict[Any, Entry] = {}  # used only when no op of the name exists
        self._resolved: dict[Any, tuple[Entry | None, int]] = {}

    def register(self, torch_callable: Any, op: str | Callable[..., Any], *, context: bool = False,
                 method: str | None = None) -> None:
        """Map ``torch_callable`` to ``op``: a name in :mod:`shapeenv.ops` / the rule registry, or a function.

        ``method="name"`` also maps every Tensor method of that name (whatever callable torch hands over).

        Raises:
            UnsupportedTorchOpError: ``op`` names no op of :mod:`shapeenv.ops` or the registry.
        """
        entry = op if isinstance(op, Entry) else _entry(op, context)
        if torch_callable is not None:
            self._explicit[key_of(torch_callable)] = entry
        if method is not None:
            self._methods[method] = entry
        self._resolved = {}

    def register_fallback(self, torch_callable: Any, entry: Entry) -> None:
        """Answer ``torch_callable`` with ``entry`` only while no shape rule or op of its name exists.

        For adapters composed of other ops (``torch.addmm`` as ``add`` of ``mm``): a rule of the
        op's own, once registered, takes over.
        """
        self._fallbacks[key_of(torch_callable)] = entry
        self._resolved = {}

    def forget(self) -> None:
        """Drop what lookups found (after removing a shape rule; adding one needs no call)."""
        self._resolved = {}

    def lookup(self, func: Any) -> Entry | None:
        """The entry answering ``func``, or None when nothing does.

        Misses are remembered with the number of registered shape rules, so a rule registered
        later (``@rule("foo")``) is found on the next lookup.
        """
        try:
            entry, seen = self._resolved[func]
            if entry is not None or seen == len(registry.registered()):
                return entry
        except (KeyError, TypeError):
            pass
        rules = len(registry.registered())
        entry = self._resolve(func)
        try:
            self._resolved[func] = (entry, rules)
        except TypeError:  # an unhashable callable: resolved again next time
            pass
        return entry

    def _resolve(self, func: Any) -> Entry | None:
        key = key_of(func)
        try:
            entry = self._explicit.get(key)
        except TypeError:
            entry = None
        if entry is not None:
            return entry
        if self.base is not None:
            name = key[1] if isinstance(key, tuple) else getattr(func, "__name__", None)
            if not (is_method(func) and name in self._methods):
                found = self.base.lookup(func)
                if found is not None:
                    return found
        if isinstance(key, tuple):
            return self._methods.get(key[1])
        name = getattr(func, "__name__", None)
        if not isinstance(name, str) or _false_namesake(func):
            return self._fallbacks.get(key)
        if is_method(func):
            if name in self._methods:
                return self._methods[name]
            for candidate in (name, _DUNDERS.get(name)):
                member = getattr(FakeTensor, candidate, None) if candidate else None
                if callable(member) and not isinstance(member, type):
                    return Entry(member, f"FakeTensor.{candidate}")
            if name in _DUNDERS:
                found = _by_name(_DUNDERS[name])
                if found is not None:
                    return found
        found = _by_name(name)
        if found is None:  # torch.nn.functional.logsigmoid is a builtin named log_sigmoid: try where torch binds it
            for alias in _bound_names(func):
                found = _by_name(alias)
                if found is not None:
                    break
        return found if found is not None else self._fallbacks.get(key)


_NAMESPACES = ("torch.nn.functional", "torch", "torch.special", "torch.linalg", "torch.fft")

#: Torch callables whose name is an op of another meaning here: never answered by name.
#: (``torch.nn.functional.unfold`` is im2col; the ``unfold`` rule is ``Tensor.unfold``'s windows.)
_FALSE_NAMESAKES = {("torch.nn.functional", "unfold"), ("torch.nn.functional", "fold")}


def _false_namesake(func: Any) -> bool:
    module = sys.modules.get("torch.nn.functional")
    return module is not None and any(getattr(module, n, None) is func for m, n in _FALSE_NAMESAKES)


def _bound_names(func: Any) -> list[str]:
    """The names ``func`` is bound to in torch's public namespaces, when they differ from its ``__name__``."""
    out = []
    for module_name in _NAMESPACES:
        module = sys.modules.get(module_name)
        for attr, value in (vars(module).items() if module is not None else ()):
            if value is func and attr != getattr(func, "__name__", None) and not attr.startswith("_"):
                out.append(attr)
    return out


def _entry(op: str | Callable[..., Any], context: bool) -> Entry:
    if callable(op):
        return Entry(op, getattr(op, "__qualname__", repr(op)), context)
    found = _by_name(op)
    if found is None:
        raise UnsupportedTorchOpError(f"register_torch_op: no op named {op!r} in shapeenv.ops or the rule registry",
                                      op=str(op), fix="register a shape rule first (shapeenv.ops.registry.rule), "
                                                      "or pass a function")
    return found


def _by_name(name: str) -> Entry | None:
    import shapeenv.ops as ops

    fn = getattr(ops, name, None)
    if callable(fn) and getattr(fn, "__module__", "").startswith("shapeenv") and not isinstance(fn, type):
        return Entry(fn, f"shapeenv.ops.{name}")
    if name in registry.registered():
        return Entry(functools.partial(dispatch.call, name), f"the shape rule {name!r}")
    return None


@functools.lru_cache(maxsize=None)
def _signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def adapt(entry: Entry, name: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``(args, kwargs)`` the entry's function accepts: torch's no-op keywords dropped (see the module docstring).

    Raises:
        UnsupportedTorchOpError: an argument the op does not take, with a value that matters.

    >>> entry = Entry(lambda x, dim: None, "softmax")
    >>> adapt(entry, "torch.softmax", ("x",), {"dim": -1, "_stacklevel": 3, "dtype": None})
    (('x',), {'dim': -1})
    """
    fn = entry.fn.func if isinstance(entry.fn, functools.partial) else entry.fn
    sig = _signature(fn)
    if sig is None or isinstance(entry.fn, functools.partial):
        return args, {k: v for k, v in kwargs.items() if not (k in _IGNORED or v is None)}
    params = sig.parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return args, kwargs
    if entry.context:
        params = dict(list(params.items())[1:])
    kept = {}
    for k, v in kwargs.items():
        if k in params and params[k].kind is not inspect.Parameter.VAR_POSITIONAL:
            kept[k] = v
        elif k in ("input", "self") and not args:
            args = (v,)
        elif k in _IGNORED or v is None or v is False or (k == "memory_format" and v == "preserve_format"):
            continue
        else:
            raise UnsupportedTorchOpError(
                f"{name}(..., {k}={v!r}): {entry.target} has no argument {k!r}",
                op=name, fix=_register_hint(name, entry.target))
    try:
        sig.bind(*(("ctx",) if entry.context else ()), *args, **kept)
    except TypeError as e:
        raise UnsupportedTorchOpError(f"{name} was called with arguments {entry.target} does not take: {e}",
                                      op=name, fix=_register_hint(name, entry.target)) from None
    return args, kept


def _register_hint(name: str, target: str) -> str:
    return (f"map it to an adapter: shapeenv.torch.register_torch_op({name}, "
            "lambda *args, **kwargs: shapeenv.ops.<op>(...))  (arguments are shapeenv fake tensors)")


DEFAULT = TorchOpTable()


def register_torch_op(torch_callable: Any, op: str | Callable[..., Any]) -> None:
    """Make ``torch_callable`` reach ``op`` when torch code is traced by :mod:`shapeenv.torch`.

    ``op`` is the name of a :mod:`shapeenv.ops` function or of a registered shape rule (called
    with torch's arguments, tensors as fake tensors), or a function taking those arguments
    and returning fake tensors (build them with :mod:`shapeenv.ops`). Like registering a
    shape rule, this changes the process-wide table; later registrations replace earlier ones.

    >>> def my_relu6(x): ...          # stands for a torch callable, e.g. torch.nn.functional.relu6
    >>> register_torch_op(my_relu6, "relu")
    >>> DEFAULT.lookup(my_relu6).target
    'shapeenv.ops.relu'
    """
    DEFAULT.register(torch_callable, op)
