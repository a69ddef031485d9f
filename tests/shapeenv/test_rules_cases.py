"""Every op rule on a table of cases, symbolic against static, and the guards it records against re-execution.

Each case is a small program ``fn(L, *inputs)`` written once against a torch-like namespace ``L``:
``shapeenv.ops`` here, ``torch`` in ``test_rules_torch.py`` (which imports :data:`CASES`).

* At the hints: the rule on symbolic inputs, evaluated at the hints, gives exactly the shapes,
  strides, dtypes and aliasing of the rule on static inputs of those sizes, and fails exactly
  when the static run fails.
* Soundness: for other sizes on which the produced guard set holds, the static run succeeds and
  agrees with the symbolic shapes evaluated at those sizes.
"""

from __future__ import annotations

import functools
import random
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

from shapeenv import Dim, Graph, ShapeEnv, ShapeError, ops
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import registered
from symint import SymInt, evaluate
from tests.shapeenv.rules.cases_models import DATA_DEPENDENT_ROWS as MODEL_DATA_DEPENDENT_ROWS, ROWS as MODEL_ROWS

CREATION = ("zeros", "ones", "empty", "full", "arange", "rand", "randn")


@dataclass(frozen=True)
class Case:
    """``fn(L, *inputs)`` on inputs of ``shapes`` (the hints) and ``dtypes``."""

    id: str
    shapes: tuple
    fn: Callable
    dtypes: tuple = ()
    data_dependent: bool = False  # output sizes that are unbacked symbols (compared by bound only)
    tags: frozenset = field(default_factory=frozenset)

    def dtype(self, i: int) -> str:
        return self.dtypes[i] if i < len(self.dtypes) and self.dtypes[i] else "float32"


def c(id: str, shapes, fn, *dtypes, data_dependent: bool = False) -> Case:
    return Case(id, tuple(tuple(s) for s in shapes), fn, tuple(dtypes), data_dependent)


F32, I64, B = "float32", "int64", "bool"

CASES: list[Case] = [
    # -- elementwise -------------------------------------------------------------------------------
    c("add-broadcast", [(5, 1), (3,)], lambda L, x, y: x + y),
    c("add-same", [(2, 3), (2, 3)], lambda L, x, y: x + y),
    c("add-mismatch", [(2, 3), (4, 3)], lambda L, x, y: x + y),
    c("mul-3d", [(4, 1, 3), (2, 1)], lambda L, x, y: x * y),
    c("eq-broadcast", [(3, 4), (4,)], lambda L, x, y: x == y),
    c("lt-scalar", [(3, 4)], lambda L, x: x < 0.5),
    c("ge-int", [(3, 4), (3, 1)], lambda L, x, y: L.ge(x, y), I64, I64),
    c("where", [(3, 1), (1, 4)], lambda L, x, y: L.where(x > 0, x, y)),
    c("where-scalar", [(3, 2)], lambda L, x: L.where(x > 0, x, 0.0)),
    c("where-not-bool", [(3, 2)], lambda L, x: L.where(x, x, x)),
    c("exp-int", [(3, 2)], lambda L, x: x.exp(), I64),
    c("unary-chain", [(3, 2)], lambda L, x: x.relu().sigmoid().tanh().cos().sin().abs()),
    c("relu-bool", [(3,)], lambda L, x: x.relu(), B),
    c("pow-scalar", [(3, 2)], lambda L, x: x ** 2),
    c("pow-tensor", [(3, 2), (2,)], lambda L, x, y: x.pow(y)),
    c("pow-int-negative", [(3,)], lambda L, x: x ** -1, I64),
    c("maximum", [(3, 1), (4,)], lambda L, x, y: L.maximum(x, y)),
    c("add_-ok", [(2, 3), (3,)], lambda L, x, y: x.add_(y)),
    c("add_-grows", [(1, 3), (2, 3)], lambda L, x, y: x.add_(y)),
    c("mul_-ok", [(2, 3), (2, 1)], lambda L, x, y: x.mul_(y)),
    c("div_-int", [(3,)], lambda L, x: x.div_(2), I64),
    c("copy_-bad", [(3,), (2, 3)], lambda L, x, y: x.copy_(y)),
    c("to-int", [(2, 3)], lambda L, x: x.to(L.int64)),
    c("compare-more", [(2, 3), (3,)], lambda L, x, y: (x != y, x <= y, L.ne(x, 1), L.le(y, x))),
    c("unary-more", [(2, 3)], lambda L, x: (x.log(), x.sqrt(), x.tan(), L.minimum(x, x))),
    c("inplace-more", [(2, 3), (3,)], lambda L, x, y: x.sub_(y).div_(y).relu_().zero_().fill_(2.0).copy_(y)),
    c("inplace-dunder", [(2, 3), (3,)], lambda L, x, y: _iadd(x, y)),
    # -- cat, stack, split, chunk, unbind ------------------------------------------------------------
    c("cat-0", [(2, 3), (4, 3)], lambda L, x, y: L.cat([x, y], 0)),
    c("cat-self", [(2, 3)], lambda L, x: L.cat([x, x, x], -1)),
    c("cat-mismatch", [(2, 3), (2, 4)], lambda L, x, y: L.cat([x, y])),
    c("cat-skip-empty", [(0,), (2, 4)], lambda L, x, y: L.cat([x, y])),
    c("cat-promote", [(2, 3), (5, 3)], lambda L, x, y: L.cat([x, y]), I64, F32),
    c("cat-0d", [()], lambda L, x: L.cat([x, x])),
    c("cat-bad-dim", [(2, 3)], lambda L, x: L.cat([x, x], 2)),
    c("stack-last", [(2, 3)], lambda L, x: L.stack([x, x], -1)),
    c("stack-mid", [(2, 3), (2, 3)], lambda L, x, y: L.stack([x, y], 1)),
    c("stack-mismatch", [(2, 3), (3, 2)], lambda L, x, y: L.stack([x, y])),
    c("split-int", [(10, 3)], lambda L, x: x.split(4)),
    c("split-exact", [(8, 3)], lambda L, x: x.split(4)),
    c("split-dim1", [(2, 7)], lambda L, x: L.split(x, 3, 1)),
    c("split-sizes", [(5, 2)], lambda L, x: x.split([1, 2, 2])),
    c("split-sizes-bad", [(5, 2)], lambda L, x: x.split([1, 2])),
    c("split-zero", [(3,)], lambda L, x: x.split(0)),
    c("chunk-3", [(6, 2)], lambda L, x: x.chunk(3)),
    c("chunk-uneven", [(5,)], lambda L, x: x.chunk(4)),
    c("chunk-more", [(2, 3)], lambda L, x: x.chunk(5, 1)),
    c("unbind", [(3, 2)], lambda L, x: x.unbind(1)),
    # -- unsqueeze, squeeze, expand, permute, transpose, movedim, flip, repeat ---------------------------------
    c("unsqueeze-0", [(2, 3)], lambda L, x: x.unsqueeze(0)),
    c("unsqueeze-end", [(2, 3)], lambda L, x: x.unsqueeze(-1)),
    c("unsqueeze-t", [(2, 3)], lambda L, x: x.t().unsqueeze(1)),
    c("unsqueeze-bad", [(2, 3)], lambda L, x: x.unsqueeze(4)),
    c("squeeze-all", [(2, 1, 3, 1)], lambda L, x: x.squeeze()),
    c("squeeze-dim", [(2, 1, 3)], lambda L, x: x.squeeze(1)),
    c("squeeze-noop", [(2, 1, 3)], lambda L, x: x.squeeze(0)),
    c("squeeze-tuple", [(1, 1, 3)], lambda L, x: x.squeeze((0, 2))),
    c("expand", [(3, 1)], lambda L, x: x.expand(2, 3, 4)),
    c("expand-keep", [(3, 1)], lambda L, x: x.expand(-1, 5)),
    c("expand-same", [(3, 4)], lambda L, x: x.expand(3, 4)),
    c("expand-as", [(3, 1), (2, 3, 5)], lambda L, x, y: x.expand_as(y)),
    c("expand-bad", [(3, 2)], lambda L, x: x.expand(3, 4)),
    c("expand-leading-minus-one", [(3,)], lambda L, x: x.expand(-1, 3)),
    c("expand-too-few", [(3, 2)], lambda L, x: x.expand(2)),
    c("permute", [(2, 3, 4)], lambda L, x: x.permute(2, 0, 1)),
    c("permute-bad", [(2, 3, 4)], lambda L, x: x.permute(0, 0, 1)),
    c("transpose", [(2, 3, 4)], lambda L, x: x.transpose(0, -1)),
    c("t-3d", [(2, 3, 4)], lambda L, x: x.t()),
    c("T", [(2, 3, 4)], lambda L, x: x.T),
    c("mT", [(2, 3, 4)], lambda L, x: x.mT),
    c("movedim", [(2, 3, 4)], lambda L, x: x.movedim(0, -1)),
    c("movedim-multi", [(2, 3, 4, 5)], lambda L, x: L.movedim(x, (0, 1), (3, 0))),
    c("flip", [(2, 3)], lambda L, x: x.flip(0, 1)),
    c("flip-t", [(2, 3)], lambda L, x: x.t().flip(0)),
    c("repeat", [(2, 3)], lambda L, x: x.repeat(4, 1, 2)),
    c("repeat-few", [(2, 3)], lambda L, x: x.repeat(2)),
    # -- view, reshape, flatten, unflatten, contiguous -------------------------------------------------
    c("view-minus-one-k", [(12,)], lambda L, x: x.view(-1, 4)),
    c("view-k-minus-one", [(12,)], lambda L, x: x.view(3, -1)),
    c("view-indivisible", [(10,)], lambda L, x: x.view(-1, 4)),
    c("view-2d", [(4, 6)], lambda L, x: x.view(2, 2, -1)),
    c("view-flat", [(4, 6)], lambda L, x: x.view(-1)),
    c("view-full", [(4, 6)], lambda L, x: x.view(3, 8)),
    c("view-sizes", [(4, 6)], lambda L, x: x.view(x.shape[1], x.shape[0])),
    c("view-bad-numel", [(4, 6)], lambda L, x: x.view(5, -1)),
    c("view-two-minus-one", [(4, 6)], lambda L, x: x.view(-1, -1)),
    c("view-t-bad", [(4, 6)], lambda L, x: x.t().view(-1)),
    c("view-t-split", [(4, 6)], lambda L, x: x.t().view(3, 2, 4)),
    c("view-t-split-inner", [(4, 6)], lambda L, x: x.t().view(6, 2, 2)),
    c("view-expand-bad", [(3, 1)], lambda L, x: x.expand(3, 4).view(12)),
    c("view-slice", [(4, 6)], lambda L, x: x[:, :3].view(2, 2, 3)),
    c("view-unsqueeze", [(4, 6)], lambda L, x: x.t().view(6, 1, 4)),
    c("view-empty", [(0, 6)], lambda L, x: x.view(3, 0, 2)),
    c("view-empty-infer", [(0, 6)], lambda L, x: x.view(-1, 0)),
    c("reshape-t", [(4, 6)], lambda L, x: x.t().reshape(-1)),
    c("reshape-view", [(4, 6)], lambda L, x: x.reshape(2, 12)),
    c("reshape-fn", [(4, 6)], lambda L, x: L.reshape(x.t(), (3, -1))),
    c("flatten", [(2, 3, 4)], lambda L, x: x.flatten(1)),
    c("flatten-all", [(2, 3, 4)], lambda L, x: x.flatten()),
    c("flatten-noop", [(2, 3, 4)], lambda L, x: x.flatten(1, 1)),
    c("flatten-0d", [()], lambda L, x: x.flatten()),
    c("flatten-t", [(2, 3, 4)], lambda L, x: x.transpose(0, 2).flatten(0, 1)),
    c("unflatten", [(6, 5)], lambda L, x: x.unflatten(0, (2, -1))),
    c("contiguous-t", [(2, 3)], lambda L, x: x.t().contiguous()),
    c("contiguous-noop", [(2, 3)], lambda L, x: x.contiguous()),
    c("contiguous-cl", [(2, 3, 4, 5)], lambda L, x: x.contiguous(memory_format=L.channels_last)),
    c("contiguous-cl-noop", [(2, 3, 4, 5)], lambda L, x: x.contiguous(memory_format=L.channels_last).contiguous(
        memory_format=L.channels_last)),
    c("contiguous-cl-3d", [(2, 3, 4)], lambda L, x: x.contiguous(memory_format=L.channels_last)),
    c("contiguous-cl-back", [(2, 3, 4, 5)], lambda L, x: x.contiguous(memory_format=L.channels_last).contiguous()),
    c("as-strided", [(4, 3)], lambda L, x: L.as_strided(x, (3, 4), (1, 3))),
    c("as-strided-offset", [(4, 3)], lambda L, x: x.as_strided((2, 2), (3, 1), 1)),
    c("as-strided-of-view", [(4, 3)], lambda L, x: x[1:].as_strided((2,), (2,))),
    c("as-strided-bad", [(4, 3)], lambda L, x: L.as_strided(x, (3,), (1, 1))),
    c("unfold", [(7, 3)], lambda L, x: x.unfold(0, 3, 2)),
    c("unfold-last", [(2, 7)], lambda L, x: x.unfold(-1, 2, 1)),
    c("unfold-t", [(5, 4)], lambda L, x: x.t().unfold(1, 2, 3)),
    c("unfold-too-big", [(2, 3)], lambda L, x: x.unfold(1, 4, 1)),
    c("unfold-bad-step", [(2, 3)], lambda L, x: x.unfold(1, 2, 0)),
    # -- output layouts of non-contiguous inputs (TensorIterator, preserve_format, memory formats) -------
    c("layout-add-t", [(3, 4)], lambda L, x: x.t() + 1),
    c("layout-mul-t-contig", [(3, 4), (4, 3)], lambda L, x, y: x.t() * y),
    c("layout-mul-contig-t", [(3, 4), (4, 3)], lambda L, x, y: y * x.t()),
    c("layout-permuted-3d", [(2, 3, 4)], lambda L, x: x.permute(2, 0, 1) - x.permute(2, 0, 1)),
    c("layout-broadcast-t", [(3, 4), (3,)], lambda L, x, y: x.t() + y[None]),
    c("layout-unary-sliced", [(4, 6)], lambda L, x: x[:, ::2].exp()),
    c("layout-neg-t", [(4, 6)], lambda L, x: -x.t()),
    c("layout-where-t", [(3, 4)], lambda L, x: L.where(x.t() > 0, x.t(), 0.0)),
    c("layout-expand-add", [(3, 1)], lambda L, x: x.expand(3, 4) + 1),
    c("layout-clone-t", [(3, 4)], lambda L, x: x.t().clone()),
    c("layout-clone-sliced", [(4, 6)], lambda L, x: x[:, ::2].clone()),
    c("layout-clone-expanded", [(3, 1)], lambda L, x: x.expand(3, 4).clone()),
    c("layout-clone-cl", [(2, 3, 4, 5)], lambda L, x: x.clone(memory_format=L.channels_last)),
    c("layout-clone-contig", [(3, 4)], lambda L, x: x.t().clone(memory_format=L.contiguous_format)),
    c("layout-cl-add", [(2, 3, 4, 5), (2, 3, 4, 5)], lambda L, x, y: x.contiguous(memory_format=L.channels_last) + y),
    c("layout-contig-add-cl", [(2, 3, 4, 5), (2, 3, 4, 5)], lambda L, x, y: y + x.contiguous(memory_format=L.channels_last)),
    c("layout-cl-like", [(2, 3, 4, 5)], lambda L, x: L.zeros_like(x.contiguous(memory_format=L.channels_last))),
    c("layout-to-t", [(3, 4)], lambda L, x: x.t().to(L.int64)),
    c("layout-flip-perm", [(2, 3, 4)], lambda L, x: x.permute(1, 2, 0).flip(0)),
    c("layout-sum-t", [(3, 4)], lambda L, x: x.t().sum(0)),
    c("layout-sum-perm-keep", [(2, 3, 4)], lambda L, x: x.permute(2, 0, 1).sum(1, keepdim=True)),
    c("layout-mm-t", [(3, 4), (3, 5)], lambda L, a, b: a.t() @ b),
    c("layout-bmm-t", [(2, 3, 4), (2, 3, 5)], lambda L, a, b: L.bmm(a.transpose(1, 2), b)),
    c("layout-softmax-t", [(3, 4)], lambda L, x: x.t().softmax(0)),
    c("layout-cat-cl", [(2, 3, 4, 5)], lambda L, x: L.cat([x.contiguous(memory_format=L.channels_last)] * 2, 1)),
    c("layout-cat-mixed", [(2, 3, 4, 5)], lambda L, x: L.cat([x.contiguous(memory_format=L.channels_last), x])),
    c("layout-conv2d-cl", [(2, 3, 6, 5), (4, 3, 3, 3)], lambda L, x, w: L.conv2d(x.contiguous(memory_format=L.channels_last), w)),
    c("layout-max-pool-cl", [(2, 3, 6, 6)], lambda L, x: L.max_pool2d(x.contiguous(memory_format=L.channels_last), 2)),
    c("layout-avg-pool-cl", [(2, 3, 6, 6)], lambda L, x: L.avg_pool2d(x.contiguous(memory_format=L.channels_last), 2)),
    # -- indexing ----------------------------------------------------------------------------------
    c("getitem-int", [(5, 6)], lambda L, x: x[0]),
    c("getitem-neg", [(5, 6)], lambda L, x: x[-1, 2]),
    c("getitem-oob", [(5, 6)], lambda L, x: x[5]),
    c("getitem-neg-oob", [(5, 6)], lambda L, x: x[-6]),
    c("slice-from", [(5, 6)], lambda L, x: x[1:]),
    c("slice-to-neg", [(5, 6)], lambda L, x: x[:-1]),
    c("slice-step", [(7, 6)], lambda L, x: x[::2]),
    c("slice-window", [(7, 6)], lambda L, x: x[2:5]),
    c("slice-clamped", [(5, 6)], lambda L, x: x[-100:100]),
    c("slice-empty", [(5, 6)], lambda L, x: x[4:2]),
    c("slice-neg-both", [(5, 6)], lambda L, x: x[-3:-1]),
    c("slice-step3", [(10, 6)], lambda L, x: x[1:-1:3]),
    c("slice-2d", [(5, 6)], lambda L, x: x[1:4, ::4]),
    c("slice-step-zero", [(5, 6)], lambda L, x: x[::0]),
    c("slice-beyond", [(5, 6)], lambda L, x: x[7:]),
    c("ellipsis", [(2, 3, 4)], lambda L, x: x[..., 1]),
    c("none", [(2, 3)], lambda L, x: x[None]),
    c("none-mid", [(2, 3, 4)], lambda L, x: x[:, None, 1:3]),
    c("none-end", [(2, 3)], lambda L, x: x[..., None]),
    c("too-many", [(2, 3)], lambda L, x: x[0, 0, 0]),
    c("bool-index", [(2, 3)], lambda L, x: x[True]),
    c("list-index", [(5, 6)], lambda L, x: x[[0, 2]]),
    c("list-two", [(5, 6)], lambda L, x: x[[0, 1], [1, 2]]),
    c("tensor-index", [(5, 6), (4,)], lambda L, x, i: x[i], F32, I64),
    c("tensor-index-mid", [(5, 6, 7), (2, 3)], lambda L, x, i: x[:, i], F32, I64),
    c("tensor-index-split", [(3, 4, 5), (2,), (2,)], lambda L, x, i, j: x[i, :, j], F32, I64, I64),
    c("tensor-index-int", [(3, 4, 5), (2,)], lambda L, x, i: x[i, :, 0], F32, I64),
    c("tensor-index-0d", [(5, 6), ()], lambda L, x, i: x[i], F32, I64),
    c("tensor-index-none", [(5, 6), (2,), (2,)], lambda L, x, i, j: x[None, i, None, j], F32, I64, I64),
    c("tensor-index-float", [(5, 6), (2,)], lambda L, x, i: x[i], F32, F32),
    c("select", [(4, 3)], lambda L, x: x.select(0, -1)),
    c("select-oob", [(4, 3)], lambda L, x: x.select(1, 3)),
    c("narrow", [(6, 3)], lambda L, x: x.narrow(0, 1, 3)),
    c("narrow-neg", [(6, 3)], lambda L, x: x.narrow(0, -4, 3)),
    c("narrow-too-long", [(6, 3)], lambda L, x: x.narrow(0, 4, 3)),
    c("narrow-start-oob", [(6, 3)], lambda L, x: x.narrow(1, 5, 0)),
    c("index-select", [(5, 3), (7,)], lambda L, x, i: x.index_select(0, i), F32, I64),
    c("index-select-2d-index", [(5, 3), (2, 2)], lambda L, x, i: x.index_select(1, i), F32, I64),
    c("index-select-float-index", [(5, 3), (2,)], lambda L, x, i: x.index_select(1, i), F32, F32),
    c("gather", [(5, 6), (6, 2)], lambda L, x, i: x.gather(0, i), F32, I64),
    c("gather-too-big", [(5, 6), (2, 7)], lambda L, x, i: x.gather(0, i), F32, I64),
    c("gather-ndim", [(5, 6), (2,)], lambda L, x, i: x.gather(0, i), F32, I64),
    # -- matmul, linear, mm, bmm ----------------------------------------------------------------------
    c("dot", [(3,), (3,)], lambda L, a, b: a @ b),
    c("dot-bad", [(3,), (4,)], lambda L, a, b: a @ b),
    c("mv", [(2, 3), (3,)], lambda L, a, b: a @ b),
    c("mv-bad", [(2, 3), (4,)], lambda L, a, b: a @ b),
    c("vm", [(3,), (3, 5)], lambda L, a, b: L.matmul(a, b)),
    c("mm", [(2, 3), (3, 5)], lambda L, a, b: a @ b),
    c("mm-bad", [(2, 3), (4, 5)], lambda L, a, b: L.mm(a, b)),
    c("mm-ok", [(2, 3), (3, 5)], lambda L, a, b: L.mm(a, b)),
    c("mm-1d", [(2, 3), (3,)], lambda L, a, b: L.mm(a, b)),
    c("matmul-batched", [(7, 2, 3), (3, 5)], lambda L, a, b: a @ b),
    c("matmul-broadcast", [(2, 1, 2, 3), (5, 3, 5)], lambda L, a, b: a @ b),
    c("matmul-batch-bad", [(7, 2, 3), (5, 3, 5)], lambda L, a, b: a @ b),
    c("matmul-1d-batched", [(3,), (4, 3, 5)], lambda L, a, b: a @ b),
    c("matmul-batched-1d", [(4, 2, 3), (3,)], lambda L, a, b: a @ b),
    c("matmul-0d", [(), (3,)], lambda L, a, b: L.matmul(a, b)),
    c("matmul-dtype", [(2, 3), (3, 2)], lambda L, a, b: a @ b, F32, I64),
    c("bmm", [(4, 2, 3), (4, 3, 5)], lambda L, a, b: L.bmm(a, b)),
    c("bmm-bad", [(4, 2, 3), (5, 3, 5)], lambda L, a, b: L.bmm(a, b)),
    c("linear", [(8, 3), (5, 3), (5,)], lambda L, x, w, b: L.linear(x, w, b)),
    c("linear-nobias-3d", [(2, 8, 3), (5, 3)], lambda L, x, w: L.linear(x, w)),
    c("linear-bad", [(8, 3), (5, 4)], lambda L, x, w: L.linear(x, w)),
    c("linear-bias-2d", [(2, 3), (4, 3), (2, 4)], lambda L, x, w, b: L.linear(x, w, b)),
    c("linear-bias-bad", [(5, 3), (1, 3), (4,)], lambda L, x, w, b: L.linear(x, w, b)),
    c("linear-1d-weight", [(2, 3), (3,)], lambda L, x, w: L.linear(x, w)),
    # -- reductions ------------------------------------------------------------------------------------
    c("sum-all", [(2, 3)], lambda L, x: x.sum()),
    c("sum-dims", [(2, 3, 4)], lambda L, x: x.sum([0, -1])),
    c("sum-keepdim", [(2, 3, 4)], lambda L, x: x.sum(1, keepdim=True)),
    c("sum-bool", [(2, 3)], lambda L, x: x.sum(0), B),
    c("sum-empty-list", [(2, 3)], lambda L, x: L.sum(x, [])),
    c("sum-dup", [(2, 3)], lambda L, x: x.sum([0, -2])),
    c("sum-0d-keepdim", [()], lambda L, x: x.sum(0, keepdim=True)),
    c("mean", [(2, 3, 4)], lambda L, x: x.mean(-1)),
    c("mean-int", [(2, 3)], lambda L, x: x.mean(), I64),
    c("max-all", [(2, 3)], lambda L, x: x.max()),
    c("max-dim", [(2, 3)], lambda L, x: x.max(1)),
    c("max-dim-keep", [(2, 3)], lambda L, x: x.max(0, keepdim=True)),
    c("max-other", [(2, 3), (3,)], lambda L, x, y: L.max(x, y)),
    c("max-empty", [(0, 3)], lambda L, x: x.max()),
    c("max-empty-dim", [(0, 3)], lambda L, x: x.max(0)),
    c("max-empty-other-dim", [(0, 3)], lambda L, x: x.max(1)),
    c("min-dim", [(2, 3)], lambda L, x: x.min(-1)),
    c("amax", [(2, 3, 4)], lambda L, x: x.amax((0, 2))),
    c("amax-all", [(2, 3)], lambda L, x: x.amax()),
    c("amax-empty", [(0, 3)], lambda L, x: x.amax(1)),
    c("amax-empty-all", [(0, 3)], lambda L, x: x.amax()),
    c("argmax", [(2, 3)], lambda L, x: x.argmax(1)),
    c("argmax-all", [(2, 3)], lambda L, x: x.argmax()),
    c("argmax-keepdim-all", [(2, 3)], lambda L, x: L.argmax(x, None, True)),
    c("amin-argmin", [(2, 3, 4)], lambda L, x: (x.amin(1), L.argmin(x, 2, True), x.amin(-1, True))),
    c("softmax", [(2, 3)], lambda L, x: x.softmax(-1)),
    c("softmax-int", [(2, 3)], lambda L, x: x.softmax(0), I64),
    c("softmax-bad-dim", [(2, 3)], lambda L, x: x.softmax(2)),
    c("log-softmax", [(2, 3)], lambda L, x: L.log_softmax(x, 0)),
    # -- conv, pooling, pad ----------------------------------------------------------------------------
    c("conv1d", [(2, 4, 50), (8, 4, 5)], lambda L, x, w: L.conv1d(x, w, stride=2)),
    c("conv1d-pad-dil", [(2, 4, 50), (8, 4, 5), (8,)], lambda L, x, w, b: L.conv1d(x, w, b, 3, 2, 2)),
    c("conv1d-unbatched", [(4, 9), (8, 4, 3)], lambda L, x, w: L.conv1d(x, w)),
    c("conv1d-too-short", [(2, 4, 3), (8, 4, 5)], lambda L, x, w: L.conv1d(x, w)),
    c("conv2d", [(1, 4, 9, 9), (6, 2, 3, 3)], lambda L, x, w: L.conv2d(x, w, groups=2, dilation=2)),
    c("conv2d-stride-pad", [(2, 3, 32, 30), (16, 3, 3, 5)], lambda L, x, w: L.conv2d(x, w, None, (2, 1), (1, 2))),
    c("conv2d-same", [(1, 4, 5, 6), (6, 2, 4, 4)], lambda L, x, w: L.conv2d(x, w, groups=2, padding="same")),
    c("conv2d-valid", [(1, 4, 5, 6), (6, 4, 2, 2)], lambda L, x, w: L.conv2d(x, w, padding="valid")),
    c("conv2d-same-strided", [(1, 4, 5, 6), (6, 4, 3, 3)], lambda L, x, w: L.conv2d(x, w, stride=2, padding="same")),
    c("conv2d-channels", [(1, 4, 5, 5), (6, 2, 3, 3)], lambda L, x, w: L.conv2d(x, w)),
    c("conv2d-groups", [(1, 4, 5, 5), (5, 2, 3, 3)], lambda L, x, w: L.conv2d(x, w, groups=2)),
    c("conv2d-bias-bad", [(1, 4, 5, 5), (6, 4, 3, 3), (5,)], lambda L, x, w, b: L.conv2d(x, w, b)),
    c("conv2d-kernel-big", [(1, 4, 5, 5), (6, 4, 7, 3)], lambda L, x, w: L.conv2d(x, w)),
    c("conv2d-2d-input", [(5, 5), (6, 4, 3, 3)], lambda L, x, w: L.conv2d(x, w)),
    c("max-pool", [(2, 3, 9, 8)], lambda L, x: L.max_pool2d(x, 2)),
    c("max-pool-ceil", [(1, 1, 5, 5)], lambda L, x: L.max_pool2d(x, 2, ceil_mode=True)),
    c("max-pool-ceil-drop", [(1, 1, 6, 6)], lambda L, x: L.max_pool2d(x, 3, 2, 1, ceil_mode=True)),
    c("max-pool-ceil-7", [(1, 1, 7, 8)], lambda L, x: L.max_pool2d(x, 2, 3, 1, ceil_mode=True)),
    c("max-pool-dilation", [(3, 11, 10)], lambda L, x: L.max_pool2d(x, 3, 2, 2, 2)),
    c("max-pool-pad-big", [(1, 4, 5, 5)], lambda L, x: L.max_pool2d(x, 3, padding=2)),
    c("max-pool-too-small", [(1, 4, 5, 5)], lambda L, x: L.max_pool2d(x, 6)),
    c("max-pool-2d-input", [(5, 5)], lambda L, x: L.max_pool2d(x, 2)),
    c("max-pool-empty-channels", [(1, 0, 5, 5)], lambda L, x: L.max_pool2d(x, 2)),
    c("max-pool-empty-batch", [(0, 4, 5, 5)], lambda L, x: L.max_pool2d(x, 2)),
    c("avg-pool", [(2, 3, 8, 8)], lambda L, x: L.avg_pool2d(x, 3, 2, 1)),
    c("avg-pool-ceil", [(2, 3, 8, 9)], lambda L, x: L.avg_pool2d(x, 3, 2, 1, True)),
    c("avg-pool-pad-big", [(1, 4, 5, 5)], lambda L, x: L.avg_pool2d(x, 3, padding=2)),
    c("pad", [(2, 3, 5)], lambda L, x: L.pad(x, (1, 2, -1, 0))),
    c("pad-crop-all", [(2, 3, 5)], lambda L, x: L.pad(x, (-5, 0))),
    c("pad-negative", [(2, 3, 5)], lambda L, x: L.pad(x, (-3, -3))),
    c("pad-odd", [(2, 3, 5)], lambda L, x: L.pad(x, (1, 2, 3))),
    c("pad-too-long", [(2, 3)], lambda L, x: L.pad(x, (1,) * 6)),
    # -- creation --------------------------------------------------------------------------------------
    c("zeros", [(5,)], lambda L, x: L.zeros(x.shape[0], 3)),
    c("ones-tuple", [(5, 2)], lambda L, x: L.ones((x.shape[1], x.shape[0] + 1))),
    c("full", [(5,)], lambda L, x: L.full((x.shape[0], 2), 7)),
    c("arange", [(6,)], lambda L, x: L.arange(x.shape[0])),
    c("arange-step", [(6,)], lambda L, x: L.arange(2, x.shape[0] + 10, 3)),
    c("arange-neg", [(10,)], lambda L, x: L.arange(x.shape[0], 0, -3)),
    c("arange-empty", [(4,)], lambda L, x: L.arange(x.shape[0], x.shape[0])),
    c("arange-wrong-sign", [(4,)], lambda L, x: L.arange(x.shape[0], 0)),
    c("arange-float", [(4,)], lambda L, x: L.arange(0.0, 1.0, 0.3)),
    c("zeros-like-t", [(2, 3)], lambda L, x: L.zeros_like(x.t())),
    c("full-like", [(2, 3)], lambda L, x: L.full_like(x, 2, dtype=L.int64)),
    c("empty-like-expand", [(3, 1)], lambda L, x: L.empty_like(x.expand(3, 4))),
    c("new-zeros", [(2, 3)], lambda L, x: x.new_zeros(x.shape[1], 2)),
    c("creation-more", [(2, 3)], lambda L, x: (L.empty(x.shape[0]), L.rand(x.shape), L.randn(x.shape[1], 1),
                                               L.ones_like(x), L.rand_like(x), L.randn_like(x.t()))),
    c("zeros-negative", [(2, 3)], lambda L, x: L.zeros(x.shape[0] - 3)),
    # -- data-dependent ----------------------------------------------------------------------------------
    c("nonzero", [(4, 3)], lambda L, x: L.nonzero(x), data_dependent=True),
    c("masked-select", [(4, 3), (3,)], lambda L, x, m: L.masked_select(x, m), F32, B, data_dependent=True),
    c("unique", [(4, 3)], lambda L, x: L.unique(x, return_inverse=True, return_counts=True), I64, data_dependent=True),
    c("unique-dim", [(4, 3)], lambda L, x: L.unique(x, dim=1), I64, data_dependent=True),
    c("mask-index", [(4, 3), (4, 3)], lambda L, x, m: x[m], F32, B, data_dependent=True),
    c("mask-index-rows", [(4, 3), (4,)], lambda L, x, m: x[m], F32, B, data_dependent=True),
    c("mask-index-mismatch", [(4, 3), (3,)], lambda L, x, m: x[m], F32, B, data_dependent=True),
    c("item-int", [(1, 1)], lambda L, x: x.item(), I64, data_dependent=True),
    c("item-many", [(2, 1)], lambda L, x: x.item(), I64, data_dependent=True),
]


CASES += [c(row[0], row[1], row[2], *row[3:]) for row in MODEL_ROWS]
CASES += [c(row[0], row[1], row[2], *row[3:], data_dependent=True) for row in MODEL_DATA_DEPENDENT_ROWS]


def _iadd(x, y):
    x += y
    x *= 2
    return x


# -- running a case on our side --------------------------------------------------------------------
def our_namespace(env: ShapeEnv) -> types.SimpleNamespace:
    """``shapeenv.ops`` with creation ops bound to ``env`` (needed when every size is a plain int)."""
    names = {n: getattr(ops, n) for n in ops.__all__}
    names.update({n: functools.partial(getattr(ops, n), env=env) for n in CREATION})
    names.update(int64="int64", float32="float32", bool="bool", channels_last="channels_last",
                 contiguous_format="contiguous_format", float16="float16", float64="float64", int32="int32")
    return types.SimpleNamespace(**names)


def make_inputs(env: ShapeEnv, case: Case, shapes=None, mode: str = "duck", static: frozenset = frozenset()) -> list:
    """The case's inputs; those in ``static`` (indices) keep plain int sizes whatever the mode."""
    shapes = case.shapes if shapes is None else shapes
    out = []
    for i, shape in enumerate(shapes):
        kind = "static" if i in static else mode
        dynamic = {"duck": True, "static": False, "distinct": [Dim.DYNAMIC] * len(shape)}[kind]
        out.append(env.fake_tensor(shape, case.dtype(i), dynamic=dynamic, name=f"x{i}"))
    return out


def run_ours(case: Case, shapes=None, mode: str = "duck", env: ShapeEnv | None = None,
             static: frozenset = frozenset()):
    """``(env, inputs, output)``; ``output`` is the ShapeError raised, if any."""
    env = env or ShapeEnv()
    inputs = make_inputs(env, case, shapes, mode, static)
    try:
        return env, inputs, case.fn(our_namespace(env), *inputs)
    except ShapeError as e:
        return env, inputs, e


def leaves(value: Any) -> list:
    """The tensors (and ints) of an output, in order."""
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in leaves(v)]
    return [value]


def concrete(value: Any, values: dict | None = None) -> Any:
    """A size/stride/offset at the hints (``values=None``) or at ``{symbol: value}``; None if unbacked."""
    if isinstance(value, SymInt):
        if values is None:
            env = value.node.env
            return env.hint_of(value.node.expr)
        try:
            return evaluate(value.node.expr, values)
        except Exception:  # an unbacked symbol has no value
            return None
    return value


def layout(t: Any, inputs: list, values: dict | None = None) -> tuple:
    """What must agree between two runs: shape, strides, offset, dtype and which input it aliases."""
    if not is_tensor(t):
        return ("scalar",)
    alias = next((i for i, x in enumerate(inputs) if t.is_view_of(x)), None)
    return (tuple(concrete(s, values) for s in t.shape), tuple(concrete(s, values) for s in t.stride()),
            concrete(t.storage_offset(), values), t.dtype.name, alias)


# -- the tests -----------------------------------------------------------------------------------------
STATIC_CASES = [case for case in CASES if not case.data_dependent]


@pytest.mark.parametrize("case", STATIC_CASES, ids=lambda case: case.id)
def test_symbolic_rule_at_the_hints_matches_the_static_rule(case: Case) -> None:
    _, s_inputs, static = run_ours(case, mode="static")
    env, d_inputs, symbolic = run_ours(case, mode="duck")
    if isinstance(static, ShapeError):
        assert isinstance(symbolic, ShapeError), f"{case.id}: static raised {static} but symbolic gave {symbolic}"
        return
    assert not isinstance(symbolic, ShapeError), f"{case.id}: symbolic raised {symbolic}; static gave {static}"
    expected = [layout(t, s_inputs) for t in leaves(static)]
    got = [layout(t, d_inputs) for t in leaves(symbolic)]
    assert got == expected, f"{case.id}: symbolic {leaves(symbolic)} at the hints {got} != static {expected}"
    for g in env.guards:
        assert env.hint_of(g.expr) is True, f"{case.id}: guard {g.expr} is false at the hints"


def _bindings(env: ShapeEnv, inputs: list, shapes) -> tuple[dict, dict]:
    """Source texts -> sizes, and symbol -> value, for inputs of ``shapes``."""
    by_source = {f"x{i}.size()[{d}]": size for i, shape in enumerate(shapes) for d, size in enumerate(shape)}
    values = {}
    for sym, info in env.symbols.items():
        if info.backed:
            values[sym] = by_source[info.sources[0].text()]
    return by_source, values


def _alternatives(case: Case, rng: random.Random, count: int) -> list[tuple]:
    """Other input sizes: each dim moved a little, doubled, or kept."""
    out = []
    for _ in range(count):
        shapes = tuple(tuple(max(0, rng.choice([s, s, s + 1, s - 1, 2 * s, s + 3, 2 * s + 1])) for s in shape)
                       for shape in case.shapes)
        out.append(shapes)
    return out


@pytest.mark.parametrize("mode", ["duck", "distinct"])
def test_guards_are_sound_on_other_sizes(mode: str) -> None:
    """Where the produced guards hold, the static rule at those sizes agrees with the symbolic shapes."""
    rng = random.Random(1234)
    accepted = rejected = 0
    for case in STATIC_CASES:
        env, inputs, symbolic = run_ours(case, mode=mode)
        if isinstance(symbolic, ShapeError):
            continue
        gs = env.produce_guards()
        known = {src.text() for _, src in gs.sources}
        for shapes in _alternatives(case, rng, 6):
            by_source, values = _bindings(env, inputs, shapes)
            if not gs.holds({k: v for k, v in by_source.items() if k in known}):
                rejected += 1
                continue
            accepted += 1
            _, s_inputs, static = run_ours(case, shapes, mode="static")
            assert not isinstance(static, ShapeError), (
                f"{case.id} ({mode}): guards {gs.to_text('source')!r} accept sizes {shapes}, where the op fails: {static}")
            expected = [layout(t, s_inputs) for t in leaves(static)]
            got = [layout(t, inputs, values) for t in leaves(symbolic)]
            assert got == expected, f"{case.id} ({mode}) at sizes {shapes}: symbolic {got} != static {expected}"
    assert accepted > 200 and rejected > 50, (accepted, rejected)


def _guard_count(fn, shapes, dtypes=(), mode: str = "duck", static=frozenset()) -> tuple[int, list[str]]:
    env, _, out = run_ours(Case("g", tuple(shapes), fn, tuple(dtypes)), mode=mode, static=frozenset(static))
    assert not isinstance(out, ShapeError), out
    return len(env.guards), [str(g.expr) for g in env.guards]


GUARD_ECONOMY = [
    # (id, shapes, fn, expected number of guards, why)
    ("view(-1, 4) on 1-d", [(12,)], lambda L, x: x.view(-1, 4), 1, "numel % 4 == 0"),
    ("view(3, -1) on 1-d", [(12,)], lambda L, x: x.view(3, -1), 1, "numel % 3 == 0"),
    ("view(a, b, -1)", [(4, 6, 5)], lambda L, x: x.view(x.shape[0], x.shape[1], -1), 0, "provable"),
    ("view(-1) flat", [(4, 6)], lambda L, x: x.view(-1), 0, "provable"),
    ("view(b, a) swap", [(4, 6)], lambda L, x: x.view(x.shape[1], x.shape[0]), 0, "product commutes"),
    ("view(3, 8) explicit", [(4, 6)], lambda L, x: x.view(3, 8), 1, "one product equality"),
    ("reshape of t()", [(4, 6)], lambda L, x: x.t().reshape(-1), 0, "copy, no decision"),
    ("flatten/unflatten", [(4, 6, 5)], lambda L, x: x.flatten(0, 1).unflatten(0, (x.shape[0], -1)), 0, "provable"),
    ("cat([x, x])", [(4, 6)], lambda L, x: L.cat([x, x]), 0, "same sizes"),
    ("cat([x, y]) dim 1", [(4, 6), (4, 5)], lambda L, x, y: L.cat([x, y], 1), 0, "duck-sized rows"),
    ("stack([x, x])", [(4, 6)], lambda L, x: L.stack([x, x], 1), 0, "same shape"),
    ("x + x", [(4, 6)], lambda L, x: x + x, 0, "same symbols"),
    ("x + 1-row", [(4, 6), (1, 6)], lambda L, x, y: x + y, 0, "1 is a constant"),
    ("x @ x.t()", [(4, 6)], lambda L, x: x @ x.t(), 0, "same inner symbol"),
    ("slices", [(9, 6)], lambda L, x: x[1:][:-1][::2][-3:], 0, "sym_min/sym_max, no branches"),
    ("x[2:5] on symbolic", [(9,)], lambda L, x: x[2:5], 0, "Min(5, s0)"),
    ("select/narrow", [(9, 6)], lambda L, x: x.select(0, -1).narrow(0, 1, 2), 1, "narrow needs s1 >= 3"),
    ("sum/amax/softmax", [(4, 6)], lambda L, x: x.sum(0).softmax(0).amax(), 0, "no decisions"),
    ("expand size-1", [(4, 1)], lambda L, x: x.expand(x.shape[0], 7), 0, "1 broadcasts"),
    ("conv2d padded", [(2, 3, 16, 16), (8, 3, 3, 3)], lambda L, x, w: L.conv2d(x, w, padding=1), 1,
     "channels == 3; the padded input holds a kernel provably"),
    ("conv2d unpadded", [(2, 3, 16, 16), (8, 3, 3, 3)], lambda L, x, w: L.conv2d(x, w), 2,
     "channels == 3, and H = W = s2 >= 3 once"),
    ("max_pool2d ceil", [(2, 3, 16, 15)], lambda L, x: L.max_pool2d(x, 2, ceil_mode=True), 0, "IfThenElse, no guard"),
    ("arange(n)", [(6,)], lambda L, x: L.arange(x.shape[0]), 0, "step 1"),
    ("split(4) on 10", [(10,)], lambda L, x: x.split(4), 1, "the number of pieces is specialised"),
]


@pytest.mark.parametrize("name,shapes,fn,expected,why", GUARD_ECONOMY, ids=[g[0] for g in GUARD_ECONOMY])
def test_guard_economy(name, shapes, fn, expected, why) -> None:
    count, exprs = _guard_count(fn, shapes, static={1} if name.startswith("conv") else ())
    assert count == expected, f"{name}: expected {expected} guard(s) ({why}), got {exprs}"


def test_view_minus_one_guard_is_the_divisibility() -> None:
    count, exprs = _guard_count(lambda L, x: x.view(-1, 4), [(12,)])
    assert exprs == ["Eq(Mod(s0, 4), 0)"]


def test_distinct_symbols_unify_once() -> None:
    """``x + y`` with equal hints but distinct symbols records one equality, which later ops reuse."""
    count, exprs = _guard_count(lambda L, x, y: L.cat([x + y, y + x, x * y], 1), [(4, 6), (4, 6)], mode="distinct")
    assert count == 2 and all(e.startswith("Eq(") for e in exprs), exprs


def test_every_registered_op_has_a_case() -> None:
    used = set()
    for case in CASES:
        used.update(_ops_used(case))
    untested = set(registered()) - used - {"neg", "clone", "div", "sub", "add_", "getitem", "slice", "to"}
    assert not untested, f"ops without a case in CASES: {sorted(untested)}"


def _ops_used(case: Case) -> set[str]:
    env = ShapeEnv()
    graph = Graph("case")
    with env.tracing(graph):
        run_ours(case, mode="duck", env=env)
    return {node.op for node in graph.nodes if node.op != "placeholder"}


def test_case_ids_are_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
