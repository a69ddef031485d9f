"""Binding a call's arguments to named input leaves, and the part of the cache key guards cannot express.

Inputs are named as :func:`shapeenv.export.export` names them (the function's parameters;
``rest[0]`` for ``*rest``; keyword arguments by key; ``xs[0]``, ``d['k']`` inside
lists, tuples and dicts), so the sources of an exported guard set read the leaves
of a call directly: ``x.size()[0]`` is ``inputs["x"].shape[0]``.

Note [The cache key]
    Guards speak about integers (sizes, int inputs). The rest of what a trace
    depends on goes in a hashable key, and each key gets its own
    :class:`~guards.runtime.cache.GuardedCache`: the leaf names, per tensor leaf its type,
    dtype and number of dims (a guard set over dims 0 and 1 would otherwise accept a
    3-d input), per constant leaf (float, str, bool, None, ...) its type and value,
    and the marks of marked inputs (``mark_dynamic`` & co., which change what is
    traced; a ``hint_override`` too). Int leaves are keyed by type only: their
    values are guarded (``n == 3`` or, once dynamic, a range). The *layout* of the
    call is keyed too, since leaf names do not show it: the type, length and keys of
    every container argument (a list, a tuple and a ``{0: .., 1: ..}`` dict of the
    same arrays name the same leaves ``xs[0]``, ``xs[1]``), and which leaves are one
    array passed twice (traced as one fake tensor, so ``x is y`` holds in the trace
    as it does in the call; Dynamo's aliasing guard). What the function reads besides
    its inputs is checked per entry (:mod:`shapeenv.compile.reads`).

    The common call, positional arrays and ints, is keyed by :meth:`Binder.fast`
    without walking pytrees; every other call goes through :meth:`Binder.bind`,
    which builds the same key for the same inputs.

>>> import numpy as np
>>> b = Binder(lambda x, n: None)
>>> key, inputs = b.fast((np.zeros((2, 3), dtype=np.float32), 4))
>>> key == b.bind((np.zeros((5, 3), dtype=np.float32), 7), {}).key, sorted(inputs)
(True, ['n', 'x'])
>>> describe_key(key)
'x: float32[2-d] ndarray, n: int'
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from symint import SymBool, SymFloat, SymInt

from shapeenv.compile.marks import MARKS, Marks
from shapeenv.errors import ShapeEnvTypeError, SignatureError
from shapeenv.tensor.dtypes import as_dtype
from shapeenv.program.program import TensorSpec, is_shape_tuple, is_tensor_like, leaves, required_parameters
from shapeenv.ops.dispatch import is_tensor

__all__ = ["Binder", "Call", "INLINE", "describe_key", "key_differences"]


@dataclass(frozen=True, slots=True)
class Call:
    """One call's inputs, bound.

    Attributes:
        names: the leaf names, in argument order.
        values: the leaves (shape tuples replaced by :class:`TensorSpec`).
        key: the cache key (Note [The cache key]).
        inputs: leaf name -> leaf, what guard checkers read.
        spec: some leaf is a shape spec (no data): the call returns output shapes.
        marks: leaf name -> its marks, for marked leaves.
    """

    names: tuple[str, ...]
    values: tuple[Any, ...]
    key: tuple
    inputs: Mapping[str, Any] = field(repr=False)
    spec: bool = False
    marks: Mapping[str, Marks] = field(default_factory=dict)


#: What :meth:`Binder.bind` returns for inputs that are fake tensors or symbolic values
#: (the compiled function is being traced inside another trace): just call the function.
INLINE = object()
_INT_KEY = int
_CONST = "=="


class Binder:
    """Binds the calls of one function (see the module docstring)."""

    def __init__(self, fn: Callable):
        try:
            self._sig: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):  # builtins without a signature: arguments by index
            self._sig = None
        params = list(self._sig.parameters.values()) if self._sig else []
        self._positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self._varargs = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), "args")
        self._fast_names: dict[int, tuple[tuple[str, ...], Callable[[tuple], dict]]] = {}
        for n in range(len(self._positional) + 1):
            if self._binds(n):
                names = tuple(self._positional[:n])
                self._fast_names[n] = (names, _input_maker(names))
        self._fast_types: frozenset[type] = _loaded_array_types()

    def _binds(self, n: int) -> bool:
        if self._sig is None:
            return False
        try:
            self._sig.bind(*range(n))
        except TypeError:
            return False
        return True

    def fast(self, args: tuple) -> tuple[tuple, dict] | None:
        """``(key, inputs)`` for positional arrays (of a type seen before) and ints, else None (use :meth:`bind`)."""
        found = self._fast_names.get(len(args))
        if found is None:
            return None
        names, make_inputs = found
        key: list[Any] = [names, _marks_key(args) if _LIVE_MARKS else (), ()]
        fast_types = self._fast_types
        for v in args:
            t = type(v)
            if t is int:
                key.append(_INT_KEY)
            elif t in fast_types:
                key += (t, v.dtype, v.ndim)
            else:
                return None
        n = len(args)
        if n > 1 and (args[0] is args[1] if n == 2 else len(set(map(id, args))) < n):
            return None  # an array passed twice (or a repeated small int): bind() keys the aliasing
        return tuple(key), make_inputs(args)

    def top_level(self, args: tuple, kwargs: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """``(name, value)`` per argument, named as :func:`shapeenv.export.export` names them.

        Raises:
            TypeError: the function cannot take these arguments.
        """
        if self._sig is None:
            return [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
        try:
            self._sig.bind(*args, **kwargs)
        except TypeError as e:
            need = required_parameters(self._sig)
            raise SignatureError(
                f"the compiled function{self._sig} cannot take these arguments: {e} (got {len(args)} positional"
                f"{' and ' + ', '.join(map(str, kwargs)) if kwargs else ''})",
                fix=f"call it with one argument per parameter: f({', '.join(need)})",
            ) from None
        npos = len(self._positional)
        named = [(self._positional[i] if i < npos else f"{self._varargs}[{i - npos}]", a) for i, a in enumerate(args)]
        return named + list(kwargs.items())

    def bind(self, args: tuple, kwargs: Mapping[str, Any]) -> "Call | object":
        """Bind any call: a :class:`Call`, or :data:`INLINE` for fake inputs.

        Raises:
            TypeError: the function cannot take these arguments, or a constant input is unhashable.
        """
        names: list[str] = []
        values: list[Any] = []
        keys: list[Any] = []  # flat: one item per int or constant leaf, three per tensor leaf
        spec = False
        shapes: list[tuple[int, Any]] = []  # (argument index, container structure) (Note [The cache key])
        arrays: dict[int, list[int]] = {}  # id of a real array -> the leaf indices it is passed as
        for position, (top, value) in enumerate(self.top_level(args, kwargs)):
            shape = _structure(value)
            if shape is not None:
                shapes.append((position, shape))
            for name, leaf in leaves(top, value):
                if is_tensor(leaf) or isinstance(leaf, (SymInt, SymBool, SymFloat)):
                    return INLINE
                if is_shape_tuple(leaf):
                    leaf = TensorSpec(leaf)
                if isinstance(leaf, TensorSpec):
                    spec = True
                    key: tuple = (TensorSpec, as_dtype(leaf.dtype), len(leaf.shape))
                elif is_tensor_like(leaf):
                    key = (type(leaf), leaf.dtype, len(leaf.shape))
                    arrays.setdefault(id(leaf), []).append(len(names))
                    if hasattr(leaf, "ndim") and type(leaf) not in self._fast_types:
                        self._fast_types = self._fast_types | {type(leaf)}
                elif type(leaf) is int:
                    key = (_INT_KEY,)
                else:
                    try:
                        hash(leaf)
                    except TypeError:
                        raise ShapeEnvTypeError(
                            f"input {name} = {leaf!r} is an unhashable constant; compiled functions take arrays, "
                            "ints, hashable constants, and lists/tuples/dicts of them",
                            fix=f"pass {name} as a tuple, or close over it in the function",
                        ) from None
                    key = ((_CONST, type(leaf), leaf),)
                names.append(name)
                values.append(leaf)
                keys += key
        marks = _marks_key(values) if _LIVE_MARKS else ()
        aliases = tuple(tuple(group) for group in arrays.values() if len(group) > 1)
        layout = (tuple(shapes), aliases) if shapes or aliases else ()
        return Call(
            tuple(names),
            tuple(values),
            (tuple(names), marks, layout, *keys),
            dict(zip(names, values)),
            spec,
            {names[i]: m for i, m in marks},
        )


def _loaded_array_types() -> frozenset[type]:
    """``numpy.ndarray`` and ``torch.Tensor`` if already imported (never imports them); others join on first use."""
    found = set()
    for module, name in (("numpy", "ndarray"), ("torch", "Tensor")):
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type):
            found.add(cls)
    return frozenset(found)


def _input_maker(names: tuple[str, ...]) -> Callable[[tuple], dict]:
    """A function building ``{name: arg}`` (dict displays for few arguments: twice as fast as ``dict(zip(...))``)."""
    if len(names) == 1:
        (a,) = names
        return lambda args: {a: args[0]}
    if len(names) == 2:
        a, b = names
        return lambda args: {a: args[0], b: args[1]}
    if len(names) == 3:
        a, b, c = names
        return lambda args: {a: args[0], b: args[1], c: args[2]}
    return lambda args: dict(zip(names, args))


_LIVE_MARKS = MARKS.live  # the table's dict: a truth test says whether any object is marked


def _marks_key(values) -> tuple:
    get = MARKS.get
    return tuple((i, m) for i, v in enumerate(values) if (m := get(v)) is not None)


# -- describing keys (cache info, recompile reasons) ---------------------------------------------------
def _leaf_keys(key: tuple) -> list[Any]:
    """Split a key's flat leaf part back into one item per leaf."""
    out, i, flat = [], 0, key[3:]
    while i < len(flat):
        item = flat[i]
        if item is _INT_KEY or isinstance(item, tuple):
            out.append(item)
            i += 1
        else:
            out.append(tuple(flat[i : i + 3]))
            i += 3
    return out


def _leaf_text(key: Any) -> str:
    if key is _INT_KEY:
        return "int"
    if key[0] == _CONST:
        return f"== {key[2]!r}"
    cls, dtype, ndim = key
    dtype_name = getattr(dtype, "name", None) or str(dtype).replace("torch.", "")
    kind = "spec" if cls is TensorSpec else cls.__name__
    return f"{dtype_name}[{ndim}-d] {kind}"


def describe_key(key: tuple) -> str:
    """``x: float32[2-d] ndarray, n: int`` (marked leaves add their marks).

    >>> describe_key(Binder(lambda x, mode: None).bind(((4, 3), "fast"), {}).key)
    "x: float32[2-d] spec, mode: == 'fast'"
    """
    names, marks = key[0], key[1]
    marked = {names[i]: m for i, m in marks}
    parts = []
    for name, k in zip(names, _leaf_keys(key)):
        extra = f" {marked[name]}" if name in marked else ""
        parts.append(f"{name}: {_leaf_text(k)}{extra}")
    return ", ".join(parts + _layout_text(key[2], names)) or "no inputs"


def _structure(value: Any) -> Any:
    """The container types, lengths and keys of an argument, as :func:`~shapeenv.program.program.leaves` walks it
    (None for a leaf): a list, a tuple and a ``{0: .., 1: ..}`` dict of the same arrays name the same leaves."""
    if is_tensor_like(value):
        return None
    if isinstance(value, (list, tuple)):
        return (type(value), tuple([_structure(v) for v in value]))
    if isinstance(value, dict):
        return (type(value), tuple([(k, _structure(v)) for k, v in value.items()]))
    return None


def _structure_text(shape: Any) -> str:
    cls, items = shape
    if issubclass(cls, dict):
        inner = ", ".join(f"{k!r}: {_structure_text(v) if v is not None else '.'}" for k, v in items)
        return f"{cls.__name__} {{{inner}}}"
    inner = ", ".join(_structure_text(v) if v is not None else "." for v in items)
    return f"{cls.__name__} [{inner}]"


def _layout_text(layout: tuple, names: tuple[str, ...]) -> list[str]:
    """``xs is a list [., .]``, ``x is y`` for the structure and aliasing part of a key."""
    if not layout:
        return []
    shapes, aliases = layout
    out = []
    for position, shape in shapes:
        out.append(f"argument {position} is a {_structure_text(shape)}")
    for group in aliases:
        out.append(" is ".join(names[i] for i in group))
    return out


def key_differences(old: tuple, new: tuple) -> list[str]:
    """What differs between an entry's key and a call's, as failed checks: ``x.dtype == float32 failed: got int64``.

    >>> import numpy as np
    >>> b = Binder(lambda x, mode: None)
    >>> a = b.bind((np.zeros(2, dtype=np.float32), "fast"), {}).key
    >>> c = b.bind((np.zeros((2, 2), dtype=np.int64), "slow"), {}).key
    >>> key_differences(a, c)
    ['x: float32[1-d] ndarray failed: got int64[2-d] ndarray', "mode == 'fast' failed: got 'slow'"]
    """
    old_names, old_marks = old[0], old[1]
    new_names, new_marks = new[0], new[1]
    if old_names != new_names:
        return [f"the inputs are ({', '.join(old_names)}) failed: got ({', '.join(new_names)})"]
    out = []
    if old[2] != new[2]:
        was, now = _layout_text(old[2], old_names), _layout_text(new[2], new_names)
        out.append(f"{'; '.join(was) or 'no containers, no aliased arrays'} failed: got "
                   f"{'; '.join(now) or 'no containers, no aliased arrays'}")
    for name, a, b in zip(old_names, _leaf_keys(old), _leaf_keys(new)):
        if a == b:
            continue
        if a is not _INT_KEY and a[0] == _CONST and b is not _INT_KEY and b[0] == _CONST:
            out.append(f"{name} == {a[2]!r} failed: got {b[2]!r}")
        else:
            out.append(f"{name}: {_leaf_text(a)} failed: got {_leaf_text(b)}")
    if old_marks != new_marks:
        was = {old_names[i]: m for i, m in old_marks}
        now = {new_names[i]: m for i, m in new_marks}
        for name in old_names:
            if was.get(name) != now.get(name):
                a, b = str(was.get(name) or Marks()), str(now.get(name) or Marks())
                if a == b:
                    b += " (other specialize_on predicates)"
                out.append(f"the marks of {name} are {a} failed: got {b}")
    return out
