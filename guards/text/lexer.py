"""The vocabulary of guard text: its tokens, operators, keywords and functions.

:func:`tokenize` splits a line into tokens; the tables below say how operators
bind and which functions exist (and how each is built through
:mod:`symint.build`). :mod:`guards.text.parse` puts them together.

The lexer only recognises a small, fixed vocabulary: integer and decimal
literals, ASCII identifiers, single- or double-quoted string literals (for
``L['x']``), and the operators of Python's expression grammar that guards use.
Anything else (``:``, ``=``, ``;``, ``@``, backticks, string prefixes, non-ASCII
letters, ...) is a :class:`~guards.errors.GuardParseError` at its column. ``#``
outside a string starts a comment that runs to the end of the line.

String literals are decoded here by a small escape decoder (backslash escapes
of quotes, backslash, ``n r t 0 a b f v`` and ``x``/``u``/``U`` hex codes), which
covers everything ``repr(str)`` produces; nothing is ever evaluated.

>>> [t.text for t in tokenize("L['x'].size()[0] >= 2  # batch")]
['L', '[', "'x'", ']', '.', 'size', '(', ')', '[', '0', ']', '>=', '2', '']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Literal

from symint.build import ite
from symint.form import Form
from symint.lazy_sympy import lazy_module

from guards.errors import GuardParseError, GuardValueError
from guards.text.values import Value, arith, call, connective, negate, neg, relation

_floats = lazy_module("symint.sympy_io.floats")  # Note [sympy on first use] in symint.lazy_sympy
_nodes = lazy_module("symint.sympy_io.functions")

__all__ = [
    "Token",
    "TokenKind",
    "TokenCursor",
    "tokenize",
    "FunctionSpec",
    "FUNCTIONS",
    "KNOWN_FUNCTIONS",
    "KEYWORDS",
    "BINARY_PRECEDENCE",
    "COMPARISONS",
    "SOURCE_ATTRS",
    "balanced",
    "MAX_LINE_LENGTH",
    "MAX_NAME_LENGTH",
    "MAX_INT_DIGITS",
    "MAX_CONSTANT_BITS",
]

TokenKind = Literal["num", "name", "str", "op", "end"]

#: Longest accepted line, in characters. It bounds the work one line can cause: building
#: sympy expressions for a 100,000-character line of distinct terms takes a few seconds.
MAX_LINE_LENGTH = 200_000
#: Longest accepted name, in characters.
MAX_NAME_LENGTH = 1000
#: Longest accepted integer literal, in digits (Python refuses to convert > 4300 digits anyway).
MAX_INT_DIGITS = 1000
#: Largest constant ``*`` and ``**`` may fold to, in bits (about 2,500 decimal digits).
MAX_CONSTANT_BITS = 8192

_TWO_CHAR_OPERATORS = frozenset(("**", "//", "==", "!=", "<=", ">="))
_OPERATORS = frozenset("<>+-*/%&|~()[],.")
_WHITESPACE = " \t\r\f\v"
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_CHARS = _IDENT_START | frozenset("0123456789")
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "r": "\r", "t": "\t", "0": "\0", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
# What a stray character probably meant, for the error message.
_HINTS = {
    "=": "use == to compare",
    "!": "use != or not",
    "^": "use ** for powers; there is no xor in guards",
    ":": "lambdas, slices and annotations are not guard syntax",
    ";": "write one guard per line",
    "\n": "write one guard per line (parse_guards reads several)",
    "@": "matrix products are not guard syntax",
    "{": "sets and dicts are not guard syntax",
    "}": "sets and dicts are not guard syntax",
    "`": "backticks are not guard syntax",
    "\\": "line continuations are not supported; write one guard per line",
}


@dataclass(frozen=True, slots=True)
class Token:
    """One token.

    Attributes:
        kind: ``"num"``, ``"name"``, ``"str"``, ``"op"`` or ``"end"`` (end of line).
        text: the token's text exactly as written (for ``"str"``: with its quotes).
        column: 1-based column of its first character.
        value: the decoded string of a ``"str"`` token; None otherwise.
    """

    kind: TokenKind
    text: str
    column: int
    value: str | None = None


def tokenize(line: str) -> list[Token]:
    r"""Split one line of guard text into tokens, ending with an ``"end"`` token.

    Args:
        line: the text (a comment after ``#`` is dropped).

    Returns:
        The tokens; an empty or comment-only line gives just the ``"end"`` token.

    Raises:
        GuardParseError: a character or literal that guard text cannot contain.

    >>> [t.text for t in tokenize("Eq(s0 // 2, 3)")]
    ['Eq', '(', 's0', '//', '2', ',', '3', ')', '']
    >>> tokenize("L['a\\'b']")[2].value
    "a'b"
    """
    if len(line) > MAX_LINE_LENGTH:
        raise GuardParseError(
            f"line too long ({len(line)} characters, at most {MAX_LINE_LENGTH}); split the guard set into one guard per line",
            line[:80],
            1,
            "",
        )
    tokens: list[Token] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in _WHITESPACE:
            i += 1
        elif c == "#":  # a comment runs to the end of the line (a newline after it is still an error)
            end = line.find("\n", i)
            i = n if end < 0 else end
        elif c in _DIGITS or (c == "." and i + 1 < n and line[i + 1] in _DIGITS):
            i = _number(line, i, tokens)
        elif c in _IDENT_START:
            j = i + 1
            while j < n and line[j] in _IDENT_CHARS:
                j += 1
            if j - i > MAX_NAME_LENGTH:
                raise GuardParseError(f"name too long (at most {MAX_NAME_LENGTH} characters)", line, i + 1, line[i:j])
            tokens.append(Token("name", line[i:j], i + 1))
            i = j
        elif c in "'\"":
            i = _string(line, i, tokens)
        elif line[i : i + 2] in _TWO_CHAR_OPERATORS:  # before their one-character prefixes
            tokens.append(Token("op", line[i : i + 2], i + 1))
            i += 2
        elif c in _OPERATORS:
            tokens.append(Token("op", c, i + 1))
            i += 1
        else:
            hint = _HINTS.get(c, "guards use only numbers, names, L['...'], operators and parentheses")
            raise GuardParseError(f"unexpected character ({hint})", line, i + 1, c)
    tokens.append(Token("end", "", len(line) + 1))
    return tokens


def _number(line: str, i: int, tokens: list[Token]) -> int:
    """Scan ``123``, ``1.5``, ``.5``, ``1e3``, ``2.5E-1``; return the index after it."""
    n, j = len(line), i
    while j < n and line[j] in _DIGITS:
        j += 1
    is_float = False
    if j < n and line[j] == "." and j + 1 < n and line[j + 1] in _DIGITS:
        is_float = True
        j += 1
        while j < n and line[j] in _DIGITS:
            j += 1
    if j < n and line[j] in "eE":
        k = j + 1
        if k < n and line[k] in "+-":
            k += 1
        if k < n and line[k] in _DIGITS:
            is_float = True
            j = k
            while j < n and line[j] in _DIGITS:
                j += 1
    text = line[i:j]
    if j < n and line[j] in _IDENT_CHARS:
        raise GuardParseError("a number runs into a name (missing operator?)", line, i + 1, line[i : j + 1])
    if not is_float and len(text) > MAX_INT_DIGITS:
        raise GuardParseError(f"integer literal too long (at most {MAX_INT_DIGITS} digits)", line, i + 1, text)
    if is_float and len(text) > 100:
        raise GuardParseError("decimal literal too long (at most 100 characters)", line, i + 1, text)
    tokens.append(Token("num", text, i + 1))
    return j


def _string(line: str, i: int, tokens: list[Token]) -> int:
    """Scan and decode a quoted string starting at ``line[i]``; return the index after it."""
    quote, n = line[i], len(line)
    out: list[str] = []
    j = i + 1
    while True:
        if j >= n:
            raise GuardParseError("unterminated string (a name in L['...'] must end with its quote)", line, i + 1, line[i : i + 20])
        c = line[j]
        if c == quote:
            break
        if c in "\n\r":
            raise GuardParseError("unterminated string (a name in L['...'] must end on its line; write \\n)", line, i + 1, line[i : i + 20])
        if c != "\\":
            out.append(c)
            j += 1
            continue
        if j + 1 >= n:
            raise GuardParseError("unterminated string (it ends with a backslash)", line, i + 1, line[i : i + 20])
        e = line[j + 1]
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            j += 2
        elif e in _HEX_ESCAPES:
            width = _HEX_ESCAPES[e]
            digits = line[j + 2 : j + 2 + width]
            if len(digits) != width or not all(d in _HEX for d in digits) or int(digits, 16) > 0x10FFFF:
                raise GuardParseError(f"bad \\{e} escape: expected {width} hex digits", line, j + 1, line[j : j + 2 + width])
            out.append(chr(int(digits, 16)))
            j += 2 + width
        else:
            raise GuardParseError("unsupported escape in a string", line, j + 1, line[j : j + 2])
    tokens.append(Token("str", line[i : j + 1], i + 1, "".join(out)))
    return j + 1


class TokenCursor:
    """A position in one line's tokens: look at, take, expect and complain about tokens.

    The one cursor of guard text: the expression parser (:mod:`guards.text.parse`) and the
    reader of access paths (:func:`guards.text.torch_sources.read_path`) both move one.

    >>> c = TokenCursor("L['x'] + 1")
    >>> c.take().text, c.at("["), c.peek(1).value
    ('L', True, 'x')
    >>> c.error("expected '('", c.peek()).column
    2
    """

    def __init__(self, text: str, tokens: list[Token] | None = None, line: int = 0):
        self.text, self.line = text, line
        self.tokens = tokenize(text) if tokens is None else tokens
        self.pos = 0

    def peek(self, ahead: int = 0) -> Token:
        """The token ``ahead`` places from the current one (the end token past the end)."""
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        """The current token, moving past it (the end token stays)."""
        tok = self.tokens[self.pos]
        if tok.kind != "end":
            self.pos += 1
        return tok

    def at(self, text: str, ahead: int = 0) -> bool:
        """Whether the token ``ahead`` places on is the operator or name ``text``."""
        tok = self.peek(ahead)
        return tok.kind in ("op", "name") and tok.text == text

    def expect(self, text: str, what: str) -> Token:
        """Take the operator or name ``text``, or raise a :class:`GuardParseError` saying ``what`` it was for."""
        if not self.at(text):
            raise self.error(f"expected {text!r} {what}", self.peek())
        return self.take()

    def error(self, message: str, tok: Token) -> GuardParseError:
        """A :class:`GuardParseError` at ``tok``'s column (and this cursor's line)."""
        fragment = tok.text if tok.kind != "end" else ""
        if tok.kind == "end":
            message += " (the text ended early)"
        return GuardParseError(message, self.text, tok.column, fragment, self.line)


# -- operators, keywords and functions ---------------------------------------------------------------

# Binding powers, as in Python (higher binds tighter); the printers use the same table.
PREC_OR, PREC_AND, PREC_NOT, PREC_CMP, PREC_BOR, PREC_BAND = 1, 2, 3, 4, 5, 7
PREC_ADD, PREC_MUL, PREC_UNARY, PREC_POW, PREC_ATOM = 10, 11, 12, 13, 14
#: Binary operator -> binding power.
BINARY_PRECEDENCE = {"or": PREC_OR, "and": PREC_AND, "|": PREC_BOR, "&": PREC_BAND, "+": PREC_ADD, "-": PREC_ADD, "*": PREC_MUL, "/": PREC_MUL, "//": PREC_MUL, "%": PREC_MUL}
#: The comparison operators.
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
for _op in COMPARISONS:
    BINARY_PRECEDENCE[_op] = PREC_CMP
#: Python keywords that are not guard syntax (``and or not True False`` are).
KEYWORDS = frozenset(
    "None as assert async await break class continue def del elif else except finally for from global if "
    "import in is lambda nonlocal pass raise return try while with yield".split()
)


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    """How to check and build one callable name: arity bounds, argument kind, builder (of :mod:`guards.text.values`)."""

    min_args: int
    max_args: int | None
    kind: Literal["int", "bool", "rel", "eq", "ite", "any"]
    build: Callable[..., Value]


def _binary(op: str) -> Callable[[Value, Value], Value]:
    return lambda a, b: arith(op, a, b)


def _folded(op: str) -> Callable[..., Value]:
    return lambda *args: balanced(_binary(op), list(args))


def _relation(op: str) -> Callable[[Value, Value], Value]:
    return lambda a, b: relation(op, a, b)


def _connective(kind: str) -> Callable[..., Value]:
    return lambda *args: connective(kind, list(args))


def _sympy_function(fn: Callable | str) -> Callable[..., Value]:
    """A builder calling ``fn``, or the node of :mod:`symint.sympy_io.functions` named ``fn`` (read on first call)."""
    if isinstance(fn, str):
        return lambda *args: call(getattr(_nodes, fn), args)
    return lambda *args: call(fn, args)


def _identity(x: Value) -> Value:
    return x


def _abs(a: Value) -> Value:
    return arith("max", a, neg(a))  # Max(a, -a): only this package's functions appear


def _pow_natural(a: Value, b: Value) -> Value:
    if type(b) is Form and b.is_const and b.const < 0:
        raise GuardValueError(f"PowByNatural needs an exponent >= 0, got {b.const}")
    return arith("**", a, b)


#: Function name -> how to check its arguments and build it (without the opaque functions: :func:`functions`).
_FUNCTIONS: dict[str, FunctionSpec] = {
    "Eq": FunctionSpec(2, 2, "eq", _relation("==")),
    "Ne": FunctionSpec(2, 2, "eq", _relation("!=")),
    "Lt": FunctionSpec(2, 2, "rel", _relation("<")),
    "Le": FunctionSpec(2, 2, "rel", _relation("<=")),
    "Gt": FunctionSpec(2, 2, "rel", _relation(">")),
    "Ge": FunctionSpec(2, 2, "rel", _relation(">=")),
    "And": FunctionSpec(1, None, "bool", _connective("and")),
    "Or": FunctionSpec(1, None, "bool", _connective("or")),
    "Not": FunctionSpec(1, 1, "bool", negate),
    "sym_not": FunctionSpec(1, 1, "bool", negate),
    "torch.sym_not": FunctionSpec(1, 1, "bool", negate),
    "Mod": FunctionSpec(2, 2, "int", _binary("%")),
    "PythonMod": FunctionSpec(2, 2, "int", _binary("%")),
    "FloorDiv": FunctionSpec(2, 2, "int", _binary("//")),
    "CeilDiv": FunctionSpec(2, 2, "int", _binary("ceildiv")),
    "IntTrueDiv": FunctionSpec(2, 2, "int", _binary("/")),
    "PowByNatural": FunctionSpec(2, 2, "int", _pow_natural),
    "Max": FunctionSpec(1, None, "int", _folded("max")),
    "Min": FunctionSpec(1, None, "int", _folded("min")),
    "max": FunctionSpec(2, None, "int", _folded("max")),
    "min": FunctionSpec(2, None, "int", _folded("min")),
    "sym_max": FunctionSpec(2, 2, "int", _binary("max")),
    "sym_min": FunctionSpec(2, 2, "int", _binary("min")),
    "torch.sym_max": FunctionSpec(2, 2, "int", _binary("max")),
    "torch.sym_min": FunctionSpec(2, 2, "int", _binary("min")),
    "Abs": FunctionSpec(1, 1, "int", _abs),
    "abs": FunctionSpec(1, 1, "int", _abs),
    "FloorToInt": FunctionSpec(1, 1, "int", _sympy_function("FloorToInt")),
    "CeilToInt": FunctionSpec(1, 1, "int", _sympy_function("CeilToInt")),
    "math.floor": FunctionSpec(1, 1, "int", _sympy_function("FloorToInt")),
    "math.ceil": FunctionSpec(1, 1, "int", _sympy_function("CeilToInt")),
    "IfThenElse": FunctionSpec(3, 3, "ite", _sympy_function(ite)),
    "Identity": FunctionSpec(1, 1, "any", _identity),
}


@lru_cache(maxsize=None)
def functions() -> dict[str, FunctionSpec]:
    """Function name -> how to check its arguments and build it; built by the first parse.

    Opaque functions (bitwise ops, float math; :mod:`symint.sympy_io.floats`) read back under
    their own names: their names are sympy classes', so the table imports sympy (Note [sympy
    on first use] in :mod:`symint.lazy_sympy`).

    >>> functions()["Max"].min_args, "BitwiseAnd" in functions()
    (1, True)
    """
    table = dict(_FUNCTIONS)
    for cls in _floats.OPAQUE_FUNCTIONS:
        arity = min(cls.nargs)
        table.setdefault(cls.__name__, FunctionSpec(arity, arity, "int", _sympy_function(cls)))
    return table


def function_spec(name: str) -> FunctionSpec | None:
    """How to build the function ``name``, or None if the parser knows none so called.

    The built-in table answers first, without sympy; only the names of opaque functions load
    :func:`functions` (and sympy): a stored guard set of sizes parses without sympy.

    >>> function_spec("Max").min_args, function_spec("BitwiseAnd").min_args, function_spec("nope")
    (1, 2, None)
    """
    spec = _FUNCTIONS.get(name)
    return spec if spec is not None else functions().get(name)


@lru_cache(maxsize=None)
def known_functions() -> tuple[str, ...]:
    """Every function name the parser accepts, sorted.

    >>> known_functions()[:3]
    ('Abs', 'abs', 'And')
    """
    return tuple(sorted(functions(), key=str.lower))


def __getattr__(name: str):
    """``FUNCTIONS`` and ``KNOWN_FUNCTIONS``, the tables of :func:`functions` and :func:`known_functions` (PEP 562)."""
    if name == "FUNCTIONS":
        return functions()
    if name == "KNOWN_FUNCTIONS":
        return known_functions()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: What may follow an input's name, for error messages.
SOURCE_ATTRS = "size()[i], size(i), shape[i], stride()[i], stride(i), storage_offset() or numel()"


def balanced(fn: Callable[[Value, Value], Value], items: list[Value]) -> Value:
    """Fold an associative ``fn`` over ``items`` as a balanced tree.

    A sum, product or ``Max`` is rebuilt whole at each step (a form copies its terms),
    so a balanced fold costs O(n log n) where a left fold costs O(n^2).

    >>> balanced(lambda a, b: a + b, [1, 2, 3, 4, 5])
    15
    """
    while len(items) > 1:
        paired = [fn(items[i], items[i + 1]) for i in range(0, len(items) - 1, 2)]
        if len(items) % 2:
            paired.append(items[-1])
        items = paired
    return items[0]
