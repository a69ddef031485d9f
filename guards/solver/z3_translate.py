"""The Z3 boundary, part one: translate symint expressions to Z3 formulas with Python semantics.

This module and :mod:`guards.solver.z3_solver` (bounded checks, budgets, unsat cores) are the
only modules of the library that import ``z3``. Everything else (``guards.solver.prove``,
``guards.simplify.passes``) talks to Z3 through :class:`Translator`, the small formula helpers
below and :class:`~guards.solver.z3_solver.Z3Solver`, and treats the Z3 objects they return as
opaque *formulas*. :func:`to_smtlib` prints a guard set's formulas for any SMT solver.

>>> from symint.build import symbol_expr, eq, mod
>>> t = Translator()
>>> t.holds(eq(mod(symbol_expr("s0"), 8), 3))
s0%8 == 3

Note [Python semantics of division]
    SMT-LIB's integer ``div``/``mod`` are Euclidean: the remainder is always
    ``>= 0``. Python's ``//`` rounds toward -oo and ``%`` takes the sign of the
    divisor. For ``b > 0`` the two agree; for ``b < 0`` we use
    ``a // b == (-a) div (-b)`` and ``a % b == -((-a) mod (-b))``, which are
    exact for every sign of ``a``. A constant divisor selects the branch at
    translation time; a symbolic one becomes an ``If(b > 0, ...)``.

Note [Division by zero]
    Python raises on ``x // 0`` and ``x % 0``, and :meth:`GuardSet.failures`
    counts a guard that raises as failing. Each translated term therefore
    carries, next to its value, a *definedness* condition (``b != 0`` for
    every divisor reached by evaluation), and a guard translates to
    ``defined AND value``: it *holds* exactly when Python would evaluate it to
    True without raising. Evaluation order matters for ``And``/``Or`` (they
    short-circuit over their ``args`` in order, as ``symint.evaluate`` does) and
    for ``IfThenElse`` (only the taken branch is evaluated), and the
    definedness conditions follow that order exactly. Z3's own value for
    ``x div 0`` is an arbitrary function of ``x``; it never matters, because
    every use is guarded by the definedness condition. So "implied",
    "equivalent" and "satisfiable" are all about the inputs on which guards
    really hold, and proofs stay sound.

Note [Forms to Z3]
    A guard is a canonical boolean form (guards.guard), and it is translated from the
    form: a relation's two sides, each a sum of coefficient times a product of atoms
    (symbols, floordiv, ceildiv, mod, max, min, pow), and ``and``/``or``/``not`` in
    their written order (the definedness of Note [Division by zero] follows it). Only
    what the forms wrap as ``opaque`` (a float comparison, a function they do not
    know) is translated from its sympy expression: the sympy path below is for those,
    and for callers that still pass sympy.

Note [Float division]
    ``IntTrueDiv(a, b)`` is a float in Python; Z3 reasons over exact numbers.
    We translate only ``FloorToInt(IntTrueDiv(a, b))`` (as ``a // b``) and
    ``CeilToInt(IntTrueDiv(a, b))`` (as ``-(-a // b)``). These agree with
    Python's ``math.floor(a / b)`` whenever ``|a| < 2**53`` (the rounding of
    ``a / b`` cannot cross an integer then); beyond that the translation is
    exact arithmetic, not float arithmetic. Any other use of a float raises
    :class:`SolverError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from symint.lazy_sympy import lazy_module, sympy
import z3

from symint.build import symbol_name
from symint.form import BoolForm
from symint.form.terms import Atom, Form
from valueranges import ValueRanges

from guards.errors import SolverError
from guards.text.escape import one_line, sympy_str
from guards.protocols import GuardSetLike
from guards.validate import need_guardset
from guards.solver.z3_solver import Z3Context

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy
_nodes = lazy_module("symint.sympy_io.functions")

__all__ = [
    "Term",
    "Translator",
    "conj",
    "disj",
    "negate",
    "implies_formula",
    "to_smtlib",
]

#: Exponents above this are refused rather than unrolled into huge products.
_MAX_EXPONENT = 64


@dataclass(frozen=True, slots=True)
class Term:
    """A translated expression: its Z3 value and when evaluating it does not raise.

    ``defined`` is None when evaluation can never raise (no division by a
    possibly-zero divisor on the evaluated path).
    """

    value: z3.ExprRef
    defined: z3.BoolRef | None = None


def _and_defined(*conds: z3.BoolRef | None) -> z3.BoolRef | None:
    present = [c for c in conds if c is not None]
    if not present:
        return None
    return present[0] if len(present) == 1 else z3.And(*present)


def _name(sym: object) -> str:
    """The name of a symbol key (a name or a sympy Symbol)."""
    name = symbol_name(sym)
    if name is None:
        raise SolverError(f"{sym!r} is not a symbol (a sympy Symbol or a symbol name)")
    return name


class Translator:
    """Translate symint expressions to Z3 terms; memoised per instance.

    Symbols are read by name (a form's names; a sympy Symbol stands for its name), and the
    methods that take a symbol take either.

    Args:
        names: the Z3 variable name of each symbol (default: the symbol's name), keyed by
            symbol name or sympy Symbol.
            Two translators that give two symbols the same name share the variable,
            which is how two guard sets are compared over the same inputs.
        context: the :class:`Z3Context` of the formulas (default: Z3's shared main
            context; entry points of the library always pass their own).

    >>> from symint.build import symbol_expr, floordiv
    >>> Translator().term(floordiv(symbol_expr("x"), -2)).value
    -x/2
    """

    def __init__(self, names: "Mapping[sympy.Symbol | str, str] | None" = None, context: Z3Context | None = None):
        self.context = context if context is not None else Z3Context(shared=True)
        self._names = {_name(sym): name for sym, name in (names or {}).items()}
        self._cache: dict[object, Term] = {}
        self._variables: dict[str, z3.ArithRef] = {}
        self._ranges: dict[tuple, z3.BoolRef] = {}

    @property
    def _ctx(self) -> z3.Context:
        return self.context.ctx  # not stored: a raw Z3 context cannot be deep-copied, the wrapper can

    def name(self, sym: "sympy.Symbol | str") -> str:
        """The Z3 variable name of ``sym`` (a symbol or its name).

        >>> from symint.build import symbol_expr
        >>> Translator({symbol_expr("s0"): "v0"}).name(symbol_expr("s0")), Translator({"s0": "v0"}).name("s0")
        ('v0', 'v0')
        """
        n = _name(sym)
        return self._names.get(n, n)

    def symbols(self, expr: "BoolForm | sympy.Basic") -> list[str]:
        """The names of the symbols ``expr`` (a boolean form or a sympy boolean) reads, sorted.

        >>> from symint import form as F
        >>> from symint.form import rel
        >>> Translator().symbols(rel("<", F.sym("x"), F.const(3)))
        ['x']
        """
        if isinstance(expr, BoolForm):
            return sorted(expr.symbols)
        return sorted(s.name for s in expr.free_symbols)

    def variable(self, sym: "sympy.Symbol | str") -> z3.ArithRef:
        """The Z3 integer variable standing for ``sym`` (a symbol or its name).

        >>> from symint.build import symbol_expr
        >>> Translator().variable(symbol_expr("s0")), Translator().variable("s0")
        (s0, s0)
        """
        n = _name(sym)
        var = self._variables.get(n)
        if var is None:
            var = self._variables[n] = z3.Int(self._names.get(n, n), self._ctx)
        return var

    def holds(self, expr: "BoolForm | sympy.Basic") -> z3.BoolRef:
        """The formula "``expr`` evaluates to True without raising" (see Note [Division by zero]).

        ``expr`` is a boolean form (what a :class:`~guards.guard.Guard` holds: Note [Forms
        to Z3]) or a sympy boolean.

        Raises:
            SolverError: ``expr`` is not boolean or uses a construct Z3 cannot express exactly.

        >>> from symint.build import symbol_expr, eq, mod
        >>> x, y = symbol_expr("x"), symbol_expr("y")
        >>> Translator().holds(eq(mod(x, y), 0))
        And(y != 0, If(y > 0, x%y, -(-x%-y)) == 0)
        """
        t = self.term(expr)
        if not z3.is_bool(t.value):
            raise SolverError(f"{expr} is not a boolean expression; a guard must be a comparison or And/Or/Not")
        return t.value if t.defined is None else z3.And(t.defined, t.value)

    def in_range(self, sym: "sympy.Symbol | str", rng: ValueRanges) -> z3.BoolRef:
        """The formula "``sym`` (a symbol or its name) lies in ``rng``" (True for an unbounded range).

        >>> from symint.build import symbol_expr
        >>> Translator().in_range(symbol_expr("s0"), ValueRanges.of(2, math.inf))
        s0 >= 2
        """
        key = (_name(sym), rng.lower, rng.upper)
        hit = self._ranges.get(key)
        if hit is not None:
            return hit
        v = self.variable(sym)
        parts = []
        if rng.lower != -math.inf:
            parts.append(v >= _ceil_int(rng.lower))
        if rng.upper != math.inf:
            parts.append(v <= _floor_int(rng.upper))
        self._ranges[key] = formula = conj(parts, self._ctx)
        return formula

    def term(self, expr: "Form | BoolForm | sympy.Basic") -> Term:
        """Translate ``expr`` (a form, a boolean form or a sympy expression) to a :class:`Term`.

        Raises:
            SolverError: an unsupported construct (its name is in the message).
        """
        cached = self._cache.get(expr)
        if cached is None:
            if isinstance(expr, Form):
                cached = self._form(expr)
            elif isinstance(expr, BoolForm):
                cached = self._bool_form(expr)
            else:
                cached = self._translate(expr)
            self._cache[expr] = cached
        return cached

    # -- forms (Note [Forms to Z3]) ----------------------------------------------------------------
    def _form(self, f: Form) -> Term:
        ctx = self._ctx
        if f.is_const:
            return Term(z3.IntVal(f.const, ctx))
        parts, defined = [], []
        for mono, c in f.terms:
            factors = []
            for atom, power in mono.factors:
                t = self._atom(atom)
                defined.append(t.defined)
                factors.append(t.value if power == 1 else self._power(t, power, atom).value)
            value = factors[0] if len(factors) == 1 else z3.Product(factors)
            parts.append(value if c == 1 else z3.IntVal(c, ctx) * value)
        if f.const:
            parts.append(z3.IntVal(f.const, ctx))
        return Term(parts[0] if len(parts) == 1 else z3.Sum(parts), _and_defined(*defined))

    def _atom(self, atom: Atom) -> Term:
        kind = atom.kind
        if kind == "sym":
            return Term(self.variable(atom.name))
        if kind == "opaque":  # a sympy expression the forms cannot hold: its own translation
            return self.term(atom.args[0])
        if kind in ("floordiv", "ceildiv", "mod"):
            num_t, den_t = self.term(atom.args[0]), self.term(atom.args[1])
            return self._divided(kind, num_t, den_t, atom)
        if kind in ("max", "min"):
            return self._pick(kind == "max", [self.term(a) for a in atom.args])
        if kind == "pow":
            base, exp = atom.args
            if not exp.is_const:
                raise SolverError(f"cannot translate {_io.to_sympy(atom)} exactly: PowByNatural with a symbolic exponent")
            return self._power(self.term(base), exp.const, atom)
        raise SolverError(f"cannot translate the {kind} atom {_io.to_sympy(atom)} to Z3")

    def _bool_form(self, b: BoolForm) -> Term:
        kind = b.kind
        if kind == "const":
            return Term(z3.BoolVal(b.value, self._ctx))
        if kind == "rel":
            op, lhs, rhs = b.args
            return self._compare(op, self.term(lhs), self.term(rhs), b)
        if kind == "and" or kind == "or":
            return self._short_circuit(b, stop_on=kind == "or")
        if kind == "not":
            a = self.term(b.args[0])
            return Term(z3.Not(a.value), a.defined)
        return self.term(b.args[0])  # opaque: a sympy boolean (floats, unknown functions)

    # -- the cases -------------------------------------------------------------------------------
    def _translate(self, e: sympy.Basic) -> Term:
        if e.is_Symbol:
            return Term(self.variable(e))
        ctx = self._ctx
        if e is sympy.true:
            return Term(z3.BoolVal(True, ctx))
        if e is sympy.false:
            return Term(z3.BoolVal(False, ctx))
        if e.is_Integer:
            return Term(z3.IntVal(int(e), ctx))
        if e.is_Rational:
            return Term(z3.RealVal(f"{int(e.p)}/{int(e.q)}", ctx))
        if e.is_Add:
            args = [self.term(a) for a in e.args]
            return Term(z3.Sum([a.value for a in args]), _and_defined(*(a.defined for a in args)))
        if e.is_Mul:
            args = [self.term(a) for a in e.args]
            return Term(z3.Product([a.value for a in args]), _and_defined(*(a.defined for a in args)))
        if e.is_Pow:
            return self._pow(e)
        if isinstance(e, sympy.Rel):
            return self._relation(e)
        if isinstance(e, sympy.And):
            return self._short_circuit(e, stop_on=False)
        if isinstance(e, sympy.Or):
            return self._short_circuit(e, stop_on=True)
        if isinstance(e, sympy.Not):
            a = self.term(e.args[0])
            return Term(z3.Not(a.value), a.defined)
        if isinstance(e, (_nodes.FloorDiv, _nodes.CeilDiv, _nodes.Mod)):
            return self._division(e)
        if isinstance(e, (_nodes.Max, _nodes.Min)):
            return self._min_max(e)
        if isinstance(e, _nodes.PowByNatural):
            base, exp = e.args
            if not exp.is_Integer:
                raise SolverError(f"cannot translate {e} exactly: PowByNatural with a symbolic exponent")
            return self._power(self.term(base), int(exp), e)
        if isinstance(e, _nodes.IfThenElse):
            c, a, b = (self.term(x) for x in e.args)
            defined = _and_defined(c.defined, _if_defined(c.value, a.defined, b.defined))
            return Term(z3.If(c.value, a.value, b.value), defined)
        if isinstance(e, (_nodes.FloorToInt, _nodes.CeilToInt)):
            return self._to_int(e)
        if isinstance(e, _nodes.IntTrueDiv):
            raise SolverError(
                f"cannot translate {e} exactly: IntTrueDiv is a float; only FloorToInt/CeilToInt of it are supported"
            )
        if e.is_Float:
            raise SolverError(f"cannot translate the float constant {e} exactly; use integers or Rationals")
        raise SolverError(
            f"cannot translate {type(e).__name__} ({e}) to Z3: build expressions with symint.build "
            "(FloorDiv, CeilDiv, Mod, Max, Min, PowByNatural, IfThenElse, relations, And/Or/Not)"
        )

    def _integer(self, t: Term, e: sympy.Basic) -> z3.ArithRef:
        if not z3.is_int(t.value):
            raise SolverError(f"cannot translate {e} exactly: an integer function applied to a non-integer operand")
        return t.value

    def _relation(self, e: sympy.Rel) -> Term:
        return self._compare(e.rel_op, self.term(e.lhs), self.term(e.rhs), e)

    def _compare(self, op: str, lhs: Term, rhs: Term, e: object) -> Term:
        a, b = lhs.value, rhs.value
        if z3.is_int_value(b):  # a Python int on the right keeps Z3's printing in the guard's order
            b = b.as_long()
        if z3.is_bool(a) != z3.is_bool(b) or (z3.is_bool(a) and op not in ("==", "!=")):
            raise SolverError(f"cannot translate {e}: it compares a boolean with a number or orders booleans")
        value = {
            "==": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: a < b,
            "<=": lambda: a <= b,
            ">": lambda: a > b,
            ">=": lambda: a >= b,
        }[op]()
        return Term(value, _and_defined(lhs.defined, rhs.defined))

    def _short_circuit(self, e: sympy.Basic, stop_on: bool) -> Term:
        # Evaluation reaches argument i only when every earlier argument was defined and did not
        # decide the result (was True for And, False for Or); only then must argument i be defined.
        reached: list[z3.BoolRef] = []
        conditions: list[z3.BoolRef] = []
        values: list[z3.BoolRef] = []
        for arg in e.args:
            t = self.term(arg)
            if t.defined is not None:
                conditions.append(z3.Implies(z3.And(*reached), t.defined) if reached else t.defined)
            values.append(t.value)
            reached.append(z3.Not(t.value) if stop_on else t.value)
        value = z3.Or(*values) if stop_on else z3.And(*values)
        return Term(value, _and_defined(*conditions))

    def _division(self, e: sympy.Basic) -> Term:
        return self._divide(type(e), e.args[0], e.args[1], e)

    def _divide(self, kind: type, num: sympy.Basic, den: sympy.Basic, e: sympy.Basic) -> Term:
        division = "floordiv" if kind is _nodes.FloorDiv else "ceildiv" if kind is _nodes.CeilDiv else "mod"
        return self._divided(division, self.term(num), self.term(den), e)

    def _divided(self, kind: str, num_t: Term, den_t: Term, e: object) -> Term:
        """``kind`` is the form atom's: ``"floordiv"``, ``"ceildiv"`` or ``"mod"``."""
        a, b = self._integer(num_t, e), self._integer(den_t, e)
        if kind == "floordiv":
            value = _py_floordiv(a, b)
        elif kind == "ceildiv":
            value = -_py_floordiv(-a, b)
        else:
            value = _py_mod(a, b)
        c = _constant(b)
        nonzero = z3.BoolVal(False, self._ctx) if c == 0 else None if c is not None else b != 0
        return Term(value, _and_defined(num_t.defined, den_t.defined, nonzero))

    def _min_max(self, e: sympy.Basic) -> Term:
        return self._pick(isinstance(e, _nodes.Max), [self.term(a) for a in e.args])

    def _pick(self, pick_max: bool, args: list[Term]) -> Term:
        best = args[0].value
        for t in args[1:]:
            v = t.value
            best = z3.If(v > best, v, best) if pick_max else z3.If(v < best, v, best)
        return Term(best, _and_defined(*(t.defined for t in args)))

    def _pow(self, e: sympy.Basic) -> Term:
        base, exp = e.args
        if not exp.is_Integer:
            raise SolverError(f"cannot translate {e} exactly: a power with a non-integer exponent")
        k = int(exp)
        b = self.term(base)
        if k >= 0:
            return self._power(b, k, e)
        positive = self._power(b, -k, e)
        value = z3.RealVal(1, self._ctx) / z3.ToReal(positive.value) if z3.is_int(positive.value) else 1 / positive.value
        return Term(value, _and_defined(positive.defined, b.value != 0))

    def _power(self, base: Term, k: int, e: sympy.Basic) -> Term:
        if k > _MAX_EXPONENT:
            raise SolverError(f"cannot translate {e}: exponent {k} is larger than {_MAX_EXPONENT}")
        if k == 0:
            return Term(z3.IntVal(1, self._ctx), base.defined)  # Python: 0 ** 0 == 1
        return Term(z3.Product([base.value] * k) if k > 1 else base.value, base.defined)

    def _to_int(self, e: sympy.Basic) -> Term:
        (arg,) = e.args
        floor = isinstance(e, _nodes.FloorToInt)
        if isinstance(arg, _nodes.IntTrueDiv):  # see Note [Float division]
            return self._divide(_nodes.FloorDiv if floor else _nodes.CeilDiv, arg.args[0], arg.args[1], e)
        t = self.term(arg)
        if z3.is_int(t.value):
            return t
        if z3.is_real(t.value):  # exact rational arithmetic: to_int is floor
            value = z3.ToInt(t.value) if floor else -z3.ToInt(-t.value)
            return Term(value, t.defined)
        raise SolverError(f"cannot translate {e}: its argument is not a number")


def _if_defined(c: z3.BoolRef, a: z3.BoolRef | None, b: z3.BoolRef | None) -> z3.BoolRef | None:
    if a is None and b is None:
        return None
    true = z3.BoolVal(True, c.ctx)
    return z3.If(c, a if a is not None else true, b if b is not None else true)


def _constant(v: z3.ArithRef) -> int | None:
    return v.as_long() if z3.is_int_value(v) else None


def _py_floordiv(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """Python's ``a // b`` (see Note [Python semantics of division])."""
    c = _constant(b)
    if c is not None and c > 0:
        return a / b
    if c is not None and c < 0:
        return (-a) / z3.IntVal(-c, a.ctx)
    return z3.If(b > 0, a / b, (-a) / (-b))


def _py_mod(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """Python's ``a % b`` (see Note [Python semantics of division])."""
    c = _constant(b)
    if c is not None and c > 0:
        return a % b
    if c is not None and c < 0:
        return -((-a) % z3.IntVal(-c, a.ctx))
    return z3.If(b > 0, a % b, -((-a) % (-b)))


def _ceil_int(x: float | int) -> int:
    return x if isinstance(x, int) else math.ceil(x)


def _floor_int(x: float | int) -> int:
    return x if isinstance(x, int) else math.floor(x)


# -- formulas ------------------------------------------------------------------------------------
def conj(formulas: Iterable[z3.BoolRef], ctx: "z3.Context | None" = None) -> z3.BoolRef:
    """The conjunction of ``formulas`` (True, in context ``ctx``, when empty).

    >>> conj([])
    True
    """
    fs = list(formulas)
    return z3.BoolVal(True, ctx) if not fs else fs[0] if len(fs) == 1 else z3.And(*fs)


def disj(formulas: Iterable[z3.BoolRef], ctx: "z3.Context | None" = None) -> z3.BoolRef:
    """The disjunction of ``formulas`` (False, in context ``ctx``, when empty).

    >>> disj([])
    False
    """
    fs = list(formulas)
    return z3.BoolVal(False, ctx) if not fs else fs[0] if len(fs) == 1 else z3.Or(*fs)


def negate(formula: z3.BoolRef) -> z3.BoolRef:
    """``Not(formula)``.

    >>> negate(conj([]))
    Not(True)
    """
    return z3.Not(formula)


def implies_formula(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """``Implies(a, b)``.

    >>> implies_formula(conj([]), disj([]))
    Implies(True, False)
    """
    return z3.Implies(a, b)


# -- SMT-LIB -------------------------------------------------------------------------------------
def to_smtlib(guardset: GuardSetLike) -> str:
    """SMT-LIB2 text asserting the guard set's domain and guards, with declarations.

    Comments map each symbol to its source and each assertion to its guard;
    the text ends with ``(check-sat)`` so it can be fed to any SMT solver.

    >>> from symint.build import symbol_expr, ge
    >>> from guards import GuardSet, Source
    >>> s0 = symbol_expr("s0")
    >>> print(to_smtlib(GuardSet.of([ge(s0, 2)], {s0: Source.size("x", 0)})))
    ; guard set: s0 >= 2
    ; s0 = x.size()[0]
    (declare-const s0 Int)
    ; assumed (domain): 0 <= s0
    (assert (>= s0 0))
    ; guard: s0 >= 2
    (assert (>= s0 2))
    (check-sat)
    <BLANKLINE>
    """
    need_guardset(guardset, "to_smtlib's argument")
    t = Translator()
    sources = guardset.source_map
    # Comments carry user text (input names): one_line keeps each on its line (no injected commands).
    lines = [f"; guard set: {one_line(', '.join(sympy_str(g.expr) for g in guardset.guards) or 'True')}"]
    for sym in sorted(guardset.symbols | {s for s, _ in guardset.domain}, key=lambda s: s.name):
        where = f" = {one_line(sources[sym].text())}" if sym in sources else " (no source)"
        lines.append(f"; {one_line(t.name(sym))}{where}")
        lines.append(f"(declare-const {t.variable(sym).sexpr()} Int)")
    for sym, rng in guardset.domain:
        formula = t.in_range(sym, rng)
        if z3.is_true(formula):
            continue
        lower = "" if rng.lower == -math.inf else f"{rng.lower} <= "
        upper = "" if rng.upper == math.inf else f" <= {rng.upper}"
        lines.append(f"; assumed (domain): {one_line(f'{lower}{sym}{upper}')}")
        lines.append(f"(assert {formula.sexpr()})")
    for g in guardset.guards:
        lines.append(f"; guard: {one_line(sympy_str(g.expr))}")
        lines.append(f"(assert {t.holds(g.form).sexpr()})")
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"
