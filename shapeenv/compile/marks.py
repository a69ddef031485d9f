"""Marking input dims dynamic or static before calling a compiled function, and source whitelists.

``mark_dynamic(x, 0)`` says dim 0 of ``x`` must be traced symbolic (tracing that
specialises it is an error); ``maybe_mark_dynamic`` is the weak form (it may be
specialised; a ``mark_dynamic`` of the same dim wins over it); ``mark_static``
pins the dim to the example's size. ``mark_dynamic`` also takes ``min``/``max``
(a bounded dim: a guard that narrows the range is an error too), ``hint_override``
(the size the first trace decides branches by, instead of the example's) and
``specialize_on`` (predicates; see :func:`shapeenv.compile.compile`).

Note [Where marks live]
    torch stores marks as attributes of the tensor. numpy arrays take no new
    attributes, so marks live in a side table, :data:`MARKS`, keyed by ``id(obj)``
    and holding no reference to the object: a ``weakref.finalize`` removes the
    entry when the object dies, before its id can be reused. The same table serves
    torch tensors and any other array type that supports weak references, so one
    rule holds for all. Marks belong to the *object* (a view or a copy is unmarked,
    as in torch). Shape tuples and ``TensorSpec`` s cannot be marked (they have no
    identity worth marking): use ``compile(..., dynamic_sources="x:0")`` for them.
    A compiled function reads the table on every call, but only when it is not
    empty (one truth test otherwise), and the marks of the inputs are part of its
    cache key.

Note [Source whitelists]
    ``dynamic_sources`` / ``static_sources`` (torch's config of the same names) are
    comma-separated patterns (or a list of them). A pattern names an input in our
    dialect or torch's (``x``, ``L['x']``), a size (``x.size()[0]``,
    ``L['x'].size()[0]``) or an input's dim with ``:N`` (``x:0``); a pattern that
    is not literally one of those names is a regular expression matched against
    all of them (``re.fullmatch``: ``x.*`` matches ``x`` and ``xs[0]``). An input
    pattern covers all its dims; an int input is covered by its name.

>>> import numpy as np
>>> x = np.zeros((8, 3))
>>> mark_dynamic(x, 0, max=64); maybe_mark_dynamic(x, 0); marks_of(x)
Marks(0: dynamic max=64)
>>> mark_static(x, 0); marks_of(x)
Marks(0: static)
>>> SourcePatterns.parse("x:1, L['y']").matches(Source.size("x", 1)), SourcePatterns.parse("x:1").matches(Source.size("x", 0))
(True, False)
"""

from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence

from guards import Source

from shapeenv.errors import ConstraintViolationError, DimOutOfRangeError, DynamicShapesError, DynamicShapesTypeError
from shapeenv.program.program import TensorSpec
from shapeenv.ops.dispatch import is_tensor

__all__ = [
    "DimMark",
    "Marks",
    "predicate_key",
    "MarkTable",
    "MARKS",
    "mark_dynamic",
    "maybe_mark_dynamic",
    "mark_static",
    "mark_unbacked",
    "marks_of",
    "clear_marks",
    "SourcePatterns",
]

MarkKind = Literal["dynamic", "maybe", "static", "unbacked"]


@dataclass(frozen=True, slots=True)
class DimMark:
    """How one dim was marked.

    Attributes:
        kind: ``"dynamic"`` (``mark_dynamic``), ``"maybe"`` (``maybe_mark_dynamic``) or ``"static"``.
        min / max: declared bounds of a ``mark_dynamic`` dim (None: unbounded).
        hint_override: the size the first trace uses as the dim's hint instead of the example's.
        specialize_on: predicates on the size; each gets its own specialised cache entry.
        choices: the only sizes a set-valued dim may take (sorted), or None.
    """

    kind: MarkKind
    min: int | None = None
    max: int | None = None
    hint_override: int | None = None
    specialize_on: tuple[Callable[[Any], Any], ...] = field(default=(), compare=False)
    predicates: tuple = field(default=(), repr=False)  # what marks compare by: see predicate_key
    choices: tuple[int, ...] | None = None  # a set-valued dim: the only sizes it may take

    @classmethod
    def of(cls, kind: MarkKind, min: int | None = None, max: int | None = None, hint_override: int | None = None,
           specialize_on: Sequence[Callable[[Any], Any]] = (), choices: Sequence[int] | None = None) -> "DimMark":
        """A mark whose ``specialize_on`` predicates compare by :func:`predicate_key`.

        >>> DimMark.of("dynamic", specialize_on=[lambda s: s == 8]) == DimMark.of("dynamic", specialize_on=[lambda s: s == 8])
        False
        >>> marks = [DimMark.of("dynamic", specialize_on=[lambda s: s == 8]) for _ in range(2)]
        >>> marks[0] == marks[1]      # the same lambda expression, evaluated twice
        True
        """
        preds = tuple(specialize_on)
        values = None if choices is None else tuple(sorted(set(choices)))
        return cls(kind, min, max, hint_override, preds, tuple(predicate_key(p) for p in preds), values)

    def __str__(self) -> str:
        parts = [self.kind]
        parts += [f"{k}={v}" for k, v in (("min", self.min), ("max", self.max), ("hint_override", self.hint_override),
                                          ("choices", self.choices)) if v is not None]
        if self.specialize_on:
            parts.append(f"specialize_on={len(self.specialize_on)} predicates")
        return " ".join(parts)


def predicate_key(pred: Callable[[Any], Any]) -> Any:
    """What identifies a ``specialize_on`` predicate in cache keys.

    A lambda written once and evaluated on every call (``mark_dynamic(x, 0,
    specialize_on=[lambda s: s == 8])`` in a loop) is a new object each time; it is
    keyed by its code, defaults and captured values, so those calls share entries.
    Anything else (or a closure over an unhashable value) is keyed by identity.
    Predicates that read globals which change are not told apart.

    >>> keys = [predicate_key(lambda s: s == 8) for _ in range(2)]; keys[0] == keys[1]
    True
    """
    code = getattr(pred, "__code__", None)
    if code is None:
        return pred
    cells = tuple(c.cell_contents for c in (getattr(pred, "__closure__", None) or ()))
    key = (code, getattr(pred, "__defaults__", None), cells)
    try:
        hash(key)
    except TypeError:
        return pred
    return key


@dataclass(frozen=True, slots=True)
class Marks:
    """The marks of one object: ``(dim, DimMark)`` pairs sorted by dim (hashable: part of cache keys)."""

    dims: tuple[tuple[int, DimMark], ...] = ()

    def get(self, dim: int) -> DimMark | None:
        """The mark of ``dim``, if any."""
        for d, mark in self.dims:
            if d == dim:
                return mark
        return None

    def with_mark(self, dim: int, mark: DimMark) -> "Marks":
        """These marks with ``mark`` on ``dim``: a ``maybe`` mark never replaces a ``dynamic`` or ``static`` one.

        >>> Marks().with_mark(0, DimMark("dynamic")).with_mark(0, DimMark.of("maybe"))
        Marks(0: dynamic)
        """
        old = self.get(dim)
        if mark.kind == "maybe" and old is not None and old.kind != "maybe":
            return self
        return Marks(tuple(sorted([(d, m) for d, m in self.dims if d != dim] + [(dim, mark)], key=lambda dm: dm[0])))

    def __repr__(self) -> str:
        return "Marks(" + ", ".join(f"{d}: {m}" for d, m in self.dims) + ")"


class MarkTable:
    """Marks of live objects, keyed by ``id`` without keeping them alive (Note [Where marks live]).

    Note [Finalizers and the lock]
        A ``weakref.finalize`` callback runs wherever the garbage collector happens
        to run, which includes *inside* :meth:`mark` while it holds the lock (any
        allocation there may trigger a collection that frees another marked
        object). So the callback never takes the lock: it only pops its own key,
        which a single dict operation does atomically. That is safe because the
        key of a dying object is never the key of an object being marked: an id
        is reused only after its object's memory is freed, and the callback runs
        before that. The lock guards only the read-modify-write of :meth:`mark`
        against other threads marking the same object.
    """

    def __init__(self) -> None:
        self._marks: dict[int, Marks] = {}
        self._lock = threading.Lock()
        #: The table itself (never replaced): readers on a hot path test its truth to skip lookups.
        self.live: Mapping[int, Marks] = self._marks

    def get(self, obj: object) -> Marks | None:
        """The marks of ``obj``, or None."""
        return self._marks.get(id(obj))

    def mark(self, obj: object, dims: Iterable[int], mark: DimMark) -> None:
        """Put ``mark`` on each of ``dims`` of ``obj`` (see :meth:`Marks.with_mark`)."""
        key = id(obj)
        with self._lock:
            marks = self._marks.get(key)
            if marks is None:
                weakref.finalize(obj, self._forget, key)  # may collect garbage: Note [Finalizers and the lock]
                marks = Marks()
            for d in dims:
                marks = marks.with_mark(d, mark)
            self._marks[key] = marks

    def clear(self, obj: object) -> None:
        """Drop every mark of ``obj`` (its finalizer stays harmless)."""
        self._marks.pop(id(obj), None)

    def _forget(self, key: int) -> None:
        # Lock-free on purpose: Note [Finalizers and the lock].
        self._marks.pop(key, None)

    def __len__(self) -> int:
        return len(self._marks)

    def __bool__(self) -> bool:
        return bool(self._marks)

    def __repr__(self) -> str:
        return f"MarkTable({len(self)} marked objects)"


#: The marks of every live marked object (Note [Where marks live]).
MARKS = MarkTable()


def _dims(obj: Any, index: int | Sequence[int], what: str) -> list[int]:
    if is_tensor(obj):
        raise DynamicShapesTypeError(
            f"{what} was called on a fake tensor, inside a traced function; mark the real input "
            "before calling the compiled function (as torch forbids mark_dynamic in a compiled region)"
        )
    if isinstance(obj, TensorSpec) or isinstance(obj, tuple):
        raise DynamicShapesTypeError(
            f"{what}: shape specs (tuples, TensorSpec) cannot be marked; pass "
            "compile(..., dynamic_sources='x:0') or static_sources instead"
        )
    shape = getattr(obj, "shape", None)
    if shape is None:
        raise DynamicShapesTypeError(f"{what} takes an array or tensor (anything with .shape), got {type(obj).__name__}")
    try:
        weakref.ref(obj)
    except TypeError:
        raise DynamicShapesTypeError(f"{what}: a {type(obj).__name__} cannot be marked (it does not support weak references)") from None
    ndim = len(shape)
    if isinstance(index, int):
        indices = [index]
    elif isinstance(index, (list, tuple, range)):
        indices = list(index)
    else:
        raise DynamicShapesTypeError(f"{what}: dims must be ints (one dim or a list of dims), got {type(index).__name__} {index!r:.40}")
    out = []
    for i in indices:
        if isinstance(i, bool) or not isinstance(i, int):
            raise DynamicShapesTypeError(f"{what}: dims must be ints, got {i!r}")
        if not -ndim <= i < ndim:
            raise DimOutOfRangeError(f"{what}: dim {i} is out of range for an input with {ndim} dims (shape {tuple(shape)})",
                                     fix=f"mark a dim in [{-ndim}, {ndim - 1}], e.g. {what}(x, {ndim - 1})")
        out.append(i % ndim)
    return out


def _check_int(name: str, value: Any, what: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise DynamicShapesTypeError(f"{what}: {name} must be an int >= 0 or None, got {value!r}")


def mark_dynamic(
    obj: Any,
    index: int | Sequence[int],
    *,
    min: int | None = None,
    max: int | None = None,
    hint_override: int | None = None,
    specialize_on: Sequence[Callable[[Any], Any]] | None = None,
    choices: Sequence[int] | None = None,
) -> None:
    """Mark dims of ``obj`` dynamic: compiled functions trace them symbolic, and specialising them is an error.

    Args:
        obj: an array or tensor (numpy, torch, ...).
        index: a dim or a list of dims (negative counts from the end).
        min / max: bounds of the size; guards that narrow them are errors (the entry's guards check them).
        hint_override: the size the first trace uses to decide branches instead of the example's.
        specialize_on: predicates on the symbolic size (``lambda s: s % 16 == 0``): besides the
            generic entry, one entry per predicate whose guards add the predicate.
        choices: the only sizes the dim may take (a set-valued dim): one entry serves them all,
            0 and 1 included (its guards say ``x.size()[0] in (1, 8, 16)``).

    Raises:
        TypeError / IndexError: ``obj`` cannot be marked, or bad arguments.
        ConstraintViolationError: the size (or ``hint_override``) lies outside ``[min, max]``.

    >>> import numpy as np
    >>> x = np.zeros((8, 3)); mark_dynamic(x, [0, -1], min=2, max=64); marks_of(x)
    Marks(0: dynamic min=2 max=64, 1: dynamic min=2 max=64)
    """
    what = "mark_dynamic"
    dims = _dims(obj, index, what)
    for name, value in (("min", min), ("max", max), ("hint_override", hint_override)):
        _check_int(name, value, what)
    if min is not None and max is not None and min > max:
        raise DynamicShapesError(f"{what}: min={min} is greater than max={max}")
    if specialize_on is not None and not isinstance(specialize_on, (list, tuple)):
        raise DynamicShapesTypeError(f"{what}: specialize_on takes a list of callables (lambda s: s == 8), got {type(specialize_on).__name__}")
    preds = tuple(specialize_on or ())
    if any(not callable(p) for p in preds):
        raise DynamicShapesTypeError(f"{what}: specialize_on takes callables (lambda s: s == 8), got {list(preds)!r}")
    lo, hi = (0 if min is None else min), (float("inf") if max is None else max)
    if choices is not None:
        choices = tuple(choices)
        if not choices or any(isinstance(c, bool) or not isinstance(c, int) or not lo <= c <= hi for c in choices):
            raise DynamicShapesError(f"{what}: choices must be ints within [min, max] = [{lo}, {hi}], got {choices!r}")
    for d in dims:
        size = int(obj.shape[d])
        if choices is not None and size not in choices:
            raise ConstraintViolationError(f"{what}: dim {d} has size {size}, which is not one of the choices {choices}")
        for label, value in (("size", size), ("hint_override", hint_override)):
            if value is not None and not lo <= value <= hi:
                raise ConstraintViolationError(f"{what}: dim {d} has {label} {value}, outside the declared range [{min}, {max}]")
    MARKS.mark(obj, dims, DimMark.of("dynamic", min, max, hint_override, preds, choices))


def mark_unbacked(obj: Any, index: int | Sequence[int]) -> None:
    """Mark dims unbacked (torch's ``mark_unbacked``): traced as data-dependent sizes, with no hint.

    Nothing is decided by the example's size: 0 and 1 are not specialised, and shape code
    that branches on the size must be decidable for every size (or ``check`` it), else
    :class:`~shapeenv.errors.GuardOnDataDependentSymNode`. One entry serves every size.

    >>> import numpy as np
    >>> x = np.zeros((1, 3)); mark_unbacked(x, 0); marks_of(x)
    Marks(0: unbacked)
    """
    MARKS.mark(obj, _dims(obj, index, "mark_unbacked"), DimMark.of("unbacked"))


def maybe_mark_dynamic(obj: Any, index: int | Sequence[int]) -> None:
    """Mark dims dynamic, weakly: tracing may still specialise them, and ``mark_dynamic``/``mark_static`` win.

    >>> import numpy as np
    >>> x = np.zeros((8, 3)); maybe_mark_dynamic(x, 1); marks_of(x)
    Marks(1: maybe)
    """
    MARKS.mark(obj, _dims(obj, index, "maybe_mark_dynamic"), DimMark.of("maybe"))


def mark_static(obj: Any, index: int | Sequence[int]) -> None:
    """Mark dims static: traced with the example's size, whatever ``dynamic=`` or automatic dynamic say.

    >>> import numpy as np
    >>> x = np.zeros((8, 3)); mark_static(x, 0); marks_of(x)
    Marks(0: static)
    """
    MARKS.mark(obj, _dims(obj, index, "mark_static"), DimMark.of("static"))


def marks_of(obj: Any) -> Marks:
    """The marks of ``obj`` (empty if none).

    >>> import numpy as np
    >>> marks_of(np.zeros(3))
    Marks()
    """
    return MARKS.get(obj) or Marks()


def clear_marks(obj: Any) -> None:
    """Remove every mark of ``obj``.

    >>> import numpy as np
    >>> x = np.zeros(3); mark_static(x, 0); clear_marks(x); marks_of(x)
    Marks()
    """
    MARKS.clear(obj)


# -- whitelists --------------------------------------------------------------------------------------
_DIM_SUFFIX = re.compile(r"(.*):([0-9]+)\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SourcePatterns:
    """Parsed ``dynamic_sources`` / ``static_sources`` (Note [Source whitelists]).

    Attributes:
        patterns: ``(text, regex or None, dim or None)`` per pattern; ``regex`` is None when the
            text is not a valid regular expression (it then matches literally only).
    """

    patterns: tuple[tuple[str, "re.Pattern[str] | None", int | None], ...] = ()

    @classmethod
    def parse(cls, spec: "str | Sequence[str] | SourcePatterns | None") -> "SourcePatterns":
        """Parse a comma-separated string or a list of patterns.

        Raises:
            TypeError: ``spec`` is not a string or a list of strings.
            ValueError: an empty pattern (``"x,,y"``).

        >>> [p[0] for p in SourcePatterns.parse("x, L['y']:1").patterns]
        ['x', "L['y']"]
        """
        if spec is None:
            return cls()
        if isinstance(spec, SourcePatterns):
            return spec
        if isinstance(spec, str):
            items = spec.split(",") if spec.strip() else []
        elif isinstance(spec, (list, tuple)) and all(isinstance(s, str) for s in spec):
            items = list(spec)
        else:
            raise DynamicShapesTypeError(f"source patterns must be a comma-separated string or a list of strings, got {spec!r}")
        out = []
        for raw in items:
            text = raw.strip()
            if not text:
                raise DynamicShapesError(f"empty source pattern in {spec!r}")
            dim = None
            m = _DIM_SUFFIX.match(text)
            if m:
                text, dim = m.group(1).strip(), int(m.group(2))
            try:
                regex = re.compile(text)
            except re.error:
                regex = None
            out.append((text, regex, dim))
        return cls(tuple(out))

    def matches(self, source: Source) -> bool:
        """Whether some pattern covers ``source`` (a size of an input, or an int input's value).

        >>> SourcePatterns.parse("x.size()[0], n").matches(Source.size("x", 0)), SourcePatterns.parse("x.*").matches(Source.value("xs"))
        (True, True)
        """
        return self.match(source) is not None

    def match(self, source: Source) -> str | None:
        """The first pattern covering ``source``, or None."""
        base_names = (source.base, f"L[{source.base!r}]")
        dim_names = (source.text(), source.torch_text()) if source.kind == "size" else ()
        for text, regex, dim in self.patterns:
            if dim is not None:
                if source.kind != "size" or source.index != dim:
                    continue
                names: tuple[str, ...] = base_names
            else:
                names = base_names + dim_names
            if text in names or (regex is not None and any(regex.fullmatch(n) for n in names)):
                return text if dim is None else f"{text}:{dim}"
        return None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __str__(self) -> str:
        return ", ".join(t if d is None else f"{t}:{d}" for t, _, d in self.patterns)
