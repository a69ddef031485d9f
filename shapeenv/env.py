"""The ``ShapeEnv`` users construct: the symbolic core plus the tensor world's entry points.

:class:`shapeenv.core.env.ShapeEnv` holds symbols, facts, decisions, runtime asserts and
the produced guard set, and knows nothing of tensors. This subclass adds what the shape
rules, higher-order ops, export and compile need: input fake tensors, the stack of
graphs being traced, and the memo of data-dependent sizes.

>>> env = ShapeEnv()
>>> x = env.fake_tensor((4, 3), name="x")
>>> x.shape
(s0, s1)
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from shapeenv.ops.dispatch import activated
from shapeenv.core.env import ShapeEnv as CoreShapeEnv
from shapeenv.tensor.factory import make_fake_tensor
from shapeenv.program.graph import Graph

__all__ = ["ShapeEnv", "CoreShapeEnv"]


class ShapeEnv(CoreShapeEnv):
    """A :class:`~shapeenv.core.env.ShapeEnv` that also makes fake tensors and traces ops on them.

    Args:
        settings: a :class:`~shapeenv.core.settings.ShapeEnvSettings`; or pass its fields as keyword arguments.
    """

    def __init__(self, settings=None, **overrides):
        super().__init__(settings, **overrides)
        self.data_dependent_memo: dict[tuple, object] = {}  # (op, data key) -> its unbacked count (rules.data_dependent)
        self._graphs: list[Graph] = []

    def fake_tensor(self, shape, dtype="float32", dynamic=True, name: str = "x"):
        """An input fake tensor whose dims are symbols with sources ``name.size()[i]``.

        ``dynamic``: True (every dim, duck-sized), False (static), a set of dims, or a
        Dim per dim (``{0: Dim("batch", max=64)}``; dims with the same name are shared).

        >>> env = ShapeEnv(); x = env.fake_tensor((2, 5), name="x")
        >>> x.shape
        (s0, s1)
        """
        return make_fake_tensor(self, shape, dtype, dynamic, name)

    @contextlib.contextmanager
    def tracing(self, graph: Graph) -> Iterator[Graph]:
        """Record every op applied to fake tensors of this environment into ``graph``.

        >>> env = ShapeEnv()
        >>> with env.tracing(Graph()) as g:
        ...     env.current_graph() is g
        True
        """
        self._graphs.append(graph)
        try:
            with activated(self):  # creation ops with plain-int sizes join this trace (shapeenv.ops.dispatch)
                yield graph
        finally:
            self._graphs.pop()

    def current_graph(self) -> Graph | None:
        """The graph being traced (the innermost), if any.

        >>> ShapeEnv().current_graph() is None
        True
        """
        return self._graphs[-1] if self._graphs else None
