"""Print guard expressions as text the parser reads back, and render guard sets for notebooks.

Three text styles:

* :func:`to_sympy_text`: sympy-style, ``Eq(s0, s1)``, ``Ne(Mod(s0, 2), 0)``,
  ``FloorDiv(s0, 2)``, ``(s0 < 3) & (s1 >= 2)``;
* :func:`to_torch_text`: torch's guard text, ``L['x'].size()[0] == L['y'].size()[0]``,
  ``(L['x'].size()[0] % 8) == 0``, ``L['x'].size()[0] // 2``, ``and``/``or``/``not``,
  and a two-sided bound on one expression as a chain, ``2 <= L['x'].size()[0] <= 1024``;
* :func:`to_source_text`: the same Python syntax with our source names, ``x.size()[0]``.

Each prints a canonical form (:class:`~symint.form.Form`, :class:`~symint.form.BoolForm`:
what a guard holds) or a sympy expression (what a caller holds, and what a form wraps
for floats and opaque functions).

Note [Printing forms]
    The printers walk the form itself; no sympy view is built, except inside an opaque
    atom (a float, ``IntTrueDiv``, a bitwise or float function), which is sympy and
    prints as before. The text is the text the sympy view printed: terms, factors and
    ``Max``/``Min`` arguments follow sympy's order, computed on the form
    (:mod:`guards.text.order`), and every node prints as its sympy counterpart did.
    Two differences are deliberate. A sum too large for sympy to order (Note [Printing
    large sums] in :mod:`guards.text.escape`) printed in sympy's internal order; a form
    prints in the usual order at any size. And where the view's connectives fold what
    the form keeps (``x < 3 and x >= 3``: sympy's ``And`` makes it False), the form
    prints as it is, since it is what the guard evaluates (Note [Folding connectives]
    in :mod:`symint.sympy_io.connectives`). tests/guards/test_text_order.py checks the
    text of random forms against the text of their views.

Note [Round trip]
    For forms, and expressions built by :mod:`symint.build`, over integer symbols,
    ``parse(print(e)) == e`` structurally, in every style: the printers emit
    each node in a form the parser rebuilds through the same builder (n-ary sums
    and products print flat and sympy re-canonicalises them, parentheses follow
    Python's precedence, floats print with ``repr``). One corner is not exact,
    and is documented rather than hidden: a sympy quotient whose numerator is
    integer-valued (a ``Rational`` such as ``1/2``, or ``s0*(s1 + 1)**-1``, which
    ``symint.build`` never makes from integers) reads back as ``IntTrueDiv``;
    quotients of float-valued expressions (``IntTrueDiv(s0, s1)/(s1 + 1)``) are
    exact. Infinities have no guard syntax and raise
    :class:`~guards.errors.GuardTypeError`.

>>> from symint.build import symbol_expr, eq, mod, floordiv
>>> from guards.source import Source
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> srcs = {s0: Source.size("x", 0), s1: Source.size("y", 0)}
>>> to_sympy_text(eq(mod(s0, 8), 0)), to_torch_text(eq(mod(s0, 8), 0), srcs)
('Eq(Mod(s0, 8), 0)', "(L['x'].size()[0] % 8) == 0")
>>> to_source_text(eq(floordiv(s0, 2), s1), srcs)
'x.size()[0] // 2 == y.size()[0]'
"""

from __future__ import annotations

import html
import keyword
from functools import lru_cache
from typing import Callable, Literal, Mapping, Sequence, Union

from symint.lazy_sympy import lazy_module, sympy
from symint.build import symbol_name

from symint.form import Atom, BoolForm, Form, Mono

from guards.errors import GuardTypeError, GuardValueError
from guards.text.escape import affordable_sum, sympy_latex, sympy_str
from guards.validate import need_mapping, short
from guards.guard import Guard
from guards.text.lexer import PREC_ADD, PREC_AND, PREC_ATOM, PREC_BAND, PREC_BOR, PREC_CMP, PREC_MUL, PREC_NOT, PREC_OR, PREC_POW, PREC_UNARY
from guards.source import Source
from guards.text.order import ordered_args, ordered_factors, ordered_terms

_floats = lazy_module("symint.sympy_io.floats")  # Note [sympy on first use] in symint.lazy_sympy
_nodes = lazy_module("symint.sympy_io.functions")

__all__ = [
    "membership",
    "to_sympy_text",
    "to_torch_text",
    "to_source_text",
    "to_text",
    "to_text_lines",
    "render_html",
    "render_latex",
    "sympy_str",
    "TextStyle",
]

TextStyle = Literal["sympy", "torch", "source"]
#: What the printers print: a form, a boolean form, or a sympy expression (floats, opaque functions).
Printable = Union[Form, BoolForm, "sympy.Basic"]

#: The kind of call -> the name of its sympy node class (the names of symint.form's atoms where they have one).
_NAMES = {
    "floordiv": "FloorDiv", "ceildiv": "CeilDiv", "mod": "Mod", "max": "Max", "min": "Min", "pow": "PowByNatural",
    "truediv": "IntTrueDiv", "floortoint": "FloorToInt", "ceiltoint": "CeilToInt", "ite": "IfThenElse",
}  # fmt: skip
_PYTHON_NAMES = {"max": "max", "min": "min", "floortoint": "math.floor", "ceiltoint": "math.ceil"}
_DIRECTION = {"<": True, "<=": True, ">": False, ">=": False}  # how a relation chains (None: it does not)
_RESERVED = frozenset(keyword.kwlist)


@lru_cache(maxsize=None)
def _kinds() -> dict[type, str]:
    """A sympy node class -> the kind of call it prints as (built when sympy is first printed)."""
    return {getattr(_nodes, name): kind for kind, name in _NAMES.items()}


@lru_cache(maxsize=None)
def _no_syntax() -> tuple:
    """The sympy values with no Python syntax."""
    return sympy.oo, -sympy.oo, sympy.zoo, sympy.nan


class _Printer:
    """One printing pass over forms (and, for floats and opaque atoms, their sympy): ``python`` picks the syntax.

    ``name`` prints a symbol given its name; ``sizes`` names the symbols of size-like sources
    (never negative, so ``a**b`` is a natural power). ``memo`` caches sort keys of atoms
    (:mod:`guards.text.order`) for this pass.
    """

    def __init__(self, python: bool, name: Callable[[str], str], sizes: frozenset = frozenset()):
        self.python, self.name = python, name
        self.sizes = sizes
        self.memo: dict = {}

    def text(self, e: Printable) -> str:
        return self.print(e)[0]

    def wrap(self, e: Printable, min_prec: int) -> str:
        """``e`` printed, parenthesized unless it binds at least as tightly as ``min_prec``."""
        return _paren(self.print(e), min_prec)

    def print(self, e: Printable) -> tuple[str, int]:
        t = type(e)
        if t is Form:
            return self.form(e)
        if t is BoolForm:
            return self.boolean(e)
        return self.sympy(e)

    # -- forms
    def form(self, f: Form) -> tuple[str, int]:
        if f.is_const:
            return _integer(f.const)
        if len(f.terms) == 1 and not f.const:
            m, c = f.terms[0]
            return self.term(c, m)
        items = []
        for m, c in ordered_terms(f, self.memo):
            minus = bool(items) and c < 0
            items.append((minus, self.term(-c if minus else c, m)))
        return _sum_text(items), PREC_ADD

    def term(self, coeff: int, mono: Mono | None) -> tuple[str, int]:
        """``coeff * mono`` (``mono`` None: the constant)."""
        if mono is None:
            return _integer(coeff)
        factors = [self.atom(a) if p == 1 else (f"{_paren(self.atom(a), PREC_POW + 1)}**{p}", PREC_POW) for a, p in ordered_factors(mono, self.memo)]
        return self.product_text(str(coeff), coeff, factors)

    def atom(self, a: Atom) -> tuple[str, int]:
        kind = a.kind
        if kind == "sym":
            return self.name(a.name), PREC_ATOM
        if kind == "opaque":
            return self.print(a.args[0])
        return self.call(kind, ordered_args(a, self.memo))

    def boolean(self, b: BoolForm) -> tuple[str, int]:
        kind = b.kind
        if kind == "const":
            return str(b.value), PREC_ATOM
        if kind == "rel":
            return self.relation(*b.args)
        if kind == "not":
            return self.negation(b.args[0])
        if kind == "opaque":
            return self.print(b.args[0])
        return self.logic(kind == "and", b.args, b)

    # -- sympy: floats, true division and opaque functions (and callers that print a sympy expression)
    def sympy(self, e: sympy.Basic) -> tuple[str, int]:
        if isinstance(e, sympy.Symbol):
            return self.name(e.name), PREC_ATOM
        if isinstance(e, sympy.Integer):
            return _integer(int(e))
        if isinstance(e, sympy.Rational):  # not exact: reads back as true division (Note [Round trip])
            return f"{e.p}/{e.q}", PREC_MUL
        if isinstance(e, sympy.Float):
            value = float(e)
            if value != value or value in (float("inf"), float("-inf")):
                raise GuardTypeError(f"{e} has no guard syntax")
            return repr(value), PREC_ATOM if value >= 0 else PREC_UNARY
        if e is sympy.true or e is sympy.false:
            return str(bool(e)), PREC_ATOM
        if isinstance(e, sympy.Add):
            items = []
            for term in _ordered_terms(e):
                coeff, rest = term.as_coeff_Mul()
                minus = bool(items) and coeff.is_negative
                items.append((minus, self.product(-coeff, sympy.Mul.make_args(rest)) if minus else self.print(term)))
            return _sum_text(items), PREC_ADD
        if isinstance(e, sympy.Mul):
            coeff, rest = e.as_coeff_Mul()
            return self.product(coeff, sympy.Mul.make_args(rest))
        if isinstance(e, sympy.Pow):
            return f"{self.wrap(e.base, PREC_POW + 1)}**{self.wrap(e.exp, PREC_UNARY)}", PREC_POW
        if isinstance(e, sympy.Rel):
            return self.relation(e.rel_op, e.lhs, e.rhs)
        if isinstance(e, (sympy.And, sympy.Or)):
            return self.logic(isinstance(e, sympy.And), e.args, e)
        if isinstance(e, sympy.Not):
            return self.negation(e.args[0])
        kind = _kinds().get(type(e))
        if kind is not None:
            return self.call(kind, e.args)
        if type(e) in _floats.OPAQUE_FUNCTIONS:  # BitwiseAnd(a, b), FloatSqrt(x): the same call in every style
            return f"{type(e).__name__}({', '.join(self.text(a) for a in e.args)})", PREC_ATOM
        if e in _no_syntax():
            raise GuardTypeError(f"{e} has no guard syntax (guards compare finite integers)")
        raise GuardTypeError(f"cannot print {type(e).__name__} ({e}) as guard text: not built by symint.build")

    def product(self, coeff: sympy.Number, factors: Sequence[sympy.Basic]) -> tuple[str, int]:
        """``coeff * factors``; negative powers and a rational coefficient's denominator go after a ``/``."""
        num, den = [], []
        for f in factors:
            if isinstance(f, sympy.Pow) and isinstance(f.exp, sympy.Integer) and f.exp < 0:
                den.append(f)
            elif f != 1:
                num.append(f)
        q = coeff.q if isinstance(coeff, sympy.Rational) else 1
        if not den and q == 1:
            return self.plain_product(coeff, num)
        # a*b/(c*d**2) reads back as truediv(a*b, c*d**2); exact unless a*b is integer-valued (Note [Round trip]).
        top, top_prec = self.plain_product(sympy.Integer(coeff.p) if q != 1 else coeff, num)
        parts = [str(q)] if q != 1 else []
        for f in den:
            k = -int(f.exp)
            parts.append(self.wrap(f.base, PREC_POW + 1) + (f"**{k}" if k != 1 else ""))
        bottom = parts[0] if len(parts) == 1 else "(" + "*".join(parts) + ")"
        return f"{top if top_prec >= PREC_MUL else f'({top})'}/{bottom}", PREC_MUL

    def plain_product(self, coeff: sympy.Number, factors: Sequence[sympy.Basic]) -> tuple[str, int]:
        if not factors:
            return self.print(coeff)
        return self.product_text(self.print(coeff)[0], coeff, [self.print(f) for f in _ordered(factors)])

    # -- shared by both
    def product_text(self, coeff_text: str, coeff: object, factors: list[tuple[str, int]]) -> tuple[str, int]:
        """``coeff`` times the printed ``factors`` (in print order)."""
        if len(factors) == 1:
            body, prec = factors[0]
        else:
            # Factors that print at '*' level (a // b, a / b) are parenthesized so that
            # the product never reads as a left-associative division.
            body, prec = "*".join(_paren(f, PREC_MUL + 1) for f in factors), PREC_MUL
        if coeff == 1:
            return body, prec
        if coeff == -1:
            return "-" + (body if prec >= PREC_UNARY or len(factors) > 1 else f"({body})"), min(prec, PREC_UNARY)
        if prec <= PREC_MUL and len(factors) == 1:
            body = f"({body})"
        return f"{coeff_text}*{body}", PREC_MUL

    def relation(self, op: str, lhs: Printable, rhs: Printable) -> tuple[str, int]:
        if not self.python and op in ("==", "!="):
            name = "Eq" if op == "==" else "Ne"
            return f"{name}({self.text(lhs)}, {self.text(rhs)})", PREC_ATOM
        return f"{self.wrap(lhs, PREC_CMP + 1)} {op} {self.wrap(rhs, PREC_CMP + 1)}", PREC_CMP

    def negation(self, a: Printable) -> tuple[str, int]:
        if self.python:
            return f"not {self.wrap(a, PREC_NOT)}", PREC_NOT
        return f"~{self.wrap(a, PREC_UNARY)}", PREC_UNARY

    def logic(self, is_and: bool, args: Sequence[Printable], e: Printable) -> tuple[str, int]:
        members = None if is_and or not self.python else membership(e)
        if members is not None:  # a set-valued dim: x in (1, 8, 16)
            subject, values = members
            return f"{self.wrap(subject, PREC_CMP + 1)} in ({', '.join(str(v) for v in values)})", PREC_CMP
        if not self.python:
            prec = PREC_BAND if is_and else PREC_BOR
            return (" & " if is_and else " | ").join(self.wrap(a, prec + 1) for a in args), prec
        prec = PREC_AND if is_and else PREC_OR
        parts = self.chains(args) if is_and else [self.wrap(a, prec + 1) for a in args]
        return (" and " if is_and else " or ").join(parts), prec

    def chains(self, args: Sequence[Printable]) -> list[str]:
        """Print ``lo <= e`` followed by ``e <= hi`` (or ``>=`` both ways) as one chain ``lo <= e <= hi``.

        Only neighbours pair, and only in the order written (``a <= b and b <= c``), through a
        non-constant middle: the chain evaluates exactly what the two relations evaluate, in the
        same order, so the printed text short-circuits (and raises) where the guard does.
        """
        parts: list[str] = []
        i = 0
        while i < len(args):
            a = _relation_parts(args[i])
            b = _relation_parts(args[i + 1]) if i + 1 < len(args) else None
            if a is not None and b is not None and _DIRECTION.get(a[0]) is not None and _DIRECTION.get(a[0]) == _DIRECTION.get(b[0]):
                if _same(a[2], b[1]) and not _is_number(a[2]):
                    parts.append(
                        f"{self.wrap(a[1], PREC_CMP + 1)} {a[0]} {self.wrap(a[2], PREC_CMP + 1)} {b[0]} {self.wrap(b[2], PREC_CMP + 1)}"
                    )
                    i += 2
                    continue
            parts.append(self.wrap(args[i], PREC_AND + 1))
            i += 1
        return parts

    def call(self, kind: str, args: Sequence[Printable]) -> tuple[str, int]:
        """``FloorDiv(a, b)`` (sympy style) or ``a // b`` (Python style), and the other integer functions."""
        if self.python:
            if kind == "floordiv":
                return f"{self.wrap(args[0], PREC_MUL)} // {self.wrap(args[1], PREC_MUL + 1)}", PREC_MUL
            if kind == "truediv":
                return f"{self.wrap(args[0], PREC_MUL)} / {self.wrap(args[1], PREC_MUL + 1)}", PREC_MUL
            if kind == "mod":  # torch's style: (a % b), always parenthesized
                return f"({self.wrap(args[0], PREC_MUL)} % {self.wrap(args[1], PREC_MUL + 1)})", PREC_ATOM
            if kind == "pow" and self.natural(args[1]):  # else `**` is Python's pow
                return f"{self.wrap(args[0], PREC_POW + 1)}**{self.wrap(args[1], PREC_UNARY)}", PREC_POW
            name = _PYTHON_NAMES.get(kind) or _NAMES[kind]
        else:
            name = _NAMES[kind]
        return f"{name}({', '.join(self.text(a) for a in args)})", PREC_ATOM

    def natural(self, exponent: Printable) -> bool:
        """Whether ``exponent`` is a constant or a size (never negative): ``a**b`` is then a natural power."""
        if type(exponent) is Form:
            atom = exponent.atom()
            return exponent.is_const or (atom is not None and atom.kind == "sym" and atom.name in self.sizes)
        return bool(exponent.is_Integer) or (isinstance(exponent, sympy.Symbol) and exponent.name in self.sizes)


def _integer(k: int) -> tuple[str, int]:
    return str(k), PREC_ATOM if k >= 0 else PREC_UNARY


def _paren(printed: tuple[str, int], min_prec: int) -> str:
    text, prec = printed
    return text if prec >= min_prec else f"({text})"


def _sum_text(items: list[tuple[bool, tuple[str, int]]]) -> str:
    """A sum from its printed terms: ``(minus, (text, prec))``, ``minus`` for a term printed after `` - ``."""
    parts: list[str] = []
    for minus, (text, prec) in items:
        if minus:
            parts.append(" - " + (text if prec > PREC_ADD else f"({text})"))
        else:
            parts.append((" + " if parts else "") + (text if prec >= PREC_ADD else f"({text})"))
    return "".join(parts)


def _ordered_terms(e: sympy.Add) -> list[sympy.Basic]:
    """The terms in sympy's print order, or, for a huge sum, in linear memory (Note [Printing large sums])."""
    if affordable_sum(e):
        return list(e.as_ordered_terms())
    return [a for a in e.args if not a.is_Number] + [a for a in e.args if a.is_Number]


def _relation_parts(e: Printable) -> tuple[str, Printable, Printable] | None:
    """``(op, lhs, rhs)`` of a relation (form or sympy), else None."""
    if type(e) is BoolForm:
        return e.args if e.kind == "rel" else None
    if isinstance(e, sympy.Rel):
        return e.rel_op, e.lhs, e.rhs
    return None


def _is_number(e: Printable) -> bool:
    return e.is_const if type(e) is Form else bool(e.is_Number)


def _same(a: Printable, b: Printable) -> bool:
    return a is b if type(a) is Form else a == b


def membership(e: Printable) -> tuple[Printable, tuple[int, ...]] | None:
    """``(x, (v1, v2, ...))`` when ``e`` is ``Eq(x, v1) | Eq(x, v2) | ...`` over integer constants, else None.

    That disjunction is how a set-valued dim (``x in (1, 8, 16)``) is represented. ``e`` is
    a boolean form or a sympy boolean.

    >>> from symint.build import symbol_expr, eq, or_
    >>> s = symbol_expr("s0")
    >>> membership(or_(eq(s, 16), eq(s, 1), eq(s, 8)))
    (s0, (1, 8, 16))
    """
    if type(e) is BoolForm:
        if e.kind != "or":
            return None
        parts = [_relation_parts(a) for a in e.args]
        integer = lambda x: x.const if type(x) is Form and x.is_const else None  # noqa: E731
    else:
        if not isinstance(e, sympy.Or):
            return None
        parts = [(a.rel_op, a.lhs, a.rhs) if isinstance(a, sympy.Eq) else None for a in e.args]
        integer = lambda x: int(x) if isinstance(x, sympy.Integer) else None  # noqa: E731
    if len(parts) < 2:
        return None
    subject, values = None, []
    for part in parts:
        if part is None or part[0] != "==":
            return None
        _, lhs, rhs = part
        if integer(rhs) is None:
            lhs, rhs = rhs, lhs
        value = integer(rhs)
        if value is None or integer(lhs) is not None:
            return None
        if subject is None:
            subject = lhs
        elif not _same(lhs, subject):
            return None
        values.append(value)
    return subject, tuple(sorted(values))


def _ordered(factors: list[sympy.Basic]) -> list[sympy.Basic]:
    """Factors in sympy's print order (symbols and powers before function calls)."""
    return list(sympy.Mul(*factors, evaluate=False).as_ordered_factors())


def _symbol_name(name: str) -> str:
    if not (name.isidentifier() and name.isascii()) or name in _RESERVED or name.startswith("__"):
        raise GuardTypeError(f"the symbol name {name!r} cannot be written in guard text (it reads as something else)")
    return name


def _source_namer(sources: "Mapping[sympy.Symbol | str, Source] | None", torch: bool) -> Callable[[str], str]:
    sources = need_mapping(sources, "sources", optional=True) or {}
    by_name = {name: src for sym, src in sources.items() if (name := symbol_name(sym)) is not None}

    def name(sym: str) -> str:
        src = by_name.get(sym)
        if src is None:
            return _symbol_name(sym)
        if torch or not _plain_base(src.base):
            return src.torch_text()
        return src.text()

    return name


def _sizes(sources: "Mapping[sympy.Symbol | str, Source] | None") -> frozenset:
    return frozenset(name for sym, src in (sources or {}).items()
                     if isinstance(src, Source) and src.is_size_like and (name := symbol_name(sym)) is not None)


def _plain_base(base: str) -> bool:
    """Whether ``base`` reads back as a bare name (else it is printed as ``L['...']``)."""
    return base.isidentifier() and base.isascii() and not keyword.iskeyword(base) and not base.startswith("__")


def to_sympy_text(expr: Printable) -> str:
    """``expr`` in sympy-style text, which :func:`guards.text.parse.parse_guard` reads back.

    Raises:
        GuardTypeError: ``expr`` holds something guard text cannot express (``oo``, a foreign function).

    >>> from symint.build import symbol_expr, and_, ne, mod, le, floordiv
    >>> s0 = symbol_expr("s0")
    >>> to_sympy_text(and_(ne(mod(s0, 2), 0), le(floordiv(s0, 2), 7)))   # in the order written
    'Ne(Mod(s0, 2), 0) & (FloorDiv(s0, 2) <= 7)'
    """
    return _Printer(False, _symbol_name).text(expr)


def to_torch_text(expr: Printable, sources: Mapping[sympy.Symbol, Source] | None = None) -> str:
    """``expr`` in torch's guard text; symbols with a source print as ``L['x'].size()[0]``.

    >>> from symint.build import symbol_expr, and_, le
    >>> s0 = symbol_expr("s0")
    >>> to_torch_text(and_(le(2, s0), le(s0, 1024)), {s0: Source.size("x", 0)})
    "2 <= L['x'].size()[0] <= 1024"
    """
    return _Printer(True, _source_namer(sources, torch=True), _sizes(sources)).text(expr)


def to_source_text(expr: Printable, sources: Mapping[sympy.Symbol, Source] | None = None) -> str:
    """``expr`` in Python syntax with our source names (``x.size()[0]``; ``L['a b']`` for odd names).

    An int input prints as its bare name, so read such text back with ``dialect="source"``.

    >>> from symint.build import symbol_expr, ne
    >>> s0 = symbol_expr("s0")
    >>> to_source_text(ne(s0, 1), {s0: Source.stride("x", 1)})
    'x.stride()[1] != 1'
    """
    return _Printer(True, _source_namer(sources, torch=False), _sizes(sources)).text(expr)


def to_text(expr: Printable, sources: Mapping[sympy.Symbol, Source] | None = None, style: TextStyle = "torch") -> str:
    """``expr`` in the given style: ``"sympy"``, ``"torch"`` or ``"source"``.

    >>> from symint.build import symbol_expr, eq
    >>> to_text(eq(symbol_expr("s0"), 3), style="sympy")
    'Eq(s0, 3)'
    """
    return to_text_lines((expr,), sources, style)[0]


def to_text_lines(exprs: Sequence[Printable], sources: Mapping[sympy.Symbol, Source] | None = None, style: TextStyle = "torch") -> list[str]:
    """Each of ``exprs`` in the given style, by one printer (the sources are looked at once).

    >>> from symint import form as F
    >>> from symint.build import symbol_expr
    >>> to_text_lines([F.rel(">=", F.sym("s0"), F.const(2))], {symbol_expr("s0"): Source.size("x", 0)}, "source")
    ['x.size()[0] >= 2']
    """
    if style == "sympy":
        printer = _Printer(False, _symbol_name)
    elif style == "torch":
        printer = _Printer(True, _source_namer(sources, torch=True), _sizes(sources))
    elif style == "source":
        printer = _Printer(True, _source_namer(sources, torch=False), _sizes(sources))
    else:
        raise GuardValueError(f"unknown text style {short(style)}; expected 'sympy', 'torch' or 'source'")
    return [printer.text(e) for e in exprs]


# -- notebook rendering ---------------------------------------------------------------------------------


def _safe_text(fn: Callable[[], str], g: Guard) -> str:
    try:
        return fn()
    except GuardTypeError:  # no guard syntax: sympy's own text of the view
        return sympy_str(g.expr)


def render_html(guards: Sequence[Guard], sources: Mapping[sympy.Symbol, Source]) -> str:
    """An HTML table of ``guards``: torch text, sympy form, the sources involved, the origin.

    Every piece of text is HTML-escaped (source names and origins are user text).

    >>> from symint.build import symbol_expr, ge
    >>> s0 = symbol_expr("s0")
    >>> table = render_html([Guard.of(ge(s0, 2), origin="f.py:3")], {s0: Source.size("<b>", 0)})
    >>> "<code>L[&#x27;&lt;b&gt;&#x27;].size()[0] &gt;= 2</code>" in table, "<b>" in table
    (True, False)
    """
    esc = html.escape
    by_name = {sym.name: src for sym, src in sources.items()}
    rows = []
    for i, g in enumerate(guards, 1):
        torch_text = _safe_text(lambda: to_torch_text(g.form, sources), g)
        sympy_text = _safe_text(lambda: to_sympy_text(g.form), g)
        involved = "<br>".join(
            f"{esc(name)} = {esc(by_name[name].text())}" if name in by_name else esc(name) for name in sorted(g.form.symbols)
        )
        origin = esc(g.origin) if g.origin else ""
        rows.append(
            f"<tr><td>{i}</td><td><code>{esc(torch_text)}</code></td><td><code>{esc(sympy_text)}</code></td>"
            f"<td>{involved}</td><td>{origin}</td></tr>"
        )
    if not rows:
        rows.append('<tr><td colspan="5">no guards: every input is accepted</td></tr>')
    head = "<tr><th>#</th><th>guard (torch)</th><th>sympy</th><th>sources</th><th>origin</th></tr>"
    caption = f"<caption>GuardSet: {len(guards)} guard{'s' if len(guards) != 1 else ''}</caption>"
    return f'<table class="guardset">{caption}<thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


# Characters that are safe inside \texttt{...} in LaTeX and MathJax; everything else is escaped.
_TT_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;()[]'\"=+-*/<>!?@|")
_MATH_ESCAPES = {
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "\\": r"\backslash ",
    "~": r"\sim ",
    "^": r"\hat{}",
}


def latex_text(text: str) -> str:
    r"""``text`` typeset verbatim in math mode: safe runs in ``\texttt``, specials escaped.

    >>> latex_text("x_1{")
    '\\texttt{x}\\_\\texttt{1}\\{'
    """
    out: list[str] = []
    run: list[str] = []
    for c in text:
        if c in _TT_SAFE:
            run.append(c)
            continue
        if run:
            out.append(r"\texttt{" + "".join(run) + "}")
            run = []
        if c in _MATH_ESCAPES:
            out.append(_MATH_ESCAPES[c])
        elif c.isalnum():  # a non-ASCII letter or digit
            out.append(r"\texttt{" + c + "}")
        else:
            out.append(r"\texttt{?}")
    if run:
        out.append(r"\texttt{" + "".join(run) + "}")
    return "".join(out)


def render_latex(guards: Sequence[Guard], sources: Mapping[sympy.Symbol, Source]) -> str:
    r"""LaTeX of the conjunction of ``guards``, one per line, with the symbol -> source legend.

    >>> from symint.build import symbol_expr, ge
    >>> s0 = symbol_expr("s0")
    >>> print(render_latex([Guard.of(ge(s0, 2))], {s0: Source.size("x", 0)}))
    $\begin{aligned} & s_{0} \geq 2 \\ & \text{where } s_{0} = \texttt{x.size()[0]} \end{aligned}$
    """
    lines = [("& " if i == 0 else r"\wedge\ & ") + sympy_latex(g.expr) for i, g in enumerate(guards)]
    if not lines:
        lines = [r"& \mathrm{True}"]
    used = set().union(*(g.free_symbols for g in guards)) if guards else set()
    name = _source_namer(sources, torch=False)
    legend = [f"{sympy.latex(sym)} = {latex_text(name(sym.name))}" for sym in sorted(sources, key=lambda s: s.name) if sym in used]
    if legend:
        lines.append(r"& \text{where } " + r",\ ".join(legend))
    return r"$\begin{aligned} " + r" \\ ".join(lines) + r" \end{aligned}$"
