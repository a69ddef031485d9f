"""Layout in the trace and in the cache: input strides and offsets, layout guards, recompiles, eager runs.

The layout rules themselves (pointwise outputs, preserve_format, memory formats) are compared with
torch in test_rules_torch.py and test_layout_torch.py; here: what the trace assumes about input
layouts is what the guards check, and compiled functions recompile (with a reason) when it changes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from guards import Source
from shapeenv import Dim, ShapeError, export, set_stance
from shapeenv.backends import EagerTensor, numpy_backend
from shapeenv.compile import RecompileLimitWarning, compile
from shapeenv.tensor import layout
from shapeenv.program.layout_guards import array_strides


def ones(*shape):
    return np.ones(shape, np.float32)


def branchy(x):
    return x * 2 if x.is_contiguous() else x * 3


# -- the example -------------------------------------------------------------------------------
def test_a_transposed_input_recompiles_and_says_why() -> None:
    g = compile(branchy, backend=numpy_backend)
    assert g(ones(3, 4))[0, 0] == 2.0
    assert g(ones(4, 3).T)[0, 0] == 3.0  # was: entry 0 reused, wrong branch
    first, second = g.cache_info().entries
    assert second.reason.text == "x.stride()[0] == 4 failed: got 1"
    assert "L['x'].stride()[0] == 1" in second.guards.to_text("torch")
    assert g(ones(4, 3).T)[0, 0] == 3.0 and g(ones(3, 4))[0, 0] == 2.0  # each layout hits its own entry
    assert g.cache_info().compilations == 2


def test_a_dynamic_input_ties_its_strides_to_its_sizes() -> None:
    g = compile(branchy, backend=numpy_backend, dynamic=True)
    g(ones(3, 4))
    text = g.cache_info().entries[0].guards.to_text("torch")
    assert "L['x'].stride()[0] == L['x'].size()[1]" in text and "L['x'].stride()[1] == 1" in text
    assert g(ones(7, 5))[0, 0] == 2.0 and g.cache_info().compilations == 1  # any contiguous size: one entry
    assert g(ones(5, 7).T)[0, 0] == 3.0 and g(ones(9, 6).T)[0, 0] == 3.0
    assert g.cache_info().compilations == 2
    assert "L['x'].stride()[1] == L['x'].size()[0]" in g.cache_info().entries[1].guards.to_text("torch")


@pytest.mark.parametrize("fn, good, bad", [
    (lambda x: x * 2 if x.stride(1) == 1 else x * 3, ones(3, 4), ones(4, 3).T),
    (lambda x: x.view(-1), ones(3, 4), ones(4, 3).T),  # view legality depends on the layout
    (lambda x: x.contiguous().view(-1) * 2, ones(4, 3).T, ones(3, 4)),
])
def test_decisions_on_strides_do_not_leak_to_other_layouts(fn, good, bad) -> None:
    g = compile(fn, backend=numpy_backend)
    expected_good = g(good)
    try:
        got_bad = g(bad)
    except ShapeError:  # view(-1) of a transposed input: torch refuses too; entry 0 was not reused
        got_bad = None
    assert g.cache_info().compilations == (1 if got_bad is None else 2) and g.cache_info().misses == 2
    assert np.array_equal(g(good), expected_good)
    if got_bad is not None:
        assert got_bad.shape == fn(EagerTensor(bad)).shape


def test_storage_offsets_are_symbols_guarded_only_when_read() -> None:
    base = ones(5, 4)
    g = compile(lambda x: x + 1, backend=numpy_backend)
    g(base[1:])
    g(base[2:4][0:1].reshape(1, 4).repeat(2, 0))
    assert "storage_offset" not in g.cache_info().entries[0].guards.to_text("torch")
    reader = compile(lambda x: x * 2 if x.storage_offset() > 3 else x, backend=numpy_backend)
    assert reader(base[2:4])[0, 0] == 2.0 and reader(base[0:2])[0, 0] == 1.0
    assert reader.cache_info().compilations == 2
    assert "L['x'].storage_offset()" in reader.cache_info().entries[0].guards.to_text("torch")


def test_without_a_backend_hits_run_the_function_with_torch_methods() -> None:
    g = compile(lambda x: x * 2 if x.storage_offset() > 3 else x.t().contiguous())
    base = ones(5, 4)
    assert g(base[2:4])[0, 0] == 2.0 and g(base[2:4]).shape == (2, 4)  # the second call is a hit on numpy arrays
    assert g(base[:2]).shape == (4, 2) and g.cache_info().compilations == 2


def test_stepped_slices_get_stride_symbols() -> None:
    p = export(lambda x: x + 1, (ones(8, 6)[::2],), dynamic_shapes={"x": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}})
    x = p.inputs[0].value
    assert str(x.stride(0)) == "s2" and x.stride(1) == 1
    assert p.env.symbols[x.stride(0).node.expr].sources == [Source.stride("x", 0)]
    assert p.accepts(ones(10, 6)[::2]) and p.accepts(ones(10, 7)[::3]) and not p.accepts(ones(5, 6))
    text = p.format()
    assert "layout guards (strides as traced):" in text and "L['x'].stride()[1] == 1" in text


def test_negative_strides_are_refused_with_advice() -> None:
    with pytest.raises(ValueError, match="np.ascontiguousarray"):
        export(lambda x: x + 1, (ones(4)[::-1],))


def test_dtype_and_rank_are_in_the_key() -> None:
    g = compile(lambda x: x + 1)
    g(ones(3, 4)); g(np.ones((3, 4), np.float64)); g(ones(3, 4, 1))
    reasons = [e.reason.text for e in g.cache_info().entries]
    assert reasons[1] == "x: float32[2-d] ndarray failed: got float64[2-d] ndarray"
    assert "x: float32[2-d] ndarray failed: got float32[3-d] ndarray" in reasons[2]


def test_array_strides_reads_numpy_and_torch_style() -> None:
    class TorchLike:
        def stride(self):
            return (1, 4)

    assert array_strides(ones(2, 3)) == (3, 1) and array_strides(TorchLike()) == (1, 4)


# -- the fake tensor's own layout questions ---------------------------------------------------------------
def test_is_contiguous_is_exact_at_the_hint_and_guarded() -> None:
    p = export(lambda x: x.is_contiguous(), (ones(4, 1, 3)[:, :, ::1],), dynamic_shapes=({0: Dim.DYNAMIC},))
    assert p.outputs is True and len(p.env.guards) == 0  # provable: strides are products of the sizes
    cl = np.swapaxes(np.swapaxes(ones(2, 3, 4, 5), 0, 2).copy(), 0, 2)  # not contiguous in either format
    p = export(lambda x: (x.is_contiguous(), x.is_contiguous(memory_format="channels_last")), (cl,))
    assert p.outputs == (False, False)


@pytest.mark.parametrize("shape, strides, contiguous, channels_last, dense", [
    ((2, 3), (3, 1), True, False, True),
    ((2, 3), (1, 2), False, False, True),
    ((2, 1, 3), (3, 7, 1), True, False, True),
    ((2, 3, 4, 5), (60, 1, 15, 3), False, True, True),
    ((2, 1, 4, 5), (20, 20, 5, 1), True, True, True),
    ((4, 3), (6, 2), False, False, False),
    ((3, 4), (1, 0), False, False, False),
    ((0, 3), (5, 9), True, False, True),
])
def test_layout_predicates_on_ints(shape, strides, contiguous, channels_last, dense) -> None:
    assert layout.is_contiguous(shape, strides) is contiguous
    assert layout.is_contiguous(shape, strides, "channels_last") is channels_last
    assert layout.is_non_overlapping_and_dense(shape, strides) is dense


def test_unknown_memory_formats_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown memory_format"):
        layout.memory_format_name("nhwc")
    env_x = export(lambda x: x, (ones(2, 3),)).inputs[0].value
    with pytest.raises(ShapeError, match="required rank 4"):
        env_x.contiguous(memory_format="channels_last")
    with pytest.raises(ShapeError, match="preserve memory format is unsupported"):
        env_x.contiguous(memory_format="preserve_format")


# -- eager runs ---------------------------------------------------------------------------------------
def torchy(x):
    y = x.transpose(0, 1)
    if y.is_contiguous():
        return y * 2
    return y.contiguous().view(-1) + y.stride(1)


def test_force_eager_runs_torch_style_code_on_numpy_arrays() -> None:
    g = compile(torchy, backend=numpy_backend)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    compiled = g(x)
    with set_stance("force_eager"):
        eager = g(x)
    assert isinstance(eager, np.ndarray) and np.array_equal(eager, compiled)
    assert eager.tolist() == [3.0, 6.0, 4.0, 7.0, 5.0, 8.0]  # y.stride(1) == 3


def test_eager_on_recompile_and_the_limit_use_the_traced_semantics() -> None:
    g = compile(torchy, backend=numpy_backend, recompile_limit=1)
    g(ones(2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecompileLimitWarning)
        past_limit = g(ones(3, 2))
    with set_stance("eager_on_recompile"):
        on_recompile = g(ones(4, 2))
    assert past_limit.shape == (6,) and on_recompile.shape == (8,)
    assert g.cache_info().eager_calls == 2


def test_eager_tensors_follow_torch_layouts() -> None:
    x = EagerTensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    p = x.permute(2, 0, 1)
    assert (p + 1).stride() == p.stride() == (1, 12, 4)  # pointwise keeps a dense permuted layout
    assert p.clone().stride() == (1, 12, 4) and p.contiguous().stride() == (6, 3, 1)
    assert x[:, ::2].clone().stride() == (8, 4, 1)
    cl = EagerTensor(np.zeros((2, 3, 4, 5), np.float32)).contiguous(memory_format="channels_last")
    assert cl.stride() == (60, 1, 15, 3) and cl.is_contiguous(memory_format="channels_last")
    assert x.unfold(2, 2, 2).shape == (2, 3, 2, 2) and x.as_strided((2, 2), (1, 4)).tolist() == [[0.0, 4.0], [1.0, 5.0]]
    with pytest.raises(IndexError, match="out of bounds"):
        x.as_strided((30,), (1,))


def test_simplified_guard_sets_keep_the_layout_guards() -> None:
    g = compile(branchy, backend=numpy_backend, dynamic=True)
    g(ones(3, 4))
    assert g.wait_simplified(60)
    text = g.cache_info().entries[0].guards.to_text("torch")
    assert "L['x'].stride()[0] == L['x'].size()[1]" in text and "L['x'].stride()[1] == 1" in text
    assert g(ones(4, 3).T)[0, 0] == 3.0 and g.cache_info().compilations == 2
