"""A functional namespace mirroring torch's names, so shape code reads like torch: ``ops.cat([x, y], 0)``.

Every function applies the registered shape rule of the op of the same name
(:func:`shapeenv.ops.dispatch.call`), which validates, computes the output's
shape, and records a node when a graph is being traced.

>>> from shapeenv import ShapeEnv, ops
>>> env = ShapeEnv()
>>> x = env.fake_tensor((4, 3), name="x")
>>> ops.add(x, 1).shape
(s0, s1)
"""

from __future__ import annotations

from shapeenv.ops.rules import elementwise  # noqa: F401  (registers the elementwise rules)
from shapeenv.ops.rules import conv, creation, data_dependent, indexing, linalg, reductions, shape_ops, views  # noqa: F401  (register)
from shapeenv.ops.dispatch import call
from shapeenv.ops.nn import *  # noqa: F401,F403  (the torch.nn.functional-style ops; listed in its __all__)
from shapeenv.ops.nn import __all__ as _nn_all
from shapeenv.hops import map, scan, switch  # noqa: F401  (ops.scan/map/switch; shadows the builtin map in this module)

__all__ = ["add", "sub", "mul", "div", "neg", "clone", "as_strided", "scan", "map", "switch"]


def add(a, b):
    """``a + b`` with broadcasting."""
    return call("add", a, b)


def sub(a, b):
    """``a - b`` with broadcasting."""
    return call("sub", a, b)


def mul(a, b):
    """``a * b`` with broadcasting."""
    return call("mul", a, b)


def div(a, b):
    """``a / b`` with broadcasting."""
    return call("div", a, b)


def neg(a):
    """``-a``."""
    return call("neg", a)


def clone(a, memory_format=None):
    """A copy of ``a`` with its own storage (``memory_format``: None/``preserve_format``, ``contiguous_format``, ``channels_last``)."""
    return call("clone", a) if memory_format is None else call("clone", a, memory_format)


def as_strided(x, size, stride, storage_offset=None):
    """``torch.as_strided``: a view of ``x``'s storage with the given sizes, strides and offset (elements)."""
    return call("as_strided", x, size, stride, storage_offset)


# -- comparisons, where, unary math (shapeenv.ops.rules.elementwise) -----------------------------------
def eq(a, b):
    """Elementwise ``a == b`` (a bool tensor)."""
    return call("eq", a, b)


def ne(a, b):
    """Elementwise ``a != b``."""
    return call("ne", a, b)


def lt(a, b):
    """Elementwise ``a < b``."""
    return call("lt", a, b)


def le(a, b):
    """Elementwise ``a <= b``."""
    return call("le", a, b)


def gt(a, b):
    """Elementwise ``a > b``."""
    return call("gt", a, b)


def ge(a, b):
    """Elementwise ``a >= b``."""
    return call("ge", a, b)


def where(cond, a, b):
    """``torch.where(cond, a, b)``."""
    return call("where", cond, a, b)


def relu(input, inplace=False):  # noqa: A002  (torch's names)
    """``torch.relu`` / ``F.relu(input, inplace=False)``."""
    return call("relu_", input) if inplace else call("relu", input)


def abs(a):  # noqa: A001  (torch's name)
    """``torch.abs``."""
    return call("abs", a)


def exp(a):
    """``torch.exp``."""
    return call("exp", a)


def log(a):
    """``torch.log``."""
    return call("log", a)


def sqrt(a):
    """``torch.sqrt``."""
    return call("sqrt", a)


def cos(a):
    """``torch.cos``."""
    return call("cos", a)


def sin(a):
    """``torch.sin``."""
    return call("sin", a)


def tan(a):
    """``torch.tan``."""
    return call("tan", a)


def sigmoid(a):
    """``torch.sigmoid``."""
    return call("sigmoid", a)


def tanh(a):
    """``torch.tanh``."""
    return call("tanh", a)


def pow(a, b):  # noqa: A001
    """``torch.pow``."""
    return call("pow", a, b)


def maximum(a, b):
    """``torch.maximum``."""
    return call("maximum", a, b)


def minimum(a, b):
    """``torch.minimum``."""
    return call("minimum", a, b)


# -- shapes and views (shapeenv.ops.rules.shape_ops, views) ----------------------------------------------
def cat(tensors, dim=0):
    """``torch.cat``."""
    return call("cat", tensors, dim)


def stack(tensors, dim=0):
    """``torch.stack``."""
    return call("stack", tensors, dim)


def split(t, split_size_or_sections, dim=0):
    """``torch.split``."""
    return call("split", t, split_size_or_sections, dim)


def chunk(t, chunks, dim=0):
    """``torch.chunk``."""
    return call("chunk", t, chunks, dim)


def unbind(t, dim=0):
    """``torch.unbind``."""
    return call("unbind", t, dim)


def unsqueeze(t, dim):
    """``torch.unsqueeze``."""
    return call("unsqueeze", t, dim)


def squeeze(t, dim=None):
    """``torch.squeeze``."""
    return call("squeeze", t, dim)


def permute(t, dims):
    """``torch.permute``."""
    return call("permute", t, *dims)


def transpose(t, dim0, dim1):
    """``torch.transpose``."""
    return call("transpose", t, dim0, dim1)


def t(x):
    """``torch.t``."""
    return call("t", x)


def movedim(x, source, destination):
    """``torch.movedim``."""
    return call("movedim", x, source, destination)


def flip(x, dims):
    """``torch.flip``."""
    return call("flip", x, dims)


def flatten(x, start_dim=0, end_dim=-1):
    """``torch.flatten``."""
    return call("flatten", x, start_dim, end_dim)


def unflatten(x, dim, sizes):
    """``torch.unflatten``."""
    return call("unflatten", x, dim, sizes)


def reshape(x, shape):
    """``torch.reshape``."""
    return call("reshape", x, *shape)


# -- indexing (shapeenv.ops.rules.indexing) ------------------------------------------------------------
def select(x, dim, index):
    """``torch.select``."""
    return call("select", x, dim, index)


def narrow(x, dim, start, length):
    """``torch.narrow``."""
    return call("narrow", x, dim, start, length)


def index_select(x, dim, index):
    """``torch.index_select``."""
    return call("index_select", x, dim, index)


def gather(x, dim, index):
    """``torch.gather``."""
    return call("gather", x, dim, index)


# -- products, reductions (shapeenv.ops.rules.linalg, reductions) ----------------------------------------
def matmul(a, b):
    """``torch.matmul``."""
    return call("matmul", a, b)


def mm(a, b):
    """``torch.mm``."""
    return call("mm", a, b)


def bmm(a, b):
    """``torch.bmm``."""
    return call("bmm", a, b)


def linear(x, weight, bias=None):
    """``torch.nn.functional.linear``."""
    return call("linear", x, weight, bias)


def sum(x, dim=None, keepdim=False, dtype=None):  # noqa: A001
    """``torch.sum``."""
    return call("sum", x, dim, keepdim, dtype)


def mean(x, dim=None, keepdim=False, dtype=None):
    """``torch.mean``."""
    return call("mean", x, dim, keepdim, dtype)


def max(x, dim=None, keepdim=False):  # noqa: A001
    """``torch.max``: all elements, ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
    return call("max", x) if dim is None else call("max", x, dim, keepdim)


def min(x, dim=None, keepdim=False):  # noqa: A001
    """``torch.min``."""
    return call("min", x) if dim is None else call("min", x, dim, keepdim)


def amax(x, dim=(), keepdim=False):
    """``torch.amax``."""
    return call("amax", x, dim, keepdim)


def amin(x, dim=(), keepdim=False):
    """``torch.amin``."""
    return call("amin", x, dim, keepdim)


def argmax(x, dim=None, keepdim=False):
    """``torch.argmax``."""
    return call("argmax", x, dim, keepdim)


def argmin(x, dim=None, keepdim=False):
    """``torch.argmin``."""
    return call("argmin", x, dim, keepdim)


def softmax(x, dim, dtype=None):
    """``torch.softmax``."""
    return call("softmax", x, dim, dtype)


def log_softmax(x, dim, dtype=None):
    """``torch.log_softmax``."""
    return call("log_softmax", x, dim, dtype)


# -- windows and padding (shapeenv.ops.rules.conv) -----------------------------------------------------
def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.functional.conv1d``."""
    return call("conv1d", x, weight, bias, stride, padding, dilation, groups)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.functional.conv2d``."""
    return call("conv2d", x, weight, bias, stride, padding, dilation, groups)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """``torch.nn.functional.max_pool2d``."""
    return call("max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """``torch.nn.functional.avg_pool2d``."""
    return call("avg_pool2d", x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def pad(x, pad, mode="constant", value=None):
    """``torch.nn.functional.pad`` (constant mode)."""
    return call("pad", x, pad, mode, value)


# -- creation (shapeenv.ops.rules.creation): env= optional (a symbolic size's, the trace's, or detached) ---
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


def zeros_like(x, dtype=None):
    """``torch.zeros_like``."""
    return call("zeros_like", x, dtype)


def ones_like(x, dtype=None):
    """``torch.ones_like``."""
    return call("ones_like", x, dtype)


def empty_like(x, dtype=None):
    """``torch.empty_like``."""
    return call("empty_like", x, dtype)


def rand_like(x, dtype=None):
    """``torch.rand_like``."""
    return call("rand_like", x, dtype)


def randn_like(x, dtype=None):
    """``torch.randn_like``."""
    return call("randn_like", x, dtype)


def full_like(x, fill_value, dtype=None):
    """``torch.full_like``."""
    return call("full_like", x, fill_value, dtype)


# -- data-dependent sizes (shapeenv.ops.rules.data_dependent) ------------------------------------------
def nonzero(x):
    """``torch.nonzero``: ``(u, ndim)`` with ``u`` unbacked."""
    return call("nonzero", x)


def masked_select(x, mask):
    """``torch.masked_select``."""
    return call("masked_select", x, mask)


def unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """``torch.unique``."""
    return call("unique", x, sorted, return_inverse, return_counts, dim)



__all__ += [  # noqa: PLE0604
    "eq", "ne", "lt", "le", "gt", "ge", "where", "relu", "abs", "exp", "log", "sqrt", "cos", "sin", "tan",
    "sigmoid", "tanh", "pow", "maximum", "minimum",
    "cat", "stack", "split", "chunk", "unbind", "unsqueeze", "squeeze", "permute", "transpose", "t", "movedim",
    "flip", "flatten", "unflatten", "reshape", "select", "narrow", "index_select", "gather",
    "matmul", "mm", "bmm", "linear", "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin",
    "softmax", "log_softmax", "conv1d", "conv2d", "max_pool2d", "avg_pool2d", "pad",
    "zeros", "ones", "empty", "rand", "randn", "full", "arange",
    "zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "full_like",
    "nonzero", "masked_select", "unique",
    *_nn_all,
]
