"""Ported from pytorch ``test/export/test_export.py`` (derived dims, constraint violations, Dim.AUTO): each test
names the torch test it translates.

torch raises ``UserError`` with "Constraints violated"; ours is :class:`ExportConstraintError` (a
``ConstraintViolationError``), with the same kind of "Suggested fixes" section. torch's
``ep.module()(inputs)`` input checks are our ``ExportedProgram.accepts`` / ``explain_inputs``.
"""

from __future__ import annotations

import numpy as np
import pytest

from shapeenv import ConstraintViolationError, Dim, ExportConstraintError, export


def t(*shape):
    return np.zeros(shape, dtype=np.float32)


def test_derived_dim_basic() -> None:
    """torch TestExport.test_derived_dim_basic."""
    foo = lambda x, y: x + y[1:]  # noqa: E731
    x, y = t(5), t(6)
    dimx = Dim("dimx", min=3, max=6)
    dimy = Dim("dimy", min=4, max=7)  # doesn't work
    with pytest.raises(ExportConstraintError, match=r"Constraints violated \(dimy\)") as e:
        export(foo, (x, y), dynamic_shapes=({0: dimx}, {0: dimy}))
    assert "dimy = dimx + 1" in str(e.value)

    dimy = dimx * 2  # doesn't work
    with pytest.raises(ConstraintViolationError, match=r"2\*dimx, but dimx = 5 .* makes it 10"):
        export(foo, (x, y), dynamic_shapes=({0: dimx}, {0: dimy}))

    dimy = dimx + 1  # works
    ep = export(foo, (x, y), dynamic_shapes=({0: dimx}, {0: dimy}))
    assert not ep.accepts(t(4), t(6))  # torch: "Expected input ... to be equal to 5, but got 6"
    assert ep.accepts(t(4), t(5))


def test_derived_dim_nested() -> None:
    """torch TestExport.test_derived_dim_nested."""
    dimx = Dim("dimx", min=3, max=6)
    ep = export(lambda x, y: x + y[1::2], (t(5), t(11)), dynamic_shapes=({0: dimx}, {0: dimx * 2 + 1}))
    assert ep.accepts(t(4), t(9))

    foo = lambda z, y: z[1:] + y[1::2]  # noqa: E731
    ep = export(foo, (t(6), t(11)), dynamic_shapes=({0: dimx}, {0: dimx * 2 - 1}))
    assert ep.accepts(t(5), t(9))

    with pytest.raises(ConstraintViolationError, match=r"2\*dimx - 1, but dimx = 5 .* makes it 9"):
        export(foo, (t(6), t(11)), dynamic_shapes=({0: dimx + 1}, {0: dimx * 2 - 1}))

    ep = export(foo, (t(6), t(11)), dynamic_shapes=({0: dimx + 1}, {0: dimx * 2 + 1}))
    assert not ep.accepts(t(8), t(15))  # torch: "to be <= 7, but got 8"
    assert not ep.accepts(t(5), t(8))  # torch: "to be equal to 9, but got 8"
    assert ep.accepts(t(5), t(9))


def test_derived_dim_integer() -> None:
    """torch TestExport.test_derived_dim_integer."""
    def foo(w):
        if w.shape[0] % 2 == 0:
            return w[::2]
        return w[1:-1:2]

    dimx = Dim("dimx", min=3, max=6)
    with pytest.raises(ConstraintViolationError, match=r"declared 2\*dimx \+ 1, but no dimx"):
        export(foo, (t(10),), dynamic_shapes=({0: dimx * 2 + 1},))
    ep = export(foo, (t(10),), dynamic_shapes=({0: dimx * 2},))
    assert not ep.accepts(t(9))  # torch: "of the form 2*s1, where s1 is an integer"
    assert ep.accepts(t(8))
    assert not ep.accepts(t(14))  # torch: "to be <= 12, but got 14"


def test_derived_dim_repeat_derived() -> None:
    """torch TestExport.test_derived_dim_repeat_derived."""
    dimx = Dim("dimx", min=3, max=6)
    ep = export(lambda u, v: u[::2] + v[::2], (t(10), t(10)), dynamic_shapes=({0: dimx * 2}, {0: dimx * 2}))
    assert ep.accepts(t(8), t(8))
    assert not ep.accepts(t(8), t(10))


def test_derived_dim_out_of_order() -> None:
    """torch TestExport.test_derived_dim_out_of_order."""
    dimy = Dim("dimy", min=5, max=7)
    dimx = dimy - 1
    dimz = dimy + 1
    ep = export(lambda x, y, z: x + y[1:] + z[2:], (t(5), t(6), t(7)), dynamic_shapes=({0: dimx}, {0: dimy}, {0: dimz}))
    assert not ep.accepts(t(6), t(7), t(5))  # torch: "to be equal to 8, but got 5"
    assert ep.accepts(t(6), t(7), t(8))


def test_derived_dim_out_of_order_repeat_derived() -> None:
    """torch TestExport.test_derived_dim_out_of_order_repeat_derived."""
    dimy = Dim("dimy", min=5, max=7)
    dimx = dimy - 1
    dimz = dimy + 1
    dimx1 = dimx
    dimx2 = dimz - 2
    foo = lambda x, y, z, x1, x2: x + y[1:] + z[2:] + x1 + x2  # noqa: E731
    shapes = ({0: dimx}, {0: dimy}, {0: dimz}, {0: dimx1}, {0: dimx2})
    ep = export(foo, (t(5), t(6), t(7), t(5), t(5)), dynamic_shapes=shapes)
    assert not ep.accepts(t(6), t(7), t(8), t(6), t(5))
    assert ep.accepts(t(6), t(7), t(8), t(6), t(6))


def test_derived_dim_out_of_order_simplified() -> None:
    """torch TestExport.test_derived_dim_out_of_order_simplified."""
    _dimz = Dim("_dimz", min=6, max=8)
    dimy = _dimz - 1
    dimx = dimy - 1
    dimz = Dim("dimz", min=6, max=8)  # doesn't work, should be = _dimz
    foo = lambda x, y, z: x + y[1:] + z[2:]  # noqa: E731
    with pytest.raises(ExportConstraintError, match=r"Constraints violated \(dimz\)") as e:
        export(foo, (t(5), t(6), t(7)), dynamic_shapes=({0: dimx}, {0: dimy}, {0: dimz}))
    assert "_dimz = Dim(" not in str(e.value)
    ep = export(foo, (t(5), t(6), t(7)), dynamic_shapes=({0: dimx}, {0: dimy}, {0: dimx + 2}))
    assert not ep.accepts(t(6), t(7), t(5))
    assert ep.accepts(t(6), t(7), t(8))


def test_specialize_derived_dim_roots() -> None:
    """torch TestExport.test_specialize_derived_dim_roots: x.reshape(-1) + y pins dy to 12; the fix names the root."""
    dy = Dim("dy", min=6)
    with pytest.raises(ExportConstraintError) as e:
        export(lambda x, y: x.reshape(-1) + y, (t(6, 2), t(12)), dynamic_shapes={"x": (dy - 6, None), "y": (dy,)})
    text = str(e.value)
    assert "specialised it to the constant" in text
    fixes = text.split("Suggested fixes:")[1]
    assert "dy = 12" in fixes
    assert "dy - 6 = 6" not in text and "Dim.STATIC" not in fixes.splitlines()[1]  # no fix for the non-root dim


def test_non_strict_dynamic_shapes_suggested_fixes() -> None:
    """torch TestExport.test_non_strict_dynamic_shapes_suggested_fixes."""
    def foo(x, c):
        if x.shape[0] <= 6:
            return x + 1, c + 2
        return x - 1, c - 2

    with pytest.raises(ExportConstraintError, match=r"Constraints violated \(dim\)") as e:
        export(foo, (t(5), t(4)), dynamic_shapes=({0: Dim("dim", min=3)}, None))
    assert "dim = Dim('dim', min=3, max=6)" in str(e.value)


def test_export_dynamic_dim_not_1() -> None:
    """torch TestExport (test_export_dynamic_dim_not_1 / 0/1 specialisation): an example size of 1 for a dynamic
    dim is an error, naming the fix."""
    with pytest.raises(ExportConstraintError) as e:
        export(lambda x: x + 1, (t(1, 3),), dynamic_shapes=({0: Dim("dx")},))
    assert "Dim('dx', min=1)" in str(e.value)


def test_dim_auto_basic() -> None:
    """torch TestExport (Dim.AUTO, test_mark_and_auto_dynamic / test_dynamic_shapes_builder): AUTO dims follow the
    code: dynamic where possible, specialised (without an error) where the code pins them."""
    ep = export(lambda x, y: x + y, (t(4, 3), t(4, 3)), dynamic_shapes=({0: Dim.AUTO, 1: Dim.AUTO}, {0: Dim.AUTO, 1: None}))
    text = ep.guards.to_text("source")
    assert "x.size()[1] == 3" in text
    assert "y.size()[0] == x.size()[0]" in text


def test_divisible_suggests_derived_dim() -> None:
    """torch TestExport (test_export_dynamic_dim_divisible / suggested fixes): a divisibility guard on a named dim
    is a violation whose fix is a derived dim (``_dx = Dim('_dx'); dx = 2*_dx`` in torch)."""
    with pytest.raises(ExportConstraintError) as e:
        export(lambda x: x.reshape(2, -1), (t(8),), dynamic_shapes=({0: Dim("dx")},))
    assert "2*Dim('dx_')" in str(e.value)


# -- issue 24: export bugs found by translating torch's tests ---------------------------------------------
def test_guard_some_declared_values_fail() -> None:
    """torch TestExport (a guard no interval or divisibility fact captures): ``(2x+3) % (x-3) == 0`` holds only
    for x in {2, 4, 6, 12}; with ``Dim("dim0", max=100)`` that is a violation (it used to export silently)."""
    def f(x):
        if (2 * x.shape[0] + 3) % (x.shape[0] - 3) == 0:
            return x * 2
        return x + 1

    with pytest.raises(ExportConstraintError, match=r"Constraints violated \(dim0\)") as e:
        export(f, (t(6),), dynamic_shapes=({0: Dim("dim0", max=100)},))
    text = str(e.value)
    assert "only {2, 4, 6, 12} do" in text and "dim0 = Dim('dim0', min=2, max=12)" in text
    ep = export(f, (t(6),), dynamic_shapes=({0: Dim.DYNAMIC},))  # Dim.DYNAMIC accepts it: the guards check it
    assert ep.accepts(t(12)) and not ep.accepts(t(13))


def test_derived_dim_violation_names_the_root() -> None:
    """torch TestExport.test_derived_dim_out_of_order_simplified: the fix for ``dimz`` is ``dimz = _dimz``, the root
    of the derived dims it equals, not our internal symbol (it was ``dimz = s0 + 2``)."""
    _dimz = Dim("_dimz", min=6, max=8)
    dimy = _dimz - 1
    dimx = dimy - 1
    dimz = Dim("dimz", min=6, max=8)
    foo = lambda x, y, z: x + y[1:] + z[2:]  # noqa: E731
    with pytest.raises(ExportConstraintError) as e:
        export(foo, (t(5), t(6), t(7)), dynamic_shapes=({0: dimx}, {0: dimy}, {0: dimz}))
    fixes = str(e.value).split("Suggested fixes:")[1]
    assert "dimz = _dimz" in fixes and "s0" not in fixes


def test_range_constraints_list_derived_dims() -> None:
    """torch TestExport.test_derived_dim_basic (``ep.range_constraints``): derived dims are listed too
    (torch: ``{s0: [3, 6], s0 + 1: [4, 7]}``); they survive save/load."""
    dimx = Dim("dimx", min=3, max=6)
    ep = export(lambda x, y: x + y[1:], (t(5), t(6)), dynamic_shapes=({0: dimx}, {0: dimx + 1}))
    got = {str(k): (v.lower, v.upper) for k, v in ep.range_constraints.items()}
    assert got == {"s0": (3, 6), "s0 + 1": (4, 7)}
    from shapeenv.program.io import program_from_json, program_to_json
    back = program_from_json(program_to_json(ep))
    assert {str(k): (v.lower, v.upper) for k, v in back.range_constraints.items()} == got
