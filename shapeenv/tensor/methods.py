"""The op methods shared by :class:`~shapeenv.tensor.tensor.FakeTensor` and the eager tensor wrapper.

The methods come from the op table (:mod:`shapeenv.ops.table`, the ``methods`` of each row),
one :class:`~shapeenv.ops.forward.OpMethod` each; the class below writes out only those that do
more than forward their arguments (a constant dtype, a shape taken from another tensor, an
optional argument that picks another overload). Each method dispatches to the op's shape rule through :func:`shapeenv.ops.dispatch.call`
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
from shapeenv.ops.forward import methods_of
from shapeenv.ops.table import OPS

__all__ = ["TensorMethods", "OpMethods"]

#: The methods of the op table: ``x.add(y)``, ``x + y``, ``x.sum(1)`` ... (see the module docstring).
OpMethods = type("OpMethods", (), {"__slots__": (), "__module__": __name__, "__doc__": "The op table's Tensor methods.",
                                   **methods_of(OPS)})


def _converter(dtype: str):
    """The method ``x.<name>()``: ``x.to(dtype)``."""

    def convert(self):
        return call("to", self, dtype)

    convert.__doc__ = f"``self.to({dtype})``."
    return convert


class TensorMethods(OpMethods):
    """Torch-named methods that dispatch to the op registry (see the module docstring)."""

    __slots__ = ()

    # -- comparisons (elementwise, as in torch; hashing stays by identity) ------------------------
    def __eq__(self, other):
        return call("eq", self, other) if _comparable(other) else NotImplemented

    def __ne__(self, other):
        return call("ne", self, other) if _comparable(other) else NotImplemented

    def __iter__(self):
        return iter(call("unbind", self, 0))

    # -- dtype conversion: x.float() is x.to("float32") ... -----------------------------------------
    float = _converter("float32")
    double = _converter("float64")
    half = _converter("float16")
    long = _converter("int64")
    int = _converter("int32")
    bool = _converter("bool")

    # -- shapes and views (shape rules in shapeenv.ops.rules.views / shape_ops / indexing) -----------
    def view_as(self, other):
        """``self.view(other.shape)``."""
        return call("view", self, *other.shape)

    def reshape_as(self, other):
        """``self.reshape(other.shape)``."""
        return call("reshape", self, *other.shape)

    def expand_as(self, other):
        """``self.expand(other.shape)``."""
        return call("expand", self, *other.shape)

    @property
    def T(self):
        """All dims reversed (a view)."""
        return call("permute", self, *range(self.ndim - 1, -1, -1))

    @property
    def mT(self):
        """The last two dims swapped (a view)."""
        return call("transpose", self, -2, -1)

    def squeeze(self, dim=None):
        """Remove size-1 dims (a view)."""
        return call("squeeze", self) if dim is None else call("squeeze", self, dim)

    def flip(self, *dims):
        """Reverse along ``dims`` (a copy)."""
        return call("flip", self, dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else list(dims))

    # -- reductions and products ---------------------------------------------------------------
    def max(self, dim=None, keepdim=False):
        """Max of all elements, ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
        return call("max", self) if dim is None else call("max", self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        """Min of all elements, ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
        return call("min", self) if dim is None else call("min", self, dim, keepdim)

    # -- data-dependent --------------------------------------------------------------------------
    def clone(self, memory_format=None):
        """A copy with its own storage (``preserve_format`` by default: a dense layout is kept)."""
        return call("clone", self) if memory_format is None else call("clone", self, memory_format)

    def contiguous(self, memory_format="contiguous_format"):
        """``self`` if contiguous in ``memory_format`` (default: row-major), else a copy in that format."""
        if memory_format == "contiguous_format":
            return call("contiguous", self)
        return call("contiguous", self, memory_format)

    def __len__(self) -> int:
        if not self.shape:
            raise ShapeEnvTypeError("len() of a 0-d tensor", fix="x.numel() or x.item()")
        return self.shape[0]

    # -- masks and bounds (shape rules in shapeenv.ops.rules.masking) -------------------------------------
    def clamp_min(self, min):  # noqa: A002
        """``clamp(min=min)``."""
        return call("clamp", self, min, None)

    def clamp_max(self, max):  # noqa: A002
        """``clamp(max=max)``."""
        return call("clamp", self, None, max)

    # -- lookups and writes (shapeenv.ops.rules.embedding, setitem) ------------------------------------
    def __setitem__(self, index, value):
        call("setitem", self, index, value)

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
