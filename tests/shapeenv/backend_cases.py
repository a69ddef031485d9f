"""Programs for the numpy backend's tests, written once against a namespace ``T`` (``shapeenv.ops`` or torch).

Each :class:`Case` is traced with :func:`shapeenv.export.export` at example sizes (``T`` is ``shapeenv.ops``
and the inputs are fake tensors), run by the numpy backend at *other* sizes, and compared with a
direct numpy computation (``ref``) in ``test_numpy_backend.py`` and with torch eager (``T`` is
:data:`TORCH_NS`) in ``test_numpy_backend_torch.py``.

>>> [c.name for c in CASES][:3]
['add broadcast', 'sub scalar', 'mul bool mask']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from shapeenv import Dim, map as hop_map, ops, scan as hop_scan, switch as hop_switch
from shapeenv.tensor.dtypes import DTYPES
from tests.shapeenv.rules.backend_models import BACKEND_ROWS
from tests.shapeenv.rules.cases_models import TORCH_NAMES

__all__ = ["Case", "CASES", "OURS", "make_inputs", "dynamic_shapes", "torch_namespace"]


class _Ours:
    """``shapeenv.ops``, the higher-order ops and the dtypes (``T.int64``), as ``T``."""

    def __getattr__(self, name: str) -> Any:
        if name in DTYPES:
            return DTYPES[name]
        return {"scan": hop_scan, "map": hop_map, "switch": hop_switch}.get(name) or getattr(ops, name)


OURS = _Ours()


def torch_namespace():
    """``torch`` as ``T``: ``torch.*``, ``torch.nn.functional`` for pad/pooling/linear, torch's HOPs, and switch as a call."""
    import torch  # imported here: torch is an optional test dependency
    import torch.nn.functional as F
    from torch._higher_order_ops.map import map as torch_map
    from torch._higher_order_ops.scan import scan as torch_scan

    def switch(index, branches, operands):
        i = int(index.reshape(-1)[0]) if isinstance(index, torch.Tensor) else int(index)
        return branches[min(max(i, 0), len(branches) - 1)](*operands)

    def scan(fn, init, xs, dim=0, reverse=False, length=None):
        return torch_scan(fn, init, xs, dim=dim, reverse=reverse)

    overrides = {"pad": F.pad, "max_pool2d": F.max_pool2d, "avg_pool2d": F.avg_pool2d, "linear": F.linear,
                 "scan": scan, "map": torch_map, "switch": switch}
    overrides.update({name: getattr(F, name) for name, where in TORCH_NAMES.items() if where == "F"})
    overrides["linalg_vector_norm"] = torch.linalg.vector_norm

    class _Torch:
        def __getattr__(self, name: str) -> Any:
            return overrides.get(name) or getattr(torch, name)

    return _Torch()


@dataclass(frozen=True)
class Case:
    """A program ``fn(T, *inputs)``, its example and run-time inputs, and a numpy reference.

    Inputs are specs: ``("f", shape)`` float32 normal, ``("p", shape)`` float32 positive,
    ``("i", shape, high)`` int64 in ``[0, high)``, ``("b", shape)`` bool.
    ``dynamic``: per input, the dims traced dynamic (default: every dim whose example size is >= 2).
    """

    name: str
    fn: Callable
    example: tuple
    run: tuple
    ref: Callable | None = None
    dynamic: tuple | None = None
    torch: bool = True
    atol: float = 1e-5


def make_inputs(specs: tuple, seed: int = 0) -> list[np.ndarray]:
    """Arrays for input specs (see :class:`Case`)."""
    rng = np.random.default_rng(seed)
    out = []
    for spec in specs:
        kind, shape = spec[0], spec[1]
        if kind == "f":
            out.append(rng.standard_normal(shape).astype(np.float32))
        elif kind == "p":
            out.append(rng.uniform(0.5, 2.0, shape).astype(np.float32))
        elif kind == "i":
            out.append(rng.integers(0, spec[2], shape).astype(np.int64))
        else:
            out.append(rng.random(shape) < 0.5)
    return out


def dynamic_shapes(case: Case) -> tuple:
    """The ``dynamic_shapes`` of a case, by position."""
    specs = []
    for k, spec in enumerate(case.example):
        dims = case.dynamic[k] if case.dynamic is not None else [d for d, s in enumerate(spec[1]) if s >= 2]
        specs.append({d: Dim.DYNAMIC for d in dims})
    return tuple(specs)


def F(*shape):
    return ("f", shape)


def P(*shape):
    return ("p", shape)


def I(high, *shape):  # noqa: E743
    return ("i", shape, high)


def B(*shape):
    return ("b", shape)


def _np_scan_cumsum(x, reverse=False):
    out = np.cumsum(x[::-1] if reverse else x, axis=0)
    return out[-1], (out[::-1] if reverse else out)


def _scan_cumsum(T, x):
    def step(c, xt):
        n = c + xt
        return n, n.clone()
    return T.scan(step, T.zeros_like(x.sum(0)), x)


def _scan_reverse(T, x):
    def step(c, xt):
        n = c * 0.5 + xt
        return n, (n * 2).clone()
    return T.scan(step, T.zeros_like(x.sum(0)), x, reverse=True)


def _np_scan_reverse(x):
    c, ys = np.zeros_like(x[0]), [None] * len(x)
    for i in range(len(x) - 1, -1, -1):
        c = c * 0.5 + x[i]
        ys[i] = c * 2
    return c, np.stack(ys)


def _scan_dim1_closure(T, x, w):
    def step(c, xt):
        n = T.tanh(c * w + xt)
        return n, {"h": n.clone(), "s": n.sum(0)}
    return T.scan(step, T.zeros_like(T.select(x, 1, 0)), x, dim=1)


def _np_scan_dim1_closure(x, w):
    c, hs, ss = np.zeros_like(x[:, 0]), [], []
    for i in range(x.shape[1]):
        c = np.tanh(c * w + x[:, i])
        hs.append(c)
        ss.append(c.sum(0))
    return c, {"h": np.stack(hs), "s": np.stack(ss)}


def _scan_length(T, c0):
    return T.scan(lambda c, x: (c * 2 + 1, c.clone()), c0, None, length=3)


def _np_scan_length(c0):
    c, ys = c0, []
    for _ in range(3):
        ys.append(c)
        c = c * 2 + 1
    return c, np.stack(ys)


def _map_args(T, xs, b):
    return T.map(lambda x, bias, k: (x * k + bias, x.sum(-1)), xs, b, 2.0)


def _map_nested_scan(T, xs):
    def row(x):
        return _scan_cumsum(T, x)[1]
    return T.map(row, xs)


def _switch_sizes(T, x):
    branches = [lambda t: t * 2, lambda t: t + 1, lambda t: -t]
    return T.switch(x.shape[0] % 3, branches, (x,)), T.switch(x.shape[0] - 10, branches, (x,))


def _np_switch_sizes(x):
    branches = [lambda t: t * 2, lambda t: t + 1, lambda t: -t]
    return branches[x.shape[0] % 3](x), branches[min(max(x.shape[0] - 10, 0), 2)](x)


def _switch_tensor(T, x, i):
    return T.switch(i, [lambda t: t * 2, lambda t: t.sum(0, keepdim=True).expand(t.shape[0], t.shape[1])], (x,))


def _np_switch_tensor(x, i):
    return x * 2 if int(i.reshape(-1)[0]) <= 0 else np.broadcast_to(x.sum(0, keepdims=True), x.shape)


CASES: list[Case] = [
    # elementwise, with broadcasting and dtype promotion
    Case("add broadcast", lambda T, x, y: x + y, (F(4, 1), F(3)), (F(6, 1), F(5)), lambda x, y: x + y),
    Case("sub scalar", lambda T, x: 1.5 - x * 2, (F(4, 3),), (F(2, 7),), lambda x: 1.5 - x * 2),
    Case("mul bool mask", lambda T, x, m: x * m, (F(4, 3), B(4, 3)), (F(5, 2), B(5, 2)), lambda x, m: x * m),
    Case("div int by int", lambda T, a, b: a / (b + 1), (I(9, 5), I(9, 5)), (I(9, 7), I(9, 7)),
         lambda a, b: (a / (b + 1)).astype(np.float32)),
    Case("unary math", lambda T, x: (T.exp(x), T.log(x), T.sqrt(x), T.sigmoid(x), T.tanh(x), T.cos(x), T.sin(x), T.abs(-x)),
         (P(4, 3),), (P(2, 5),), lambda x: (np.exp(x), np.log(x), np.sqrt(x), 1 / (1 + np.exp(-x)), np.tanh(x),
                                            np.cos(x), np.sin(x), np.abs(x)), atol=1e-5),
    Case("relu pow max min", lambda T, x, y: (T.relu(x), x ** 2, T.maximum(x, y), T.minimum(x, y)),
         (F(4, 3), F(3)), (F(6, 2), F(2)), lambda x, y: (np.maximum(x, 0), x ** 2, np.maximum(x, y), np.minimum(x, y))),
    Case("comparisons and where", lambda T, x, y: (x > y, x <= 0.0, T.where(x > y, x, y)),
         (F(4, 3), F(4, 3)), (F(5, 2), F(5, 2)), lambda x, y: (x > y, x <= 0, np.where(x > y, x, y))),
    Case("to and in-place ops", lambda T, x: (x.to(T.float64), x.long(), x.clone().add_(1.0).mul_(2.0).sub_(x).relu_()),
         (F(4, 3),), (F(5, 2),), lambda x: (x.astype(np.float64), x.astype(np.int64),
                                            np.maximum((x + 1) * 2 - x, 0)), torch=False),
    Case("fill copy zero", lambda T, x, y: (x.clone().fill_(3.0), x.clone().copy_(y), x.clone().zero_()),
         (F(4, 3), F(3)), (F(5, 2), F(2)), lambda x, y: (np.full_like(x, 3), np.broadcast_to(y, x.shape), np.zeros_like(x))),
    # joining, splitting, rearranging
    Case("cat stack", lambda T, x, y: (T.cat([x, y]), T.cat([x, x], 1), T.stack([x, x], -1)),
         (F(4, 3), F(2, 3)), (F(5, 2), F(7, 2)), lambda x, y: (np.concatenate([x, y]), np.concatenate([x, x], 1),
                                                              np.stack([x, x], -1)), dynamic=([0, 1], [0, 1])),
    Case("cat skips 1-d empty", lambda T, x, e: T.cat([e, x, e]), (F(4, 3), F(0)), (F(6, 3), F(0)), lambda x, e: x),
    Case("split chunk unbind", lambda T, x: (*T.split(x, 2), *T.split(x, [1, x.shape[0] - 1]), *T.chunk(x, 2, 1)),
         (F(5, 4),), (F(5, 6),), lambda x: (x[0:2], x[2:4], x[4:5], x[:1], x[1:], x[:, :3], x[:, 3:]), dynamic=([1],)),
    Case("unbind", lambda T, x: tuple(T.unbind(x, 1)), (F(4, 3),), (F(6, 3),), lambda x: tuple(x[:, i] for i in range(3)),
         dynamic=([0],)),
    Case("views of dims", lambda T, x: (x.unsqueeze(0), T.squeeze(x.unsqueeze(1), 1), x.permute(1, 0),
                                        x.transpose(0, 1), x.t(), T.movedim(x.unsqueeze(2), 0, -1), T.flip(x, [0])),
         (F(4, 3),), (F(6, 5),), lambda x: (x[None], x, x.T, x.T, x.T, np.moveaxis(x[:, :, None], 0, -1), x[::-1])),
    Case("expand repeat", lambda T, x: (x.expand(2, x.shape[0], 3), x.repeat(2, 1, 2)), (F(4, 1),), (F(6, 1),),
         lambda x: (np.broadcast_to(x, (2, x.shape[0], 3)), np.tile(x, (2, 1, 2)))),
    Case("view reshape flatten", lambda T, x: (x.view(-1), x.view(-1, 2), x.t().reshape(-1), x.flatten(),
                                               T.unflatten(x, 0, (2, -1)), x.t().contiguous()),
         (F(4, 6),), (F(8, 2),), lambda x: (x.reshape(-1), x.reshape(-1, 2), x.T.reshape(-1), x.reshape(-1),
                                            x.reshape(2, -1, x.shape[1]), np.ascontiguousarray(x.T))),
    # indexing
    Case("select narrow slice", lambda T, x: (T.select(x, 0, -1), T.narrow(x, 1, 1, 2), x[1:, ::2], x[-3:-1],
                                              x[:, x.shape[1] // 2:], x[100:]),
         (F(5, 4),), (F(7, 6),), lambda x: (x[-1], x[:, 1:3], x[1:, ::2], x[-3:-1], x[:, x.shape[1] // 2:], x[100:])),
    Case("getitem int None ellipsis list", lambda T, x: (x[0, :, [1, 0]], x[None, ..., 1], x[[0, 2], 1], x[..., 0]),
         (F(4, 3, 5),), (F(6, 3, 7),), lambda x: (x[0][:, [1, 0]], x[None, ..., 1], x[[0, 2], 1], x[..., 0]), torch=True),
    Case("getitem masks and index tensors", lambda T, x, m, i: (x[m], x[i], x[:, i]),
         (F(4, 4), B(4, 4), I(4, 3)), (F(6, 6), B(6, 6), I(4, 5)), lambda x, m, i: (x[m], x[i], x[:, i])),
    Case("index_select gather", lambda T, x, i, g: (T.index_select(x, 1, i), T.gather(x, 0, g)),
         (F(5, 4), I(4, 3), I(5, 3, 2)), (F(7, 6), I(6, 8), I(7, 4, 3)),
         lambda x, i, g: (x[:, i], np.take_along_axis(x[:, :g.shape[1]], g, 0))),
    # matrix products
    Case("matmul shapes", lambda T, a, b, v: (a @ b, v @ b, T.matmul(a, b[:, 0]), v @ v),
         (F(2, 3), F(3, 4), F(3)), (F(5, 6), F(6, 2), F(6)),
         lambda a, b, v: (a @ b, v @ b, a @ b[:, 0], v @ v)),
    Case("bmm batched linear", lambda T, a, b, w, c: (T.bmm(a, b), T.matmul(a.unsqueeze(0), b), T.linear(a, w, c)),
         (F(2, 3, 4), F(2, 4, 5), F(6, 4), F(6)), (F(3, 2, 5), F(3, 5, 7), F(4, 5), F(4)),
         lambda a, b, w, c: (a @ b, (a[None] @ b), a @ w.T + c)),
    # reductions
    Case("sum mean amax argmax", lambda T, x: (x.sum(), x.sum(0), x.sum([0, -1], keepdim=True), x.mean(1), T.amax(x, 1),
                                               T.amin(x, (0, 1)), T.argmax(x, 1), T.argmin(x)),
         (F(4, 3, 2),), (F(2, 5, 3),), lambda x: (x.sum(), x.sum(0), x.sum((0, 2), keepdims=True), x.mean(1), x.max(1),
                                                  x.min((0, 1)), x.argmax(1), x.argmin())),
    Case("max min with dim", lambda T, x, y: (*T.max(x, 1), *T.min(x, 0, True), T.max(x), T.max(x, y)),
         (F(4, 3), F(3)), (F(6, 5), F(5)), lambda x, y: (x.max(1), x.argmax(1), x.min(0, keepdims=True),
                                                          x.argmin(0)[None], x.max(), np.maximum(x, y))),
    Case("softmax", lambda T, x: (T.softmax(x, -1), T.log_softmax(x, 0)), (F(4, 3),), (F(6, 5),),
         lambda x: (np.exp(x) / np.exp(x).sum(-1, keepdims=True), x - np.log(np.exp(x).sum(0, keepdims=True))), atol=1e-5),
    # windows and padding
    Case("conv2d", lambda T, x, w, b: (T.conv2d(x, w, b, padding=1), T.conv2d(x, w, stride=2, dilation=2),
                                       T.conv2d(x, w, padding="same")),
         (F(2, 3, 9, 9), F(4, 3, 3, 3), F(4)), (F(3, 3, 11, 7), F(4, 3, 3, 3), F(4)),
         dynamic=([0, 2, 3], [], []), atol=1e-4),
    Case("conv1d groups", lambda T, x, w: T.conv1d(x, w, groups=2, padding=2), (F(2, 4, 10), F(6, 2, 3)),
         (F(3, 4, 13), F(6, 2, 3)), dynamic=([0, 2], []), atol=1e-4),
    Case("max_pool2d", lambda T, x: (T.max_pool2d(x, 2), T.max_pool2d(x, 3, 2, 1, ceil_mode=True),
                                     *T.max_pool2d(x, 2, 1, 0, 2, return_indices=True)),
         (F(2, 3, 8, 8),), (F(3, 3, 9, 7),), dynamic=([0, 2, 3],)),
    Case("avg_pool2d", lambda T, x: (T.avg_pool2d(x, 2), T.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                                     T.avg_pool2d(x, 3, 2, 1, count_include_pad=False), T.avg_pool2d(x, 2, divisor_override=3)),
         (F(2, 3, 8, 8),), (F(3, 3, 9, 7),), dynamic=([0, 2, 3],)),
    Case("pad", lambda T, x: (T.pad(x, (1, 2)), T.pad(x, (1, -1, 0, 2), value=0.5)), (F(4, 5),), (F(6, 3),),
         lambda x: (np.pad(x, [(0, 0), (1, 2)]), np.pad(x[:, :-1], [(0, 2), (1, 0)], constant_values=0.5))),
    # creation (values of rand/randn differ from torch's: shapes only)
    Case("creation", lambda T, x: (T.zeros(x.shape[0], 2), T.ones(x.shape), T.full((x.shape[1],), 7),
                                   T.arange(x.shape[0]), T.arange(1, x.shape[1] * 2, 3), T.zeros_like(x),
                                   T.ones_like(x, dtype=T.int64), T.full_like(x, 2.5), T.empty(x.shape[0], 2).shape[0]),
         (F(4, 3),), (F(6, 5),), lambda x: (np.zeros((x.shape[0], 2)), np.ones(x.shape), np.full((x.shape[1],), 7),
                                            np.arange(x.shape[0]), np.arange(1, x.shape[1] * 2, 3), np.zeros_like(x),
                                            np.ones(x.shape, np.int64), np.full_like(x, 2.5), x.shape[0])),
    # data-dependent sizes
    Case("nonzero masked_select", lambda T, x, m: (T.nonzero(m), T.masked_select(x, m)), (F(4, 3), B(4, 3)),
         (F(6, 5), B(6, 5)), lambda x, m: (np.argwhere(m), x[m])),
    Case("unique and item", lambda T, i, k: (T.unique(i), i * k.item()), (I(3, 6), I(5)), (I(3, 9), I(5)),
         lambda i, k: (np.unique(i), i * int(k))),
    # higher-order ops
    Case("scan cumsum", _scan_cumsum, (F(5, 3),), (F(8, 2),), lambda x: _np_scan_cumsum(x)),
    Case("scan reverse", _scan_reverse, (F(5, 3),), (F(7, 4),), _np_scan_reverse),
    Case("scan dim 1, closure, dict ys", _scan_dim1_closure, (F(3, 5), F(3)), (F(4, 6), F(4)), _np_scan_dim1_closure,
         torch=False),  # torch 2.13 stacks ys along dim; shapeenv stacks along 0 (hops/scan.py)
    Case("scan length only", _scan_length, (F(2, 3),), (F(4, 5),), _np_scan_length, torch=False),
    Case("scan of length 0", _scan_cumsum, (F(0, 3),), (F(0, 3),), lambda x: (np.zeros(3, np.float32), np.zeros((0, 3))),
         dynamic=([],), torch=False),
    Case("map with args", _map_args, (F(4, 3), F(3)), (F(6, 5), F(5)), lambda xs, b: (xs * 2 + b, xs.sum(-1))),
    Case("map of scans", _map_nested_scan, (F(3, 4, 2),), (F(2, 5, 3),), lambda xs: np.cumsum(xs, 1), torch=False),
    Case("switch on sizes, clamped", _switch_sizes, (F(4, 3),), (F(14, 3),), _np_switch_sizes),
    Case("switch on a tensor", _switch_tensor, (F(4, 3), I(3, 1)), (F(6, 5), I(3, 1)), _np_switch_tensor),
]
CASES += [Case(name, fn, example, run) for name, fn, example, run in BACKEND_ROWS]  # compared with torch
