"""Differential: our ``compile`` recompiles as often as ``torch.compile`` on the same call sequences.

Under default automatic dynamic, for functions and call sequences where the
semantics coincide (one input or inputs whose sizes never coincide by chance:
torch duck-sizes equal sizes into one symbol, we trace each dim with its own),
both compile the same number of times. torch's count is observed with a counting
backend; a torch that cannot compile here makes the test skip, not fail.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

from shapeenv.compile import compile  # noqa: E402


def scale(x):
    return x * 2 + 1


def branch(x):
    if x.shape[0] > 4:
        return x * 2
    return x + 1


def with_int(x, n):
    return x * n


def pair(x, y):
    return x * 2, y * 3


def equal_eight(x):
    if x.shape[0] == 8:
        return x * 2
    return x * 3


def _t(shape):
    return torch.zeros(shape)


CASES = [
    # (fn, calls: each a tuple of arguments given as shapes (tensors) or ints)
    (scale, [((8,),), ((9,),), ((10,),), ((8,),)]),
    (scale, [((8, 3),), ((8, 4),), ((9, 4),), ((9, 5),)]),
    (scale, [((1,),), ((2,),), ((3,),), ((1,),)]),
    (branch, [((8,),), ((9,),), ((2,),), ((3,),), ((7,),)]),
    (with_int, [((4,), 3), ((4,), 4), ((4,), 5), ((5,), 5)]),
    (pair, [((3,), (5,)), ((4,), (5,)), ((6,), (7,))]),
    (equal_eight, [((8,),), ((9,),), ((8,),), ((10,),)]),
    (scale, [((2, 3),), ((2, 3, 4),), ((2, 3, 5),)]),
]


def _args(call, to_tensor):
    return tuple(to_tensor(a) if isinstance(a, tuple) else a for a in call)


def _torch_compiles(fn, calls, *, dynamic=None, stance="default", to_tensor=_t) -> int:
    count = 0

    def counting(gm, example_inputs):
        nonlocal count
        count += 1
        return gm.forward

    for call in calls:  # a case that fails eagerly is a bug of this test, not a reason to skip
        fn(*_args(call, _t))
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend=counting, dynamic=dynamic)
    try:
        with torch.compiler.set_stance(stance):
            for call in calls:
                compiled(*_args(call, to_tensor))
    except Exception as e:  # torch cannot compile here (no compiler, unsupported platform, a torch bug, ...)
        pytest.skip(f"torch.compile does not run here: {type(e).__name__}: {e}")
    finally:
        torch._dynamo.reset()
    return count


@pytest.mark.parametrize("dynamic", [None, False, True])
@pytest.mark.parametrize("fn,calls", CASES, ids=[f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(CASES)])
def test_same_number_of_compilations_as_torch(fn, calls, dynamic) -> None:
    expected = _torch_compiles(fn, calls, dynamic=dynamic)
    ours = compile(fn, dynamic=dynamic)
    for call in calls:
        ours(*_args(call, _t))
    info = ours.cache_info()
    assert info.compilations == expected, (fn.__name__, calls, dynamic, expected, str(info))


# torch keeps automatic-dynamic state per code object across resets, which its eager_then_compile
# stance trips over; these functions are used by the stance test only.
def stance_scale(x):
    return x * 2 + 1


def stance_branch(x):
    if x.shape[0] > 4:
        return x * 2
    return x + 1


def stance_int(x, n):
    return x * n


STANCE_CASES = [
    (stance_scale, [((8,),), ((9,),), ((10,),), ((8,),)]),
    (stance_branch, [((8,),), ((9,),), ((2,),), ((3,),), ((7,),)]),
    (stance_int, [((4,), 3), ((4,), 4), ((4,), 5), ((5,), 5)]),
]


@pytest.mark.parametrize("fn,calls", STANCE_CASES, ids=[fn.__name__ for fn, _ in STANCE_CASES])
def test_eager_then_compile_compiles_as_often_as_torch(fn, calls) -> None:
    from shapeenv.compile.stance import set_stance

    expected = _torch_compiles(fn, calls, stance="eager_then_compile")
    ours = compile(fn)
    with set_stance("eager_then_compile"):
        for call in calls:
            ours(*_args(call, _t))
    assert ours.cache_info().compilations == expected, str(ours.cache_info())


def test_mark_dynamic_compiles_as_often_as_torch() -> None:
    from shapeenv.compile.marks import mark_dynamic

    def marked_torch(shape):
        t = _t(shape)
        torch._dynamo.mark_dynamic(t, 0)
        return t

    def marked_ours(shape):
        t = _t(shape)
        mark_dynamic(t, 0)
        return t

    calls = [((8, 3),), ((9, 3),), ((10, 4),)]
    expected = _torch_compiles(stance_scale, calls, to_tensor=marked_torch)
    ours = compile(stance_scale)
    for call in calls:
        ours(*_args(call, marked_ours))
    assert ours.cache_info().compilations == expected, str(ours.cache_info())


def test_torch_tensors_run_eagerly_on_the_default_backend_and_hit_the_cache() -> None:
    f = compile(scale)
    out = f(torch.ones(4))
    assert torch.equal(out, torch.full((4,), 3.0))
    f(torch.ones(5))
    f(torch.ones(6))
    info = f.cache_info()
    assert [e.hits for e in info.entries] == [0, 1]
    assert "float32[1-d] Tensor" in info.entries[0].inputs
