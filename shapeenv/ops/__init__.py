"""A functional namespace mirroring torch's names, so shape code reads like torch: ``ops.cat([x, y], 0)``.

Every function applies the registered shape rule of its op (:func:`shapeenv.ops.dispatch.call`),
which validates, computes the output's shape, and records a node when a graph is being traced.
The functions are made from the op table (:mod:`shapeenv.ops.table`, one row per op: docstring,
functions, Tensor methods), with the names, signatures and docstrings users see in ``help``;
the few below that do more than forward their arguments are written out.

>>> from shapeenv import ShapeEnv, ops
>>> env = ShapeEnv()
>>> x = env.fake_tensor((4, 3), name="x")
>>> ops.add(x, 1).shape, ops.matmul.__doc__
((s0, s1), '``torch.matmul``.')
"""

from __future__ import annotations

from shapeenv.errors import ShapeEnvTypeError
from shapeenv.ops.dispatch import call
from shapeenv.ops.forward import functions_of
from shapeenv.ops.rules import activations, attention, bitwise, conv, conv_transpose, creation, data_dependent  # noqa: F401
from shapeenv.ops.rules import einsum as _einsum, elementwise, embedding as _embedding, indexing, linalg, losses  # noqa: F401
from shapeenv.ops.rules import masking, norms, pointwise_math, pooling, rearrange, reductions, rnn_cells  # noqa: F401
from shapeenv.ops.rules import scans, setitem, shape_ops, statistics, views  # noqa: F401  (register the rules)
from shapeenv.ops.table import OPS
from shapeenv.hops import map, scan, switch  # noqa: F401  (ops.scan/map/switch; shadows the builtin map in this module)

# Note [Functions made from the op table]
#     The module's namespace gets one function per function spelling of the table, once, at import
#     (after the rules' modules above registered the rules the signatures come from). Nothing
#     changes the namespace later: registering a rule at run time does not make a function.
_MADE = functions_of(OPS)
globals().update(_MADE)


def clone(a, memory_format=None):
    """A copy of ``a`` with its own storage (``memory_format``: None/``preserve_format``, ``contiguous_format``, ``channels_last``)."""
    # graph nodes of clone() list no memory format
    return call("clone", a) if memory_format is None else call("clone", a, memory_format)


def relu(input, inplace=False):  # noqa: A002  (torch's names)
    """``torch.relu`` / ``F.relu(input, inplace=False)``."""
    return call("relu_", input) if inplace else call("relu", input)  # inplace picks another op


def permute(t, dims):
    """``torch.permute``."""
    return call("permute", t, *dims)  # the rule takes the dims spread, as Tensor.permute(*dims)


def reshape(x, shape):
    """``torch.reshape``."""
    return call("reshape", x, *shape)  # the rule takes the sizes spread, as Tensor.reshape(*shape)


def max(x, dim=None, keepdim=False):  # noqa: A001
    """``torch.max``: all elements, ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
    return call("max", x) if dim is None else call("max", x, dim, keepdim)  # the rule tells the overloads by arity


def min(x, dim=None, keepdim=False):  # noqa: A001
    """``torch.min``."""
    return call("min", x) if dim is None else call("min", x, dim, keepdim)


def clamp_min(input, min):  # noqa: A002
    """``torch.clamp_min``."""
    return call("clamp", input, min, None)  # clamp with one bound


def clamp_max(input, max):  # noqa: A002
    """``torch.clamp_max``."""
    return call("clamp", input, None, max)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002
    """``torch.norm`` (vector norms; ``out`` must be None)."""
    if out is not None:
        raise ShapeEnvTypeError("norm: out= is not supported on fake tensors", fix="y = norm(...) instead of out=y")
    return call("norm", input, p, dim, keepdim, dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002
    """``F.normalize`` (``out`` must be None)."""
    if out is not None:
        raise ShapeEnvTypeError("normalize: out= is not supported on fake tensors", fix="y = normalize(...) instead of out=y")
    return call("normalize", input, p, dim, eps)


def meshgrid(*tensors, indexing=None):
    """``torch.meshgrid`` (``indexing`` "ij", the default, or "xy")."""
    return call("meshgrid", *tensors, indexing=indexing)  # indexing is a keyword of the rule


# -- creation: env= optional (a symbolic size's, the trace's, or detached) ------------------------------
def _given(**kwargs):
    """The keyword arguments that were given (graph nodes then list only those)."""
    return {k: v for k, v in kwargs.items() if v is not None}


def zeros(*size, dtype=None, env=None):
    """``torch.zeros``."""
    return call("zeros", *size, **_given(dtype=dtype, env=env))


def ones(*size, dtype=None, env=None):
    """``torch.ones``."""
    return call("ones", *size, **_given(dtype=dtype, env=env))


def empty(*size, dtype=None, env=None):
    """``torch.empty``."""
    return call("empty", *size, **_given(dtype=dtype, env=env))


def rand(*size, dtype=None, env=None):
    """``torch.rand``."""
    return call("rand", *size, **_given(dtype=dtype, env=env))


def randn(*size, dtype=None, env=None):
    """``torch.randn``."""
    return call("randn", *size, **_given(dtype=dtype, env=env))


def full(size, fill_value, dtype=None, env=None):
    """``torch.full``."""
    return call("full", size, fill_value, **_given(dtype=dtype, env=env))


def arange(start, end=None, step=1, dtype=None, env=None):
    """``torch.arange``."""
    return call("arange", start, end, step, **_given(dtype=dtype, env=env))


__all__ = [
    *_MADE, "clone", "relu", "permute", "reshape", "max", "min", "clamp_min", "clamp_max", "norm", "normalize",
    "meshgrid", "zeros", "ones", "empty", "rand", "randn", "full", "arange", "scan", "map", "switch",
]
