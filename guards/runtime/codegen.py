"""Compile a :class:`~guards.guardset.GuardSet` into a fast checker over concrete sizes.

The checker is a set of plain Python functions generated from the guards' expressions,
so calling it touches no sympy: one evaluation of a typical guard set costs about as
much as a hand-written ``lambda`` of the same comparisons.

>>> from symint.build import symbol_expr, eq, ge, mod
>>> from guards.guardset import GuardSet
>>> from guards.source import Source
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> gs = GuardSet.of([eq(s0, s1), ge(s0, 2), eq(mod(s0, 4), 0)],
...                  {s0: Source.size("x", 0), s1: Source.size("y", 0)})
>>> c = compile_guards(gs)
>>> [src.text() for src in c.order]
['x.size()[0]', 'y.size()[0]']
>>> c.check_ints(8, 8), c.check_ints(8, 9), c.first_failure_ints(6, 6)
(True, False, 2)

Note [Why exec is safe here]
    ``compile_guards`` builds Python source text and ``exec``-s it. Nothing in that
    text comes from the user: symbols become generated locals (``v0, v1, ...``),
    repeated subexpressions generated temporaries (``t0, ...``), inputs ``i0, ...``;
    constants are Python ints (or finite floats) formatted here with ``int.__str__``/
    ``float.__repr__``; operators come from a fixed table of node types (anything
    else raises :class:`~guards.errors.CodegenError`). Input *names* (a source's
    ``base``, which may be any string) never appear in the text: they are passed
    to a generated factory function as arguments ``_b0, _b1, ...`` and read from
    its closure. As a second line of defence, ``_validate`` scans the finished
    text and refuses any quote, backslash, ``#``, ``;`` or non-ASCII character
    and any name outside the generated vocabulary before it is compiled. So the
    ``exec`` runs code whose every token was chosen by this module.

Note [Guards that raise]
    A guard such as ``x // y == 2`` raises :class:`ZeroDivisionError` when ``y == 0``.
    Like :meth:`GuardSet.failures`, the checker counts an evaluation that raises an
    arithmetic error (``ArithmeticError`` or ``ValueError``, e.g. a negative exponent)
    as a *failing* guard. A guard set is a conjunction, so a failing guard rejects no
    matter where it sits; that is what makes it sound to reorder the top-level guards
    (cheapest first) and to compute a repeated subexpression once, at its first
    evaluation, provided that evaluation is unconditional (not under the right of an
    ``and``/``or`` or in a branch of an if-then-else): every later use then runs only
    after it.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

from symint.lazy_sympy import lazy_module, loaded, sympy

from symint.form import BoolForm
from symint.form.terms import Atom, Form, Mono

from symint.limits import check_power

from guards.errors import CodegenError, GuardTypeError, GuardValueError, UnknownSourceError
from guards.source import Source, contiguous_strides_of, storage_offset_of
from guards.validate import need_guardset

from guards.protocols import GuardSetLike

_floats = lazy_module("symint.sympy_io.floats")  # Note [sympy on first use] in symint.lazy_sympy
_nodes = lazy_module("symint.sympy_io.functions")
_io = lazy_module("symint.sympy_io")

__all__ = ["CompiledGuards", "compile_guards"]


@dataclass(frozen=True, slots=True)
class CompiledGuards:
    """A guard set compiled to Python functions (build it with :func:`compile_guards`).

    Every entry point returns the same verdict as :meth:`GuardSet.holds`; an
    evaluation that raises an arithmetic error counts as a failing guard.

    Attributes:
        guardset: the guard set this checks.
        order: what ``check_ints`` takes, position by position: the :class:`Source`
            of each symbol the guards read, or the symbol itself if it has no source.
        names: the name of the symbol at each position of ``order`` (``symbols``: their sympy view).
        input_names: the input names ``check`` reads (the sources' bases), sorted.
        code: the generated Python source, for inspection.
        check_ints: ``check_ints(*values) -> bool`` on pre-extracted ints in ``order``
            (the fastest path; the values are used as given, without conversion).
        first_failure_ints: ``first_failure_ints(*values)``: the index in
            ``guardset.guards`` of the first failing guard, or None if all hold.
        check: ``check(inputs) -> bool`` where ``inputs`` maps each input name to an
            int (value sources) or an array-like with ``.shape`` (numpy array, torch
            tensor); reads like :meth:`Source.read` (numpy strides are in bytes and
            are divided by ``itemsize``).
        check_objects: ``check_objects(**inputs) -> bool``, the same with keywords.
        first_failure: ``first_failure(inputs)``: as ``first_failure_ints`` on inputs.

    Raises (``check``, ``check_objects``, ``first_failure``):
        UnknownSourceError: an input is missing, or a symbol has no source.
        GuardTypeError: an input has no such size/stride (wrong type or too few dims).
    """

    guardset: GuardSetLike
    order: tuple["Source | sympy.Symbol", ...]
    names: tuple[str, ...]
    input_names: tuple[str, ...]
    code: str = field(repr=False)
    check_ints: Callable[..., bool] = field(repr=False)
    first_failure_ints: Callable[..., "int | None"] = field(repr=False)
    check: Callable[[Mapping[str, object]], bool] = field(repr=False)
    check_objects: Callable[..., bool] = field(repr=False)
    first_failure: Callable[[Mapping[str, object]], "int | None"] = field(repr=False)

    @property
    def symbols(self) -> tuple[sympy.Symbol, ...]:
        """The symbol at each position of ``order``: the sympy view of ``names``."""
        return tuple(_io.view_symbol(n) for n in self.names)

    def __repr__(self) -> str:
        return f"CompiledGuards({len(self.guardset)} guards over {', '.join(map(str, self.order)) or 'nothing'})"


def compile_guards(guardset: GuardSetLike) -> CompiledGuards:
    """Compile ``guardset`` to a :class:`CompiledGuards` checker.

    Args:
        guardset: the guards to check; their sources say how ``check`` reads inputs.

    Returns:
        The checker; see :class:`CompiledGuards` for its entry points.

    Raises:
        CodegenError: a guard uses an expression this module cannot compile (e.g.
            sympy's own ``floor`` or a non-integer rational), or is nested too deeply.

    >>> import numpy as np
    >>> from symint.build import symbol_expr, eq, mul
    >>> from guards.guardset import GuardSet
    >>> n, s = symbol_expr("n"), symbol_expr("s")
    >>> gs = GuardSet.of([eq(s, mul(n, 4))], {n: Source.value("n"), s: Source.size("x", 0)})
    >>> c = compile_guards(gs)
    >>> c.check({"x": np.zeros(8), "n": 2}), c.check_objects(x=np.zeros(8), n=3)
    (True, False)
    """
    need_guardset(guardset, "compile_guards' argument")
    try:
        arguments, order = _argument_order(guardset)  # symbol names
        names = {sym: f"v{k}" for k, sym in enumerate(arguments)}
        exprs = [g.form for g in guardset.guards]  # Note [Code from forms]
        conjuncts = sorted(_flatten_and(exprs), key=_cost)  # stable: ties keep their order
        fast_lines = _Emitter.conjunction(names, conjuncts)
        fail_lines = _Emitter.first_failure(names, exprs)
    except RecursionError:
        raise CodegenError("a guard is nested too deeply to compile; simplify the guard set first") from None
    source_map = dict(guardset.named_sources)  # built once: a dict per call would make this quadratic
    readers = _reader_lines(arguments, source_map, names)
    bases = tuple(sorted({src.base for sym in arguments if (src := source_map.get(sym))}))
    code = _assemble(arguments, names, bases, readers, fast_lines, fail_lines)
    _validate(code)
    fns = _instantiate(code, bases, guardset, arguments, readers is not None)
    return CompiledGuards(guardset, order, arguments, bases, code, *fns)


# -- what the checker takes -------------------------------------------------------------------------
def _argument_order(guardset: GuardSetLike) -> tuple[tuple[str, ...], tuple[object, ...]]:
    """The names of the symbols some guard reads: those with a source in ``guardset.named_sources``
    order, then the rest by name; and what ``check_ints`` takes for each (its Source, else its symbol)."""
    read: set[str] = set()
    for g in guardset.guards:
        read |= g.form.symbols
    with_source = [name for name, _ in guardset.named_sources if name in read]
    without = sorted(read.difference(with_source))
    names = tuple(with_source + without)
    sources = dict(guardset.named_sources)
    return names, tuple(sources[n] if n in sources else _io.view_symbol(n) for n in names)


def _flatten_and(exprs: list[BoolForm]) -> list[BoolForm]:
    out: list[BoolForm] = []
    for e in exprs:
        out.extend(_flatten_and(list(e.args)) if e.kind == "and" else [e])
    return out


def _cost(e: BoolForm) -> int:
    """A rough evaluation cost: the number of nodes (cheap equalities go first)."""
    return sum(1 for _ in _walk(e))


# Note [Code from forms]
#     The checker is generated from the guards' boolean forms: a relation between two
#     sums of coefficient times product of atoms, connectives in their written order
#     (the order GuardSet.failures and the Z3 translation evaluate them in). Forms,
#     monomials and atoms are interned, so a repeated subexpression is the same object
#     and counting objects finds them. What a form wraps as ``opaque`` (a float
#     comparison, an opaque function) is emitted from its sympy expression, by the
#     sympy branch of the emitter: the one place codegen reads sympy.


def _children(e: object) -> tuple:
    """The operands of a node (a boolean form, form, monomial, atom, or sympy expression)."""
    if isinstance(e, BoolForm):
        if e.kind == "rel":
            return e.args[1:]
        return e.args if e.kind in ("and", "or", "not", "opaque") else ()
    if isinstance(e, Form):
        atom = e.atom()
        if atom is not None:
            return (atom,)
        return tuple(m for m, _ in e.terms)
    if isinstance(e, Mono):
        return tuple(a for a, _ in e.factors)
    if isinstance(e, Atom):
        return e.args if e.kind not in ("sym",) else ()
    return e.args


def _walk(e: object):
    """Every node under ``e`` (``e`` included), depth first."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_children(node))


# -- expressions -> Python text ----------------------------------------------------------------------
_RELATION_OPS = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


@lru_cache(maxsize=None)
def _sympy_tables() -> tuple[dict, dict, dict]:
    """The sympy node classes -> binary operator, -> helper called, and the opaque functions' helpers (built on first use)."""
    binary = {_nodes.FloorDiv: "//", _nodes.Mod: "%", _nodes.IntTrueDiv: "/"}
    call = {_nodes.Max: "_max", _nodes.Min: "_min", _nodes.FloorToInt: "_floor", _nodes.CeilToInt: "_ceil"}
    opaque = {}
    for cls in _floats.OPAQUE_FUNCTIONS:  # called through helpers computing Python's value
        opaque[f"_op_{cls.__name__}"] = cls.python_eval
        call[cls] = f"_op_{cls.__name__}"
    return binary, call, opaque


def _helpers() -> dict[str, object]:
    """The helpers of generated code: with the opaque functions' once sympy is loaded (no opaque atom exists before)."""
    return {**_HELPERS, **_sympy_tables()[2]} if loaded() else _HELPERS


def _is_leaf(e: object) -> bool:
    if isinstance(e, BoolForm):
        return e.kind == "const"
    if isinstance(e, Form):  # a form that is one atom is that atom: only the atom is counted
        return e.is_const or e.atom() is not None
    if isinstance(e, Atom):
        return e.kind == "sym"
    if isinstance(e, Mono):  # likewise a monomial that is one atom
        return e.single_atom() is not None
    return e.is_Symbol or e.is_Number or isinstance(e, sympy.logic.boolalg.BooleanAtom)


class _Emitter:
    """Turns expressions into Python text, naming repeated subexpressions (see Note [Guards that raise])."""

    def __init__(self, names: Mapping[str, str], shared: set[sympy.Basic]):
        self.by_name = names  # symbol name -> argument (forms name their symbols by name)
        self.shared = shared  # compound subexpressions worth a temporary
        self.temps: dict[sympy.Basic, str] = {}
        self.uses: Counter[sympy.Basic] = Counter()

    @classmethod
    def conjunction(cls, names: Mapping[str, str], conjuncts: list[sympy.Basic]) -> list[str]:
        """Body lines returning whether every conjunct holds (False if one raises)."""

        def body(emitter: "_Emitter") -> list[str]:
            test = " and ".join(emitter.emit(e, False) for e in conjuncts) or "True"
            return ["try:", f"    return {test}", "except _ARITH:", "    return False", *_TYPE_LINES]

        return cls._two_passes(names, conjuncts, body)

    @classmethod
    def first_failure(cls, names: Mapping[str, str], exprs: list[sympy.Basic]) -> list[str]:
        """Body lines returning the index of the first guard that fails or raises, else None."""

        def body(emitter: "_Emitter") -> list[str]:
            lines: list[str] = []
            for k, e in enumerate(exprs):
                test = emitter.emit(e, False)
                lines += ["try:", f"    if not {test}:", f"        return {k}", "except _ARITH:", f"    return {k}", *_TYPE_LINES]
            return lines + ["return None"]

        return cls._two_passes(names, exprs, body)

    @classmethod
    def _two_passes(cls, names, roots: list[sympy.Basic], body: Callable[["_Emitter"], list[str]]) -> list[str]:
        counts: Counter[sympy.Basic] = Counter()
        for root in roots:
            counts.update(sub for sub in _walk(root) if not _is_leaf(sub))
        first = cls(names, {e for e, n in counts.items() if n > 1})
        body(first)
        # Second pass: only the temporaries that were reused (the text is otherwise identical).
        second = cls(names, {e for e in first.temps if first.uses[e]})
        return body(second)

    def emit(self, e: sympy.Basic, conditional: bool) -> str:
        """Python text for ``e``; ``conditional`` says whether ``e`` may be skipped when its guard runs."""
        if e in self.temps:
            self.uses[e] += 1
            return self.temps[e]
        text = self._emit_node(e, conditional)
        if e in self.shared and not conditional:
            name = self.temps[e] = f"t{len(self.temps)}"
            return f"({name} := {text})"
        return text

    def _emit_node(self, e: object, cond: bool) -> str:  # noqa: C901 - one branch per node type
        if isinstance(e, BoolForm):
            return self._emit_bool_form(e, cond)
        if isinstance(e, Form):
            return self._emit_form(e, cond)
        if isinstance(e, Mono):
            return self._emit_mono(e, cond)
        if isinstance(e, Atom):
            return self._emit_atom(e, cond)
        if e.is_Symbol:
            if e.name not in self.by_name:
                raise CodegenError(f"symbol {e} has no argument position")  # invariant of compile_guards
            return self.by_name[e.name]
        if e.is_Integer:
            return _int_text(int(e))
        if e.is_Float:
            value = float(e)
            if not math.isfinite(value):
                raise CodegenError(f"cannot compile the non-finite constant {e}")
            return f"({value!r})"
        if e is sympy.true or e is sympy.false:
            return "True" if e is sympy.true else "False"
        args = e.args
        if isinstance(e, sympy.Rel) and e.rel_op in _RELATION_OPS:
            return f"({self.emit(args[0], cond)} {_RELATION_OPS[e.rel_op]} {self.emit(args[1], cond)})"
        if isinstance(e, (sympy.And, sympy.Or)):
            op = " and " if isinstance(e, sympy.And) else " or "
            return "(" + op.join(self.emit(a, cond or k > 0) for k, a in enumerate(args)) + ")"
        if isinstance(e, sympy.Not):
            return f"(not {self.emit(args[0], cond)})"
        if isinstance(e, _nodes.IfThenElse):
            c = self.emit(args[0], cond)  # evaluated first, so emitted first
            a, b = self.emit(args[1], True), self.emit(args[2], True)
            return f"({a} if {c} else {b})"
        if e.is_Add:
            return self._emit_add(args, cond)
        if e.is_Mul:
            return self._emit_mul(args, cond)
        if e.is_Pow or isinstance(e, _nodes.PowByNatural):
            return self._emit_pow(e, cond)
        op = _sympy_tables()[0].get(type(e))
        if op is not None:
            return f"({self.emit(args[0], cond)} {op} {self.emit(args[1], cond)})"
        if isinstance(e, _nodes.CeilDiv):
            return f"(-(-{self.emit(args[0], cond)} // {self.emit(args[1], cond)}))"
        fn = _sympy_tables()[1].get(type(e))
        if fn is not None:
            return f"{fn}(" + ", ".join(self.emit(a, cond) for a in args) + ")"
        raise CodegenError(
            f"cannot compile {type(e).__name__} in {e}: guards may only use +, *, natural powers, "
            "FloorDiv, CeilDiv, Mod, Max, Min, IntTrueDiv, FloorToInt, CeilToInt, IfThenElse, "
            "comparisons and And/Or/Not (build expressions with symint.build)"
        )

    def _emit_bool_form(self, e: BoolForm, cond: bool) -> str:
        kind = e.kind
        if kind == "const":
            return "True" if e.value else "False"
        if kind == "rel":
            op, lhs, rhs = e.args
            return f"({self.emit(lhs, cond)} {_RELATION_OPS[op]} {self.emit(rhs, cond)})"
        if kind == "and" or kind == "or":
            op = " and " if kind == "and" else " or "
            return "(" + op.join(self.emit(a, cond or k > 0) for k, a in enumerate(e.args)) + ")"
        if kind == "not":
            return f"(not {self.emit(e.args[0], cond)})"
        return self.emit(e.args[0], cond)  # opaque: its sympy expression (Note [Code from forms])

    def _emit_form(self, f: Form, cond: bool) -> str:
        if f.is_const:
            return _int_text(f.const)
        atom = f.atom()
        if atom is not None:
            return self.emit(atom, cond)
        parts: list[str] = []
        for k, (mono, c) in enumerate(f.terms):
            m = self.emit(mono, cond)
            if c == 1:
                parts.append((" + " if k else "") + m)
            elif c == -1:
                parts.append(f" - {m}" if k else f"(-{m})")
            elif c < 0 and k:
                parts.append(f" - ({-c} * {m})")
            else:
                parts.append((" + " if k else "") + f"({_int_text(c)} * {m})")
        if f.const:
            parts.append(f" + {f.const}" if f.const > 0 else f" - {-f.const}")
        return parts[0] if len(parts) == 1 else "(" + "".join(parts) + ")"

    def _emit_mono(self, m: Mono, cond: bool) -> str:
        factors = []
        for atom, power in m.factors:
            a = self.emit(atom, cond)
            if power == 1:
                factors.append(a)
            elif power <= _INLINE_EXPONENT:
                factors.append(f"({a} ** {power})")
            else:
                factors.append(f"_pown({a}, {power})")
        return factors[0] if len(factors) == 1 else "(" + " * ".join(factors) + ")"

    def _emit_atom(self, atom: Atom, cond: bool) -> str:
        kind = atom.kind
        if kind == "sym":
            name = self.by_name.get(atom.name)
            if name is None:
                raise CodegenError(f"symbol {atom.name} has no argument position")  # invariant of compile_guards
            return name
        if kind == "opaque":
            return self.emit(atom.args[0], cond)
        args = [self.emit(x, cond) for x in atom.args]
        if kind == "max" or kind == "min":  # n-ary
            return f"_{kind}(" + ", ".join(args) + ")"
        a, b = args
        if kind == "floordiv":
            return f"({a} // {b})"
        if kind == "ceildiv":
            return f"(-(-{a} // {b}))"
        if kind == "mod":
            return f"({a} % {b})"
        if kind == "pow":
            return f"_pown({a}, {b})"
        raise CodegenError(f"cannot compile the {kind} atom {_io.to_sympy(atom)}")

    def _emit_add(self, args, cond: bool) -> str:
        parts: list[str] = []
        for k, term in enumerate(args):
            coeff, rest = term.as_coeff_Mul()
            if k == 0 or not (coeff.is_Integer and coeff < 0):
                parts.append((" + " if k else "") + self.emit(term, cond))
            elif rest == 1:
                parts.append(f" - {-int(coeff)}")
            elif coeff == -1:
                parts.append(f" - {self.emit(rest, cond)}")
            else:
                parts.append(f" - ({-int(coeff)} * {self.emit(rest, cond)})")
        return "(" + "".join(parts) + ")"

    def _emit_mul(self, args, cond: bool) -> str:
        if args[0] == -1 and len(args) > 1:
            rest = args[1] if len(args) == 2 else sympy.Mul(*args[1:], evaluate=False)
            return f"(-{self.emit(rest, cond)})"
        return "(" + " * ".join(self.emit(a, cond) for a in args) + ")"

    def _emit_pow(self, e: sympy.Basic, cond: bool) -> str:
        base, exp = e.args
        if exp.is_Integer and 0 <= exp <= _INLINE_EXPONENT:
            return f"({self.emit(base, cond)} ** {int(exp)})"
        if isinstance(e, _nodes.PowByNatural) or (exp.is_Integer and exp >= 0):
            return f"_pown({self.emit(base, cond)}, {self.emit(exp, cond)})"
        if not exp.is_Number:  # Python's a ** b with a symbolic exponent (the parser builds it for `a ** b`)
            return f"_pow({self.emit(base, cond)}, {self.emit(exp, cond)})"
        raise CodegenError(f"cannot compile the power {e}: only integer exponents are supported")


def _int_text(v: int) -> str:
    return str(v) if v >= 0 else f"({v})"


# -- reading inputs --------------------------------------------------------------------------------
def _reader_lines(symbols, sources: Mapping[str, Source], names) -> list[str] | None:
    """Lines binding each ``v<k>`` from ``inputs``; None if some symbol has no source."""
    if any(sym not in sources for sym in symbols):
        return None
    bases = sorted({sources[sym].base for sym in symbols})
    index = {base: k for k, base in enumerate(bases)}
    lines = [f"i{k} = inputs[_b{k}]" for k in range(len(bases))]
    shaped, strided = set(), set()
    for sym in symbols:
        src, k = sources[sym], index[sources[sym].base]
        if src.kind in ("size", "numel") and k not in shaped:
            shaped.add(k)
            lines.append(f"sh{k} = i{k}.shape")
        if src.kind == "stride" and k not in strided:
            strided.add(k)
            # Exact numpy arrays and torch tensors inline; anything else through Source.read's rules.
            lines += [f"if _type(i{k}) is _NDARRAY and i{k}.size:", f"    st{k} = i{k}.strides", f"    sd{k} = i{k}.itemsize"]
            lines += [f"elif _type(i{k}) is _TENSOR:", f"    st{k} = i{k}.stride()", f"    sd{k} = 1"]
            lines += ["else:", f"    st{k}, sd{k} = _strides(i{k})"]
    for sym in symbols:
        src, k, v = sources[sym], index[sources[sym].base], names[sym]
        if src.kind == "value":
            lines.append(f"{v} = i{k}")
        elif src.kind == "size":
            lines.append(f"{v} = sh{k}[{int(src.index)}]")
        elif src.kind == "stride":
            lines.append(f"{v} = st{k}[{int(src.index)}] // sd{k}")
        elif src.kind == "numel":
            lines.append(f"{v} = _prod(sh{k})")
        else:
            lines.append(f"{v} = _offset(i{k})")
    return lines


def _strides(obj: Any) -> tuple[Any, int]:
    """(strides, divisor): torch's ``.stride()`` in elements, or numpy's byte ``.strides`` and ``itemsize``."""
    stride = getattr(obj, "stride", None)
    if callable(stride):
        return stride(), 1
    if hasattr(obj, "shape") and (not hasattr(obj, "strides") or getattr(obj, "size", 1) == 0):
        return contiguous_strides_of(obj.shape), 1  # a shape spec, or an empty numpy array: laid out as torch would
    return obj.strides, obj.itemsize


_offset = storage_offset_of


#: Powers with a constant exponent up to this are inlined; larger ones go through ``_pown``'s size check.
_INLINE_EXPONENT = 64


def _pown(a: int, b: int) -> int:
    if b < 0:
        raise GuardValueError(f"PowByNatural({a}, {b}): the exponent must be >= 0")
    check_power(a, b)  # ExpressionLimitError, an OverflowError: the guard fails instead of running for hours
    return a**b


def _pow(a: Any, b: Any) -> Any:
    """Python's ``a ** b`` (a float for a negative int exponent), refusing results too large to compute."""
    if isinstance(b, int):
        check_power(a, abs(b))
    return a**b


_HELPERS: dict[str, object] = {
    "_max": max,
    "_min": min,
    "_floor": math.floor,
    "_ceil": math.ceil,
    "_pown": _pown,
    "_pow": _pow,
    "_prod": math.prod,
    "_strides": _strides,
    "_offset": _offset,
}
_ARITH = (ArithmeticError, ValueError)


class _NoArrayType:
    """Stands for ``numpy.ndarray``/``torch.Tensor`` when that library is not loaded (no object has this type)."""


def _loaded_type(module: str, name: str) -> type:
    """``module.name`` if ``module`` is already imported, else a dummy type; never imports anything.

    The checker reads strides of objects of exactly this type inline. Only speed depends
    on it: the generic path (``_strides``) reads them the same way.
    """
    found = getattr(sys.modules.get(module), name, _NoArrayType)
    return found if isinstance(found, type) else _NoArrayType
_BIND = (LookupError, AttributeError, TypeError)


# -- assembling, validating, instantiating ------------------------------------------------------------
def _assemble(symbols, names, bases, readers, fast_lines, fail_lines) -> str:
    params = ", ".join(names[s] for s in symbols)
    factory_params = [f"_b{k}" for k in range(len(bases))] + sorted(_helpers()) + sorted(_SPECIALS)
    out = [f"def _make({', '.join(factory_params)}):"]

    def fn(header: str, body: list[str]) -> None:
        out.append(f"    def {header}:")
        out.extend("        " + line for line in body)

    fn(f"check_ints({params})", fast_lines)
    fn(f"first_failure_ints({params})", fail_lines)
    if readers is None:
        out.append("    check = check_objects = first_failure = None")
    else:
        # Reading errors (and type errors from odd input values) become typed errors.
        def reading(lines: list[str]) -> list[str]:
            body = ["    " + line for line in readers + lines]
            return ["try:", *body, "except _BIND:", "    raise _bind_error(inputs) from None"]

        fn("check(inputs)", reading(fast_lines))
        fn("check_objects(**inputs)", ["return check(inputs)"])
        fn("first_failure(inputs)", reading([f"return first_failure_ints({params})"]))
    out.append("    return check_ints, first_failure_ints, check, check_objects, first_failure")
    return "\n".join(out) + "\n"


#: Factory parameters besides the input names and the helpers.
_SPECIALS = frozenset({"_ARITH", "_BIND", "_bind_error", "_values_error", "_TYPEERROR", "_NDARRAY", "_TENSOR", "_type"})
#: A value of the wrong type (None, a str) in ``check_ints``: a typed error, not a raw TypeError.
_TYPE_LINES = ("except _TYPEERROR:", "    raise _values_error() from None")
_GENERATED_NAME = re.compile(r"(?:v|t|i|sh|st|sd|_b)[0-9]+\Z")
_FIXED_NAMES = frozenset(
    {"_make", "check_ints", "first_failure_ints", "check", "check_objects", "first_failure", "inputs", "shape"}
    | {"strides", "stride", "itemsize", "size"}
    | set(_HELPERS)
    | _SPECIALS
)
_KEYWORDS = frozenset(
    {"def", "return", "try", "except", "raise", "from", "if", "elif", "else", "is", "not", "and", "or"}
    | {"True", "False", "None"}
)


# Characters generated code may contain: no quotes, backslashes, ``#``, ``@``, ``;`` or non-ASCII.
_FORBIDDEN_CHAR = re.compile(r"[^ \nA-Za-z0-9_+\-*/%<>=!:,.()\[\]]")
_NAME = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]*")  # identifiers and keywords; never a letter inside a number


def _validate(code: str) -> None:
    """Refuse generated text with a string literal, an odd character or a name outside the generated vocabulary."""
    bad = _FORBIDDEN_CHAR.search(code)
    if bad:
        raise CodegenError(f"internal error: generated code contains the character {bad.group()!r}")
    helpers = _helpers()
    for word in set(_NAME.findall(code)):
        if not (word in _KEYWORDS or word in _FIXED_NAMES or word in helpers or _GENERATED_NAME.match(word)):
            raise CodegenError(f"internal error: generated code uses the unexpected name {word!r}")


def _instantiate(code: str, bases, guardset, symbols, readable: bool):
    namespace: dict[str, object] = {"__builtins__": {}}
    try:
        exec(compile(code, "<guards.runtime.codegen>", "exec"), namespace)  # see Note [Why exec is safe here]
    except (SyntaxError, RecursionError, MemoryError) as exc:
        why = type(exc).__name__
        message = f"the guard set is too large or too deeply nested to compile ({why}); simplify it first"
        raise CodegenError(message) from None
    make = namespace["_make"]
    specials = {
        "_ARITH": _ARITH,
        "_BIND": _BIND,
        "_bind_error": _binding_error_factory(guardset, symbols),
        "_values_error": _values_error_factory(guardset, symbols),
        "_TYPEERROR": TypeError,
        "_NDARRAY": _loaded_type("numpy", "ndarray"),
        "_TENSOR": _loaded_type("torch", "Tensor"),
        "_type": type,
    }
    assert set(specials) == _SPECIALS  # invariant: the factory's parameters
    fns = make(*bases, **_helpers(), **specials)
    if readable:
        return fns
    source_map = dict(guardset.named_sources)
    missing = ", ".join(s for s in symbols if s not in source_map)

    def unreadable(*args: object, **kwargs: object):
        raise UnknownSourceError(
            f"symbols {missing} have no source, so inputs cannot be read; use check_ints or give them sources"
        )

    return fns[0], fns[1], unreadable, unreadable, unreadable


def _binding_error_factory(guardset: GuardSetLike, symbols) -> Callable[[Mapping[str, object]], Exception]:
    sources = dict(guardset.named_sources)

    def bind_error(inputs: Mapping[str, object]) -> Exception:
        """A typed error saying which input could not be read (slow path, after a failed read)."""
        for sym in symbols:
            src = sources[sym]
            try:
                obj = inputs[src.base]
            except (LookupError, TypeError):
                known = ", ".join(repr(k) for k in sorted({sources[s].base for s in symbols}))
                return UnknownSourceError(f"no input named {src.base!r} (the guards read inputs {known})")
            try:
                src.read(obj)
            except (LookupError, AttributeError, TypeError, ValueError) as exc:
                return GuardTypeError(f"cannot read {src.text()} from {type(obj).__name__} {_short(obj)}: {exc}")
        return GuardTypeError("the inputs have the wrong types: sizes must be ints and tensors must have .shape")

    return bind_error


def _values_error_factory(guardset: "GuardSet", symbols) -> Callable[[], Exception]:
    sources = dict(guardset.named_sources)
    order = ", ".join(sources[s].text() if s in sources else s for s in symbols)

    def values_error() -> Exception:
        return GuardTypeError(f"the checker takes ints (in the order {order}); a value of another type was given")

    return values_error


def _short(obj: object) -> str:
    text = repr(obj)
    return text if len(text) <= 60 else text[:57] + "..."
