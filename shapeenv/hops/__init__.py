"""Higher-order ops: ``scan``, ``map`` and ``switch``, traced into sub-graphs with their restrictions checked.

Each HOP traces its body once on fake inputs (a slice, a carry shaped like
``init``, the operands), checks the restrictions torch imposes (structure,
shapes and dtypes of carries and branch outputs, no mutation or aliasing of
inputs), computes the output shapes as new fake tensors, and, while a graph is
being traced, appends one node whose ``subgraphs`` hold the bodies.

>>> from shapeenv import ShapeEnv, Graph
>>> env = ShapeEnv(); xs = env.fake_tensor((4, 3), name="xs")
>>> g = Graph("f"); _ = g.placeholder("xs", "f32[s0, s1]", xs)
>>> with env.tracing(g):
...     ys = map(lambda x: x + 1, xs)
>>> g.set_output(g.node_of(ys))
>>> print(g)
graph f(xs: f32[s0, s1]):
    map_0: f32[s0, s1] = map(xs, ())
        body =
            graph body(xs: f32[s1]):
                add_0: f32[s1] = add(xs, 1)
                return add_0
    getitem_0: f32[s0, s1] = getitem(map_0, 0)
    return getitem_0
"""

from .map import map
from .scan import scan
from .switch import switch

__all__ = ["scan", "map", "switch"]
