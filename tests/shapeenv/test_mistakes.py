"""The mistake table: common user mistakes, and the three parts every error about one must have.

Each mistake is a small function whose marked line (``# <- raises``) makes the mistake. The
error it raises must (1) name that file:line, (2) say what happened in the user's terms (their
variable names, input dims such as ``x.size()[1]`` and the sizes of this trace, not symbols only),
and (3) say what to do, with code the user can paste.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

from guards import Source
from shapeenv import (
    CheckFailedError,
    ConstraintViolationError,
    Dim,
    DimOutOfRangeError,
    DynamicShapesError,
    DynamicShapesTypeError,
    GuardOnDataDependentSymNode,
    HigherOrderOpError,
    ShapeEnv,
    ShapeEnvError,
    ShapeError,
    SignatureError,
    UnknownDimSpecError,
    check,
    compile,
    export,
    map,
    ops,
    scan,
    switch,
)

MARK = "# <- raises"


def inputs(**shapes):
    """Fake float32 inputs of one fresh environment, named (and returned) in the order given."""
    env = ShapeEnv()
    return [env.fake_tensor(shape, name=name) for name, shape in shapes.items()]


# -- the mistakes ------------------------------------------------------------------------------------
def cat_mismatch_other_dim():
    x, y = inputs(x=(4, 3), y=(4, 2))
    return ops.cat([x, y])  # <- raises


def cat_mismatch_two_dims():
    x, y = inputs(x=(4, 3), y=(5, 2))
    return ops.cat([x, y], 0)  # <- raises


def cat_rank_mismatch():
    x, bias = inputs(x=(4, 3), bias=(4,))
    return ops.cat([x, bias], 1)  # <- raises


def matmul_needs_transpose():
    x, w = inputs(x=(4, 3), w=(5, 3))
    return ops.matmul(x, w)  # <- raises


def matmul_inner_mismatch():
    x, w = inputs(x=(4, 3), w=(5, 2))
    return ops.matmul(x, w)  # <- raises


def broadcast_needs_unsqueeze():
    x, scale = inputs(x=(4, 3), scale=(4,))
    return x * scale  # <- raises


def broadcast_mismatch():
    x, y = inputs(x=(4, 3), y=(5, 3))
    return x + y  # <- raises


def view_wrong_numel():
    (x,) = inputs(x=(4, 3))
    return x.view(5, 5)  # <- raises


def view_two_minus_ones():
    (x,) = inputs(x=(4, 6))
    return x.view(-1, -1)  # <- raises


def reshape_wrong_numel():
    (x,) = inputs(x=(4, 6))
    return ops.reshape(x, (5, 4))  # <- raises


def sum_dim_out_of_range():
    (x,) = inputs(x=(4, 3))
    return x.sum(2)  # <- raises


def size_dim_out_of_range():
    (x,) = inputs(x=(4, 3))
    return x.size(3)  # <- raises


def bool_of_a_tensor():
    (x,) = inputs(x=(4, 3))
    if x:  # <- raises
        return x


def dynamic_shapes_dim_out_of_range():
    return export(lambda x: x * 2, ((8, 3),), dynamic_shapes={"x": {2: Dim("batch")}})  # <- raises


def dynamic_shapes_unknown_input():
    return export(lambda x: x * 2, ((8, 3),), dynamic_shapes={"inp": {0: Dim("batch")}})  # <- raises


def dynamic_shapes_string_not_dim():
    return export(lambda x: x * 2, ((8, 3),), dynamic_shapes={"x": {0: "batch"}})  # <- raises


def dim_spec_typo():
    return {0: Dim.DYNAMC}  # <- raises


def named_dim_specialised():
    def program(x):
        return x * 2 if x.shape[0] == 8 else x

    return export(program, ((8, 3),), dynamic_shapes={"x": {0: Dim("batch")}})  # <- raises


def export_missing_argument():
    return export(lambda x, y: x * y, ((8, 3),))  # <- raises


def compiled_missing_argument():
    f = compile(lambda x, y: x * y)
    return f(np.ones(3))  # <- raises


def scan_carry_grows():
    def step(carry, x):
        return ops.cat([carry, x], 0), x

    def program(init, xs):
        return scan(step, init, xs)  # <- raises

    return export(program, ((3,), (5, 3)))


def scan_carry_dtype():
    def step(carry, x):
        return carry.int(), x

    def program(init, xs):
        return scan(step, init, xs)  # <- raises

    return export(program, ((3,), (5, 3)))


def scan_xs_lengths_differ():
    def program(init, a, b):
        return scan(lambda c, x: (c + x[0], x[1]), init, (a, b))  # <- raises

    return export(program, ((3,), (5, 3), (6, 3)), dynamic_shapes={"a": {0: Dim("n")}, "b": {0: Dim("m")}})


def map_over_an_int():
    (x,) = inputs(x=(4, 3))
    return map(lambda v: v, [x, 2])  # <- raises


def switch_branch_ranks_differ():
    (x,) = inputs(x=(4, 3))
    return switch(ops.argmax(x), [lambda v: v.sum(0), lambda v: v.clone()], (x,))  # <- raises


def captured_numpy_weight():
    weights = np.ones((300, 300))
    return export(lambda x: ops.matmul(x, weights), ((8, 300),))  # <- raises


def check_false_for_the_example():
    (x,) = inputs(x=(4, 3))
    check(x.shape[0] > 10)  # <- raises


def branch_on_data_dependent_size():
    (x,) = inputs(x=(4, 3))
    nz = ops.nonzero(x)
    if nz.shape[0] > 2:  # <- raises
        return nz


def hint_outside_declared_range():
    env = ShapeEnv()
    return env.create_symint(100, Source.size("x", 0), max=64)  # <- raises


@dataclass(frozen=True)
class Mistake:
    """A mistake, the error type it must raise, and what its message must contain."""

    make: Callable[[], object]
    error: type[BaseException]
    user_terms: tuple[str, ...]
    fix: tuple[str, ...]

    @property
    def line(self) -> int:
        lines, first = inspect.getsourcelines(self.make)
        marked = [first + i for i, text in enumerate(lines) if MARK in text]
        assert len(marked) == 1, f"{self.make.__name__} must mark exactly one line with {MARK!r}"
        return marked[0]


TABLE = [
    Mistake(cat_mismatch_other_dim, ShapeError, ("y has 2 there and x has 3", "x.size()[1]", "y.size()[1]"), ("ops.cat([x, y], dim=1)",)),
    Mistake(cat_mismatch_two_dims, ShapeError, ("y has 2 there and x has 3", "x: float32[s0, s1] (4 x 3 in this trace)"), ("x[:, :2]", "ops.cat([x, y], dim=0)")),
    Mistake(cat_rank_mismatch, ShapeError, ("bias, has shape", "got 2 and 1"), ("bias.unsqueeze(-1)",)),
    Mistake(matmul_needs_transpose, ShapeError, ("the last dimension of x is 3", "second-to-last dimension of w is 5", "x.size()[1]"), ("ops.matmul(x, w.transpose(-2, -1))",)),
    Mistake(matmul_inner_mismatch, ShapeError, ("the last dimension of x is 3", "dimension of w is 5"), ("x.shape[-1] == w.shape[-2]",)),
    Mistake(broadcast_needs_unsqueeze, ShapeError, ("scale: float32[s0] (4 in this trace)", "x.size()[1] (3 in this trace)"), ("scale[..., None]",)),
    Mistake(broadcast_mismatch, ShapeError, ("x.size()[0] (4 in this trace)", "y.size()[0] (5 in this trace)"), ("y.sum(-2, keepdim=True)",)),
    Mistake(view_wrong_numel, ShapeError, ("12 elements in this trace", "the shape holds 25", "x.size()[0]"), ("x.view(-1)",)),
    Mistake(view_two_minus_ones, ShapeError, ("only one dimension can be inferred", "x: float32[s0, s1] (4 x 6 in this trace)"), ("x.view(-1, 6)",)),
    Mistake(reshape_wrong_numel, ShapeError, ("24 elements in this trace", "the shape holds 20"), ("x.reshape(-1, 4)",)),
    Mistake(sum_dim_out_of_range, ShapeError, ("but got 2) for a 2-d input", "x: float32[s0, s1]"), ("dim=-1",)),
    Mistake(size_dim_out_of_range, DimOutOfRangeError, ("out of range for x, a tensor with 2 dimensions",), ("x.size(-1)",)),
    Mistake(bool_of_a_tensor, ShapeError, ("bool() of a fake tensor x (FakeTensor(float32[s0, s1]))",), ("if x.shape[0] > 2:",)),
    Mistake(dynamic_shapes_dim_out_of_range, DynamicShapesError, ("dynamic_shapes['x']: dim 2", "2-d input of shape (8, 3)"), ("dynamic_shapes['x'] = {1: Dim('batch')}",)),
    Mistake(dynamic_shapes_unknown_input, DynamicShapesError, ("names ['inp'], which are not inputs", "the inputs are ['x']"), ("dynamic_shapes={'x': {0: Dim('batch')}}",)),
    Mistake(dynamic_shapes_string_not_dim, DynamicShapesTypeError, ("dynamic_shapes['x'][0] must be a Dim", "'batch'"), ("Dim('batch')",)),
    Mistake(dim_spec_typo, UnknownDimSpecError, ("Dim.DYNAMC is not supported", "Dim.DYNAMIC"), ("use Dim.DYNAMIC",)),
    Mistake(named_dim_specialised, ConstraintViolationError, ("batch", "x.size()[0]"), ("dynamic_shapes",)),
    Mistake(export_missing_argument, SignatureError, ("missing a required argument: 'y'", "got 1 positional"), ("export(fn, (x, y))",)),
    Mistake(compiled_missing_argument, SignatureError, ("missing a required argument: 'y'", "got 1 positional"), ("f(x, y)",)),
    Mistake(scan_carry_grows, HigherOrderOpError, ("returned a carry of shape (6,)", "for init of shape (3,)"), ("return new_carry, y",)),
    Mistake(scan_carry_dtype, HigherOrderOpError, ("dtype int32 does not match init (float32)",), ("return next_carry.to('float32'), y",)),
    Mistake(scan_xs_lengths_differ, HigherOrderOpError, ("xs leaf [1] has size s1 along dim 0", "b.size()[0] (6 in this trace)", "a.size()[0] (5 in this trace)"), ("ops.narrow(leaf, 0, 0, n)",)),
    Mistake(map_over_an_int, HigherOrderOpError, ("xs leaf [1] is 2 (int)",), ("map(lambda x, k: x * k, xs, 2)",)),
    Mistake(switch_branch_ranks_differ, HigherOrderOpError, ("output has shape (s1,) in branch_0 but (s0, s1) in branch_1", "s1 = x.size()[1] (3 in this trace)"), ("out.flatten()",)),
    Mistake(captured_numpy_weight, ShapeError, ("a numpy.ndarray of shape (300, 300) and dtype float64",), ("def fn(x, weights)", "export(fn, (x, weights))")),
    Mistake(check_false_for_the_example, CheckFailedError, ("check(s0 > 10) is false for the traced sizes", "s0 = x.size()[0] (4 in this trace)"), ("if guard_or_false(cond):",)),
    Mistake(branch_on_data_dependent_size, GuardOnDataDependentSymNode, ("u0 has no hint", "u0 = a data-dependent size (no value while tracing, from nonzero at "), ("check(u0 > 2)",)),
    Mistake(hint_outside_declared_range, ConstraintViolationError, ("x.size()[0] = 100 is outside the declared range [-oo, 64]",), ("Dim('name', max=100)",)),
]


def test_the_table_covers_at_least_twenty_mistakes() -> None:
    assert len(TABLE) >= 20 and len({m.make.__name__ for m in TABLE}) == len(TABLE)


@pytest.mark.parametrize("mistake", TABLE, ids=lambda m: m.make.__name__)
def test_error_names_the_line_the_users_terms_and_the_fix(mistake: Mistake) -> None:
    with pytest.raises(mistake.error) as info:
        mistake.make()
    text = str(info.value)
    where = f"{__file__}:{mistake.line} in "
    missing = {
        "file:line": [] if where in text else [where],
        "user terms": [t for t in mistake.user_terms if t not in text],
        "fix": [f for f in mistake.fix if f not in text],
    }
    assert not any(missing.values()), f"{mistake.make.__name__}: missing {missing}\n--- the error said:\n{text}"
    assert isinstance(info.value, ShapeEnvError), "errors about user mistakes are typed (shapeenv.errors)"


@pytest.mark.torch
def test_torch_functions_on_fake_tensors_name_the_shapeenv_op() -> None:
    torch = pytest.importorskip("torch")
    from shapeenv import TorchInteropError

    x, y = inputs(x=(4, 3), y=(4, 3))
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(TorchInteropError) as info:
        torch.cat([x, y])
    text = str(info.value)
    assert "torch.cat was called on a shapeenv FakeTensor" in text and "shapeenv.ops.cat(...)" in text
    assert f"{__file__}:{line} in " in text
    assert isinstance(info.value, TypeError)


def test_a_captured_array_is_never_printed() -> None:
    weights = np.arange(300 * 300, dtype=np.float64).reshape(300, 300)
    with pytest.raises(ShapeError) as info:
        export(lambda x: ops.matmul(x, weights), ((8, 300),))
    assert "89999" not in str(info.value) and len(str(info.value)) < 1500


def test_errors_outside_user_code_have_no_location_line() -> None:
    e = ShapeError("view: bad", where=None, fix="x.view(-1)")
    assert str(e) == "view: bad\n  fix: x.view(-1)"


def test_an_annotated_error_pickles_with_its_context() -> None:
    import pickle

    with pytest.raises(ShapeError) as info:
        cat_mismatch_other_dim()
    copy = pickle.loads(pickle.dumps(info.value))
    assert str(copy) == str(info.value) and copy.fix == info.value.fix and copy.where == info.value.where
