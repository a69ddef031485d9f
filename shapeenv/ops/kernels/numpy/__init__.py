"""numpy implementations of the ops with a shape rule, one module per rule family (the names of :mod:`shapeenv.ops.rules`).

One kernel per op name (the names of :func:`shapeenv.ops.registry.registered`), with the same
parameters as the op's shape rule, so that a recorded node's arguments can be passed unchanged.
Kernels follow torch's semantics, not numpy's, where the two differ: integer indices are applied
before advanced ones, ``cat`` skips 1-d empty tensors, ``view`` never copies, ``gather`` reads only
the leading part of other dims, and so on. Result dtypes need not be exact: the interpreter casts
each result to the dtype the program predicts (torch's promotion rules live in the shape rules).

What the kernels share (the table, dtypes, dims, layouts) is in :mod:`.common`. The interpreter runs kernels under ``np.errstate(all="ignore")``:
like torch, a division by zero gives inf or nan without a warning.

>>> import numpy as np
>>> KERNELS["cat"]([np.zeros((2, 3)), np.zeros(0), np.ones((1, 3))], 0).shape
(3, 3)
>>> KERNELS["getitem"](np.zeros((5, 6, 7)), (0, slice(None), [1, 2])).shape   # numpy alone gives (2, 6)
(6, 2)
"""

from __future__ import annotations

from shapeenv.ops.kernels.numpy.common import KERNELS, RANDOM_OPS, as_sizes, axis, element_strides, in_layout, kernel, np_dtype
from shapeenv.ops.kernels.numpy import activations, attention, bitwise, conv, conv_transpose, creation  # noqa: F401  (register the kernels)
from shapeenv.ops.kernels.numpy import data_dependent, einsum, elementwise, embedding, indexing, linalg  # noqa: F401  (register the kernels)
from shapeenv.ops.kernels.numpy import losses, masking, norms, pointwise_math, pooling, rearrange  # noqa: F401  (register the kernels)
from shapeenv.ops.kernels.numpy import reductions, rnn_cells, scans, setitem, shape_ops, statistics  # noqa: F401  (register the kernels)
from shapeenv.ops.kernels.numpy import views  # noqa: F401  (register the kernels)

__all__ = ["KERNELS", "RANDOM_OPS", "kernel", "np_dtype", "axis", "as_sizes", "element_strides", "in_layout"]
