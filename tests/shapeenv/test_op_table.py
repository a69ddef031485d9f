"""The op table (shapeenv/ops/table.py) and the functions and methods made from it (shapeenv/ops/forward.py)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import shapeenv.ops as ops
from shapeenv import Dim, ShapeEnv, export
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops import registry
from shapeenv.ops.forward import OpMethod
from shapeenv.ops.kernels.numpy import KERNELS
from shapeenv.ops.table import BY_NAME, OPS


def _params(sig: inspect.Signature, skip: int = 0) -> list[tuple]:
    return [(p.name, p.kind, p.default) for p in list(sig.parameters.values())[skip:]]


def test_each_op_has_one_row_a_rule_and_a_kernel() -> None:
    names = [d.name for d in OPS]
    assert len(names) == len(set(names)), "an op defined twice"
    assert [n for n in names if registry.rule_of(n) is None] == []
    assert [n for n in names if n not in KERNELS] == []
    spelled = [s.name for d in OPS for s in d.functions]
    assert len(spelled) == len(set(spelled)), "two rows make the same shapeenv.ops function"


@pytest.mark.parametrize("op", OPS, ids=lambda d: d.name)
def test_functions_have_the_rows_signature_and_doc(op) -> None:
    for spelling in op.functions:
        fn = getattr(ops, spelling.name)
        like = spelling.like or op.like or registry.rule_of(op.name)
        assert _params(inspect.signature(fn)) == _params(inspect.signature(like))
        assert fn.__doc__ == (spelling.doc or op.doc) and fn.__module__ == "shapeenv.ops"
        assert spelling.name in ops.__all__


@pytest.mark.parametrize("op", OPS, ids=lambda d: d.name)
def test_methods_are_the_rows_methods(op) -> None:
    public = inspect.signature(op.like or registry.rule_of(op.name))
    for spelling in op.methods:
        method = FakeTensor.__dict__.get(spelling.name) or getattr(FakeTensor, spelling.name)
        assert isinstance(method, OpMethod) and method.op is op
        sig = inspect.signature(method)
        assert list(sig.parameters)[0] == "self"
        if spelling.like is None:  # the function's signature with self first
            assert _params(sig, 1) == _params(public, 1)


def test_a_rows_like_changes_more_than_parameter_names() -> None:
    # like= is for a public signature the rule cannot have (torch's keyword-only or required
    # arguments); a like that only renames parameters means the rule's names should change
    def shape(fn) -> list:
        return [(p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    renames_only = [d.name for d in OPS if d.like is not None and shape(d.like) == shape(d.rule)]
    assert renames_only == []


def test_a_call_records_every_argument_positionally_as_the_hand_written_forwards_did() -> None:
    p = export(lambda x: ops.gelu(x).cumsum(0, dtype="int64"), ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    calls = [(n.op, n.args[1:], n.kwargs) for n in p.graph.nodes if n.op in ("gelu", "cumsum")]
    assert calls == [("gelu", ("none",), {}), ("cumsum", (0, "int64"), {})]


def test_keywords_bind_to_the_signature_and_bad_calls_raise_type_error() -> None:
    x = ShapeEnv().fake_tensor((4, 3), name="x")
    assert ops.cumsum(x, dim=1, dtype="int64").dtype.name == "int64"
    assert x.add(other=x).shape == x.shape
    assert ops.softmax(x, dim=-1).shape == x.shape
    with pytest.raises(TypeError):
        ops.cumsum(x, 0, "int64")  # dtype is keyword-only, as in torch
    with pytest.raises(TypeError):
        x.add(x, bogus=1)
    with pytest.raises(TypeError):
        ops.gelu()


def test_reflected_methods_swap_their_operands() -> None:
    out = 10 - ShapeEnv().fake_tensor((2,), "int64", name="x")
    assert out.shape == (2,)
    arr = np.array([1, 2])
    assert (ops.sub(10, arr) == np.array([9, 8])).all()
    assert BY_NAME["sub"].methods[1].reflected and BY_NAME["sub"].methods[1].name == "__rsub__"


def test_help_shows_the_ops_doc_and_signature() -> None:
    text = inspect.getdoc(ops.matmul)
    assert text == BY_NAME["matmul"].doc
    assert str(inspect.signature(ops.cumsum)).startswith("(input")


def test_keywords_on_real_arrays_run_the_kernel() -> None:
    got = ops.cumsum(np.array([[1, 2], [3, 4]]), dim=1, dtype="int64")
    assert got.tolist() == [[1, 3], [3, 7]]
    with pytest.raises(TypeError):
        ops.softmax(np.zeros(3))  # dim is required
