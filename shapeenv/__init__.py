"""The ShapeEnv: symbolic sizes, guards, runtime asserts and the guard set a trace produces.

>>> from shapeenv import ShapeEnv, check
>>> from guards import Source
>>> env = ShapeEnv()
>>> batch = env.create_symint(8, Source.size("x", 0))
>>> check(batch < 100)
>>> env.statically_known_true(batch < 200), str(env.bound(batch))
(True, '[2, 99]')
"""

#: The library's version (``shapeenv --version`` prints it; pyproject.toml reads it from here).
__version__ = "0.2.0"

from shapeenv import ops  # noqa: E402 -- after the version, which the build reads without importing
from shapeenv import api
from shapeenv.logs import LogConfig, set_logs
from shapeenv.api import check, guard_or_false, guard_or_true, guard_size_oblivious, statically_known_false, statically_known_true
from shapeenv.env import ShapeEnv
from shapeenv.export.export import ExportConstraintError, export
from shapeenv.errors import (
    CheckFailedError,
    ConstraintViolationError,
    ContradictionError,
    DimOutOfRangeError,
    DynamicShapesError,
    DynamicShapesTypeError,
    GuardOnDataDependentSymNode,
    HigherOrderOpError,
    InputsError,
    ShapeEnvError,
    ShapeError,
    SignatureError,
    TorchInteropError,
    UnknownDimSpecError,
)
from shapeenv.tensor import Dim, FakeTensor
from shapeenv.program.graph import Graph, Node
from shapeenv.hops import map, scan, switch
from shapeenv.program.program import ExportedProgram, TensorSpec
from shapeenv.compile import CompiledFunction, RecompileError, RecompileLimitWarning, compile, suggest_dynamic
from shapeenv.compile.marks import mark_dynamic, mark_static, mark_unbacked, maybe_mark_dynamic
from shapeenv.compile.stance import set_stance
from shapeenv.core.provenance import AssertRecord, GuardRecord, Provenance
from shapeenv.core.settings import ShapeEnvSettings
from shapeenv.core.deferred import ProducedGuards
from shapeenv.core.symbols import DimDynamic
from shapeenv.ops.registry import on_first_eager_use as _on_first_eager_use


def _load_backends() -> None:
    """numpy is optional; with it, shapeenv.ops also runs eagerly on real arrays (numpy kernels).

    Imported on first use, not here: a program that never passes real arrays does not pay
    for importing numpy (nor for the thread pool it starts).
    """
    try:
        from shapeenv import backends  # noqa: F401
    except ImportError:  # pragma: no cover - exercised only without numpy
        pass


_on_first_eager_use(_load_backends)

__all__ = [
    "__version__",
    "ShapeEnv",
    "ops",
    "Dim",
    "FakeTensor",
    "Graph",
    "Node",
    "export",
    "ExportedProgram",
    "TensorSpec",
    "ExportConstraintError",
    "compile",
    "CompiledFunction",
    "suggest_dynamic",
    "RecompileError",
    "RecompileLimitWarning",
    "mark_dynamic",
    "maybe_mark_dynamic",
    "mark_static",
    "mark_unbacked",
    "set_stance",
    "ShapeError",
    "HigherOrderOpError",
    "scan",
    "map",
    "switch",
    "ShapeEnvSettings",
    "ProducedGuards",
    "DimDynamic",
    "GuardRecord",
    "AssertRecord",
    "Provenance",
    "ShapeEnvError",
    "ConstraintViolationError",
    "GuardOnDataDependentSymNode",
    "CheckFailedError",
    "ContradictionError",
    "DynamicShapesError",
    "DynamicShapesTypeError",
    "SignatureError",
    "UnknownDimSpecError",
    "TorchInteropError",
    "DimOutOfRangeError",
    "InputsError",
    "set_logs",
    "LogConfig",
]
__all__ += api.__all__  # check, statically_known_*, guard_or_*: their one list is api's
