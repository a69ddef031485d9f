"""Where guards and runtime asserts come from: the user's line, the op that asked, and why.

>>> p = Provenance(stated="s0 > 5", user_frame="model.py:3 in forward", op="view", why="ranges do not decide it")
>>> str(p)
'model.py:3 in forward (view): ranges do not decide it'
"""

from __future__ import annotations

import functools
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from symint.lazy_sympy import lazy_module, sympy

import guards
import symint
import valueranges
from symint.form import BoolForm

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Provenance", "GuardRecord", "AssertRecord", "bool_form_of", "sympy_of", "user_frame", "user_frame_object", "local_name", "library_code",
           "code_names"]

_LIBRARY_DIRS = tuple(
    str(Path(m.__file__).resolve().parent) for m in (symint, valueranges, guards, sys.modules[__package__.partition(".")[0]])
)


def user_frame_object(skip: int = 1):
    """The innermost caller's frame outside this library (None if none); for reading its local names.

    >>> f = user_frame_object(); f is None or f.f_code.co_filename.endswith(".py") or "<" in f.f_code.co_filename
    True
    """
    frame = sys._getframe(skip)
    while frame is not None:
        if not library_code(frame):
            return frame
        frame = frame.f_back
    return None


_PACKAGES = ("symint", "valueranges", "guards", __package__.partition(".")[0])


def library_code(frame) -> bool:
    """Whether ``frame`` runs this library's code (or torch's, or ``contextlib``'s): not the user's.

    >>> import sys
    >>> library_code(sys._getframe())   # a doctest's frame is the user's
    False
    """
    filename = frame.f_code.co_filename
    return (filename.startswith(_library_prefixes(getattr(sys.modules.get("torch"), "__file__", None)))
            or "contextlib" in filename or _generated_here(frame, filename))


@functools.lru_cache(maxsize=4)
def _library_prefixes(torch_file: str | None) -> tuple[str, ...]:
    """The file prefixes of library code: ours, ``<frozen ...>``, and torch's directory once torch is imported
    (a pure function of torch's file, cached: every frame of every recorded guard asks)."""
    return _LIBRARY_DIRS + ("<frozen",) + _torch_dir(torch_file)


def _generated_here(frame, filename: str) -> bool:
    """Whether ``frame`` runs code generated for one of this library's modules (a dataclass's
    ``__init__``, whose file is ``<string>``): library code, although no library file holds it. A doctest's
    frames (``<doctest ...>``) run with a library module's globals too, but are the user's code."""
    return filename == "<string>" and str(frame.f_globals.get("__name__", "")).partition(".")[0] in _PACKAGES


def _torch_dir(file: str | None) -> tuple[str, ...]:
    """torch's own directory (from its ``__file__``, None before torch is imported): its frames are torch code
    that ``shapeenv.torch`` traces (``nn.Linear.forward``, ``SymInt.__bool__``), and the user's line is further out."""
    return (str(Path(file).parent) + "/",) if file else ()


def user_frame(skip: int = 1) -> str | None:
    """``file:line in function`` of the innermost caller outside this library (None if none).

    >>> user_frame() is None or ":" in user_frame()
    True
    """
    frame = user_frame_object(skip + 1)
    if frame is None:
        return None
    filename = frame.f_code.co_filename
    if "/ipykernel_" in filename:  # a Jupyter cell: its temporary file name means nothing to the reader
        filename = notebook_cell(filename)
    return f"{filename}:{frame.f_lineno} in {frame.f_code.co_name}"


def notebook_cell(filename: str) -> str:
    """``<cell In[5]>`` for the file IPython compiled cell 5 into, as IPython's own tracebacks name it.

    IPython's compiler keeps the execution count of each cell's file; without it (not under
    IPython, or a file it does not know) the name is ``<notebook cell>``. Reads only what
    IPython already holds: this library never imports IPython.

    >>> notebook_cell("/tmp/ipykernel_1/123.py")  # not under IPython here
    '<notebook cell>'
    """
    get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    counts = getattr(getattr(shell, "compile", None), "_filename_map", None)
    count = counts.get(filename) if isinstance(counts, dict) else None
    return f"<cell In[{count}]>" if isinstance(count, int) else "<notebook cell>"


def local_name(value: object, frame) -> str | None:
    """The name the user's code gives ``value`` in ``frame`` (its locals, then its globals), by identity.

    Used only to word error messages in the user's terms; None when no name is bound to it.

    >>> import sys
    >>> weights = object(); local_name(weights, sys._getframe())
    'weights'
    """
    if frame is None:
        return None
    for names in (frame.f_locals, frame.f_globals):
        for name, bound in names.items():
            if bound is value and not name.startswith("_"):
                return name
    return None


@functools.lru_cache(maxsize=8192)
def code_names(code: types.CodeType) -> tuple[str, ...]:
    """Every name ``code`` (and the code nested in it) loads or stores by name (its own, then the nested code's): its candidate globals.

    Pure in the (immutable) code object, so cached by it; the closure walk of the higher-order ops,
    the global-state snapshot of export and the function fingerprint of the stores all ask.

    >>> def f(x):
    ...     return sorted(x) + [len(y) for y in x]
    >>> code_names(f.__code__)
    ('sorted', 'len')
    """
    names = dict.fromkeys(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.update(dict.fromkeys(code_names(const)))
    return tuple(names)


@dataclass(frozen=True, slots=True)
class Provenance:
    """How a guard or assert came to be.

    Attributes:
        stated: the expression as first stated (before replacements): text, or the
            expression itself (printed only when asked: guards are recorded on a hot path).
        user_frame: the user's ``file:line in function``.
        op: the operation or shape rule that asked (None outside any).
        why: why it could not be decided statically.
    """

    stated: object
    user_frame: str | None = None
    op: str | None = None
    why: str = ""

    @property
    def stated_text(self) -> str:
        """``stated`` as text: text as it is, an expression printed (built once, when asked).

        >>> from symint.form import add, const, rel, sym
        >>> Provenance(stated=rel("<", add(sym("s0"), const(1)), const(5))).stated_text
        's0 + 1 < 5'
        """
        return self.stated if isinstance(self.stated, str) else str(sympy_of(self.stated))

    def __str__(self) -> str:
        where = self.user_frame or "<unknown>"
        op = f" ({self.op})" if self.op else ""
        why = f": {self.why}" if self.why else ""
        return f"{where}{op}{why}"


def sympy_of(value) -> sympy.Basic:
    """The sympy expression of a form (built once, cached on it), or a sympy expression as it is."""
    return value if isinstance(value, sympy.Basic) else _io.to_sympy(value)


def bool_form_of(value) -> BoolForm:
    """The boolean form of a recorded condition: a form as it is, a sympy boolean converted once.

    The one place shapeenv.core turns sympy into forms (what records, programs read back
    and float comparisons hold); ``sympy_of`` is the way back, for text.

    >>> from symint.build import symbol_expr, lt
    >>> bool_form_of(lt(symbol_expr("n"), 5)).kind
    'rel'
    """
    return value if isinstance(value, BoolForm) else _io.bool_from_sympy(value)


@dataclass(frozen=True, slots=True)
class GuardRecord:
    """A guard the environment recorded: ``expr`` held for the hints and must hold for reuse.

    ``form`` is the guard's canonical form (a :class:`symint.form.logic.BoolForm`) or a sympy
    boolean; ``expr`` is its sympy expression, built on first use.
    """

    form: object
    provenance: Provenance

    @property
    def expr(self) -> sympy.Basic:
        """The guard as a sympy boolean."""
        return sympy_of(self.form)

    def __str__(self) -> str:
        return f"{self.expr}  # {self.provenance}"


@dataclass(frozen=True, slots=True)
class AssertRecord:
    """A runtime assert (``check(...)``): assumed while tracing, checked when the program runs.

    ``form`` as in :class:`GuardRecord`; ``expr`` is the sympy boolean.
    """

    form: object
    message: str | None
    provenance: Provenance

    @property
    def expr(self) -> sympy.Basic:
        """The asserted condition as a sympy boolean."""
        return sympy_of(self.form)

    def __str__(self) -> str:
        msg = f" ({self.message})" if self.message else ""
        return f"check({self.expr}){msg}  # {self.provenance}"
