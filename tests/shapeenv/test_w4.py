"""W4 "guard-count": our guard counts stay small, and the produced guards accept exactly the right sizes.

The programs and the concrete (numpy) oracle live in ``benchmarks/w4_guard_count.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "w4_guard_count.py"
_spec = importlib.util.spec_from_file_location("w4_guard_count", PATH)
w4 = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("w4_guard_count", w4)
_spec.loader.exec_module(w4)

WORK = {w.name: w for w in w4.WORKLOADS}


@pytest.fixture(scope="module")
def programs():
    return {name: w4.export_ours(work) for name, work in WORK.items()}


@pytest.mark.parametrize(
    "name, max_recorded, max_produced, asserts",
    [
        # torch 2.13 (torch.compile, mark_dynamic): 13/19, 1/6, 2/6, 7/8, 0/1 with 2 asserts
        ("cat_view_matmul", 3, 7, 0),
        ("conv_pool", 2, 8, 0),  # 5 of the 8 pin static dims (x.size()[1], w), which torch checks elsewhere
        ("unify", 2, 4, 0),
        ("view_divisible", 2, 3, 0),
        ("unbacked_nonzero", 0, 3, 3),  # nonzero's own u0 <= 16 plus the two checks
    ],
)
def test_guard_counts_stay_small(programs, name, max_recorded, max_produced, asserts) -> None:
    p = programs[name]
    assert p.recorded_guards <= max_recorded and len(p.guards) <= max_produced, p.guards.to_text()
    assert len(p.runtime_asserts) == asserts, p.runtime_asserts


@pytest.mark.parametrize(
    "x, y, w, accepted",
    [
        ((6, 4), (10, 4), (8, 5), True),  # the example
        ((3, 2), (5, 2), (4, 5), True),
        ((2, 7), (2, 7), (14, 5), True),
        ((6, 4), (9, 4), (8, 5), False),  # x0 + y0 odd
        ((6, 4), (10, 3), (8, 5), False),  # x1 != y1
        ((6, 4), (10, 4), (9, 5), False),  # w0 != 2 * x1
        ((6, 4), (10, 4), (8, 6), False),  # w1 is static
        ((1, 4), (11, 4), (8, 5), False),  # a size 1 would be specialised: re-trace
    ],
)
def test_cat_view_matmul_accepts(programs, x, y, w, accepted) -> None:
    p = programs["cat_view_matmul"]
    assert p.accepts(x, y, w) is accepted, p.explain_inputs(x, y, w)


def test_view_divisible_accepts_every_size_both_views_take(programs) -> None:
    """x.view(-1, 4) needs n % 4 == 0 and x.view(2, 3, -1) needs n % 6 == 0: exactly the multiples of 12."""
    p = programs["view_divisible"]
    for n in range(1, 400):
        try:
            w4.NUMPY["view_divisible"](np.ones(n))
            valid = True
        except ValueError:
            valid = False
        assert valid == (n % 12 == 0), n
        assert p.accepts((n,)) is valid, (n, p.explain_inputs((n,)))


@pytest.mark.parametrize(
    "x, w, accepted",
    [
        ((2, 3, 33, 47), (8, 3, 3, 3), True),
        ((5, 3, 3, 3), (8, 3, 3, 3), True),  # conv gives 2x2, pooling 1x1
        ((5, 3, 2, 9), (8, 3, 3, 3), False),  # conv gives 1 row: pooling would be empty
        ((5, 4, 9, 9), (8, 3, 3, 3), False),  # channels are static
        ((1, 3, 9, 9), (8, 3, 3, 3), False),  # batch 1 would be specialised
    ],
)
def test_conv_pool_accepts(programs, x, w, accepted) -> None:
    assert programs["conv_pool"].accepts(x, w) is accepted


@pytest.mark.parametrize(
    "x0, nonzeros, guards_accept, asserts_hold",
    [(16, 5, True, True), (4, 5, True, False), (3, 1, True, False), (1, 1, False, False), (20, 16, True, True)],
)
def test_unbacked_nonzero_guards_and_asserts(programs, x0, nonzeros, guards_accept, asserts_hold) -> None:
    p = programs["unbacked_nonzero"]
    m = np.zeros(16)
    m[:nonzeros] = 1
    inputs = {"x": np.ones((x0, 3)), "m": m}
    assert p.accepts((x0, 3), (16,)) is guards_accept
    assert w4.asserts_hold(p, inputs) is asserts_hold


@pytest.mark.parametrize("name", list(WORK))
def test_produced_guards_are_sound_and_complete_on_the_grid(programs, name) -> None:
    """Accepted (with asserts holding) => valid and traced the same way; valid and traced the same way => accepted."""
    result = w4.check_acceptance(WORK[name], programs[name])
    assert result.unsound == 0 and result.missed == [], (result.unsound, result.missed)
    assert result.same > 0, result
