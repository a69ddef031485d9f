"""The numpy backend against torch eager: the same programs on the same inputs give the same values.

Each case of :mod:`tests.shapeenv.backend_cases` (except those whose semantics differ on purpose,
marked ``torch=False``) runs once through export + the numpy backend and once in torch eager,
with ``T`` bound to torch (``torch.*``, ``torch.nn.functional`` for pad/pooling/linear, torch's
``scan`` and ``map``).
"""

from __future__ import annotations

import numpy as np
import pytest

from shapeenv.backends import numpy_backend
from tests.shapeenv.backend_cases import CASES, Case, make_inputs, torch_namespace
from tests.shapeenv.test_numpy_backend import assert_same, export_case

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

TORCH_CASES = [c for c in CASES if c.torch]


def to_numpy(value):
    """torch outputs as numpy: tensors to arrays, sizes and (named) tuples to tuples, dicts kept."""
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    if isinstance(value, dict):
        return {k: to_numpy(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return tuple(to_numpy(v) for v in value)
    return value


@pytest.mark.parametrize("case", TORCH_CASES, ids=[c.name for c in TORCH_CASES])
def test_backend_matches_torch_eager(case: Case) -> None:
    program = export_case(case)
    inputs = make_inputs(case.run, seed=2)
    ours = numpy_backend(program)(*inputs)
    with torch.no_grad():
        theirs = case.fn(torch_namespace(), *(torch.from_numpy(np.array(a)) for a in inputs))
    assert_same(ours, to_numpy(theirs), max(case.atol, 1e-5), case.name)


def test_most_cases_are_compared_with_torch() -> None:
    assert len(TORCH_CASES) >= len(CASES) - 6
