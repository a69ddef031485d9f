"""More torch-named tensor methods (shape rules in :mod:`shapeenv.ops.rules.tensor_math`), mixed into
:class:`~shapeenv.fake.methods.TensorMethods`.

>>> from shapeenv import ShapeEnv
>>> x = ShapeEnv().fake_tensor((4, 3), name="x")
>>> x.isnan().any(1).shape, x.roll(1, 0).shape, x.logsumexp(-1).shape
((s0,), (s0, s1), (s0,))
"""

from __future__ import annotations

from shapeenv.ops.dispatch import call

__all__ = ["MoreTensorMethods"]


class MoreTensorMethods:
    """``outer``, ``logsumexp``, ``roll``, ``diff``, ``isnan``/``isinf``/``isfinite``, ``all``/``any``, ``lerp``."""

    __slots__ = ()

    def outer(self, vec2):
        """The outer product with ``vec2`` (both 1-d)."""
        return call("outer", self, vec2)

    def logsumexp(self, dim, keepdim=False):
        """``log(sum(exp(self), dim))``."""
        return call("logsumexp", self, dim, keepdim)

    def roll(self, shifts, dims=None):
        """Rolled along ``dims`` (flattened when None)."""
        return call("roll", self, shifts, dims)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        """The ``n``-th forward difference along ``dim``."""
        return call("diff", self, n, dim, prepend, append)

    def isnan(self):
        """Elementwise: is NaN (bool)."""
        return call("isnan", self)

    def isinf(self):
        """Elementwise: is infinite (bool)."""
        return call("isinf", self)

    def isfinite(self):
        """Elementwise: is finite (bool)."""
        return call("isfinite", self)

    def all(self, dim=None, keepdim=False):
        """Whether all elements (along ``dim``) are true."""
        return call("all", self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        """Whether any element (along ``dim``) is true."""
        return call("any", self, dim, keepdim)

    def lerp(self, end, weight):
        """``self + weight * (end - self)``."""
        return call("lerp", self, end, weight)

    def lerp_(self, end, weight):
        """In-place ``lerp`` (the broadcast shape must be ``self``'s)."""
        return call("lerp_", self, end, weight)
