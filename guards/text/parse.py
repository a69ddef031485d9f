"""A safe parser for guard text: sympy-style, torch's guard dialect, and ours.

Guard text is parsed by a tokenizer (:mod:`guards.text.lexer`) and a
precedence-climbing recursive-descent parser that follows Python's expression
grammar; integers and booleans are built as canonical forms (:mod:`symint.form`),
floats as sympy, by :mod:`guards.text.values` (Note [Parsed forms and the sympy
builders] there). Nothing the user wrote is ever given to ``eval``, ``exec``,
``sympify`` or ``parse_expr``.

Accepted, in one grammar (the ``dialect`` only decides the corner cases below):

* sympy-style: ``Eq(s0, s1)``, ``Ne(Mod(s0, 2), 0)``, ``2*s0 <= s1 + 3``,
  ``FloorDiv(s0, 2)``, ``Max(s0, 4)``, ``(s0 < 3) & ~(s1 > 4)``, ``True``;
* torch's guard text: ``L['x'].size()[0] == L['y'].size()[0]``,
  ``(L['x'].size()[0] % 8) == 0``, ``2 <= L['x'].size()[0] <= 1024``,
  ``not ... and ... or ...``, ``torch.sym_max(a, b)``, ``PythonMod(a, b)``,
  ``CeilToInt(IntTrueDiv(a, b))``, ``math.floor(a / b)``;
* our dialect of sources: ``x.size()[0]``, ``x.shape[0]``, ``x.stride()[1]``,
  ``x.storage_offset()``, ``x.numel()``.

``/`` is true division (``IntTrueDiv``), ``//`` floor division and ``%`` the
Python modulo. A bare name (``s0``) is a symbol, except in the ``"source"``
dialect where it is an int input (a value source). Each distinct source becomes
a symbol named ``s0``, ``s1``, ... in order of first appearance, skipping every
name the text itself uses, unless the caller supplies a symbol for it.

Note [Resource limits]
    User text can be hostile, so every way a line can make the parser work hard
    is bounded: nesting depth (:data:`MAX_DEPTH`, so the interpreter's recursion
    limit is never reached), line length and literal sizes (see
    :mod:`guards.text.lexer`), and the size of constants folded by ``*`` and ``**``
    (:data:`MAX_CONSTANT_BITS`). Long flat chains (``a + b + ... + z``) are
    folded as balanced trees, so they cost O(n log n) rather than O(n^2).

Note [Evaluation order and raising guards]
    A guard means what Python computes for its text: ``and``/``or`` short-circuit
    left to right (the connectives keep the written order, Note [Ordered connectives] in :mod:`symint.sympy_io.connectives`),
    ``//`` and ``%`` by zero raise and a guard that raises *fails*, ``a ** b`` with a
    symbolic exponent is Python's power (a float when ``b < 0``). Folding while
    parsing is exact wherever the text has a value, but may drop a division by zero:
    ``x // y == x // y`` and ``0 // y == 0`` fold to True, ``y % y == 0`` too, so
    such a guard accepts ``y = 0`` where Python raises. This is the documented
    widening of Note [Canonical forms] in :mod:`symint.sympy_io.functions` (torch folds the
    same way); tests/guards/test_adversarial.py keeps it visible.

>>> from guards.source import Source
>>> parse_guard("Ne(Mod(s0, 2), 0)")
BoolForm(Mod(s0, 2) != 0)
>>> parse_guards_text(["L['x'].size()[0] // 2 != 1", "2 <= L['y'].size()[0] <= 1024"]).exprs
(Ne(FloorDiv(s0, 2), 1), (2 <= s1) & (s1 <= 1024))
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Literal, Mapping

from symint.lazy_sympy import lazy_module, sympy

from symint import form as F
from symint.build import as_expr
from symint.form import BoolForm, Form

from symint.errors import ExpressionLimitError

from guards.errors import GuardParseError, GuardTypeError
from guards.text.lexer import BINARY_PRECEDENCE, COMPARISONS, KEYWORDS, MAX_CONSTANT_BITS, SOURCE_ATTRS, function_spec, known_functions
from guards.text.lexer import PREC_ADD, PREC_AND, PREC_BAND, PREC_BOR, PREC_CMP, PREC_MUL, PREC_NOT, PREC_OR
from guards.text.lexer import FunctionSpec, Token, TokenCursor, balanced, tokenize
from guards.source import Source
from guards.text.torch_sources import read_path
from guards.text.values import Value, arith, call, connective, is_bool, neg, negate, relation, view
from guards.validate import by_symbol_name, need_choice, need_iterable

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy
_limits = lazy_module("symint.sympy_io.limits")

__all__ = [
    "Dialect",
    "ParsedGuards",
    "parse_guard",
    "parse_expression",
    "parse_guards_text",
    "parse_source",
    "KNOWN_FUNCTIONS",
    "MAX_DEPTH",
    "MAX_CONSTANT_BITS",
]

Dialect = Literal["auto", "sympy", "torch", "source"]
_DIALECTS = ("auto", "sympy", "torch", "source")

#: Deepest accepted nesting of parentheses, calls, prefix operators and chained divisions.
MAX_DEPTH = 100

# -- naming sources ---------------------------------------------------------------------------------


class _Namer:
    """Gives each source a symbol: the caller's if supplied, else ``s<k>`` by first appearance.

    ``taken`` holds every name the text uses, so a generated name never captures a bare symbol.
    """

    def __init__(self, symbols: "Mapping[sympy.Symbol | str, Source] | None", taken: set[str]):
        self.sources: dict[str, Source] = {}  # by symbol name (Note [A guard set names its symbols] in guards.guardset)
        self.by_source: dict[Source, str] = {}
        for name, src in sorted(by_symbol_name(symbols, "symbols", Source, "Source objects", optional=True).items()):
            self.sources[name] = src
            self.by_source.setdefault(src, name)
        self.taken = taken | set(self.sources)
        self.counter = 0

    def is_size(self, name: str) -> bool:
        """Whether ``name`` is the symbol of a size-like source (never negative)."""
        src = self.sources.get(name)
        return src is not None and src.is_size_like

    def symbol_for(self, source: Source) -> str:
        """The name of ``source``'s symbol (a new ``s<k>`` the first time it is met)."""
        name = self.by_source.get(source)
        if name is None:
            while f"s{self.counter}" in self.taken:
                self.counter += 1
            name = f"s{self.counter}"
            self.taken.add(name)
            self.by_source[source] = name
            self.sources[name] = source
        return name


# -- the parser -------------------------------------------------------------------------------------


class _Parser(TokenCursor):
    """Recursive descent over one line's tokens; see the module docstring for the grammar."""

    def __init__(self, text: str, tokens: list[Token], namer: _Namer, dialect: str, line: int = 0):
        super().__init__(text, tokens, line)
        self.namer, self.dialect = namer, dialect
        self.depth = 0

    def type_error(self, message: str, tok: Token) -> GuardTypeError:
        where = f"line {self.line}, " if self.line else ""
        return GuardTypeError(f"{message} (at {where}column {tok.column} of {self.text[:200]!r})")

    def enter(self, tok: Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"expression nested too deeply (more than {MAX_DEPTH} levels); simplify the guard", tok)

    # -- entry point
    def parse(self) -> Value:
        if self.peek().kind == "end":
            raise self.error("empty guard", self.peek())
        try:
            value = self.expression(0)
        except ExpressionLimitError as exc:  # a fold outside apply() (a long sum, a negation) grew too large
            raise self.error(f"expression too large: {exc}", self.tokens[max(self.pos - 1, 0)]) from None
        if self.peek().kind != "end":
            tok = self.peek()
            raise self.error("unexpected text after a complete expression (missing operator?)", tok)
        return value

    # -- binary operators, by precedence climbing
    def expression(self, min_prec: int) -> Value:
        left = self.prefix(min_prec)
        while True:
            tok = self.peek()
            if tok.kind == "name" and tok.text == "in" and min_prec <= PREC_CMP:
                left = self.membership(left)  # x in (1, 8, 16): a set-valued dim
                continue
            prec = BINARY_PRECEDENCE.get(tok.text) if tok.kind in ("op", "name") else None
            if prec is None or prec < min_prec:
                return left
            if prec == PREC_CMP:
                left = self.comparison_chain(left)
            elif prec in (PREC_OR, PREC_AND, PREC_BOR, PREC_BAND):
                left = self.logic_chain(left, tok.text, prec)
            elif prec == PREC_ADD:
                left = self.sum_chain(left)
            else:
                left = self.product_chain(left)

    def prefix(self, min_prec: int) -> Value:
        tok = self.peek()
        if tok.kind == "name" and tok.text == "not":
            if min_prec > PREC_NOT:
                raise self.error("'not' must be parenthesized here", tok)
            self.take()
            self.enter(tok)
            operand = self.expression(PREC_NOT)
            self.depth -= 1
            return negate(self.need_bool(operand, tok, "'not'"))
        return self.unary()

    def comparison_chain(self, left: Value) -> Value:
        """``a < b <= c`` means ``a < b and b <= c``, as in Python."""
        relations = []
        while self.peek().kind == "op" and self.peek().text in COMPARISONS:
            tok = self.take()
            right = self.expression(PREC_CMP + 1)
            relations.append(self.relation(tok.text, left, right, tok))
            left = right
        return relations[0] if len(relations) == 1 else connective("and", relations)

    def membership(self, left: Value) -> Value:
        """``x in (a, b, ...)``: ``Eq(x, a) | Eq(x, b) | ...`` (the values are integer expressions)."""
        tok = self.take()
        subject = self.need_int(left, tok, "'in'")
        self.expect("(", "after 'in' (write x in (1, 8, 16))")
        self.enter(tok)
        values = [self.need_int(self.expression(PREC_CMP + 1), tok, "'in'")]
        while self.at(","):
            self.take()
            if self.at(")"):
                break
            values.append(self.need_int(self.expression(PREC_CMP + 1), tok, "'in'"))
        self.expect(")", "to close the values after 'in'")
        self.depth -= 1
        return connective("or", [self.apply(relation, ("==", subject, v), tok) for v in values])

    def relation(self, op: str, a: Value, b: Value, tok: Token) -> Value:
        a_bool, b_bool = is_bool(a), is_bool(b)
        if a_bool != b_bool:
            raise self.type_error(f"{op!r} compares a boolean with a number", tok)
        if a_bool and op not in ("==", "!="):
            raise self.type_error(f"{op!r} cannot order booleans", tok)
        return self.apply(relation, (op, a, b), tok)

    def logic_chain(self, left: Value, op: str, prec: int) -> Value:
        operands, tokens = [left], [self.peek()]
        while self.at(op):
            tokens.append(self.take())
            operands.append(self.expression(prec + 1))
        for value, tok in zip(operands, tokens):
            hint = " (& and | bind tighter than comparisons: write (a < b) & (c < d))" if op in "&|" else ""
            self.need_bool(value, tok, f"{op!r}", hint)
        return connective("and" if op in ("and", "&") else "or", operands)

    def sum_chain(self, left: Value) -> Value:
        terms = [self.need_int(left, self.peek(), repr(self.peek().text))]
        while self.peek().kind == "op" and self.peek().text in ("+", "-"):
            tok = self.take()
            term = self.need_int(self.expression(PREC_ADD + 1), tok, repr(tok.text))
            terms.append(term if tok.text == "+" else neg(term))
        return balanced(_add, terms)

    def product_chain(self, left: Value) -> Value:
        # Left-associative; runs of plain '*' are folded as a balanced product.
        acc = self.need_int(left, self.peek(), repr(self.peek().text))
        run: list[Value] = []
        nested = 0  # a // b // c nests like parentheses do: bound it the same way
        while self.peek().kind == "op" and BINARY_PRECEDENCE.get(self.peek().text) == PREC_MUL:
            tok = self.take()
            right = self.need_int(self.expression(PREC_MUL + 1), tok, repr(tok.text))
            if tok.text == "*":
                run.append(right)
                continue
            nested += 1
            if self.depth + nested > MAX_DEPTH:
                raise self.error(f"too many chained divisions (more than {MAX_DEPTH}); simplify the guard", tok)
            if run:
                acc = self.checked(balanced(_mul, [acc, *run]), tok)
                run = []
            acc = self.apply(arith, (tok.text, acc, right), tok)
        if run:
            acc = self.checked(balanced(_mul, [acc, *run]), self.peek())
        return acc

    # -- prefix operators and powers
    def unary(self) -> Value:
        tok = self.peek()
        if tok.kind == "op" and tok.text in ("-", "+", "~"):
            self.take()
            self.enter(tok)
            operand = self.unary()
            self.depth -= 1
            if tok.text == "~":
                return negate(self.need_bool(operand, tok, "'~'", " (~ is boolean negation here)"))
            operand = self.need_int(operand, tok, f"unary {tok.text!r}")
            return neg(operand) if tok.text == "-" else operand
        return self.power()

    def power(self) -> Value:
        base = self.postfix()
        if not self.at("**"):
            return base
        tok = self.take()
        self.enter(tok)
        exponent = self.unary()  # right-associative, and 2 ** -1 is allowed, as in Python
        self.depth -= 1
        base, exponent = self.need_int(base, tok, "'**'"), self.need_int(exponent, tok, "'**'")
        if type(exponent) is Form and exponent.is_const:
            k = abs(exponent.const)
            bits = base.const.bit_length() if type(base) is Form and base.is_const else 1
            if k > MAX_CONSTANT_BITS or (bits > 1 and k * bits > MAX_CONSTANT_BITS):
                raise self.error(f"power too large (constants are limited to {MAX_CONSTANT_BITS} bits)", tok)
        elif not (isinstance(exponent, sympy.Basic) and exponent.is_Number) and not self.is_size(exponent):
            return self.apply(call, (_python_pow, (base, exponent)), tok)
        return self.apply(arith, ("**", base, exponent), tok)

    # -- atoms: numbers, names, calls, sources, parentheses
    def postfix(self) -> Value:
        tok = self.peek()
        if tok.kind == "num":
            self.take()
            return self.number(tok)
        if tok.kind == "str":
            raise self.error("a string is not a value (sources are written L['x'].size()[0])", tok)
        if tok.kind == "end":
            raise self.error("expected a value", tok)
        if tok.kind == "op":
            if tok.text != "(":
                raise self.error("expected a value", tok)
            self.take()
            self.enter(tok)
            value = self.expression(0)
            self.expect(")", "to close the parenthesis")
            self.depth -= 1
            return self.no_trailer(value)
        return self.name()

    def number(self, tok: Token) -> Value:
        if all(c.isdigit() for c in tok.text):
            return F.const(int(tok.text))
        value = float(tok.text)  # the lexer checked it is a plain decimal literal
        if not math.isfinite(value):
            raise self.error("decimal literal out of range", tok)
        return as_expr(value)

    def name(self) -> Value:
        tok = self.take()
        word = tok.text
        if word in ("True", "False"):
            return self.no_trailer(F.TRUE if word == "True" else F.FALSE)
        if word in KEYWORDS or word in ("and", "or", "not"):
            raise self.error(f"the Python keyword {word!r} is not guard syntax", tok)
        if word.startswith("__"):
            raise self.error("names starting with '__' are not allowed in guards", tok)
        if self.at("("):
            return self.no_trailer(self.call(word, tok))
        if self.at(".") and self.peek(1).kind == "name" and self.at("(", 2):
            dotted = f"{word}.{self.peek(1).text}"
            # torch.foo(...) is a (possibly unknown) function; x.size(...) is a source.
            if function_spec(dotted) is not None or (word in ("torch", "math", "sympy") and not self.is_source_attr(1)):
                self.take()
                self.take()
                return self.no_trailer(self.call(dotted, tok))
        if (word in ("L", "G") and self.at("[")) or self.at(".") or self.at("["):
            # an access path in torch's spelling (guards/text/torch_sources.py), then what is read from it
            return self.source_ref(read_path(self, tok).base(), tok)
        if self.dialect == "source":
            return F.sym(self.namer.symbol_for(Source.value(word)))
        return F.sym(word)

    def is_size(self, e: Value) -> bool:
        """Whether ``e`` is the symbol of a size-like source (never negative: ``**`` is then a natural power)."""
        atom = e.atom() if type(e) is Form else None
        return atom is not None and atom.kind == "sym" and self.namer.is_size(atom.name)

    def is_source_attr(self, ahead: int) -> bool:
        return self.peek(ahead).text in ("size", "stride", "shape", "storage_offset", "numel")

    def no_trailer(self, value: Value) -> Value:
        tok = self.peek()
        if tok.kind == "op" and tok.text in (".", "[", "("):
            raise self.error("attribute access, indexing and calls apply only to inputs (L['x'].size()[0])", tok)
        return value

    def call(self, name: str, name_tok: Token) -> Value:
        spec = function_spec(name)
        if spec is None:
            known = ", ".join(known_functions())
            raise self.error(f"unknown function {name!r}; known functions: {known}", name_tok)
        open_tok = self.expect("(", "to start the arguments")
        self.enter(open_tok)
        args: list[Value] = []
        if not self.at(")"):
            while True:
                args.append(self.expression(0))
                if not self.at(","):
                    break
                self.take()
                if self.at(")"):  # a trailing comma, as Python allows
                    break
        self.expect(")", f"to close the arguments of {name}")
        self.depth -= 1
        most = spec.max_args if spec.max_args is not None else len(args)
        if not spec.min_args <= len(args) <= most:
            want = f"{spec.min_args}" if spec.min_args == spec.max_args else f"at least {spec.min_args}"
            raise self.type_error(f"{name} takes {want} argument(s), got {len(args)}", name_tok)
        self.check_args(name, spec, args, name_tok)
        return self.apply(spec.build, tuple(args), name_tok)

    def check_args(self, name: str, spec: FunctionSpec, args: list[Value], tok: Token) -> None:
        kinds = [is_bool(a) for a in args]
        if spec.kind == "int" or spec.kind == "rel":
            bad = any(kinds)
        elif spec.kind == "bool":
            bad = not all(kinds)
        elif spec.kind == "eq":
            bad = kinds[0] != kinds[1]
        elif spec.kind == "ite":
            bad = not kinds[0] or kinds[1] or kinds[2]
        else:
            bad = False
        if bad:
            want = {
                "int": "numbers",
                "rel": "numbers",
                "bool": "booleans",
                "eq": "two numbers or two booleans",
                "ite": "a boolean then two numbers",
            }[spec.kind]
            raise self.type_error(f"{name} takes {want}", tok)

    # -- sources
    def torch_base(self) -> str:
        self.expect("[", "after L")
        tok = self.peek()
        if tok.kind != "str":
            raise self.error("expected a quoted input name, as in L['x']", tok)
        self.take()
        self.expect("]", "after the input name")
        if not tok.value:
            raise self.error("an input name cannot be empty", tok)
        return tok.value  # type: ignore[return-value]

    def source_ref(self, base: str, first: Token) -> Value:
        if self.dialect == "sympy":
            raise self.error("inputs (sources) are not part of the sympy dialect; use dialect='auto'", first)
        return F.sym(self.namer.symbol_for(self.source_suffix(base)))

    def source_suffix(self, base: str) -> Source:
        """What follows an input's name: ``.size()[0]``, ``.shape[1]``, ... or nothing (a value)."""
        if not self.at("."):
            return self.no_trailer_source(Source.value(base))
        self.take()
        attr = self.peek()
        if attr.kind != "name":
            raise self.error(f"expected one of {SOURCE_ATTRS}", attr)
        self.take()
        if attr.text in ("size", "stride"):
            self.expect("(", f"after .{attr.text}")
            if self.at(")"):
                self.take()
                self.expect("[", f"after .{attr.text}() (write .{attr.text}()[i])")
                dim = self.dim_index()
                self.expect("]", "after the dimension")
            else:
                dim = self.dim_index()
                self.expect(")", "after the dimension")
            return self.no_trailer_source(Source(base, attr.text, dim))  # type: ignore[arg-type]
        if attr.text == "shape":
            self.expect("[", "after .shape")
            dim = self.dim_index()
            self.expect("]", "after the dimension")
            return self.no_trailer_source(Source.size(base, dim))
        if attr.text in ("storage_offset", "numel"):
            self.expect("(", f"after .{attr.text}")
            self.expect(")", f"after .{attr.text}(")
            return self.no_trailer_source(Source(base, attr.text))  # type: ignore[arg-type]
        raise self.error(f"unknown attribute of an input; expected one of {SOURCE_ATTRS}", attr)

    def dim_index(self) -> int:
        tok = self.peek()
        if tok.kind != "num" or not tok.text.isdigit():
            hint = " (negative dimensions are not supported)" if tok.text == "-" else ""
            raise self.error(f"expected a dimension index (an integer >= 0){hint}", tok)
        self.take()
        if len(tok.text) > 9:
            raise self.error("dimension index too large", tok)
        return int(tok.text)

    def no_trailer_source(self, source: Source) -> Source:
        tok = self.peek()
        if tok.kind == "op" and tok.text in (".", "[", "("):
            raise self.error(f"unsupported source: only {SOURCE_ATTRS} may follow an input", tok)
        return source

    # -- building, with errors turned into typed errors at the right column
    def apply(self, build: Callable[..., Value], args: tuple, tok: Token) -> Value:
        try:
            result = build(*args)
        except ZeroDivisionError as exc:
            raise self.error(f"division by zero ({exc})", tok) from None
        except ExpressionLimitError as exc:
            raise self.error(f"expression too large: {exc}", tok) from None
        except (TypeError, ValueError) as exc:
            raise self.type_error(str(exc), tok) from None
        return self.checked(result, tok)

    def checked(self, value: Value, tok: Token) -> Value:
        if type(value) is Form:
            coeff = value.const if value.is_const else value.terms[0][1] if len(value.terms) == 1 and not value.const else 0
            if coeff.bit_length() > MAX_CONSTANT_BITS:
                raise self.error(f"constant too large (at most {MAX_CONSTANT_BITS} bits)", tok)
        return value

    def need_int(self, value: Value, tok: Token, what: str, hint: str = "") -> Value:
        if is_bool(value):
            raise self.type_error(f"{what} needs a number, got the boolean {view(value)}{hint}", tok)
        return value

    def need_bool(self, value: Value, tok: Token, what: str, hint: str = "") -> Value:
        if not is_bool(value):
            raise self.type_error(f"{what} needs a boolean (a comparison), got the number {view(value)}{hint}", tok)
        return value


def _python_pow(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    """``a ** b`` with a symbolic exponent, as Python computes it (a float when ``b < 0``): sympy's ``Pow``.

    ``symint.build.pow_`` takes a symbolic exponent to be natural (``PowByNatural``, which
    raises on ``b < 0``); guard text means Python's operator, so ``L['a'] ** L['b'] >= 1``
    holds at ``a = 1, b = -1`` as it does in Python. An exponent that is a size
    (``2 ** L['x'].size()[0]``, never negative) stays a ``PowByNatural``, as torch
    prints it; ``PowByNatural(a, b)`` written out keeps its own meaning.
    """
    return _limits.check_folded(sympy.Pow(a, b))


def _add(a: Value, b: Value) -> Value:
    return arith("+", a, b)


def _mul(a: Value, b: Value) -> Value:
    return arith("*", a, b)


# -- public API ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParsedGuards:
    """The result of parsing several guard lines.

    Attributes:
        forms: the conditions (boolean forms), one per non-blank line, in order.
        lines: the 1-based line number each condition came from.
        named_sources: ``(symbol name, source)`` pairs, sorted: the caller's mapping plus every
            source met; ``sources`` and ``source_map`` are their sympy views.
    """

    forms: tuple[BoolForm, ...]
    lines: tuple[int, ...]
    named_sources: tuple[tuple[str, Source], ...]

    @property
    def sources(self) -> tuple[tuple[sympy.Symbol, Source], ...]:
        """``(symbol, source)`` pairs: the sympy view of ``named_sources``."""
        return tuple((_io.view_symbol(name), src) for name, src in self.named_sources)

    @property
    def exprs(self) -> tuple[sympy.Basic, ...]:
        """The sympy views of the conditions (built once per form, for readers that want sympy)."""
        return tuple(_io.to_sympy(f) for f in self.forms)

    @property
    def source_map(self) -> dict[sympy.Symbol, Source]:
        """Symbol -> source."""
        return dict(self.sources)


def _check_dialect(dialect: str) -> None:
    need_choice(dialect, _DIALECTS, "dialect")


def _lines_of(text: str) -> list[str]:
    """``text`` split at ``\n``, ``\r\n`` and ``\r`` only, as Python splits source lines.

    Not ``str.splitlines``: it also splits at U+2028, ``\x0b``, ``\x85``, ..., which may
    stand inside a quoted input name (``L['a\u2028b']``) and must not cut the guard in two.
    """
    return _NEWLINES.split(text.removesuffix("\r\n").removesuffix("\n").removesuffix("\r")) if text else []


_NEWLINES = re.compile(r"\r\n|\r|\n")


def _split_lines(text_or_lines: str | Iterable[str]) -> list[str]:
    if isinstance(text_or_lines, str):
        return _lines_of(text_or_lines)
    if isinstance(text_or_lines, (bytes, bytearray)):
        raise GuardTypeError("guard text must be a str (decode bytes first, e.g. with guards.decode_guard_bytes)")
    need_iterable(text_or_lines, "guard text (a str or its lines)")
    lines: list[str] = []
    for item in text_or_lines:
        if not isinstance(item, str):
            raise GuardTypeError(f"guard lines must be strings, got {type(item).__name__} {item!r}")
        lines.extend(_lines_of(item) or [""])
    return lines


def _tokenize_line(text: str, line: int) -> list[Token]:
    try:
        return tokenize(text)
    except GuardParseError as exc:
        if not line:
            raise
        raise GuardParseError(exc.message, exc.text, exc.column, exc.fragment, line) from None


def parse_guards_text(
    text_or_lines: str | Iterable[str],
    dialect: Dialect = "auto",
    symbols: Mapping[sympy.Symbol, Source] | None = None,
) -> ParsedGuards:
    """Parse guard text, one guard per line (``#`` comments and blank lines are skipped).

    Args:
        text_or_lines: the text, or its lines.
        dialect: ``"auto"`` (everything), ``"sympy"`` (no sources), ``"torch"`` (as auto)
            or ``"source"`` (a bare name is an int input rather than a symbol).
        symbols: symbols to reuse for known sources (symbol -> source).

    Returns:
        The expressions, their line numbers and the sources met.

    Raises:
        GuardParseError: malformed text (with its line and column).
        GuardTypeError: a line is not boolean, or an operand has the wrong type.

    >>> p = parse_guards_text("# sizes\\nL['x'].size()[0] == L['y'].size()[0]\\n\\nn < 4")
    >>> p.exprs, p.lines, [(s.name, src.text()) for s, src in p.sources]
    ((Eq(s0, s1), n < 4), (2, 4), [('s0', 'x.size()[0]'), ('s1', 'y.size()[0]')])
    """
    _check_dialect(dialect)
    lines = _split_lines(text_or_lines)
    tokenized = [(n, text, _tokenize_line(text, n)) for n, text in enumerate(lines, 1)]
    taken = {tok.text for _, _, tokens in tokenized for tok in tokens if tok.kind == "name"}
    namer = _Namer(symbols, taken)
    exprs, numbers = [], []
    for n, text, tokens in tokenized:
        if len(tokens) == 1:  # blank or comment only
            continue
        expr = _Parser(text, tokens, namer, dialect, n).parse()
        if not is_bool(expr):
            raise GuardTypeError(f"line {n} is not a condition (a comparison, and/or/not, True/False): {text.strip()[:200]!r}")
        exprs.append(expr)
        numbers.append(n)
    return ParsedGuards(tuple(exprs), tuple(numbers), tuple(sorted(namer.sources.items())))


def parse_expression(text: str, symbols: Mapping[sympy.Symbol, Source] | None = None, dialect: Dialect = "auto") -> Value:
    """Parse one integer or boolean expression.

    Args:
        text: one line of text.
        symbols: symbols to reuse for sources (symbol -> source); other sources get ``s<k>``.
        dialect: see :func:`parse_guards_text`.

    Returns:
        A :class:`~symint.form.Form` (an integer), a :class:`~symint.form.BoolForm` (a
        boolean), or a sympy expression for a float (``s0 / 2``); ``to_sympy`` of a form is
        its sympy view.

    Raises:
        GuardParseError: malformed text.
        GuardTypeError: an operand has the wrong type.

    >>> parse_expression("x.size()[0] // 2 + Max(n, 3)")
    Form(Max(3, n) + FloorDiv(s0, 2))
    """
    _check_dialect(dialect)
    if not isinstance(text, str):
        raise GuardTypeError(f"guard text must be a str, got {type(text).__name__}")
    tokens = tokenize(text)
    namer = _Namer(symbols, {tok.text for tok in tokens if tok.kind == "name"})
    return _Parser(text, tokens, namer, dialect).parse()


def parse_guard(text: str, symbols: Mapping[sympy.Symbol, Source] | None = None, dialect: Dialect = "auto") -> BoolForm:
    """Parse one guard (a boolean expression) from sympy-style or torch text.

    Args:
        text: one line, e.g. ``"Eq(s0, s1)"`` or ``"L['x'].size()[0] >= 2"``.
        symbols: symbols to reuse for sources (symbol -> source); other sources get ``s<k>``.
        dialect: see :func:`parse_guards_text`.

    Returns:
        The condition as a boolean form (``to_sympy`` of it is its sympy view).

    Raises:
        GuardParseError: malformed text, with the column and a caret line.
        GuardTypeError: the text is not boolean (``"s0 + 1"``) or mixes types.

    >>> from symint.build import symbol_expr
    >>> from symint.sympy_io import to_sympy
    >>> from guards.source import Source
    >>> n = symbol_expr("n")
    >>> to_sympy(parse_guard("2 <= L['k'] and s0 % 8 == 0", {n: Source.value("k")}))
    (2 <= n) & Eq(Mod(s0, 8), 0)
    """
    expr = parse_expression(text, symbols, dialect)
    if not is_bool(expr):
        raise GuardTypeError(f"not a condition (a comparison, and/or/not, True/False): {text.strip()[:200]!r}")
    return expr


def parse_source(text: str) -> Source:
    """Parse the name of an input: ``x.size()[0]``, ``L['x'].stride()[1]``, ``x.shape[0]``, ``n``, ``L['n']``.

    Raises:
        GuardParseError: the text is not a source.

    >>> parse_source("L['x'].size()[0]") == parse_source("x.shape[0]") == Source.size("x", 0)
    True
    >>> parse_source("n")
    Source(base='n', kind='value', index=None)
    """
    if not isinstance(text, str):
        raise GuardTypeError(f"a source must be given as a str, got {type(text).__name__}")
    tokens = tokenize(text)
    parser = _Parser(text, tokens, _Namer(None, set()), "source")
    first = parser.peek()
    if first.kind != "name":
        raise parser.error("expected an input name (x, x.size()[0], L['x'].size()[0])", first)
    parser.take()
    if first.text in ("L", "G") and parser.at("["):
        base = read_path(parser, first).base()
    elif first.text in KEYWORDS or first.text in ("and", "or", "not", "True", "False") or first.text.startswith("__"):
        raise parser.error("not an input name (write L['...'] for unusual names)", first)
    else:
        base = read_path(parser, first).base()
    source = parser.source_suffix(base)
    if parser.peek().kind != "end":
        raise parser.error("unexpected text after the source", parser.peek())
    return source


def __getattr__(name: str):
    """``KNOWN_FUNCTIONS``: every function name the parser accepts (:func:`guards.text.lexer.known_functions`, PEP 562)."""
    if name == "KNOWN_FUNCTIONS":
        return known_functions()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
