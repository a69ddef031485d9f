"""Soundness of the canonicalising rewrites in ``symint.sympy_io.functions``.

Random *symbolic* expressions over x, y, z are built with ``symint.build`` (so the
rewrites fire: split of divisible terms, gcd cancellation, nested FloorDiv, nested
Mod, constant reduction, symbolic divisors), then evaluated with
``symint.evaluate`` at random integers and compared with the same computation
done directly in Python on those integers.

The one accepted difference (Note [Canonical forms] in ``symint.sympy_io.functions``): where
Python divides by zero, the canonical form may have a value (``(x*y)//x -> y``).
Where Python has a value, the canonical form must have the same one, and a
constant zero divisor found while building must mean that Python divides by zero
too.
"""

from __future__ import annotations

import operator

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symint import build, evaluate
from symint.build import symbol_expr

from ._util import msg, outcome, py_ceildiv

SYMBOLS = (symbol_expr("x"), symbol_expr("y"), symbol_expr("z"))

# A tree is ("sym", i) | ("const", k) | (op, child, ...) | ("lin", ((k, child), ...), c).
_BINARY = {
    "add": (build.add, operator.add),
    "sub": (build.sub, operator.sub),
    "mul": (build.mul, operator.mul),
    "floordiv": (build.floordiv, operator.floordiv),
    "ceildiv": (build.ceildiv, py_ceildiv),
    "mod": (build.mod, operator.mod),
    "max": (build.max_, max),
    "min": (build.min_, min),
}
_UNARY = {"neg": (build.neg, operator.neg), "abs": (build.abs_, abs)}


def to_expr(t) -> sympy.Expr:
    """Build the tree with ``symint.build`` (the code under test)."""
    op = t[0]
    if op == "sym":
        return SYMBOLS[t[1]]
    if op == "const":
        return sympy.Integer(t[1])
    if op in _BINARY:
        return _BINARY[op][0](to_expr(t[1]), to_expr(t[2]))
    if op in _UNARY:
        return _UNARY[op][0](to_expr(t[1]))
    if op == "pow":
        return build.pow_(to_expr(t[1]), t[2])
    if op == "lin":
        e = sympy.Integer(t[2])
        for k, child in t[1]:
            e = build.add(e, build.mul(k, to_expr(child)))
        return e
    raise AssertionError(op)


def to_python(t, v):
    """The same computation on Python ints (the reference)."""
    op = t[0]
    if op == "sym":
        return v[t[1]]
    if op == "const":
        return t[1]
    if op in _BINARY:
        return _BINARY[op][1](to_python(t[1], v), to_python(t[2], v))
    if op in _UNARY:
        return _UNARY[op][1](to_python(t[1], v))
    if op == "pow":
        return to_python(t[1], v) ** t[2]
    if op == "lin":
        return t[2] + sum(k * to_python(child, v) for k, child in t[1])
    raise AssertionError(op)


def show(t) -> str:
    """The tree as Python source, for failure messages."""
    op = t[0]
    if op == "sym":
        return "xyz"[t[1]]
    if op == "const":
        return str(t[1])
    infix = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%"}
    if op in infix:
        return f"({show(t[1])} {infix[op]} {show(t[2])})"
    if op == "ceildiv":
        return f"-(-{show(t[1])} // {show(t[2])})"
    if op in ("max", "min", "abs"):
        return f"{op}({', '.join(show(c) for c in t[1:])})"
    if op == "neg":
        return f"-{show(t[1])}"
    if op == "pow":
        return f"{show(t[1])}**{t[2]}"
    if op == "lin":
        return "(" + " + ".join([f"{k}*{show(c)}" for k, c in t[1]] + [str(t[2])]) + ")"
    raise AssertionError(op)


def check_sound(tree, points) -> None:
    built = outcome(to_expr, tree)
    for point in points:
        expected = outcome(to_python, tree, point)
        values = dict(zip(SYMBOLS, point))
        if built[0] == "raise":
            assert expected == ("raise", ZeroDivisionError), msg(
                f"building {show(tree)} divided by a constant zero, but Python does not",
                point,
                expected,
                built,
            )
            continue
        got = outcome(evaluate, built[1], values)
        if expected[0] == "raise":
            continue  # widening at a zero divisor, see the module docstring
        assert got == expected and type(got[1]) is int, msg(
            f"canonical form {built[1]} of {show(tree)} differs from Python", dict(zip("xyz", point)), expected, got
        )


# -- strategies -----------------------------------------------------------------------------------
#
# Trees are decoded from a byte string rather than drawn with ``st.recursive``: one draw per
# example keeps 2000 examples cheap, and hypothesis shrinks the bytes toward zeros, which decode
# to the simplest trees (a lone ``x``), so failures still come out small.


class _Bytes:
    """Reads a hypothesis-drawn byte string as a stream of small choices (zeros once exhausted)."""

    def __init__(self, data: bytes):
        self.data, self.i = data, 0

    def byte(self) -> int:
        b = self.data[self.i] if self.i < len(self.data) else 0
        self.i += 1
        return b

    def pick(self, seq):
        return seq[self.byte() % len(seq)]

    def int(self, lo: int, hi: int) -> int:
        """An int in [lo, hi]; byte 0 decodes to the value nearest 0."""
        b = self.byte() % (hi - lo + 1)
        v = (b + 1) // 2 * (1 if b % 2 else -1)  # 0, 1, -1, 2, -2, ...
        return v if lo <= v <= hi else lo + b

    def value(self) -> int:
        """A symbol's value: mostly in [-25, 25] (zero included), sometimes up to 2**70 in size."""
        if self.byte() % 8 != 7:
            return self.int(-25, 25)
        magnitude = int.from_bytes(bytes(self.byte() for _ in range(9)), "little") >> 2
        return magnitude if self.byte() % 2 else -magnitude

    def points(self, n: int) -> list[tuple[int, int, int]]:
        return [(self.value(), self.value(), self.value()) for _ in range(n)]


#: Divisors for which the rewrites have something to do (multiples of one another, both signs).
DIVISORS = [2, 3, 4, -2, -3, -4, 6, 8, 12, -6, -8, -12, 1, -1, 24]
FACTORS = [2, 3, 4, 6, 8, 12, 24, -2, -3, -4, -6, -1, 5, 7]
X, Y, Z = ("sym", 0), ("sym", 1), ("sym", 2)


def _c(k):
    return ("const", k)


def _leaf(r: _Bytes):
    b = r.byte()
    return ("sym", b % 3) if b % 4 != 3 else _c(r.int(-12, 12))


def _divisor(r: _Bytes, depth: int):
    kind = r.byte() % 5
    if kind <= 1:
        return _c(r.pick(DIVISORS))
    if kind == 2:
        return ("sym", r.byte() % 3)
    if kind == 3:
        return ("mul", ("sym", r.byte() % 3), r.pick([_c(d) for d in DIVISORS] + [X, Y, Z]))
    return random_tree(r, depth - 1)


def random_tree(r: _Bytes, depth: int):
    """Any expression: sums, products, divisions by constants/symbols/products, max/min, abs, powers."""
    b = r.byte()
    if depth <= 0 or b < 64:
        return _leaf(r)
    op = ["add", "sub", "mul", "floordiv", "ceildiv", "mod", "lin", "lin", "max", "min", "neg", "abs", "pow",
          "floordiv", "mod", "ceildiv"][b % 16]
    if op in ("neg", "abs"):
        return (op, random_tree(r, depth - 1))
    if op == "pow":
        return (op, random_tree(r, depth - 1), r.byte() % 4)
    if op == "lin":
        n = 1 + r.byte() % 3
        return (op, tuple((r.pick(FACTORS), random_tree(r, depth - 1)) for _ in range(n)), r.int(-30, 30))
    if op in ("floordiv", "ceildiv", "mod"):
        return (op, random_tree(r, depth - 1), _divisor(r, depth))
    return (op, random_tree(r, depth - 1), random_tree(r, depth - 1))


def _linear(r: _Bytes, syms=(X, Y)):
    """``k1*x + k2*y + c``, coefficients often multiples of a divisor."""
    return ("lin", tuple((r.pick(FACTORS) if r.byte() % 2 else r.int(-30, 30), s) for s in syms), r.int(-30, 30))


def template_tree(r: _Bytes):
    """An expression shaped so that one particular rewrite rule applies (or nearly applies)."""
    kind = r.byte() % 11
    d, d2, m = r.pick(DIVISORS + [5, -5, 7, 9]), r.pick(DIVISORS + [5, -7]), r.pick(DIVISORS + [5, 9, -10])
    g = 1 + r.byte() % 6
    k = r.pick(FACTORS + [0, 1])
    div = r.pick(["floordiv", "ceildiv", "mod"])
    lin = _linear(r)
    if kind == 0:  # split of divisible terms, constant reduction
        return (div, lin, _c(d))
    if kind == 1:  # gcd cancellation: g*(k1 x + k2 y + c) // (g*d)
        return (div, ("lin", tuple((g * c, s) for c, s in lin[1]), g * lin[2]), _c(g * d))
    if kind == 2:  # nested floor division, both signs
        return (div, ("floordiv", ("lin", ((1, X),), lin[2]), _c(d)), _c(d2))
    if kind == 3:  # nested Mod, both orders and signs
        return ("mod", ("mod", lin, _c(m)), _c(d))
    if kind == 4:  # Mod of a multiple: Mod(Mod(x, d*k), d)
        return ("mod", ("mod", X, _c(d * k or d)), _c(d))
    if kind == 5:  # modular indexing (x // d) % m of a scaled sum
        return ("mod", ("floordiv", ("lin", ((d * k or d, X), (1, Y)), lin[2]), _c(d)), _c(m))
    if kind == 6:  # symbolic divisor: (k*x*y + r) / x
        return (div, ("add", ("mul", _c(k), ("mul", X, Y)), lin), X)
    if kind == 7:  # symbolic divisor with a factor: (k*d*x*y + c*x + r) / (d*x)
        num = ("lin", ((k * d, ("mul", X, Y)), (r.int(-30, 30), X), (r.int(-30, 30), Z)), lin[2])
        return (div, num, ("mul", _c(d), X))
    if kind == 8:  # Max/Min flattening, constants, duplicates
        op = r.pick(["max", "min"])
        return (op, (op, lin, _c(d)), (op, X, ("max", _c(m), lin)))
    if kind == 9:  # a product with a sum inside, over a scaled symbol: x*(y + Mod(y, z)) / (d*x)
        inner = ("add", Y, ("mod", Y, Z)) if r.byte() % 2 else lin
        return (div, ("mul", X, inner), ("mul", _c(d), X))
    # kind 10: divisor a product of symbols, numerator a multiple of it plus a rest
    return (div, ("add", ("mul", ("mul", X, Y), ("lin", ((1, Z),), k)), lin), ("mul", X, Y))


TREE_BYTES = 40
#: One draw per example: the tree's bytes, then the bytes of 3 points (x, y, z).
codes = st.binary(min_size=TREE_BYTES + 3 * 3 * 11, max_size=TREE_BYTES + 3 * 3 * 11)


@settings(max_examples=2000, deadline=None)
@given(code=codes)
def test_random_symbolic_expressions_are_sound(code):
    check_sound(random_tree(_Bytes(code[:TREE_BYTES]), depth=4), _Bytes(code[TREE_BYTES:]).points(3))


@settings(max_examples=2000, deadline=None)
@given(code=codes)
def test_each_rewrite_rule_is_sound(code):
    check_sound(template_tree(_Bytes(code[:TREE_BYTES])), _Bytes(code[TREE_BYTES:]).points(3))


def test_small_grid_exhaustively():
    """A dense check of the rules on every point of a small grid (no sampling luck involved)."""
    x = SYMBOLS[0]
    cases = []
    for d in (-4, -3, 2, 3, 4, 6):
        for c in (-7, 0, 5):
            cases += [
                ("floordiv", ("lin", ((4, X), (1, Y)), c), _c(d)),
                ("ceildiv", ("lin", ((6, X), (2, Y)), 2 * c), _c(2 * d)),
                ("mod", ("lin", ((12, X), (1, Y)), c), _c(d)),
                ("floordiv", ("floordiv", ("lin", ((1, X),), c), _c(d)), _c(3)),
                ("floordiv", ("floordiv", ("lin", ((1, X),), c), _c(3)), _c(d)),
                ("mod", ("mod", ("lin", ((1, X),), c), _c(12)), _c(d)),
                ("mod", ("mod", ("lin", ((1, X),), c), _c(d)), _c(12)),
                ("mod", ("mod", ("lin", ((1, X),), c), _c(d)), _c(-12)),
                ("floordiv", ("lin", ((d, ("mul", X, Y)), (1, Y)), c), ("mul", _c(d), X)),
                ("mod", ("lin", ((d, ("mul", X, Y)), (1, Y)), c), X),
                ("floordiv", ("mul", X, ("lin", ((1, Y),), c)), ("mul", _c(d), X)),
                ("ceildiv", ("mul", X, ("lin", ((1, Y),), c)), ("mul", _c(d), X)),
            ]
    grid = [(a, b, 0) for a in range(-9, 10) for b in range(-9, 10)]
    for tree in cases:
        check_sound(tree, grid)
    assert build.floordiv(build.floordiv(x, 3), 2) == build.floordiv(x, 6)  # the rules did fire
    assert build.mod(build.mod(x, 12), 4) == build.mod(x, 4)
