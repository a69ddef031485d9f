"""Backends: run traced programs on real data.

:func:`numpy_backend` makes an :class:`~shapeenv.program.program.ExportedProgram` callable on numpy
arrays, one numpy kernel per op and loops for scan, map and switch; it is also a ``backend=``
for :func:`shapeenv.compile`. numpy is needed only when this package is imported.

>>> import numpy as np
>>> from shapeenv import Dim, export
>>> p = export(lambda x: (x * 2).sum(-1), ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
>>> numpy_backend(p)(np.ones((5, 3), np.float32))
array([6., 6., 6., 6., 6.], dtype=float32)
"""

from .errors import BackendError, InputMismatchError, KernelError, MissingKernelError, ShapeMismatchError
from .numpy_backend import NumpyProgram, missing_kernels, numpy_backend
from .eager import EagerTensor  # noqa: F401  (the eager stances wrap numpy inputs in it)

__all__ = [
    "numpy_backend",
    "NumpyProgram",
    "EagerTensor",
    "missing_kernels",
    "BackendError",
    "MissingKernelError",
    "InputMismatchError",
    "ShapeMismatchError",
    "KernelError",
]
