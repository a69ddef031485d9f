"""The op rules against real torch: same shapes, dtypes, view strides and aliasing; errors where torch errors.

Every case of ``test_rules_cases.CASES`` runs on real tensors of the hint shapes and on our fake tensors
(static and symbolic, evaluated at the hints). Then seeded random samples sweep the arithmetic-heavy
rules (slicing, view/reshape of permuted and sliced inputs, pooling with ``ceil_mode``, convolutions,
batched ``matmul``, ``arange``) over many sizes and arguments.
"""

from __future__ import annotations

import random
import types
import warnings

import pytest

from shapeenv import ShapeEnv, ShapeError, ops
from shapeenv.ops.dispatch import is_tensor
from symint import SymInt, evaluate

from .rules.cases_models import TORCH_NAMES
from .test_rules_cases import CASES, Case, concrete, leaves, run_ours

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch.nn.functional as F  # noqa: E402

FUNCTIONAL = {"conv1d", "conv2d", "max_pool2d", "avg_pool2d", "pad", "linear"}
TL = types.SimpleNamespace(**{name: getattr(F if name in FUNCTIONAL else torch, name) for name in (
    "where maximum minimum cat stack split chunk unbind movedim reshape matmul mm bmm sum max min argmax "
    "argmin log_softmax ge ne le zeros ones empty rand randn full arange zeros_like ones_like empty_like "
    "rand_like randn_like full_like nonzero masked_select unique int64 float32 bool channels_last contiguous_format "
    "as_strided").split() + sorted(FUNCTIONAL)},
                          **{name: getattr(F if where == "F" else torch, name) for name, where in TORCH_NAMES.items()
                             if where in ("F", "torch")},
                          linalg_vector_norm=torch.linalg.vector_norm)


def torch_inputs(case: Case, rng: torch.Generator) -> list:
    out = []
    for i, shape in enumerate(case.shapes):
        dtype = case.dtype(i)
        if dtype == "float32":
            out.append(torch.randn(shape, generator=rng))
        elif dtype == "bool":
            out.append(torch.rand(shape, generator=rng) > 0.5)
        else:  # integer inputs index other inputs: 0 is always in range
            out.append(torch.zeros(shape, dtype=getattr(torch, dtype)))
    return out


def run_torch(case: Case):
    inputs = torch_inputs(case, torch.Generator().manual_seed(0))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return inputs, case.fn(TL, *inputs)
    except (RuntimeError, IndexError, ValueError, TypeError, NotImplementedError) as e:
        return inputs, e


def _storage(t):
    return t.untyped_storage().data_ptr() if t.numel() else None


def torch_layout(t, inputs) -> tuple:
    """Shape, strides, offset, dtype, aliased input. A new tensor's strides are compared where its
    size is not 1 (there torch's choice is arbitrary), and not at all when it is empty."""
    if not isinstance(t, torch.Tensor):
        return ("scalar",)
    alias = next((i for i, x in enumerate(inputs) if _storage(t) is not None and _storage(t) == _storage(x)), None)
    strides = tuple(t.stride()) if alias is not None else _fresh_strides(t.shape, t.stride())
    offset = t.storage_offset() if alias is not None else None
    return tuple(t.shape), strides, offset, str(t.dtype).replace("torch.", ""), alias


def _fresh_strides(shape, strides) -> tuple | None:
    shape = tuple(int(n) for n in shape)
    if 0 in shape:
        return None
    return tuple(int(st) if n != 1 else None for n, st in zip(shape, strides))


def our_layout(t, inputs, torch_alias: bool) -> tuple:
    if not is_tensor(t):
        return ("scalar",)
    alias = next((i for i, x in enumerate(inputs) if t.is_view_of(x)), None)
    if concrete(t.numel()) == 0:
        alias = None  # torch cannot tell an empty view from a copy
    shape = tuple(concrete(s) for s in t.shape)
    if not torch_alias:
        if None in shape:  # a data-dependent size
            return shape, None, None, t.dtype.name, alias
        return shape, _fresh_strides(shape, [concrete(s) for s in t.stride()]), None, t.dtype.name, alias
    offset = concrete(t.storage_offset())  # None when it reads an unbacked index (x[tensor(2)])
    return shape, tuple(concrete(s) for s in t.stride()), "data-dependent" if offset is None else offset, t.dtype.name, alias


@pytest.mark.parametrize("mode", ["static", "duck"])
@pytest.mark.parametrize("case", [c for c in CASES if not c.data_dependent], ids=lambda c: c.id)
def test_case_agrees_with_torch(case: Case, mode: str) -> None:
    t_inputs, expected = run_torch(case)
    env, inputs, got = run_ours(case, mode=mode)
    if isinstance(expected, Exception):
        assert isinstance(got, ShapeError), f"{case.id}: torch raises {expected!r}, we give {got}"
        return
    assert not isinstance(got, ShapeError), f"{case.id}: we raise {got}; torch gives {expected}"
    t_leaves, o_leaves = leaves(expected), leaves(got)
    assert len(t_leaves) == len(o_leaves), f"{case.id}: {len(t_leaves)} outputs in torch, {len(o_leaves)} here"
    for t, o in zip(t_leaves, o_leaves):
        want = torch_layout(t, t_inputs)
        have = our_layout(o, inputs, want[-1] is not None)
        if len(have) > 2 and have[2] == "data-dependent":
            want = want[:2] + ("data-dependent",) + want[3:]
        assert have == want, f"{case.id} ({mode}): ours {have} != torch {want} (shape, strides, offset, dtype, alias)"


@pytest.mark.parametrize("case", [c for c in CASES if c.data_dependent], ids=lambda c: c.id)
def test_data_dependent_case_agrees_with_torch(case: Case) -> None:
    """Backed dims agree; each unbacked size admits torch's actual value under the recorded asserts."""
    t_inputs, expected = run_torch(case)
    env, inputs, got = run_ours(case, mode="duck")
    if isinstance(expected, Exception):
        assert isinstance(got, ShapeError), f"{case.id}: torch raises {expected!r}, we give {got}"
        return
    assert not isinstance(got, ShapeError), f"{case.id}: we raise {got}"
    values = {sym: info.hint for sym, info in env.symbols.items() if info.backed}
    for t, o in zip(leaves(expected), leaves(got)):
        pairs = zip(t.shape, o.shape) if is_tensor(o) else [(t, o)]
        if is_tensor(o):
            assert len(t.shape) == len(o.shape) and str(t.dtype).endswith(o.dtype.name), (t.shape, t.dtype, o)
        for actual, ours in pairs:
            actual = int(actual)
            if isinstance(ours, SymInt) and ours.node.hint is None:
                values[ours.node.expr] = actual
            else:
                assert concrete(ours) == actual, f"{case.id}: backed size {ours} != torch's {actual}"
    for record in env.runtime_asserts:
        if not record.expr.free_symbols <= set(values):
            continue  # about a count no output shows (x[mask] = 0 reads one, as torch's index_put_ does): not observable
        assert evaluate(record.expr, values), f"{case.id}: torch's sizes {values} violate the assert {record.expr}"


# -- random sweeps -------------------------------------------------------------------------------------
def _ours_both(fn, shapes, dtype="float32"):
    """``fn`` on static and on symbolic fake inputs: ``[(inputs, result or ShapeError)] * 2``."""
    out = []
    for dynamic in (False, True):
        env = ShapeEnv()
        xs = [env.fake_tensor(s, dtype, dynamic=dynamic, name=f"x{i}") for i, s in enumerate(shapes)]
        try:
            out.append((xs, fn(xs)))
        except ShapeError as e:
            out.append((xs, e))
    return out


def _agree(label, t_fn, o_fn, shapes, *, strides: bool = False, t_inputs=None) -> bool:
    """Compare torch and ours (static and symbolic); return whether torch succeeded."""
    t_inputs = t_inputs or [torch.randn(s) for s in shapes]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = t_fn(t_inputs)
    except (RuntimeError, IndexError, ValueError) as e:
        want = e
    for xs, got in _ours_both(o_fn, shapes):
        if isinstance(want, Exception):
            assert isinstance(got, ShapeError), f"{label}: torch raises {want!r}, we give {got}"
            continue
        assert not isinstance(got, ShapeError), f"{label}: we raise {got}; torch gives shape {tuple(want.shape)}"
        assert tuple(concrete(s) for s in got.shape) == tuple(want.shape), f"{label}: {got.shape} vs {tuple(want.shape)}"
        if strides and want.numel():
            # the stride of a size-1 dim is arbitrary: a symbolic view may pick another one than torch does
            have = [concrete(st) for st, n in zip(got.stride(), want.shape) if n != 1]
            assert have == [st for st, n in zip(want.stride(), want.shape) if n != 1], (
                f"{label}: strides {got.stride()} vs {want.stride()}")
            assert concrete(got.storage_offset()) == want.storage_offset(), f"{label}: offset"
            assert got.is_view_of(xs[0]) == (_storage(want) == _storage(t_inputs[0])), f"{label}: aliasing"
    return not isinstance(want, Exception)


def test_slicing_sweep() -> None:
    rng = random.Random(7)
    bounds = [None, -15, -6, -3, -1, 0, 1, 2, 4, 7, 15]
    ok = 0
    for _ in range(150):
        n = rng.choice([0, 1, 2, 3, 5, 8, 11])
        a, b = rng.choice(bounds), rng.choice(bounds)
        step = rng.choice([None, 1, 2, 3, 5])
        key = (slice(a, b, step), slice(None, None, rng.choice([1, 2])))
        ok += _agree(f"x[{a}:{b}:{step}] on n={n}", lambda t: t[0][key], lambda xs: xs[0][key], [(n, 4)], strides=True)
    assert ok > 100


def _layouts(shape, rng):
    """Random non-contiguous layouts of a tensor of ``shape`` (same numel): permutes, slices, expands."""
    dims = list(range(len(shape)))
    rng.shuffle(dims)
    return rng.choice([
        ("id", lambda t: t),
        ("t", lambda t: t.transpose(0, -1)),
        (f"perm{tuple(dims)}", lambda t: t.permute(*dims)),
        ("slice", lambda t: t[:, ::2] if len(shape) > 1 else t[::2]),
        ("unsq", lambda t: t.unsqueeze(1).transpose(0, 1)),
    ])


def _factorisations(n: int, rng: random.Random) -> list[tuple]:
    """A few shapes with ``n`` elements (and a wrong one), some with a -1."""
    divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
    out = []
    for _ in range(3):
        a = rng.choice(divisors)
        b = rng.choice([d for d in divisors if (n // a) % d == 0] or [1])
        shape = [a, b, n // a // b] if n else [a, 0]
        rng.shuffle(shape)
        if rng.random() < 0.5:
            shape[rng.randrange(len(shape))] = -1
        out.append(tuple(shape))
    out.append((n + 1,) if n else (-1, 0))
    return out


def test_view_and_reshape_sweep() -> None:
    rng = random.Random(11)
    views_ok = views_refused = 0
    for _ in range(60):
        shape = tuple(rng.choice([1, 2, 3, 4, 6]) for _ in range(rng.choice([2, 3])))
        name, layout = _layouts(shape, rng)
        base = torch.randn(shape)
        src = layout(base)
        for target in _factorisations(src.numel(), rng):
            for op in ("view", "reshape"):
                label = f"{name}{tuple(src.shape)}.{op}{target}"
                t_fn = lambda ts, op=op, target=target: getattr(layout(ts[0]), op)(*target)  # noqa: E731
                o_fn = lambda xs, op=op, target=target: getattr(layout(xs[0]), op)(*target)  # noqa: E731
                ok = _agree(label, t_fn, o_fn, [shape], strides=True, t_inputs=[base])
                if op == "view":
                    views_ok += ok
                    views_refused += not ok
    assert views_ok > 50 and views_refused > 30, (views_ok, views_refused)


def _sweep(seed: int, cases: int, draw) -> int:
    """How many of ``cases`` random cases agree with torch where torch succeeds.

    ``draw(rng)`` gives one case: ``(label, torch fn, our fn, input shapes)``.
    """
    rng = random.Random(seed)
    return sum(_agree(*draw(rng), strides=True) for _ in range(cases))


def _pooling_case(rng: random.Random):
    h, w = rng.randint(1, 13), rng.randint(1, 13)
    k = rng.randint(1, 4)
    s = rng.choice([None, 1, 2, 3])
    p = rng.randint(0, 2)
    d = rng.choice([1, 1, 2])
    ceil = rng.random() < 0.6
    if rng.random() < 0.5:
        return (f"max_pool2d(({h},{w}), k={k}, s={s}, p={p}, d={d}, ceil={ceil})",
                lambda ts: F.max_pool2d(ts[0], k, s, p, d, ceil), lambda xs: ops.max_pool2d(xs[0], k, s, p, d, ceil),
                [(1, 2, h, w)])
    return (f"avg_pool2d(({h},{w}), k={k}, s={s}, p={p}, ceil={ceil})",
            lambda ts: F.avg_pool2d(ts[0], k, s, p, ceil), lambda xs: ops.avg_pool2d(xs[0], k, s, p, ceil), [(1, 2, h, w)])


def _conv_case(rng: random.Random):
    length, k = rng.randint(1, 12), rng.randint(1, 5)
    s, p, d = rng.randint(1, 3), rng.randint(0, 2), rng.randint(1, 2)
    groups = rng.choice([1, 2])
    c_in, c_out = 2 * rng.randint(1, 2), 2 * rng.randint(1, 2)
    weight = torch.randn(c_out, c_in // groups, k)

    def o_fn(xs):
        w = xs[0].env.fake_tensor((c_out, c_in // groups, k), dynamic=False, name="w")
        return ops.conv1d(xs[0], w, None, s, p, d, groups)

    return (f"conv1d(L={length}, k={k}, s={s}, p={p}, d={d}, groups={groups})",
            lambda ts: F.conv1d(ts[0], weight, None, s, p, d, groups), o_fn, [(2, c_in, length)])


def _matmul_case(rng: random.Random):
    ra, rb = rng.randint(1, 4), rng.randint(1, 4)
    n, k, m = rng.randint(2, 4), rng.randint(2, 4), rng.randint(2, 4)
    batch = [rng.choice([1, 2, 3]) for _ in range(2)]
    a = tuple(rng.choice([b, 1]) for b in batch[: max(ra - 2, 0)]) + ((n, k) if ra >= 2 else (k,))
    b = tuple(rng.choice([bb, 1]) for bb in batch[: max(rb - 2, 0)]) + ((k, m) if rb >= 2 else (k,))
    if rng.random() < 0.2:
        b = b[:-2] + (k + 1, m) if rb >= 2 else (k + 1,)
    return f"matmul({a}, {b})", lambda ts: ts[0] @ ts[1], lambda xs: xs[0] @ xs[1], [a, b]


@pytest.mark.parametrize("seed, cases, draw", [(3, 120, _pooling_case), (5, 80, _conv_case), (9, 80, _matmul_case)],
                         ids=["pooling", "conv", "matmul"])
def test_sweep(seed: int, cases: int, draw) -> None:
    assert _sweep(seed, cases, draw) > 40


def test_arange_sweep() -> None:
    rng = random.Random(13)
    for _ in range(100):
        start, end = rng.randint(-8, 12), rng.randint(-8, 12)
        step = rng.choice([1, 2, 3, -1, -2, -5])
        try:
            want = tuple(torch.arange(start, end, step).shape)
        except RuntimeError:
            want = None
        for dynamic in (False, True):
            env = ShapeEnv()
            n = env.fake_tensor((max(end, 2),), dynamic=dynamic, name="x").shape[0]
            end_value = n if end >= 2 else end
            try:
                got = tuple(concrete(s) for s in ops.arange(start, end_value, step, env=env).shape)
            except ShapeError:
                got = None
            assert got == want, f"arange({start}, {end}, {step}) ({'symbolic' if dynamic else 'static'}): {got} vs {want}"


def test_sweeps_cover_both_outcomes() -> None:
    """The sweeps' generators produce both valid and invalid argument combinations (a sanity check)."""
    rng = random.Random(3)
    outcomes = set()
    for _ in range(50):
        h, k, p = rng.randint(1, 13), rng.randint(1, 4), rng.randint(0, 2)
        try:
            F.max_pool2d(torch.randn(1, 1, h, h), k, None, p)
            outcomes.add("ok")
        except RuntimeError:
            outcomes.add("error")
    assert outcomes == {"ok", "error"}
