"""The op methods shared by :class:`~shapeenv.fake.tensor.FakeTensor` and the eager tensor wrapper.

Each method dispatches to the op's shape rule through :func:`shapeenv.ops.dispatch.call`
(on fake tensors) or to its eager kernel (on real arrays wrapped by
:class:`shapeenv.backends.eager.EagerTensor`), so both kinds of tensor answer the same
torch-like calls. A class using the mixin provides ``shape``, ``dtype`` and ``_new_kwargs``.

>>> from shapeenv import ShapeEnv
>>> x = ShapeEnv().fake_tensor((4, 3), name="x")
>>> isinstance(x, TensorMethods), (x + 1).shape
(True, (s0, s1))
"""

from __future__ import annotations

from symint import SymFloat, SymInt

from shapeenv.errors import ShapeEnvTypeError
from shapeenv.ops.dispatch import call
from shapeenv.fake.methods_more import MoreTensorMethods

__all__ = ["TensorMethods"]


class TensorMethods(MoreTensorMethods):
    """Torch-named methods that dispatch to the op registry (see the module docstring)."""

    __slots__ = ()

    # -- elementwise arithmetic and comparisons (shape rules in shapeenv.ops.rules.elementwise) -------
    def __add__(self, other):
        return call("add", self, other)

    def __radd__(self, other):
        return call("add", other, self)

    def __sub__(self, other):
        return call("sub", self, other)

    def __rsub__(self, other):
        return call("sub", other, self)

    def __mul__(self, other):
        return call("mul", self, other)

    def __rmul__(self, other):
        return call("mul", other, self)

    def __truediv__(self, other):
        return call("div", self, other)

    def __rtruediv__(self, other):
        return call("div", other, self)

    def __neg__(self):
        return call("neg", self)

    def add(self, other):
        """Elementwise ``self + other`` with broadcasting."""
        return call("add", self, other)

    def mul(self, other):
        """Elementwise ``self * other`` with broadcasting."""
        return call("mul", self, other)

    def add_(self, other):
        """In-place ``self += other`` (bumps the version counter)."""
        return call("add_", self, other)

    def sub(self, other):
        """Elementwise ``self - other`` with broadcasting."""
        return call("sub", self, other)

    def div(self, other):
        """Elementwise ``self / other`` with broadcasting."""
        return call("div", self, other)

    # -- comparisons (elementwise, as in torch; hashing stays by identity) ------------------------
    def __eq__(self, other):
        return call("eq", self, other) if _comparable(other) else NotImplemented

    def __ne__(self, other):
        return call("ne", self, other) if _comparable(other) else NotImplemented

    def __lt__(self, other):
        return call("lt", self, other)

    def __le__(self, other):
        return call("le", self, other)

    def __gt__(self, other):
        return call("gt", self, other)

    def __ge__(self, other):
        return call("ge", self, other)

    def eq(self, other):
        """Elementwise ``self == other``: a bool tensor."""
        return call("eq", self, other)

    def ne(self, other):
        """Elementwise ``self != other``."""
        return call("ne", self, other)

    def lt(self, other):
        """Elementwise ``self < other``."""
        return call("lt", self, other)

    def le(self, other):
        """Elementwise ``self <= other``."""
        return call("le", self, other)

    def gt(self, other):
        """Elementwise ``self > other``."""
        return call("gt", self, other)

    def ge(self, other):
        """Elementwise ``self >= other``."""
        return call("ge", self, other)

    def __iter__(self):
        return iter(call("unbind", self, 0))

    # -- unary math, powers --------------------------------------------------------------------
    def __abs__(self):
        return call("abs", self)

    def __pow__(self, other):
        return call("pow", self, other)

    def __rpow__(self, other):
        return call("pow", other, self)

    def abs(self):
        """Elementwise absolute value."""
        return call("abs", self)

    def pow(self, other):
        """Elementwise ``self ** other``."""
        return call("pow", self, other)

    def relu(self):
        """Elementwise ``max(self, 0)``."""
        return call("relu", self)

    def exp(self):
        """Elementwise exponential (float result)."""
        return call("exp", self)

    def log(self):
        """Elementwise natural logarithm (float result)."""
        return call("log", self)

    def sqrt(self):
        """Elementwise square root (float result)."""
        return call("sqrt", self)

    def cos(self):
        """Elementwise cosine (float result)."""
        return call("cos", self)

    def sin(self):
        """Elementwise sine (float result)."""
        return call("sin", self)

    def tan(self):
        """Elementwise tangent (float result)."""
        return call("tan", self)

    def sigmoid(self):
        """Elementwise logistic sigmoid (float result)."""
        return call("sigmoid", self)

    def tanh(self):
        """Elementwise hyperbolic tangent (float result)."""
        return call("tanh", self)

    def maximum(self, other):
        """Elementwise maximum with another tensor."""
        return call("maximum", self, other)

    def minimum(self, other):
        """Elementwise minimum with another tensor."""
        return call("minimum", self, other)

    # -- dtype conversion ----------------------------------------------------------------------
    def to(self, dtype):
        """Convert to ``dtype`` (or another tensor's dtype); ``self`` if it is unchanged."""
        return call("to", self, dtype)

    def float(self):
        """``self.to(float32)``."""
        return call("to", self, "float32")

    def double(self):
        """``self.to(float64)``."""
        return call("to", self, "float64")

    def half(self):
        """``self.to(float16)``."""
        return call("to", self, "float16")

    def long(self):
        """``self.to(int64)``."""
        return call("to", self, "int64")

    def int(self):
        """``self.to(int32)``."""
        return call("to", self, "int32")

    def bool(self):
        """``self.to(bool)``."""
        return call("to", self, "bool")

    # -- in-place (each bumps the storage's version counter) -----------------------------------
    def __iadd__(self, other):
        return call("add_", self, other)

    def __isub__(self, other):
        return call("sub_", self, other)

    def __imul__(self, other):
        return call("mul_", self, other)

    def __itruediv__(self, other):
        return call("div_", self, other)

    def sub_(self, other):
        """In-place ``self -= other``."""
        return call("sub_", self, other)

    def mul_(self, other):
        """In-place ``self *= other``."""
        return call("mul_", self, other)

    def div_(self, other):
        """In-place ``self /= other``."""
        return call("div_", self, other)

    def copy_(self, src):
        """In-place copy of ``src`` (broadcast to ``self``'s shape)."""
        return call("copy_", self, src)

    def fill_(self, value):
        """In-place fill with a scalar."""
        return call("fill_", self, value)

    def zero_(self):
        """In-place fill with zeros."""
        return call("zero_", self)

    def relu_(self):
        """In-place relu."""
        return call("relu_", self)

    # -- shapes and views (shape rules in shapeenv.ops.rules.views / shape_ops / indexing) -----------
    def view(self, *shape):
        """A view with a new shape (one size may be -1); see :func:`shapeenv.ops.rules.views.view`."""
        return call("view", self, *shape)

    def reshape(self, *shape):
        """A view with a new shape if the strides allow, else a copy."""
        return call("reshape", self, *shape)

    def view_as(self, other):
        """``self.view(other.shape)``."""
        return call("view", self, *other.shape)

    def reshape_as(self, other):
        """``self.reshape(other.shape)``."""
        return call("reshape", self, *other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Merge dims ``start_dim..end_dim``."""
        return call("flatten", self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        """Split dim ``dim`` into ``sizes``."""
        return call("unflatten", self, dim, sizes)

    def expand(self, *sizes):
        """Broadcast size-1 dims to ``sizes`` (a view with stride 0 there)."""
        return call("expand", self, *sizes)

    def expand_as(self, other):
        """``self.expand(other.shape)``."""
        return call("expand", self, *other.shape)

    def permute(self, *dims):
        """Reorder the dims (a view)."""
        return call("permute", self, *dims)

    def transpose(self, dim0, dim1):
        """Swap two dims (a view)."""
        return call("transpose", self, dim0, dim1)

    def t(self):
        """Transpose a tensor of at most 2 dims."""
        return call("t", self)

    @property
    def T(self):
        """All dims reversed (a view)."""
        return call("permute", self, *range(self.ndim - 1, -1, -1))

    @property
    def mT(self):
        """The last two dims swapped (a view)."""
        return call("transpose", self, -2, -1)

    def movedim(self, source, destination):
        """Move dims ``source`` to positions ``destination``."""
        return call("movedim", self, source, destination)

    def unsqueeze(self, dim):
        """Insert a size-1 dim at ``dim`` (a view)."""
        return call("unsqueeze", self, dim)

    def squeeze(self, dim=None):
        """Remove size-1 dims (a view)."""
        return call("squeeze", self) if dim is None else call("squeeze", self, dim)

    def flip(self, *dims):
        """Reverse along ``dims`` (a copy)."""
        return call("flip", self, dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else list(dims))

    def repeat(self, *repeats):
        """Tile ``repeats`` times per dim (a copy)."""
        return call("repeat", self, *repeats)

    def split(self, split_size_or_sections, dim=0):
        """Pieces of ``split_size`` (or of the given sizes) along ``dim`` (views)."""
        return call("split", self, split_size_or_sections, dim)

    def chunk(self, chunks, dim=0):
        """At most ``chunks`` pieces of ``ceil(size / chunks)`` along ``dim`` (views)."""
        return call("chunk", self, chunks, dim)

    def unbind(self, dim=0):
        """The slices along ``dim`` (views)."""
        return call("unbind", self, dim)

    def __getitem__(self, index):
        return call("getitem", self, index)

    def select(self, dim, index):
        """Drop dim ``dim`` at ``index`` (a view)."""
        return call("select", self, dim, index)

    def narrow(self, dim, start, length):
        """``length`` elements from ``start`` along ``dim`` (a view)."""
        return call("narrow", self, dim, start, length)

    def index_select(self, dim, index):
        """Entries along ``dim`` picked by a 1-d integer tensor."""
        return call("index_select", self, dim, index)

    def gather(self, dim, index):
        """``torch.gather(self, dim, index)``."""
        return call("gather", self, dim, index)

    # -- reductions and products ---------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, dtype=None):
        """Sum over ``dim`` (all dims for None)."""
        return call("sum", self, dim, keepdim, dtype)

    def mean(self, dim=None, keepdim=False, dtype=None):
        """Mean over ``dim`` (floating point only)."""
        return call("mean", self, dim, keepdim, dtype)

    def max(self, dim=None, keepdim=False):
        """Max of all elements, ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
        return call("max", self) if dim is None else call("max", self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        """Min of all elements, ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
        return call("min", self) if dim is None else call("min", self, dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        """Max over ``dim`` (all dims for ``()``)."""
        return call("amax", self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        """Min over ``dim`` (all dims for ``()``)."""
        return call("amin", self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        """Indices of the maxima along ``dim``."""
        return call("argmax", self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        """Indices of the minima along ``dim``."""
        return call("argmin", self, dim, keepdim)

    def softmax(self, dim, dtype=None):
        """Softmax along ``dim``."""
        return call("softmax", self, dim, dtype)

    def log_softmax(self, dim, dtype=None):
        """Log-softmax along ``dim``."""
        return call("log_softmax", self, dim, dtype)

    def matmul(self, other):
        """``self @ other``."""
        return call("matmul", self, other)

    def __matmul__(self, other):
        return call("matmul", self, other)

    def __rmatmul__(self, other):
        return call("matmul", other, self)

    # -- data-dependent --------------------------------------------------------------------------
    def item(self):
        """The single element of an integer or bool tensor, as an unbacked SymInt."""
        return call("item", self)

    def nonzero(self):
        """Indices of the non-zero elements: ``(u, ndim)``, ``u`` data-dependent."""
        return call("nonzero", self)

    def masked_select(self, mask):
        """The elements where ``mask`` is set (1-d, data-dependent length)."""
        return call("masked_select", self, mask)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """The distinct values (data-dependent length)."""
        return call("unique", self, sorted, return_inverse, return_counts, dim)

    def clone(self, memory_format=None):
        """A copy with its own storage (``preserve_format`` by default: a dense layout is kept)."""
        return call("clone", self) if memory_format is None else call("clone", self, memory_format)

    def contiguous(self, memory_format="contiguous_format"):
        """``self`` if contiguous in ``memory_format`` (default: row-major), else a copy in that format."""
        if memory_format == "contiguous_format":
            return call("contiguous", self)
        return call("contiguous", self, memory_format)

    def as_strided(self, size, stride, storage_offset=None):
        """A view of the same storage with the given sizes, strides and offset (in elements)."""
        return call("as_strided", self, size, stride, storage_offset)

    def unfold(self, dimension, size, step):
        """Windows of ``size`` elements every ``step`` along ``dimension``, as a new last dim (a view)."""
        return call("unfold", self, dimension, size, step)

    def __len__(self) -> int:
        if not self.shape:
            raise ShapeEnvTypeError("len() of a 0-d tensor", fix="x.numel() or x.item()")
        return self.shape[0]

    # -- masks and bounds (shape rules in shapeenv.ops.rules.masking) -------------------------------------
    def masked_fill(self, mask, value):
        """``value`` where the bool ``mask`` (broadcast with ``self``) is set: a contiguous copy."""
        return call("masked_fill", self, mask, value)

    def masked_fill_(self, mask, value):
        """In-place ``masked_fill`` (``mask`` broadcasts to ``self``)."""
        return call("masked_fill_", self, mask, value)

    def tril(self, diagonal=0):
        """The lower triangle of the last two dims."""
        return call("tril", self, diagonal)

    def triu(self, diagonal=0):
        """The upper triangle of the last two dims."""
        return call("triu", self, diagonal)

    def tril_(self, diagonal=0):
        """In-place ``tril``."""
        return call("tril_", self, diagonal)

    def triu_(self, diagonal=0):
        """In-place ``triu``."""
        return call("triu_", self, diagonal)

    def clamp(self, min=None, max=None):  # noqa: A002  (torch's names)
        """Elementwise bounds (numbers or broadcast tensors)."""
        return call("clamp", self, min, max)

    def clip(self, min=None, max=None):  # noqa: A002
        """``clamp``."""
        return call("clamp", self, min, max)

    def clamp_min(self, min):  # noqa: A002
        """``clamp(min=min)``."""
        return call("clamp", self, min, None)

    def clamp_max(self, max):  # noqa: A002
        """``clamp(max=max)``."""
        return call("clamp", self, None, max)

    def clamp_(self, min=None, max=None):  # noqa: A002
        """In-place ``clamp``."""
        return call("clamp_", self, min, max)

    def clip_(self, min=None, max=None):  # noqa: A002
        """In-place ``clamp``."""
        return call("clamp_", self, min, max)

    # -- bitwise and logical (shapeenv.ops.rules.bitwise) -----------------------------------------------
    def __and__(self, other):
        return call("bitwise_and", self, other)

    def __rand__(self, other):
        return call("bitwise_and", other, self)

    def __or__(self, other):
        return call("bitwise_or", self, other)

    def __ror__(self, other):
        return call("bitwise_or", other, self)

    def __xor__(self, other):
        return call("bitwise_xor", self, other)

    def __rxor__(self, other):
        return call("bitwise_xor", other, self)

    def __invert__(self):
        return call("bitwise_not", self)

    def __iand__(self, other):
        return call("bitwise_and_", self, other)

    def __ior__(self, other):
        return call("bitwise_or_", self, other)

    def __ixor__(self, other):
        return call("bitwise_xor_", self, other)

    def bitwise_and_(self, other):
        """In-place ``self &= other``."""
        return call("bitwise_and_", self, other)

    def bitwise_or_(self, other):
        """In-place ``self |= other``."""
        return call("bitwise_or_", self, other)

    def bitwise_xor_(self, other):
        """In-place ``self ^= other``."""
        return call("bitwise_xor_", self, other)

    def logical_not_(self):
        """In-place logical not."""
        return call("logical_not_", self)

    def bitwise_and(self, other):
        """``self & other`` (bool and integer tensors)."""
        return call("bitwise_and", self, other)

    def bitwise_or(self, other):
        """``self | other``."""
        return call("bitwise_or", self, other)

    def bitwise_xor(self, other):
        """``self ^ other``."""
        return call("bitwise_xor", self, other)

    def bitwise_not(self):
        """``~self``."""
        return call("bitwise_not", self)

    def logical_and(self, other):
        """Elementwise logical and (a bool tensor; any dtypes)."""
        return call("logical_and", self, other)

    def logical_or(self, other):
        """Elementwise logical or."""
        return call("logical_or", self, other)

    def logical_xor(self, other):
        """Elementwise logical xor."""
        return call("logical_xor", self, other)

    def logical_not(self):
        """Elementwise logical not."""
        return call("logical_not", self)

    # -- scans, sorting, statistics (shapeenv.ops.rules.scans, statistics) -----------------------------
    def cumsum(self, dim, dtype=None):
        """Cumulative sum along ``dim`` (integers accumulate in int64)."""
        return call("cumsum", self, dim, dtype)

    def cumprod(self, dim, dtype=None):
        """Cumulative product along ``dim``."""
        return call("cumprod", self, dim, dtype)

    def sort(self, dim=-1, descending=False, *, stable=False):
        """``(values, indices)`` sorted along ``dim``."""
        return call("sort", self, dim, descending, stable)

    def argsort(self, dim=-1, descending=False, *, stable=False):
        """The indices that sort along ``dim``."""
        return call("argsort", self, dim, descending, stable)

    def topk(self, k, dim=None, largest=True, sorted=True):  # noqa: A002  (torch's names)
        """``(values, indices)`` of the ``k`` largest (or smallest) along ``dim``."""
        return call("topk", self, k, dim, largest, sorted)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """Variance over ``dim`` (floating point)."""
        return call("var", self, dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """Standard deviation over ``dim`` (floating point)."""
        return call("std", self, dim, unbiased, keepdim, correction)

    # -- lookups and writes (shapeenv.ops.rules.embedding, setitem) ------------------------------------
    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        """Repeat elements ``repeats`` times along ``dim`` (flattened for None)."""
        return call("repeat_interleave", self, repeats, dim, output_size)

    def __setitem__(self, index, value):
        call("setitem", self, index, value)

    def index_put_(self, indices, values, accumulate=False):
        """In place: ``self[indices] = values`` (or ``+=`` with ``accumulate``)."""
        return call("index_put_", self, indices, values, accumulate)

    def index_put(self, indices, values, accumulate=False):
        """A copy of ``self`` with ``self[indices] = values``."""
        return call("index_put", self, indices, values, accumulate)

    # -- more pointwise math (shapeenv.ops.rules.pointwise_math) -------------------------------------------
    def __floordiv__(self, other):
        return call("floor_divide", self, other)

    def __rfloordiv__(self, other):
        return call("floor_divide", other, self)

    def __mod__(self, other):
        return call("remainder", self, other)

    def __rmod__(self, other):
        return call("remainder", other, self)

    def floor_divide(self, other):
        """``self // other``."""
        return call("floor_divide", self, other)

    def remainder(self, other):
        """``self % other`` (Python's sign)."""
        return call("remainder", self, other)

    def fmod(self, other):
        """C's remainder (the sign of ``self``)."""
        return call("fmod", self, other)

    def atan2(self, other):
        """Elementwise ``atan2(self, other)``."""
        return call("atan2", self, other)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """The vector norm over ``dim`` (all dims for None)."""
        return call("norm", self, p, dim, keepdim, dtype)

    def rsqrt(self):
        """Elementwise ``torch.rsqrt``."""
        return call("rsqrt", self)

    def erf(self):
        """Elementwise ``torch.erf``."""
        return call("erf", self)

    def erfc(self):
        """Elementwise ``torch.erfc``."""
        return call("erfc", self)

    def log1p(self):
        """Elementwise ``torch.log1p``."""
        return call("log1p", self)

    def expm1(self):
        """Elementwise ``torch.expm1``."""
        return call("expm1", self)

    def log2(self):
        """Elementwise ``torch.log2``."""
        return call("log2", self)

    def log10(self):
        """Elementwise ``torch.log10``."""
        return call("log10", self)

    def exp2(self):
        """Elementwise ``torch.exp2``."""
        return call("exp2", self)

    def reciprocal(self):
        """Elementwise ``torch.reciprocal``."""
        return call("reciprocal", self)

    def asin(self):
        """Elementwise ``torch.asin``."""
        return call("asin", self)

    def acos(self):
        """Elementwise ``torch.acos``."""
        return call("acos", self)

    def atan(self):
        """Elementwise ``torch.atan``."""
        return call("atan", self)

    def sinh(self):
        """Elementwise ``torch.sinh``."""
        return call("sinh", self)

    def cosh(self):
        """Elementwise ``torch.cosh``."""
        return call("cosh", self)

    def asinh(self):
        """Elementwise ``torch.asinh``."""
        return call("asinh", self)

    def atanh(self):
        """Elementwise ``torch.atanh``."""
        return call("atanh", self)

    def floor(self):
        """Elementwise ``torch.floor``."""
        return call("floor", self)

    def ceil(self):
        """Elementwise ``torch.ceil``."""
        return call("ceil", self)

    def round(self, *, decimals=0):
        """Elementwise ``torch.round`` (to ``decimals`` places)."""
        return call("round", self, decimals)

    def trunc(self):
        """Elementwise ``torch.trunc``."""
        return call("trunc", self)

    def frac(self):
        """Elementwise ``torch.frac``."""
        return call("frac", self)

    def square(self):
        """Elementwise ``torch.square``."""
        return call("square", self)

    def sign(self):
        """Elementwise ``torch.sign``."""
        return call("sign", self)

    def sgn(self):
        """Elementwise ``torch.sgn``."""
        return call("sgn", self)

    # -- new tensors like this one ---------------------------------------------------------------
    def new_zeros(self, *size):
        """Zeros of ``size`` with this tensor's dtype and environment."""
        return call("zeros", *size, **self._new_kwargs(size))

    def new_ones(self, *size):
        """Ones of ``size`` with this tensor's dtype and environment."""
        return call("ones", *size, **self._new_kwargs(size))

    def new_empty(self, *size):
        """An uninitialised tensor of ``size`` with this tensor's dtype and environment."""
        return call("empty", *size, **self._new_kwargs(size))

    def new_full(self, size, fill_value):
        """A tensor of ``size`` filled with ``fill_value``, with this tensor's dtype and environment."""
        return call("full", size, fill_value, **self._new_kwargs(size))



def _comparable(other) -> bool:
    """Whether ``tensor == other`` is an elementwise comparison (else Python falls back to identity)."""
    return (getattr(other, "_is_fake_tensor", False) or getattr(other, "_is_eager_tensor", False)
            or isinstance(other, (int, float, SymInt, SymFloat)))
