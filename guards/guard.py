"""``Guard``: one boolean condition on input sizes, with where it came from.

A guard's value is a canonical boolean form (:class:`symint.form.BoolForm`);
its sympy expression is a view built once, for printing and for the readers that
still walk sympy (Note [Guards are forms]).

>>> from symint import form as F
>>> from symint.form import rel
>>> g = Guard.of(rel(">=", F.sym("s0"), F.const(2)), origin="model.py:12 in view")
>>> g, g.origin, g.expr
(Guard(s0 >= 2), 'model.py:12 in view', s0 >= 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable

from symint.lazy_sympy import lazy_module, sympy

from symint.form import BoolForm, and_, bool_const, not_, or_
from symint.build import is_bool_expr
from symint.form.terms import FormLimitError

from guards.errors import GuardTypeError
from guards.text.escape import sympy_str as _sympy_str

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Guard", "form_key", "as_bool_form", "view_symbol"]

# Note [Guards are forms]
#     A guard holds the interned boolean form of its condition: the representation the
#     tracer (shapeenv.core) reasons with, so recording a guard converts nothing. Two
#     guards are equal when their conditions are the same form up to the order of the
#     operands of ``and``/``or`` (as sympy's And/Or compared): ``key`` is that structure,
#     computed once. It is not the forms' identity: a relation is memoised, not interned,
#     so the same relation built twice may be two objects. The sympy expression
#     (``Guard.expr``) is a view, built once per form and cached on it, for printing and
#     the sympy readers. What a form cannot hold (a float comparison, an opaque boolean
#     function) is wrapped as an ``opaque`` form around its sympy expression: the one
#     place where sympy is the value (symint.sympy_io.opaque_bool_from_sympy).


def form_key(b: BoolForm) -> Hashable:
    """The structural identity of a boolean form (the order of ``and``/``or`` operands ignored).

    >>> from symint import form as F
    >>> from symint.form import and_, rel
    >>> x = F.sym("x")
    >>> a, b = rel("<", x, F.const(3)), rel(">", x, F.const(0))
    >>> form_key(and_(a, b)) == form_key(and_(b, a))
    True
    """
    kind = b.kind
    if kind == "const":
        return b.value
    if kind == "rel":
        op, lhs, rhs = b.args
        return (op, lhs.uid, rhs.uid)  # interned forms: a uid names one form while it is held
    if kind == "not":
        return ("not", form_key(b.args[0]))
    if kind == "opaque":
        return ("opaque", b.args[0])
    return (kind, frozenset(form_key(a) for a in b.args))


def view_symbol(name: str) -> sympy.Symbol:
    """The sympy symbol of a form's symbol ``name`` (:func:`symint.sympy_io.view_symbol`): guards read a form's symbols as sympy keys.

    >>> view_symbol("s0").is_integer
    True
    """
    return _io.view_symbol(name)


def as_bool_form(cond: object) -> BoolForm:
    """The boolean form of a guard condition: a form, a sympy boolean or a Python bool.

    Raises:
        GuardTypeError: ``cond`` is none of these.

    >>> from symint.build import symbol_expr, lt
    >>> as_bool_form(lt(symbol_expr("n"), 5)).kind, as_bool_form(True).value
    ('rel', True)
    """
    if isinstance(cond, BoolForm):
        return cond
    if isinstance(cond, bool):
        return bool_const(cond)
    if isinstance(cond, sympy.Basic) and is_bool_expr(cond):
        try:
            form = _io.bool_from_sympy(cond)
            if _holds_sympy(form):  # see Note [Opaque guards are canonical in their integer parts]
                canonical = _canonical_integers(cond)
                if canonical is not cond:
                    cond, form = canonical, _io.bool_from_sympy(canonical)
        except (RecursionError, FormLimitError):
            # nested past what a walk can follow, or more terms than a form holds: kept as
            # written (sympy), read by the sympy paths, refused where they have limits too
            return _io.opaque_bool_from_sympy(cond)
        if len(form.symbols) != len(cond.free_symbols):
            # Folding lost a symbol (``Eq(2*a, 1)`` is FALSE over the integers): the guard keeps
            # that relation as written, so the inputs it names are still the set's inputs. Each
            # relation on its own, as the parser keeps them: a connective is rebuilt from its
            # operands, so the guard equals its own text read back.
            if isinstance(cond, (sympy.And, sympy.Or, sympy.Not)):
                parts = [as_bool_form(a) for a in cond.args]
                if isinstance(cond, sympy.Not):
                    return not_(parts[0])
                return (and_ if isinstance(cond, sympy.And) else or_)(*parts)
            return _io.opaque_bool_from_sympy(cond)
        return form
    raise GuardTypeError(f"a guard must be a boolean expression (a comparison, And/Or/Not), got {cond!r}")


# Note [Opaque guards are canonical in their integer parts]
#     A condition forms cannot hold (over floats, ``IntTrueDiv``, an opaque function) keeps
#     its sympy expression, with each integer subexpression replaced by the view of its form
#     (``to_sympy(form)``: built once from the form, Note [A view does not remember its source]). The parser
#     builds integers as forms and a float operation on their views (Note [Parsed forms and
#     the sympy builders] in guards.text.values), and the tracer's SymInt expressions are
#     views too, so such a guard equals its own text read back (``IntTrueDiv(s0, -(s0 +
#     s1)**2) < 1``: the form of ``-(s0 + s1)**2`` is shared, and so is its view).


def _holds_sympy(b: BoolForm) -> bool:
    """Whether an opaque boolean or an opaque integer atom occurs in ``b``."""
    if b.kind == "opaque":
        return True
    if b.kind == "rel":
        return any(_form_holds_sympy(side) for side in b.args[1:])
    return b.kind != "const" and any(_holds_sympy(a) for a in b.args)


def _form_holds_sympy(f) -> bool:
    return any(
        a.kind == "opaque" or (a.kind != "sym" and any(_form_holds_sympy(x) for x in a.args)) for m, _ in f.terms for a, _ in m.factors
    )


def _canonical_integers(e: sympy.Basic) -> sympy.Basic:
    """``e`` with each maximal integer subexpression replaced by its form's view (``e`` itself if none changes)."""
    if e.args and not is_bool_expr(e):
        try:
            return _io.to_sympy(_io.from_sympy(e))
        except _io.NotAnIntegerForm:
            pass
    args = tuple(_canonical_integers(a) for a in e.args)
    if all(a is b for a, b in zip(args, e.args)):
        return e
    return e.func(*args, evaluate=False) if isinstance(e, sympy.Rel) else e.func(*args)


@dataclass(frozen=True, slots=True)
class Guard:
    """A boolean condition over symbols, as a canonical form, plus optional provenance.

    Build with :meth:`of`. Two guards are equal when their forms are (Note [Guards are
    forms]); ``origin`` is commentary (file:line, the op that asked, why it could not be
    decided statically).

    Attributes:
        form: the condition (:class:`symint.form.BoolForm`).
        origin: where it came from, or None (a property: see ``why``).
        why: the origin as given: text, None, or a function of no arguments that returns
            the text, called when ``origin`` is first read (provenance that would print
            expressions is built only if someone reads it: ``produce_guards`` is a hot path).
        key: the structural identity that equality and hashing use.
    """

    form: BoolForm = field(compare=False)
    why: object = field(default=None, compare=False, repr=False)
    key: Hashable = field(default=None, repr=False)
    _free_symbols: frozenset | None = field(default=None, init=False, compare=False, repr=False)  # built on first read

    @classmethod
    def of(cls, cond: object, origin: "str | Callable[[], str] | None" = None) -> "Guard":
        """A guard for ``cond``: a boolean form, or a boolean sympy expression (converted once).

        ``origin`` is text, or a function of no arguments returning it (called on first read).

        Raises:
            GuardTypeError: ``cond`` is neither.

        >>> from symint.build import symbol_expr, lt
        >>> Guard.of(lt(symbol_expr("n"), 5)) == Guard.of(lt(symbol_expr("n"), 5), "elsewhere")
        True
        >>> Guard.of(lt(symbol_expr("n"), 5), lambda: "built " + "late").origin
        'built late'
        """
        if isinstance(cond, bool):  # a Python bool is not a guard expression (True/False are sympy.true/false)
            raise GuardTypeError(f"a guard must be a boolean expression (a comparison, And/Or/Not), got {cond!r}")
        form = as_bool_form(cond)
        return cls(form, origin, form_key(form))

    @property
    def origin(self) -> str | None:
        """Where the guard came from (text), or None."""
        why = self.why
        if callable(why):
            why = why()
            object.__setattr__(self, "why", why)  # built once: the text is a cache of the function
        return why

    @property
    def expr(self) -> sympy.Basic:
        """The sympy view of the condition (built once per form)."""
        return _io.to_sympy(self.form)

    @property
    def free_symbols(self) -> frozenset[sympy.Symbol]:
        """The symbols the guard reads (from the form's symbol names: no sympy view is built).

        >>> from symint.build import symbol_expr, lt
        >>> sorted(Guard.of(lt(symbol_expr("n"), symbol_expr("m"))).free_symbols, key=str)
        [m, n]
        """
        found = self._free_symbols
        if found is None:  # a cache of the form's names, as Guard.origin caches its text
            found = frozenset(map(view_symbol, self.form.symbols))
            object.__setattr__(self, "_free_symbols", found)
        return found

    def __repr__(self) -> str:
        return f"Guard({_sympy_str(self.expr)})"
