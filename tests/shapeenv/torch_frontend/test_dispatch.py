"""The dispatch table: unsupported ops, registering ops, torch's higher-order ops, what reaches which rule."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch.nn.functional as F  # noqa: E402
from torch.export import Dim  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from shapeenv import ops  # noqa: E402
from shapeenv.errors import TracedTensorError, UnsupportedTorchOpError  # noqa: E402
from shapeenv.torch.table import torch_name  # noqa: E402


def uses_grid_sample(x, grid):
    return F.grid_sample(x, grid, align_corners=False)  # the line the error names


def test_unsupported_op_names_the_op_the_line_and_the_fix():
    x, grid = torch.randn(1, 2, 4, 4), torch.randn(1, 3, 3, 2)
    with pytest.raises(UnsupportedTorchOpError) as e:
        st.export(uses_grid_sample, (x, grid))
    err = e.value
    assert isinstance(err, NotImplementedError) and not isinstance(err, TypeError)  # see its docstring
    assert err.op == "torch.nn.functional.grid_sample"
    text = str(err)
    assert "cannot trace torch.nn.functional.grid_sample(f32[1, 2, 4, 4], f32[1, 3, 3, 2], mode='bilinear'" in text
    assert "test_dispatch.py:" in text and "in uses_grid_sample" in text
    assert "register_torch_op(torch.nn.functional.grid_sample" in text and "rule('grid_sample')" in text


def test_register_an_adapter_in_a_table_of_ones_own():
    table = st.TorchOpTable(base=st.DEFAULT_TABLE)

    def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
        return ops.zeros(x.shape[0], x.shape[1], grid.shape[1], grid.shape[2], dtype=x.dtype)

    table.register(F.grid_sample, grid_sample)
    p = st.export(uses_grid_sample, (torch.randn(2, 2, 4, 4), torch.randn(2, 3, 5, 2)), table=table,
                  dynamic_shapes=({0: Dim("n")}, {0: Dim("n"), 1: Dim("h"), 2: Dim("w")}))
    grid = p.inputs[1].value
    assert p.output_shapes == (grid.shape[0], 2, grid.shape[1], grid.shape[2])
    assert st.DEFAULT_TABLE.lookup(F.grid_sample) is None  # the process-wide table is unchanged


def test_register_by_op_name():
    table = st.TorchOpTable(base=st.DEFAULT_TABLE)
    table.register(torch.Tensor.absolute, "abs")
    p = st.export(lambda x: x.absolute(), (torch.randn(3),), table=table)
    assert [n.op for n in p.graph.nodes if n.op not in ("placeholder", "output")] == ["abs"]
    with pytest.raises(UnsupportedTorchOpError, match="no op named 'no_such_op'"):
        table.register(torch.Tensor.absolute, "no_such_op")


def test_a_keyword_the_op_does_not_take_is_an_error_unless_it_is_a_no_op():
    p = st.export(lambda x: F.softmax(x, dim=-1, dtype=None) + torch.zeros(3, device="cpu", requires_grad=False),
                  (torch.randn(2, 3),))
    assert [str(d) for d in p.output_shapes] == ["2", "3"]
    with pytest.raises(UnsupportedTorchOpError, match="alpha=2"):
        st.export(lambda x: torch.add(x, x, alpha=2), (torch.randn(2, 3),))
    with pytest.raises(UnsupportedTorchOpError, match="out="):
        st.export(lambda x: torch.add(x, x, out=torch.empty(2, 3)), (torch.randn(2, 3),))


def test_torch_names():
    assert torch_name(F.gelu) == "torch.nn.functional.gelu"
    assert torch_name(torch.cat) == "torch.cat"
    assert torch_name(torch.Tensor.view) == "torch.Tensor.view"
    assert torch_name(torch.Tensor.shape.__get__) == "torch.Tensor.shape"


def test_factories_symbolic_sizes_and_sym_arithmetic():
    def f(x):
        B, T = x.shape
        pos = torch.arange(T, device=x.device)
        mask = torch.ones(T, T, dtype=torch.bool)
        return x * (T ** 0.5) + pos, mask, torch.full((B, 2), 7).dtype, x.new_zeros(B, 3), torch.tensor([1, 2, 3])

    p = st.export(f, (torch.randn(2, 5),), dynamic_shapes=({0: Dim("b"), 1: Dim("t")},))
    shapes = p.output_shapes
    assert [str(d) for d in shapes[0]] == ["s0", "s1"] and [str(d) for d in shapes[1]] == ["s1", "s1"]
    assert shapes[2] == "int64"  # outputs are this library's values: dtypes by name
    assert [str(d) for d in shapes[3]] == ["s0", "3"] and shapes[4] == (3,)


def test_torch_cond_is_switch():
    def f(x):
        return torch.cond(x.shape[0] > 4, lambda a: a.sum(0, keepdim=True), lambda a: a[:1] * 2, (x,))

    p = st.export(f, (torch.randn(6, 3),), dynamic_shapes=({0: Dim("n")},))
    assert [n.op for n in p.graph.nodes if n.op == "switch"] == ["switch"]
    assert [str(d) for d in p.output_shapes] == ["1", "3"]
    from torch._higher_order_ops import utils

    assert utils._hop_compile_and_call.__module__ == "torch._higher_order_ops.utils"  # restored after the trace


def test_torch_cond_on_a_tensor_predicate():
    def f(x):
        return torch.cond(x.sum() > 0, lambda a: a + 1, lambda a: a - 1, (x,))

    p = st.export(f, (torch.randn(4, 3),), dynamic_shapes=({0: Dim("n")},))
    assert [str(d) for d in p.output_shapes] == ["s0", "3"]


def test_torch_scan_is_scan():
    from torch._higher_order_ops import scan

    def rnn(xs, h0, w):
        def step(h, x):
            h = torch.tanh(x @ w + h)
            return h, h.clone()

        return scan(step, h0, xs)

    p = st.export(rnn, (torch.randn(7, 2, 4), torch.randn(2, 4), torch.randn(4, 4)),
                  dynamic_shapes=({0: Dim("T"), 1: Dim("b")}, {0: Dim("b")}, None))
    last, ys = p.output_shapes
    assert [str(d) for d in last] == ["s1", "4"] and [str(d) for d in ys] == ["s0", "s1", "4"]


def test_torch_check_is_a_runtime_assert():
    def f(x):
        n = x.shape[0]
        torch._check(n < 100)
        return x[: n - 1]

    p = st.export(f, (torch.randn(6, 2),), dynamic_shapes=({0: Dim.DYNAMIC},))
    assert str(p.range_constraints[next(iter(p.range_constraints))]) == "[2, 99]"
    assert len(p.runtime_asserts) == 1


def test_a_traced_tensor_that_escapes_fails_loudly():
    def f(x):
        f.kept.append(x)  # a function's attributes are outside the state a trace restores (shapeenv.export.state)
        return x + 1

    f.kept = []
    st.export(f, (torch.randn(2),))
    with pytest.raises(TracedTensorError, match="outside a trace"):
        f.kept[0] + 1


def test_values_and_indices_come_back_as_torch_structseqs():
    def f(x):
        best = x.max(dim=-1)
        low = torch.min(x, 0)
        return best.values, best.indices, low.indices

    p = st.export(f, (torch.randn(4, 5),), dynamic_shapes=({0: Dim("n")},))
    n = p.inputs[0].value.shape[0]
    assert p.output_shapes == ((n,), (n,), (5,))
    assert [v.dtype.name for v in p.outputs] == ["float32", "int64", "int64"]


def test_every_op_with_a_torch_namesake_is_reachable():
    """Each shapeenv.ops function (and shape rule) answers the torch callables of its name, with no table entry."""
    from shapeenv.ops.registry import registered

    names = sorted(set(ops.__all__) | set(registered()))
    owners = (torch, F, torch.Tensor, torch.special, torch.linalg)
    callables = [(f"{getattr(o, '__name__', 'Tensor')}.{n}", getattr(o, n)) for n in names for o in owners
                 if callable(getattr(o, n, None)) and not isinstance(getattr(o, n), type)]
    assert len(callables) > 150
    missing = [label for label, c in callables if st.DEFAULT_TABLE.lookup(c) is None]
    assert missing == ["torch.nn.functional.unfold"]  # im2col: a namesake of another meaning (next test)


def test_a_rule_registered_after_a_miss_is_found(monkeypatch):
    from shapeenv.ops import registry

    func = torch.Tensor.cummax
    assert st.DEFAULT_TABLE.lookup(func) is None
    monkeypatch.setitem(registry._RULES, "cummax", lambda x, dim: (x.clone(), x.clone()))
    assert st.DEFAULT_TABLE.lookup(func).target == "the shape rule 'cummax'"
    monkeypatch.delitem(registry._RULES, "cummax")
    st.DEFAULT_TABLE.forget()
    assert st.DEFAULT_TABLE.lookup(func) is None


def test_a_namesake_of_another_meaning_is_not_used():
    assert st.DEFAULT_TABLE.lookup(F.unfold) is None  # im2col, not Tensor.unfold's windows
    assert st.DEFAULT_TABLE.lookup(torch.Tensor.unfold) is not None
    with pytest.raises(UnsupportedTorchOpError, match="torch.nn.functional.unfold"):
        st.export(lambda x: F.unfold(x, 2), (torch.randn(1, 2, 4, 4),))


def test_fallback_adapters_until_a_rule_of_their_own():
    def conv1d_hf(x, w, b):  # Hugging Face GPT-2's Conv1D
        return torch.addmm(b, x.view(-1, x.size(-1)), w).view(*x.shape[:-1], w.shape[1])

    p = st.export(conv1d_hf, (torch.randn(2, 5, 8), torch.randn(8, 24), torch.randn(24)),
                  dynamic_shapes=({0: Dim("b"), 1: Dim("t")}, None, None))
    assert [str(d) for d in p.output_shapes] == ["s0", "s1", "24"]
    assert st.DEFAULT_TABLE.lookup(torch.addmm).target.endswith("composites.addmm")
    assert st.DEFAULT_TABLE.lookup(torch.Tensor.type) is not None


def test_tensor_type():
    def f(x):
        assert x.type() == "torch.FloatTensor"
        return x.type(torch.float16)

    assert st.export(f, (torch.randn(2),)).outputs.dtype.name == "float16"
