"""``export`` and ``ExportedProgram``: inputs, dynamic_shapes, graphs, ranges, guards, violations, printing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from shapeenv import (
    ConstraintViolationError,
    Dim,
    ExportConstraintError,
    ExportedProgram,
    GuardOnDataDependentSymNode,
    ShapeError,
    TensorSpec,
    check,
    export,
    ops,
)
from tests.shapeenv import example_models as models


def _ranges(program: ExportedProgram) -> dict[str, str]:
    return {str(s): str(r) for s, r in program.range_constraints.items()}


# -- inputs ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "example, expected_meta",
    [
        (np.zeros((4, 3), dtype=np.int64), "i64[s0, 3]"),
        (np.zeros((4, 3), dtype=np.float64), "f64[s0, 3]"),
        (np.zeros((4, 3), dtype=bool), "b8[s0, 3]"),
        (TensorSpec((4, 3), "int32"), "i32[s0, 3]"),
        (TensorSpec((4, 3)), "f32[s0, 3]"),
        ((4, 3), "f32[s0, 3]"),
    ],
)
def test_example_inputs_give_shape_and_dtype(example, expected_meta) -> None:
    p = export(lambda x: ops.clone(x), (example,), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    assert p.inputs[0].meta == expected_meta, (example, p.inputs)


@pytest.mark.parametrize(
    "dynamic_shapes, expected_signature",
    [
        (None, "unify(x: f32[6, 5], y: f32[6, 5])"),
        ({"x": {0: Dim.DYNAMIC}, "y": {0: Dim.DYNAMIC}}, "unify(x: f32[s0, 5], y: f32[s0, 5])"),  # unified by a guard
        ({"x": {0: Dim("b")}, "y": {0: Dim("b")}}, "unify(x: f32[s0, 5], y: f32[s0, 5])"),  # shared by name
        (({0: Dim("b")}, {0: Dim("b")}), "unify(x: f32[s0, 5], y: f32[s0, 5])"),  # by position
        ({"x": [Dim("b"), Dim("f")], "y": [Dim("b"), Dim("f")]}, "unify(x: f32[s0, s1], y: f32[s0, s1])"),
        ({"x": {-1: Dim("f")}, "y": {1: Dim("f")}}, "unify(x: f32[6, s0], y: f32[6, s0])"),
        ({"x": {0: Dim.STATIC, 1: None}, "y": None}, "unify(x: f32[6, 5], y: f32[6, 5])"),
    ],
)
def test_dynamic_shapes_forms(dynamic_shapes, expected_signature) -> None:
    p = export(models.unify, ((6, 5), (6, 5)), dynamic_shapes=dynamic_shapes)
    assert p.signature() == expected_signature, dynamic_shapes


def test_named_dim_bounds_become_range_constraints() -> None:
    p = export(models.unify, ((6, 5), (6, 5)), dynamic_shapes={"x": {0: Dim("b", max=64)}, "y": {0: Dim("b", max=64)}})
    assert _ranges(p) == {"s0": "[2, 64]"}
    assert p.dims == {next(iter(p.range_constraints)): "b"}
    assert p.accepts((64, 5), (64, 5)) and not p.accepts((65, 5), (65, 5))


@pytest.mark.parametrize(
    "spec, expected_meta, expected_kind",
    [
        (None, "3", "constant"),  # ints are specialised by default, as in torch.export
        (Dim.STATIC, "3", "constant"),
        (Dim.DYNAMIC, "Sym(s1)", "symint"),
        (Dim("k", max=100), "Sym(s1)", "symint"),
    ],
)
def test_int_inputs(spec, expected_meta, expected_kind) -> None:
    p = export(models.scaled, ((8, 4), 3), dynamic_shapes={"x": {0: Dim.DYNAMIC}, "k": spec})
    k = p.inputs[1]
    assert (k.meta, k.kind) == (expected_meta, expected_kind)
    assert len(p.runtime_asserts) == 1 and p.runtime_asserts[0].message == "k must not exceed the batch"
    # the assert narrows the range of the batch (constant k) or relates both (symbolic k) without a guard
    if expected_kind == "constant":
        assert _ranges(p)["s0"] == "[3, oo]" and p.accepts((2, 4), 3) and not p.accepts((8, 4), 4)
    else:
        assert "L['k'] >= 2" in p.guards.to_text() and p.accepts((8, 4), 5)


def test_int_input_shares_a_named_dim_with_a_tensor() -> None:
    p = export(models.scaled, ((8, 4), 8), dynamic_shapes={"x": {0: Dim("n")}, "k": Dim("n")})
    assert p.signature() == "scaled(x: f32[s0, 4], k: Sym(s0))"
    assert p.accepts((9, 4), 9) and not p.accepts((9, 4), 8)


def test_nested_inputs_are_named_by_path() -> None:
    def f(xs, d):
        return xs[0] + xs[1] + d["bias"]

    p = export(f, ([(4, 3), (4, 3)], {"bias": (3,)}), dynamic_shapes={"xs": [{0: Dim("b")}, {0: Dim("b")}], "d": None})
    assert p.signature() == "f(xs[0]: f32[s0, 3], xs[1]: f32[s0, 3], d['bias']: f32[3])"
    assert "L['xs'][1].size()[0] == L['xs'][0].size()[0]" in p.guards.to_text()  # torch's spelling of nested inputs
    assert p.accepts([(7, 3), (7, 3)], {"bias": (3,)}) and not p.accepts([(7, 3), (6, 3)], {"bias": (3,)})


def test_keyword_and_default_arguments() -> None:
    p = export(models.with_default, ((4, 3),), kwargs={"bias": (3,)}, dynamic_shapes={"x": {0: Dim.DYNAMIC}, "bias": None})
    assert p.signature() == "with_default(x: f32[s0, 3], bias: f32[3])"
    assert p.accepts((5, 3), bias=(3,)) and not p.accepts((5, 3), bias=(4,))


# -- graph, outputs, ranges, guards ----------------------------------------------------------------
def test_graph_has_one_node_per_op_with_final_shapes() -> None:
    p = export(models.unify, ((6, 5), (6, 5)), dynamic_shapes={"x": {0: Dim.DYNAMIC}, "y": {0: Dim.DYNAMIC}})
    listing = p.graph.format()
    # y's symbol s1 was unified with s0 by the first add's guard; every node shows the final shape
    assert [n.op for n in p.graph if n.op != "placeholder"] == ["add", "mul", "add"]
    assert "s1" not in listing and listing.count("f32[s0, 5]") == 5, listing
    assert p.output_shapes[1] == 5 and str(p.output_shapes[0]) == "s0"


@pytest.mark.parametrize(
    "fn, example, spec, expected_ranges, expected_recorded",
    [
        (models.branchy, (8, 3), {0: Dim.DYNAMIC}, {"s0": "[5, oo]"}, 1),
        (models.branchy, (3, 3), {0: Dim.DYNAMIC}, {"s0": "[2, 4]"}, 1),
        (models.branchy, (8, 3), {0: Dim("b", min=5, max=50)}, {"s0": "[5, 50]"}, 0),  # decided by the declared range
        (lambda x: x * 2, (8, 3), {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}, {"s0": "[2, oo]", "s1": "[2, oo]"}, 0),
    ],
)
def test_range_constraints_after_tracing(fn, example, spec, expected_ranges, expected_recorded) -> None:
    p = export(fn, (example,), dynamic_shapes={"x": spec})
    assert (_ranges(p), p.recorded_guards) == (expected_ranges, expected_recorded)


def test_unbacked_symbols_are_in_range_constraints() -> None:
    def f(x):
        u = x.env.create_unbacked_symint(size_like=True)
        check(u <= x.shape[0])
        check(u >= 2)
        return x * 2

    p = export(f, ((8, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    assert _ranges(p) == {"s0": "[2, oo]", "u0": "[2, oo]"} and len(p.runtime_asserts) == 2
    assert "data-dependent" in p.format()


@pytest.mark.parametrize(
    "sizes, accepted",
    [((8, 3), True), ((5, 3), True), ((4, 3), False), ((8, 4), False), ((100, 3), True)],
)
def test_accepts_checks_the_produced_guards(sizes, accepted) -> None:
    p = export(models.branchy, ((8, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    assert p.accepts(sizes) is accepted, p.explain_inputs(sizes)


def test_accepted_inputs_retrace_to_the_same_program() -> None:
    """Soundness: any sizes the guards accept re-trace with the same decisions (the same graph)."""
    def f(x, y):
        z = x + y
        if x.shape[0] % 2 == 0:
            z = z * 2
        if y.shape[1] >= 4:
            return z + 1
        return z

    spec = {"x": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}, "y": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}}
    for hint in [(6, 5), (3, 2)]:
        p = export(f, (hint, hint), dynamic_shapes=spec)
        accepted = 0
        for a, b, da in itertools.product(range(2, 9), [2, 3, 5, 8], [0, 1]):
            x, y = (a, b), (a + da, b)
            if p.accepts(x, y):
                accepted += 1
                again = export(f, (x, y), dynamic_shapes=spec)
                assert again.graph.format() == p.graph.format(), (hint, x, y)
                assert again.guards.to_text() == p.guards.to_text(), (hint, x, y)
        assert accepted >= 6, (hint, accepted)


# -- constraint violations -------------------------------------------------------------------------
def _two(x, y):
    return x + y


def _gt5(x):
    return x * 2 if x.shape[0] > 5 else x


def _mult4(x):
    return x * 2 if x.shape[0] % 4 == 0 else x


@pytest.mark.parametrize(
    "fn, examples, dynamic_shapes, expected_kind, expected_label, expected_fix",
    [
        (_two, ((4, 3), (4, 3)), {"x": {0: Dim.DYNAMIC}}, "specialised", "x.size()[0]", "Dim.STATIC"),
        (_two, ((4, 3), (4, 3)), {"x": {0: Dim("b")}}, "specialised", "b", "b = 4"),
        (_two, ((4, 3), (4, 3)), {"x": {0: Dim("a")}, "y": {0: Dim("b")}}, "unified", "b", "b = a"),
        (_gt5, ((8, 3),), {"x": {0: Dim("n")}}, "narrowed", "n", "n = Dim('n', min=6)"),
        (_gt5, ((3, 3),), {"x": {0: Dim("n", max=40)}}, "narrowed", "n", "n = Dim('n', max=5)"),
        (_mult4, ((8, 3),), {"x": {0: Dim("n")}}, "divisible", "n", "Dim.DYNAMIC"),
        (_two, ((1, 3), (1, 3)), {"x": {0: Dim.DYNAMIC}}, "zero_one", "x.size()[0]", "min=1"),
        (_two, ((1, 3), (1, 3)), {"x": {0: Dim("b")}}, "zero_one", "b", "b = Dim('b', min=1)"),
    ],
)
def test_constraint_violations(fn, examples, dynamic_shapes, expected_kind, expected_label, expected_fix) -> None:
    with pytest.raises(ExportConstraintError) as info:
        export(fn, examples, dynamic_shapes=dynamic_shapes)
    (v,) = info.value.violations
    message = str(info.value)
    assert (v.kind, v.label) == (expected_kind, expected_label), message
    assert expected_fix in message and "Constraints violated" in message, message
    assert isinstance(info.value, ConstraintViolationError)
    if expected_kind != "zero_one":  # names the guard and where it was recorded
        assert str(v.guard.expr) in message and "test_export.py" in message, message


@pytest.mark.parametrize(
    "fn, examples, dynamic_shapes",
    [
        (_two, ((4, 3), (4, 3)), {"x": {0: Dim.DYNAMIC}, "y": {0: Dim.DYNAMIC}}),  # DYNAMIC dims may unify
        (_gt5, ((8, 3),), {"x": {0: Dim.DYNAMIC}}),  # ... and be narrowed
        (_mult4, ((8, 3),), {"x": {0: Dim.DYNAMIC}}),  # ... and be made multiples
        (_gt5, ((8, 3),), {"x": {0: Dim("n", min=6)}}),  # the declared range already decides it
        (_two, ((1, 3), (1, 3)), {"x": {0: Dim("b", min=1)}, "y": {0: Dim("b", min=1)}}),  # min allows 1
    ],
)
def test_allowed_refinements(fn, examples, dynamic_shapes) -> None:
    export(fn, examples, dynamic_shapes=dynamic_shapes)


def test_a_runtime_assert_on_a_named_dim_is_not_a_violation() -> None:
    def f(x):
        check(x.shape[0] > 5)
        return x * 2

    p = export(f, ((8, 3),), dynamic_shapes={"x": {0: Dim("n")}})
    assert _ranges(p) == {"s0": "[6, oo]"} and p.accepts((3, 3))  # checked when run, not a guard


def test_several_violations_are_reported_together() -> None:
    with pytest.raises(ExportConstraintError) as info:
        export(_two, ((4, 3), (4, 3)), dynamic_shapes={"x": {0: Dim("a"), 1: Dim("c")}, "y": {0: Dim("b"), 1: Dim("d")}})
    assert [v.label for v in info.value.violations] == ["b", "d"]


def test_a_higher_order_op_is_one_node_with_its_body_as_a_subgraph() -> None:
    def cumsum(xs):
        def step(carry, x):
            nxt = carry + x
            return nxt, nxt.clone()

        return ops.scan(step, ops.zeros_like(xs[0]), xs)

    p = export(cumsum, ((5, 3),), dynamic_shapes={"xs": {0: Dim.DYNAMIC}})
    (node,) = [n for n in p.graph if n.op == "scan"]
    assert list(node.subgraphs) == ["combine_fn"] and [n.op for n in node.subgraphs["combine_fn"]][-2:] == ["add", "clone"]
    assert str(p.output_shapes) == "((3,), (s0, 3))" and _ranges(p) == {"s0": "[2, oo]"}
    assert "            graph combine_fn(carry: f32[3], xs: f32[3]):" in p.format()


# -- errors ----------------------------------------------------------------------------------------
def test_a_data_dependent_branch_names_the_program() -> None:
    def f(x, m):
        if m.nonzero().shape[0] > 3:
            return x * 2
        return x

    with pytest.raises(GuardOnDataDependentSymNode) as info:
        export(f, ((8, 3), (8,)), dynamic_shapes={"x": {0: Dim.DYNAMIC}, "m": None})
    assert info.value.suggestion and any("f(x: f32[s0, 3], m: f32[8])" in n for n in info.value.__notes__)


def test_shape_error_in_the_function_keeps_its_type_and_names_the_program() -> None:
    with pytest.raises(ShapeError, match="mul") as info:
        export(models.mismatch, ((8, 3), (5, 3)), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    assert any("mismatch(x: f32[s0, 3], y: f32[5, 3])" in n for n in info.value.__notes__)


@pytest.mark.parametrize(
    "args, dynamic_shapes, error, match",
    [
        ([(4, 3)], {"z": {0: Dim.DYNAMIC}}, ValueError, "not inputs; the inputs are \\['x'\\]"),
        ([(4, 3)], ({0: Dim.DYNAMIC}, None), ValueError, "2 entries for 1 inputs"),
        ([(4, 3)], {"x": {2: Dim.DYNAMIC}}, ValueError, "dim 2 is out of range"),
        ([(4, 3)], {"x": [Dim.DYNAMIC]}, ValueError, "1 entries for a 2-d input"),
        ([(4, 3)], {"x": {0: "dynamic"}}, TypeError, "must be a Dim"),
        ([(4, 3)], {"x": Dim.DYNAMIC}, TypeError, "dict, a list"),
        ([(4, 3)], "x", TypeError, "dynamic_shapes must be"),
        ([(4, 3), (4, 3)], None, TypeError, "cannot take the example inputs"),
        ([2.5], {"x": Dim.DYNAMIC}, ValueError, "is a constant"),
    ],
)
def test_malformed_inputs(args, dynamic_shapes, error, match) -> None:
    with pytest.raises(error, match=match):
        export(lambda x: x, tuple(args), dynamic_shapes=dynamic_shapes)


def test_args_must_be_a_tuple() -> None:
    with pytest.raises(TypeError, match="wrap a single input"):
        export(lambda x: x, TensorSpec((2,)))


# -- printing --------------------------------------------------------------------------------------
def test_format_has_every_section() -> None:
    p = export(models.scaled, ((8, 4), 3), dynamic_shapes={"x": {0: Dim("batch")}}, name="demo")
    text = str(p)
    for piece in [
        "ExportedProgram demo(x: f32[s0, 4], k: 3)",
        "mul_0: f32[s0, 4] = mul(x, 3)",
        "outputs: f32[s0, 4]",
        "s0: [3, oo]   (Dim 'batch'; x.size()[0])",
        "guards (0 recorded, 2 produced):",
        "L['x'].size()[0] >= 2",
        "check(s0 >= 3)  # k must not exceed the batch",
    ]:
        assert piece in text, text
    assert "x.size()[0] >= 2" in p.format("source") and "L['x']" not in p.format("source")
    assert repr(p) == "<ExportedProgram demo(x: f32[s0, 4], k: 3): 1 nodes, 2 guards, 1 runtime asserts>"


def test_notebook_views_escape_user_text() -> None:
    p = export(lambda x: x * 2, ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}}, name="<b>")
    assert "&lt;b&gt;" in p._repr_html_() and "<b>" not in p._repr_html_().replace("<pre>", "")

    class Printer:  # the part of IPython's pretty printer that _repr_pretty_ uses
        def __init__(self):
            self.parts = []

        def text(self, s):
            self.parts.append(s)

    printer = Printer()
    p._repr_pretty_(printer, False)
    assert printer.parts == [p.format()]


def test_program_is_frozen() -> None:
    p = export(lambda x: x * 2, ((4, 3),))
    with pytest.raises(AttributeError):
        p.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.range_constraints["s9"] = None  # type: ignore[index]
