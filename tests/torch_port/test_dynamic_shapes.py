"""Ported from pytorch ``test/test_dynamic_shapes.py`` (TestPySymInt, TestFloorDiv, TestGuardsExpressions,
TestUnbacked): each test names the torch test it translates; expected values are torch's asserts.

Differences of spelling, not of behaviour: torch names symbols by hash (``s97``), we by order
(``s0``); torch's ``OpaqueUnaryFn_sqrt``/``BitwiseFn_bitwise_and``/``ToFloat`` are our
``FloatSqrt``/``BitwiseAnd`` (and an integer expression used as a float needs no ``ToFloat``).
"""

from __future__ import annotations

import copy
import itertools
import math
import operator

import numpy as np
import pytest
import sympy

from guards import Source
from shapeenv import (
    ShapeEnv,
    GuardOnDataDependentSymNode,
    CheckFailedError,
    ShapeError,
    check,
    guard_or_false,
    guard_or_true,
    mark_unbacked,
    ops,
    statically_known_false,
    statically_known_true,
)
from shapeenv.compile import compile
from symint import FloorDiv, SymBool, SymFloat, SymInt, evaluate, sym_float, sym_ite, sym_max, sym_sqrt, sym_sum
from symint.build import symbol_expr

from .helpers import create_symbolic_tensor, create_symint, guard_strs


# -- TestPySymInt ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.floordiv, operator.mul, operator.mod])
def test_arith_ops(op) -> None:
    """torch TestPySymInt.test_arith_ops."""
    env = ShapeEnv()
    symints = [(i, create_symint(env, i)) for i in range(2, 5)]
    for (ha, a), (hb, b) in itertools.permutations(symints, 2):
        assert op(a, b) == op(ha, hb)


def test_reverse_arith_ops() -> None:
    """torch TestPySymInt.test_reverse_arith_ops."""
    env = ShapeEnv()
    a = create_symint(env, 2)
    assert 5 // a == 5 // 2
    assert 5 * a == 5 * 2


def test_sympify_symint() -> None:
    """torch TestPySymInt.test_sympify_symint: sympify returns the node's expression itself."""
    env = ShapeEnv()
    a = create_symint(env, 2)
    assert sympy.sympify(a) is a.node.expr
    b = create_symint(env, 3) / 2.0
    assert sympy.sympify(b) is b.node.expr
    c = create_symint(env, 4) == 4
    assert sympy.sympify(c) is c.node.expr
    assert not env.guards


def test_roundtrip() -> None:
    """torch TestPySymInt.test_roundtrip."""
    env = ShapeEnv()
    x = create_symbolic_tensor("x", (5, 4, 3), env)
    assert isinstance(x.shape[0], SymInt)
    assert x.shape[0] == 5 and x.shape[1] == 4 and x.shape[2] == 3
    assert x.size()[0] == 5 and x.size(1) == 4 and x.size(2) == 3
    assert isinstance(x.size(2), SymInt)


def test_binary() -> None:
    """torch TestPySymInt.test_binary (with broadcasting)."""
    env = ShapeEnv()
    x = create_symbolic_tensor("x", (5, 4, 3), env)
    y = create_symbolic_tensor("y", (5, 4, 3), env)
    z = x + y
    assert z.shape[0] == 5 and z.shape[1] == 4 and z.shape[2] == 3
    y2 = create_symbolic_tensor("y2", (1, 4, 1), env)
    z = x + y2
    assert z.shape[0] == 5 and z.shape[1] == 4 and z.shape[2] == 3


def test_symint_args() -> None:
    """torch TestPySymInt.test_symint_args (narrow_copy -> narrow)."""
    env = ShapeEnv()
    x = create_symbolic_tensor("x", (5, 4, 3), env)
    y = create_symbolic_tensor("y", (5, 4, 1), env)
    z = x.narrow(2, 0, y.shape[2])
    assert z.shape[2] == y.shape[2]
    z = x.narrow(2, 0, x.shape[2] - y.shape[2])
    assert z.shape[2] == 2
    z = x.narrow(2, 0, x.shape[2] - 1)
    assert z.shape[2] == 2


def test_symint_vargs() -> None:
    """torch TestPySymInt.test_symint_vargs (expand with SymInts, ints and lists)."""
    env = ShapeEnv()
    x = create_symbolic_tensor("x", (5, 4, 3), env)
    y = create_symbolic_tensor("y", (1, 4, 1), env)
    for z in (
        y.expand(x.shape[0], y.shape[1], x.shape[2]),
        y.expand((x.shape[0], y.shape[1], x.shape[2])),
        y.expand(x.shape[0], y.shape[1], 3),
        y.expand((5, y.shape[1], x.shape[2])),
    ):
        assert z.shape[0] == 5 and z.shape[1] == 4 and z.shape[2] == 3


def test_symint_bitwise_and() -> None:
    """torch TestPySymInt.test_symint_bitwise_and."""
    env = ShapeEnv()
    a0, b0 = create_symint(env, 0b1100), create_symint(env, 0b1010)
    res_and = a0 & b0
    assert res_and == 0b1000
    assert isinstance(res_and, SymInt)
    assert guard_strs(env)[0] == "Eq(BitwiseAnd(s0, s1), 8)"  # torch: Eq(BitwiseFn_bitwise_and(s97, s26), 8)
    a1 = create_symint(env, 3)
    assert (a1 & True) == 1
    a2 = create_symint(env, 0b1100)
    assert (a2 & 0b1010) == 0b1000


def test_symint_bitwise_or() -> None:
    """torch TestPySymInt.test_symint_bitwise_or."""
    env = ShapeEnv()
    a0, b0 = create_symint(env, 0b1100), create_symint(env, 0b1010)
    res_or = a0 | b0
    assert res_or == 0b1110
    assert isinstance(res_or, SymInt)
    assert guard_strs(env)[0] == "Eq(BitwiseOr(s0, s1), 14)"


def test_stride() -> None:
    """torch TestPySymInt.test_stride."""
    env = ShapeEnv()
    x = create_symbolic_tensor("x", (5, 5), env)
    assert isinstance(x.stride()[0], SymInt)


def test_size_expressions() -> None:
    """torch TestPySymInt.test_size_expressions: the branch records a strict ``>`` guard on x's size."""
    env = ShapeEnv()
    x = create_symbolic_tensor("x", (5,), env)
    expand_x = x.expand(x.shape[0], x.shape[0])
    if expand_x.shape[0] > 3:
        result = expand_x + expand_x
    else:
        result = expand_x + expand_x
    gt_op = env.guards[-1].expr
    assert isinstance(gt_op, sympy.core.relational.StrictGreaterThan)
    assert str(gt_op.args[0]) == str(x.shape[0])
    assert str(expand_x.shape[1]) == str(x.shape[0]) == str(result.shape[0])


def test_floordiv_static() -> None:
    """torch TestPySymInt.test_floordiv_static."""
    env = ShapeEnv()
    s0 = create_symint(env, 8)
    bool(s0 % 2 == 0)
    bool(s0 % (s0 // 2) == 0)
    bool(2 * (s0 // 2) == s0)
    assert statically_known_true(s0 // (s0 // 2) == 2)


def test_numel() -> None:
    """torch TestPySymInt.test_numel."""
    env = ShapeEnv()
    x = create_symbolic_tensor("x", (5,), env)
    assert isinstance(x.numel(), SymInt)
    assert isinstance(ShapeEnv().fake_tensor((3, 3), dynamic=False).numel(), int)


def test_int_to_float() -> None:
    """torch TestPySymInt.test_int_to_float."""
    env = ShapeEnv()
    x = create_symbolic_tensor("x", (5,), env)
    assert isinstance(sym_float(x.shape[0]), SymFloat)


def test_meta_symint() -> None:
    """torch TestPySymInt.test_meta_symint: empty(a0) has a SymInt size."""
    env = ShapeEnv()
    a0 = create_symint(env, 2)
    assert isinstance(ops.empty(a0).shape[0], SymInt)


def test_guard_int() -> None:
    """torch TestPySymInt.test_guard_int."""
    env = ShapeEnv()
    a0 = create_symint(env, 2)
    assert int(a0) == 2
    assert guard_strs(env)[0] == "Eq(s0, 2)"


def test_sym_sum() -> None:
    """torch TestPySymInt.test_sym_sum."""
    env = ShapeEnv()
    s0, s1, s2 = (create_symint(env, v) for v in (2, 3, 4))
    assert (s0 + s1 + s2).node.expr == sym_sum([s0, s1, s2]).node.expr


def test_sym_int() -> None:
    """torch TestPySymInt.test_sym_int (sym_int(a) -> int(a); sym_int(a / 2) -> math.trunc)."""
    env = ShapeEnv()
    a0 = create_symint(env, 5)
    assert int(a0) == 5
    assert guard_strs(env)[0] == "Eq(s0, 5)"
    a1 = create_symint(env, 7)
    r = math.trunc(a1 / 2)
    assert isinstance(r, SymInt) and int(r) == 3
    a3 = create_symint(env, 3)
    r = math.trunc(2.0 * sym_float(a3))
    assert isinstance(r, SymInt) and int(r) == 6


def test_sym_sqrt() -> None:
    """torch TestPySymInt.test_sym_sqrt."""
    env = ShapeEnv()
    a0 = create_symint(env, 4)
    r = sym_sqrt(a0)
    assert r == 2
    assert isinstance(r, SymFloat)
    # torch: Eq(OpaqueUnaryFn_sqrt(ToFloat(s97)), 2.0); we compare with the int as written (2), not 2.0
    assert guard_strs(env)[0] == "Eq(FloatSqrt(s0), 2)"


def test_sym_floor() -> None:
    """torch TestPySymInt.test_sym_floor."""
    env = ShapeEnv()
    a0 = create_symint(env, 5)
    r = math.floor(a0 / 2)
    assert r == 2 and isinstance(r, SymInt)
    assert guard_strs(env)[0] == "Eq(FloorToInt(IntTrueDiv(s0, 2)), 2)"
    r = math.floor(3.0 * a0)
    assert r == 15 and isinstance(r, SymInt)
    assert guard_strs(env)[1] == "Eq(FloorToInt(3.0*s0), 15)"  # torch: FloorToInt(3.0*ToFloat(s97))


def test_sym_trunc() -> None:
    """torch TestPySymInt.test_sym_trunc."""
    env = ShapeEnv()
    a0 = create_symint(env, 5)
    r = math.trunc(a0 / 2)
    assert r == 2 and isinstance(r, SymInt)
    r = math.trunc(sym_sqrt(a0))
    assert r == 2 and isinstance(r, SymInt)


def test_sym_ceil() -> None:
    """torch TestPySymInt.test_sym_ceil."""
    env = ShapeEnv()
    a0 = create_symint(env, 5)
    r = math.ceil(a0 / 2)
    assert r == 3 and isinstance(r, SymInt)
    assert guard_strs(env)[0] == "Eq(CeilToInt(IntTrueDiv(s0, 2)), 3)"
    r = math.floor(3.0 * a0)
    assert r == 15 and isinstance(r, SymInt)


def test_sym_ite() -> None:
    """torch TestPySymInt.test_sym_ite."""
    env = ShapeEnv()
    t, f = create_symint(env, 5), create_symint(env, 4)
    assert sym_ite(True, t, f) is t
    assert sym_ite(False, t, f) is f
    r3 = sym_ite(t == 5, t, f)
    assert len(env.guards) == 0
    assert r3 == 5 and type(r3) is type(t)
    r4 = sym_ite(f == 5, t, f)
    assert len(env.guards) == 1
    assert r4 == 4 and type(r4) is type(f)


def test_int_conversion() -> None:
    """torch TestPySymInt.test_int_conversion."""
    env = ShapeEnv()
    int(create_symint(env, 2))
    assert guard_strs(env)[0] == "Eq(s0, 2)"


def test_data_dependent_guard() -> None:
    """torch TestPySymInt.test_data_dependent_guard."""
    env = ShapeEnv()
    s0 = env.create_unbacked_symint()
    with pytest.raises(GuardOnDataDependentSymNode):
        bool(s0 == 0)


def test_expect_true_basic() -> None:
    """torch TestPySymInt.test_expect_true_basic (expect_true -> check): a replacement, then no error."""
    env = ShapeEnv()
    i0 = env.create_unbacked_symint()
    check(i0 == 0)
    assert env.replacements[i0.node.expr] == 0
    assert bool(i0 == 0)


def test_expect_true_with_s0() -> None:
    """torch TestPySymInt.test_expect_true_with_s0."""
    env = ShapeEnv()
    s0 = create_symint(env, 5)
    i0 = env.create_unbacked_symint()
    check(i0 < s0)
    assert [str(r.expr) for r in env.runtime_asserts] == ["u0 < s0"]
    assert i0 < s0
    assert i0 != s0
    assert not (i0 > s0)
    assert not (i0 >= s0)


def test_expect_true_prefer_later() -> None:
    """torch TestPySymInt.test_expect_true_prefer_later: the later symbol is the one solved for."""
    env = ShapeEnv()
    i0, i1 = env.create_unbacked_symint(), env.create_unbacked_symint()
    check(i0 + i1 == 10)
    assert i1.node.expr in env.replacements and i0.node.expr not in env.replacements
    assert i0 + i1 == 10


def test_unbacked_substitution() -> None:
    """torch TestPySymInt.test_unbacked_substitution: printing keeps the symbol's own name."""
    env = ShapeEnv()
    i0, i1 = env.create_unbacked_symint(size_like=True), env.create_unbacked_symint(size_like=True)
    check(i0 == i1 * 4)
    assert str(i0) == "u0"
    i2, i3 = env.create_unbacked_symint(size_like=True), env.create_unbacked_symint(size_like=True)
    check(i2 * 4 == i3)
    assert str(i3) == "u3"


def test_avoid_unbacked_substitution() -> None:
    """torch TestPySymInt.test_avoid_unbacked_substitution."""
    env = ShapeEnv()
    i0, i1 = env.create_unbacked_symint(size_like=True), env.create_unbacked_symint(size_like=True)
    check(i0 == 10 - i1)
    assert str(i0) == "u0"


def test_expect_true_double_digits() -> None:
    """torch TestPySymInt.test_expect_true_double_digits."""
    env = ShapeEnv()
    ia = [env.create_unbacked_symint() for _ in range(11)]
    assert str(ia[-1]) == "u10"
    check(sum(ia) == 20)
    assert len(env.runtime_asserts) == 1


_ABOVE_FOUR = [lambda x: x > 4, lambda x: 4 < x, lambda x: x >= 5, lambda x: 5 <= x]
_BELOW_FOUR = [lambda x: x < 4, lambda x: 4 > x, lambda x: x <= 3, lambda x: 3 >= x]


@pytest.mark.parametrize("i", range(4))
def test_expect_true_refine_range(i) -> None:
    """torch TestPySymInt.test_expect_true_refine_range."""
    env = ShapeEnv()
    i0 = env.create_unbacked_symint()
    check(_ABOVE_FOUR[i](i0))
    assert statically_known_true(i0 != 3) and statically_known_true(i0 != 4)
    assert not statically_known_true(i0 != 5) and not statically_known_true(i0 != 6)
    assert statically_known_true(i0 > 4) and statically_known_true(i0 >= 5)
    i1 = env.create_unbacked_symint()
    check(_BELOW_FOUR[i](i1))
    assert not statically_known_true(i1 != 2) and not statically_known_true(i1 != 3)
    assert statically_known_true(i1 != 4) and statically_known_true(i1 != 5)
    assert statically_known_true(i1 < 4) and statically_known_true(i1 <= 5)


@pytest.mark.parametrize("i", range(4))
def test_guard_refine_range(i) -> None:
    """torch TestPySymInt.test_guard_refine_range (the four loops)."""
    env = ShapeEnv()
    i0 = create_symint(env, 10, duck=False)
    assert bool(_ABOVE_FOUR[i](i0))
    assert statically_known_true(i0 != 3) and statically_known_true(i0 != 4)
    assert not statically_known_true(i0 != 5) and not statically_known_true(i0 != 6)
    assert statically_known_true(i0 > 4) and statically_known_true(i0 >= 5)

    i0 = create_symint(env, 2, duck=False)
    assert not bool(_ABOVE_FOUR[i](i0))
    assert not statically_known_true(i0 != 3) and not statically_known_true(i0 != 4)
    assert statically_known_true(i0 != 5) and statically_known_true(i0 != 6)
    assert statically_known_true(i0 <= 4) and statically_known_true(i0 < 5)

    i0 = create_symint(env, 2, duck=False)
    assert bool(_BELOW_FOUR[i](i0))
    assert not statically_known_true(i0 != 2) and not statically_known_true(i0 != 3)
    assert statically_known_true(i0 != 4) and statically_known_true(i0 != 5)
    assert statically_known_true(i0 < 4) and statically_known_true(i0 <= 3)

    i0 = create_symint(env, 10, duck=False)
    assert not bool(_BELOW_FOUR[i](i0))
    assert statically_known_true(i0 != 2) and statically_known_true(i0 != 3)
    assert not statically_known_true(i0 != 4) and not statically_known_true(i0 != 5)
    assert statically_known_true(i0 >= 4) and statically_known_true(i0 > 3)


def test_mul_int_oo_nan() -> None:
    """torch TestPySymInt.test_mul_int_oo_nan: deciding this does not crash on infinite bounds."""
    env = ShapeEnv()
    s0, s1, s2 = (create_symint(env, v, duck=False) for v in (5, 6, 5))
    assert bool(s0 * (s1 // s0) == s2)


def test_sym_max_multi_max_simplify() -> None:
    """torch TestPySymInt.test_sym_max_multi_max_simplify."""
    env = ShapeEnv()
    u0 = env.create_unbacked_symint()
    assert statically_known_true(sym_max(1, sym_max(257, u0)) == sym_max(257, u0))


@pytest.mark.parametrize("a, b, expected", [(10, 12, 12), (12, 10, 12), (10, 12.5, 12.5), (14, 12.5, 14.0)])
def test_numpy_sym_max(a, b, expected) -> None:
    """torch TestPySymInt.test_numpy_sym_max."""
    assert sym_max(np.int64(a), b) == expected


def test_specialize_zero_one() -> None:
    """torch TestPySymInt.test_specialize_zero_one."""
    env = ShapeEnv(specialize_zero_one=True)
    a0 = create_symint(env, 5)
    assert a0 != 1
    assert len(env.guards) == 0
    env = ShapeEnv(specialize_zero_one=False)
    a0 = create_symint(env, 5)
    assert a0 != 1
    assert len(env.guards) == 1


def test_duck_shape() -> None:
    """torch TestPySymInt.test_duck_shape."""
    env = ShapeEnv(duck_shape=True)
    a0, a1 = create_symint(env, 5), create_symint(env, 5)
    assert a0 == a1
    assert len(env.guards) == 0
    env = ShapeEnv(duck_shape=False)
    a0, a1 = create_symint(env, 5), create_symint(env, 5)
    assert a0 == a1
    assert len(env.guards) == 1


def test_int_bool() -> None:
    """torch TestPySymInt.test_int_bool (pytorch issue 95981): truthiness of a size needs no guard."""
    env = ShapeEnv(duck_shape=True)
    a0 = create_symint(env, 5)
    assert a0
    assert len(env.guards) == 0


def test_deepcopy() -> None:
    """torch TestPySymInt.test_deepcopy."""
    env = ShapeEnv()
    a0 = create_symint(env, 2)
    assert a0 < 4
    assert len(copy.deepcopy(env).guards) == 1


def test_statically_known_true() -> None:
    """torch TestPySymInt.test_statically_known_true."""
    env = ShapeEnv()
    s2, s3, s4 = (create_symint(env, i) for i in range(2, 5))
    assert statically_known_true(True)
    assert statically_known_true(s2 == s2)
    assert statically_known_true(s2 * s3 > s3)
    assert statically_known_true(s3 * s4 > s4)
    assert statically_known_true((s3 + s3) % 2 == 0)
    assert not statically_known_true(False)
    assert not statically_known_true(s3 * s4 <= s4)
    assert not statically_known_true((s3 + s3) % 2 == 1)
    assert not statically_known_true(s2 + s2 == s4)
    assert not statically_known_true(s4 % s2 == 0)
    assert not statically_known_true(s2 != s3)
    assert not statically_known_true(s3 * s4 > s2)
    assert not statically_known_true(s2 == s3)
    assert not statically_known_true(s2 > s3)
    assert not statically_known_true(s3 + s3 == s4)
    assert len(env.guards) == 0


def test_statically_known_false() -> None:
    """torch TestPySymInt.test_statically_known_false."""
    env = ShapeEnv()
    s2, s3, s4 = (create_symint(env, i) for i in range(2, 5))
    assert not statically_known_false(True)
    assert not statically_known_false(s2 == s2)
    assert not statically_known_false(s2 * s3 > s3)
    assert not statically_known_false(s3 * s4 > s4)
    assert not statically_known_false((s3 + s3) % 2 == 0)
    assert statically_known_false(False)
    assert statically_known_false(s3 * s4 <= s4)
    assert statically_known_false((s3 + s3) % 2 == 1)
    assert not statically_known_false(s2 + s2 == s4)
    assert not statically_known_false(s4 % s2 == 0)
    assert not statically_known_false(s2 != s3)
    assert not statically_known_false(s3 * s4 > s2)
    assert not statically_known_false(s2 == s3)
    assert not statically_known_false(s2 > s3)
    assert not statically_known_false(s3 + s3 == s4)
    assert len(env.guards) == 0


# -- TestSymNumberMagicMethods (a representative slice: each op on symbolic and plain operands) -----
_MAGIC = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
    "mod": operator.mod, "truediv": operator.truediv, "pow": operator.pow, "lshift": operator.lshift,
    "rshift": operator.rshift, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
}


@pytest.mark.parametrize("fn", sorted(_MAGIC))
def test_method(fn) -> None:
    """torch TestSymNumberMagicMethods.test_method (int operands): the guarded result equals Python's,
    with the first, the second or both operands symbolic."""
    op = _MAGIC[fn]
    for inp1, inp2 in itertools.product((0, 1, 2, -2, 5), repeat=2):
        if fn in ("floordiv", "mod", "truediv") and inp2 == 0:
            continue
        if fn in ("lshift", "rshift") and inp2 < 0:
            continue
        if fn == "pow" and (inp2 < 0 or inp2 > 4):
            continue
        ref = op(inp1, inp2)
        env = ShapeEnv(specialize_zero_one=False, duck_shape=False)
        a, b = create_symint(env, inp1, duck=False), create_symint(env, inp2, duck=False)
        for x, y in ((a, inp2), (inp1, b), (a, b)):
            out = op(x, y)
            concrete = bool(out) if isinstance(out, SymBool) else (float(out) if isinstance(out, SymFloat) else int(out))
            assert concrete == ref, (fn, inp1, inp2)


def test_symint_hashing() -> None:
    """torch TestSymNumberMagicMethods.test_symint_hashing (an expectedFailure in torch: SymInt is unhashable)."""
    env = ShapeEnv()
    with pytest.raises(TypeError):
        hash(create_symint(env, 3))


def test_symnode_hashing() -> None:
    """torch TestSymNumberMagicMethods.test_symnode_hashing: hashing a SymBool/SymFloat specialises it."""
    env = ShapeEnv()
    hash(create_symint(env, 3) == 3)
    hash(create_symint(env, 4) / 2.0)
    assert len(env.guards) == 2


# -- TestFloorDiv ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("x, y", [(7, 2), (2, 1)])
def test_floordiv(x, y) -> None:
    """torch TestFloorDiv.test_floordiv_float_int / test_floordiv_div_by_one (all sign combinations)."""
    for a, b in ((x, y), (-x, y), (x, -y), (-x, -y)):
        assert FloorDiv(a, b) == a // b


def test_floordiv_simplify() -> None:
    """torch TestFloorDiv.test_floordiv_simplify."""
    env = ShapeEnv()
    expr = 7 * FloorDiv(6, 2)
    assert expr == 21
    assert sympy.simplify(expr) == 21
    assert env.simplify(expr) == 21


def test_floordiv_assumptions() -> None:
    """torch TestFloorDiv.test_floordiv_assumptions: FloorDiv of integers is an integer."""
    i1, i2 = sympy.Symbol("i1", integer=True), sympy.Symbol("i2", integer=True)
    for base, divisor in itertools.product((i1, i2), repeat=2):
        op = FloorDiv(base, divisor)
        assert op.is_integer and op.is_real


# -- TestGuardsExpressions -------------------------------------------------------------------------------
def _with(env, sym, value) -> dict:
    """Every input at its traced value, except ``sym``'s source at ``value`` (torch's produce_guards_expression([s0]))."""
    out = {info.sources[0]: info.hint for info in env.symbols.values() if info.sources}
    out[env.symbols[sym.node.expr].sources[0]] = value
    return out


def test_guards_gt_lt() -> None:
    """torch TestGuardsExpressions.test_guards_gt_lt."""
    env = ShapeEnv()
    s0 = create_symint(env, 6)
    create_symint(env, 7), create_symint(env, 5)
    int(s0 > 5)
    int(s0 < 7)
    guards = env.produce_guards()
    assert guards.holds(_with(env, s0, 6))
    assert not guards.holds(_with(env, s0, 7))
    assert not guards.holds(_with(env, s0, 5))


def test_guards_float_print() -> None:
    """torch TestGuardsExpressions.test_guards_float_print."""
    env = ShapeEnv()
    s0 = create_symint(env, 3)
    bool(2 / s0 == 2 / 3)
    assert env.produce_guards().holds(_with(env, s0, 3))


def test_guards_float_div() -> None:
    """torch TestGuardsExpressions.test_guards_float_div."""
    env = ShapeEnv()
    s0 = create_symint(env, 8)
    create_symint(env, 7)
    int(math.trunc(s0 / 2.0))
    guards = env.produce_guards()
    assert guards.holds(_with(env, s0, 8))
    assert not guards.holds(_with(env, s0, 7))


def test_guard_or_true() -> None:
    """torch TestGuardsExpressions.test_guard_or_true: undecidable data-dependent answers default to True."""
    env = ShapeEnv()
    x = env.fake_tensor((), "int64", name="a").item()
    assert guard_or_true(x == 1) is True
    assert guard_or_true(x != x) is False  # statically known


def test_guard_or_false() -> None:
    """torch TestGuardsExpressions.test_guard_or_false."""
    env = ShapeEnv()
    x = env.fake_tensor((), "int64", name="a").item()
    assert guard_or_false(x == 1) is False
    assert guard_or_false(x == x) is True


# -- TestUnbacked ---------------------------------------------------------------------------------------
def test_deferred_with_unbacked_input() -> None:
    """torch TestUnbacked.test_deferred_with_unbacked_input: check(a.size(0) == b.size(0)) is checked at run time."""
    def func(a, b):
        check(a.shape[0] == b.shape[0])
        return a * 10

    f = compile(func)
    a, b = np.ones((1, 1), np.float32), np.ones((1, 1), np.float32)
    mark_unbacked(a, 0); mark_unbacked(b, 0)
    f(a, b)
    a2, b2 = np.ones((1, 1), np.float32), np.ones((2, 1), np.float32)
    mark_unbacked(a2, 0); mark_unbacked(b2, 0)
    with pytest.raises((AssertionError, RuntimeError, CheckFailedError)):
        f(a2, b2)


def test_do_not_guard_unbacked_inputs() -> None:
    """torch TestUnbacked.test_do_not_guard_unbacked_inputs: no shape guard on unbacked input sizes."""
    f = compile(lambda a, b: (a + b) * 10)  # torch: a.expand(b.shape); broadcasting asks the same question
    for shape in ((1, 1), (4, 5)):
        a, b = np.ones(shape, np.float32), np.ones(shape, np.float32)
        for t in (a, b):
            mark_unbacked(t, [0, 1])
        f(a, b)
    (entry,) = f.cache_info().entries
    shape_guards = [g for g in entry.guards.to_text("source").splitlines() if ".stride()" not in g]
    assert not any("size()" in g for g in shape_guards), shape_guards  # layout ties (a.stride()[0] == a.size()[1]) aside


def test_div_unbacked_eq_input_tensors() -> None:
    """torch TestUnbacked.test_div_unabacked_eq_input_tensors: after check(x == y), x // y == 1 is known."""
    def func(a, b):
        x, y = a.shape[0], b.shape[0]
        check(x == y)
        if x // y == 1:
            a = a * 10
        if 2 * x // y == 2:
            a = a * 20
        return a

    f = compile(func)
    a, b = np.ones((10, 10), np.float32), np.ones((10, 20), np.float32)
    mark_unbacked(a, 0); mark_unbacked(b, 0)
    assert float(f(a, b)[0, 0]) == 200.0


def test_div_unbacked_eq_item() -> None:
    """torch TestUnbacked.test_div_unabacked_eq_item."""
    env = ShapeEnv()
    x = env.fake_tensor((), "int64", name="a").item()
    y = env.fake_tensor((), "int64", name="b").item()
    check(x == y)
    check(x // y == 1)
    check(2 * x // y == 2)
    assert bool(x // y == 1) and bool(2 * x // y == 2)


def test_deferred_neq_assert() -> None:
    """torch TestUnbacked.test_deferred_neq_assert: check(u != 5) is a runtime assert, then u != 5 is known."""
    env = ShapeEnv()
    u = env.fake_tensor((), "int64", name="a").item()
    check(u != 5)
    assert [str(r.expr) for r in env.runtime_asserts] == ["Ne(u0, 5)"]
    assert statically_known_true(u != 5)


def test_post_specialize_runtime_assert() -> None:
    """torch TestUnbacked.test_post_specialize_runtime_assert1: u0 + s0 + s1 == 102, then s0 == 2."""
    env = ShapeEnv()
    x = env.fake_tensor((2, 50), name="x")
    u0 = env.fake_tensor((), "int64", name="y").item()
    check(u0 + x.shape[0] + x.shape[1] == 102)
    assert x.shape[0] == 2
    assert int(env.simplify(u0.node.expr).subs({x.shape[1].node.expr: 50})) == 50


# -- TestUbackedOps ------------------------------------------------------------------------------------
def _unbacked_ints(env, *names):
    return [env.fake_tensor((), "int64", name=n).item() for n in names]


def test_unbacked_select_index() -> None:
    """torch TestUbackedOps.test_unbacked_select_index: select by an unbacked index traces (its bounds are
    runtime asserts), negative indices included."""
    env = ShapeEnv()
    x = env.fake_tensor((3, 3, 3), name="x")
    (u0,) = _unbacked_ints(env, "y")
    for d in range(3):
        assert str(ops.select(x, d, u0).shape) == "(s0, s0)"
    assert not env.guards
    assert {str(r.expr) for r in env.runtime_asserts} == {"u0 >= -s0", "u0 < s0"}


def test_unbacked_select_index_with_check() -> None:
    """torch TestUbackedOps.test_unbacked_select_index_with_check."""
    env = ShapeEnv()
    x = env.fake_tensor((3, 3, 3), name="x")
    (u0,) = _unbacked_ints(env, "y")
    check(u0 >= 0)
    assert str(ops.select(x, 1, u0).shape) == "(s0, s0)"


def test_unbacked_reshape2() -> None:
    """torch TestUbackedOps.test_unbacked_reshape2: reshape (u2, u3) -> (u0, u1) defers Eq(u2*u3, u0*u1)."""
    env = ShapeEnv()
    u0, u1 = _unbacked_ints(env, "y0", "y1")
    check(u0 >= 0)
    check(u1 >= 0)
    a, b = env.create_unbacked_symint(size_like=True), env.create_unbacked_symint(size_like=True)
    x = ops.empty((a, b))
    assert str(x.reshape(u0, u1).shape) == "(u0, u1)"
    assert "Eq(u2*u3, u0*u1)" in [str(r.expr) for r in env.runtime_asserts]  # torch prints the same


def test_invalid_view_unbacked_view() -> None:
    """torch TestUbackedOps.test_invalid_view_unbacked_view: view of a transposed unbacked tensor cannot be proven
    valid (torch: a data-dependent UserError; ours names the stride problem)."""
    env = ShapeEnv()
    u0, u1 = _unbacked_ints(env, "y0", "y1")
    check(u0 >= 0)
    check(u1 >= 0)
    a, b = env.create_unbacked_symint(size_like=True), env.create_unbacked_symint(size_like=True)
    x = ops.empty((a, b)).t()
    with pytest.raises((GuardOnDataDependentSymNode, ShapeError)):
        x.view(u0, u1)


def test_unbind_not_dynamic() -> None:
    """torch TestUbackedOps.test_unbind_not_dynamic: unbind specialises only the unbound dim."""
    f = compile(lambda y: (ops.unbind(y, 2), y * 10), dynamic=True)
    f(np.ones((5, 6, 7, 8), np.float32))
    assert len(f.cache_info().entries) == 1
    f(np.ones((4, 9, 7, 10), np.float32))
    assert len(f.cache_info().entries) == 1
    f(np.ones((5, 6, 8, 8), np.float32))
    f(np.ones((5, 6, 9, 8), np.float32))
    assert len(f.cache_info().entries) == 3


def test_unbacked_contiguous() -> None:
    """torch TestUbackedOps.test_unbacked_contiguous: contiguous() of an unbacked (transposed) input: one entry."""
    f = compile(lambda x: (ops.clone(x) + 1) * 100)
    for shape in ((10, 10), (20, 20)):
        x = np.ones(shape, np.float32).T
        mark_unbacked(x, [0, 1])
        assert f(x).shape == shape
    assert len(f.cache_info().entries) == 1


# -- issue 24: bugs found by translating torch's tests ----------------------------------------------------
@pytest.mark.parametrize("a, b", [(2, -1), (2, 3), (4, -2), (4, 0)])  # exact in floats
def test_float_pow_of_symbolic_ints(a, b) -> None:
    """torch TestSymNumberMagicMethods (pow on sym_float inputs): ``sym_float(a) ** sym_float(b)`` is a real power.
    It was ``PowByNatural(a, b)``: at b = -1 the guard set rejected the trace's own inputs."""
    env = ShapeEnv()
    sa = env.create_symint(a, Source.value("a"), min=-10)
    sb = env.create_symint(b, Source.value("b"), min=-10)
    r = sym_float(sa) ** sym_float(sb)
    assert r.node.hint == float(a) ** float(b)
    assert "PowByNatural" not in str(r)
    assert bool(r == float(a) ** float(b))
    guards = env.produce_guards()
    assert guards.holds({"a": a, "b": b})
    assert not guards.holds({"a": a, "b": b + 1})
    for base, exp in ((2, sym_float(sb)), (sym_float(sa), 2), (2.0, sb), (sa, 2.0)):
        v = base ** exp
        assert "PowByNatural" not in str(v) or not isinstance(exp, SymFloat)
        assert math.isclose(evaluate(v.node.expr, {sa.node.expr: a, sb.node.expr: b}), v.node.hint)


def test_unbacked_empty_is_contiguous_and_views() -> None:
    """torch TestUnbacked (view of ``empty(u0, u1)``): strides ``(Max(1, u1), 1)`` are contiguous (a tensor of
    no elements is contiguous whatever its strides), so ``view(u0, u2)`` works with a runtime assert."""
    env = ShapeEnv()
    u0, u1, u2 = (env.create_unbacked_symint() for _ in range(3))
    x = ops.empty(u0, u1)
    assert str(x.stride()) == "(Max(1, u1), 1)" and x.is_contiguous()
    y = x.view(u0, u2)
    assert str(y.shape) == "(u0, u2)"
    assert "Eq(u0*u1, u0*u2)" in [str(r.expr) for r in env.runtime_asserts]
