"""W4 "guard-count": the five small programs of benchmarks/workloads/README.md (section W4).

For each program this script

* exports it with :func:`shapeenv.export.export` (the workload's dynamic dims as ``Dim.DYNAMIC``) and counts
  the guards recorded while tracing, the guards produced, and the runtime asserts;
* where torch is installed, compiles the same code with ``torch.compile`` (``mark_dynamic`` on the same
  dims, ``backend="eager"``) and counts torch's recorded guards, the lines ``produce_guards`` returns
  (which include stride guards) and, separately, its size-only lines, and its runtime asserts;
* checks the produced guards against concrete execution on a grid of input sizes: each sample is run
  with numpy (the independent oracle of validity), re-exported with its own sizes as the example
  (the same produced guards mean tracing took the same decisions), and checked against our guards
  (and torch's, parsed with :mod:`guards`). Sound: every sample our guards accept (and whose runtime
  asserts hold) is valid and traces the same way. Complete: every valid sample that traces the same
  way is accepted.

Run: ``python benchmarks/w4_guard_count.py [--no-torch] [--verbose]``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Iterable

import numpy as np
import sympy
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guards import GuardError, GuardSet, read_inputs  # noqa: E402
from shapeenv import CheckFailedError, Dim, ShapeEnvError, check, export, ops  # noqa: E402
from symint.sympy_io.evaluate import evaluate  # noqa: E402

# -- the programs, written once against a torch-like namespace `F` (ours by default, or torch's) -----------
OURS = SimpleNamespace(cat=ops.cat, conv2d=ops.conv2d, max_pool2d=ops.max_pool2d, check=check)


def cat_view_matmul(x, y, w, *, F=OURS):
    return F.cat([x, y], 0).view(-1, 2 * x.shape[1]) @ w


def conv_pool(x, w, *, F=OURS):
    return F.max_pool2d(F.conv2d(x, w, stride=2, padding=1), 2)


def unify(x, y, *, F=OURS):
    return (x + y) * 2 + y


def view_divisible(x, *, F=OURS):
    return x.view(-1, 4), x.view(2, 3, -1)


def unbacked_nonzero(x, m, *, F=OURS):
    u = m.nonzero().shape[0]
    F.check(u >= 2)
    F.check(u <= x.shape[0])
    return x[:u] * 2


# -- numpy versions: the oracle of which concrete inputs are valid ------------------------------------------


def np_conv2d(x, w, stride, padding):
    if x.shape[1] != w.shape[1]:
        raise ValueError("conv2d: input channels differ")
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    if xp.shape[2] < w.shape[2] or xp.shape[3] < w.shape[3] or 0 in x.shape:
        raise ValueError("conv2d: the kernel is larger than the padded input")
    windows = sliding_window_view(xp, w.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("ncijkl,ockl->noij", windows, w)


def np_max_pool2d(x, k):
    n, c, h, w = x.shape
    if h // k < 1 or w // k < 1:
        raise ValueError("max_pool2d: the output would be empty")
    return x[:, :, : h // k * k, : w // k * k].reshape(n, c, h // k, k, w // k, k).max(axis=(3, 5))


def np_view(x, *shape):
    if -1 in shape and x.size == 0:
        raise ValueError("view: -1 is ambiguous for a tensor of 0 elements")
    return x.reshape(shape)


NUMPY = {
    "cat_view_matmul": lambda x, y, w: np_view(np.concatenate([x, y], 0), -1, 2 * x.shape[1]) @ w,
    "conv_pool": lambda x, w: np_max_pool2d(np_conv2d(x, w, 2, 1), 2),
    "unify": lambda x, y: (x + y) * 2 + y,
    "view_divisible": lambda x: (np_view(x, -1, 4), np_view(x, 2, 3, -1)),
    "unbacked_nonzero": lambda x, m: _np_nonzero_program(x, m),
}


def _np_nonzero_program(x, m):
    u = int(np.count_nonzero(m))
    if not 2 <= u <= x.shape[0]:
        raise AssertionError(f"check failed: u = {u}")
    return x[:u] * 2


# -- the workload ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """One W4 program: example shapes and dynamic dims per input, a sample grid, torch's reference counts."""

    fn: Callable
    shapes: dict[str, tuple[int, ...]]
    dynamic: dict[str, tuple[int, ...]]
    grid: Callable[[], Iterable[dict[str, np.ndarray]]]
    reference: str

    @property
    def name(self) -> str:
        return self.fn.__name__

    def dynamic_shapes(self) -> dict[str, Any]:
        return {k: {d: Dim.DYNAMIC for d in self.dynamic.get(k, ())} or None for k in self.shapes}


def _arrays(**shapes) -> dict[str, np.ndarray]:
    return {k: np.ones(s, dtype=np.float32) for k, s in shapes.items()}


def _grid_cat_view_matmul():
    for x0, x1, y0, dy1, dw0 in itertools.product([1, 2, 3, 4, 7], [1, 2, 3], [1, 2, 3, 5, 6], [0, 1], [0, 1]):
        yield _arrays(x=(x0, x1), y=(y0, x1 + dy1), w=(2 * x1 + dw0, 5))


def _grid_conv_pool():
    for n, h, w in itertools.product([1, 2, 3], [1, 2, 3, 4, 5, 6, 9, 33], [2, 3, 4, 7, 47]):
        yield _arrays(x=(n, 3, h, w), w=(8, 3, 3, 3))


def _grid_unify():
    for x0, x1, dy0, dy1 in itertools.product([1, 2, 3, 7], [1, 2, 5], [0, 1], [0, 1]):
        yield _arrays(x=(x0, x1), y=(x0 + dy0, x1 + dy1))


def _grid_view_divisible():
    for n in range(1, 201):
        yield _arrays(x=(n,))


def _grid_unbacked_nonzero():
    for x0, k, m0 in itertools.product([1, 2, 3, 5, 16, 20], [0, 1, 2, 5, 16], [16, 17]):
        m = np.zeros(m0, dtype=np.float32)
        m[:k] = 1
        yield {"x": np.ones((x0, 3), dtype=np.float32), "m": m}


WORKLOADS = [
    Workload(cat_view_matmul, {"x": (6, 4), "y": (10, 4), "w": (8, 5)}, {"x": (0, 1), "y": (0, 1), "w": (0,)},
             _grid_cat_view_matmul, "torch: 13 recorded, 19 produced"),
    Workload(conv_pool, {"x": (2, 3, 33, 47), "w": (8, 3, 3, 3)}, {"x": (0, 2, 3)}, _grid_conv_pool,
             "torch: 1 recorded, 6 produced"),
    Workload(unify, {"x": (7, 5), "y": (7, 5)}, {"x": (0, 1), "y": (0, 1)}, _grid_unify, "torch: 2 recorded, 6 produced"),
    Workload(view_divisible, {"x": (24,)}, {"x": (0,)}, _grid_view_divisible, "torch: 7 recorded, 8 produced"),
    Workload(unbacked_nonzero, {"x": (16, 3), "m": (16,)}, {"x": (0,)}, _grid_unbacked_nonzero,
             "torch: 0 recorded, 2 produced, 2 runtime asserts"),
]  # fmt: skip


# -- ours -----------------------------------------------------------------------------------------------------


def export_ours(work: Workload, shapes: dict[str, tuple[int, ...]] | None = None):
    """The exported program for the example shapes (or ``shapes``), with the workload's dynamic dims."""
    shapes = shapes or work.shapes
    return export(work.fn, tuple(shapes.values()), dynamic_shapes=work.dynamic_shapes(), name=work.name)


def static_pins(program) -> int:
    """How many produced guards only pin a static dim to its size (torch checks those outside its guard list)."""
    pinned, sources = set(program.env.specialized), program.guards.source_map
    return sum(
        1 for g in program.guards
        if g.expr.func is sympy.Eq and len(g.expr.free_symbols) == 1 and sources.get(next(iter(g.expr.free_symbols))) in pinned
    )  # fmt: skip


def _assert_values(program, inputs: dict[str, np.ndarray]) -> dict:
    """Every symbol's concrete value: input sizes by source, unbacked sizes from the data (nonzero counts)."""
    values = {}
    for sym, info in program.env.symbols.items():
        if info.sources:
            src = info.sources[0]
            values[sym] = src.read(inputs[src.base])
    unbacked = [s for s, info in program.env.symbols.items() if not info.sources]
    if unbacked and "m" in inputs:  # the one data-dependent workload: u0 = number of nonzeros of m
        values[unbacked[0]] = int(np.count_nonzero(inputs["m"]))
    return values


def asserts_hold(program, inputs: dict[str, np.ndarray]) -> bool:
    """Whether the program's runtime asserts hold for these concrete inputs."""
    values = _assert_values(program, inputs)
    return all(bool(evaluate(r.expr, values)) for r in program.runtime_asserts)


@dataclass
class Acceptance:
    """How the produced guards classify a grid of concrete inputs."""

    samples: int = 0
    valid: int = 0
    same: int = 0  # valid and re-tracing takes the same decisions
    accepted_same: int = 0  # ... of which our guards accept
    unsound: int = 0  # accepted (guards and asserts) but invalid or traced differently
    torch_rejects_same: int | None = None  # valid, same decisions, rejected by torch's produced guards
    missed: list = None  # type: ignore[assignment]


def check_acceptance(work: Workload, program, torch_guards: GuardSet | None = None) -> Acceptance:
    """Classify every sample of the workload's grid (see the module docstring)."""
    result = Acceptance(missed=[], torch_rejects_same=0 if torch_guards is not None else None)
    reference = program.guards.to_text()
    for inputs in work.grid():
        result.samples += 1
        shapes = {k: v.shape for k, v in inputs.items()}
        try:
            NUMPY[work.name](*inputs.values())
            valid = True
        except (ValueError, AssertionError):
            valid = False
        accepted = program.accepts(*shapes.values()) and asserts_hold(program, inputs)
        same = False
        if valid or accepted:
            try:
                same = export_ours(work, shapes).guards.to_text() == reference
            except (ShapeEnvError, CheckFailedError):
                same = False
        result.valid += valid
        if valid and same:
            result.same += 1
            result.accepted_same += accepted
            if not accepted:
                result.missed.append(shapes)
            if torch_guards is not None and not torch_guards.holds(read_inputs(torch_guards, inputs)):
                result.torch_rejects_same += 1
        if accepted and not (valid and same):
            result.unsound += 1
    return result


# -- torch ----------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _capture_produced(store: dict):
    """Record what torch's ShapeEnv.produce_guards_verbose returns during compilation (restored afterwards)."""
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    original = ShapeEnv.produce_guards_verbose

    def spy(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        store["env"], store["produced"] = self, list(out[0].exprs)
        return out

    ShapeEnv.produce_guards_verbose = spy
    try:
        yield store
    finally:
        ShapeEnv.produce_guards_verbose = original


def torch_counts(work: Workload) -> dict:
    """Torch's recorded/produced/size-only guard counts and runtime asserts for the same program."""
    import torch
    import torch._dynamo

    namespace = SimpleNamespace(cat=torch.cat, conv2d=torch.nn.functional.conv2d,
                                max_pool2d=torch.nn.functional.max_pool2d, check=torch._check)  # fmt: skip
    torch._dynamo.reset()
    args = []
    for name, shape in work.shapes.items():
        t = (torch.arange(shape[0]) % 3 == 0).float() if name == "m" else torch.randn(*shape)
        if work.dynamic.get(name):
            torch._dynamo.mark_dynamic(t, work.dynamic[name])
        args.append(t)
    store: dict = {}
    compiled = torch.compile(work.fn, backend="eager", fullgraph=True)
    with _capture_produced(store), torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        compiled(*args, F=namespace)
    env, produced = store["env"], store["produced"]
    sizes_only = [g for g in produced if "stride()" not in g and "storage_offset()" not in g]
    asserts = sum(len(v) for v in env.deferred_runtime_asserts.values())
    try:
        parsed = GuardSet.parse(produced, "torch")
    except GuardError:
        parsed = None
    return {"recorded": len(env.guards), "produced": len(produced), "sizes": len(sizes_only),
            "asserts": asserts, "text": produced, "guards": parsed}  # fmt: skip


# -- the table ------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-torch", action="store_true", help="skip torch even if it is installed")
    parser.add_argument("--verbose", action="store_true", help="print both produced guard sets")
    args = parser.parse_args(argv)
    use_torch = not args.no_torch
    if use_torch:
        try:
            import torch  # noqa: F401
        except ImportError:
            use_torch = False

    header = (f"{'program':<17} {'ours rec':>8} {'prod':>5} {'dyn':>4} {'asrt':>5} {'ms':>6} | {'torch rec':>9} {'prod':>5} "
              f"{'sizes':>5} {'asrt':>5} | {'samples':>7} {'valid':>5} {'same':>5} {'ours ok':>7} {'unsound':>7} {'torch rej':>9}")  # fmt: skip
    print(header)
    print("-" * len(header))
    failures = 0
    for work in WORKLOADS:
        start = time.perf_counter()
        program = export_ours(work)
        ms = (time.perf_counter() - start) * 1000
        theirs = torch_counts(work) if use_torch else None
        acc = check_acceptance(work, program, theirs["guards"] if theirs else None)
        t = theirs or {}
        torch_cols = (f"{t.get('recorded', '-'):>9} {t.get('produced', '-'):>5} {t.get('sizes', '-'):>5} "
                      f"{t.get('asserts', '-'):>5}")  # fmt: skip
        rejects = "-" if acc.torch_rejects_same is None else acc.torch_rejects_same
        dyn = len(program.guards) - static_pins(program)
        print(f"{work.name:<17} {program.recorded_guards:>8} {len(program.guards):>5} {dyn:>4} {len(program.runtime_asserts):>5} "
              f"{ms:>6.1f} | {torch_cols} | {acc.samples:>7} {acc.valid:>5} {acc.same:>5} "
              f"{acc.accepted_same:>7} {acc.unsound:>7} {rejects:>9}")  # fmt: skip
        failures += acc.unsound + len(acc.missed)
        if args.verbose:
            print(f"  ours ({work.reference}):\n    " + program.guards.to_text().replace("\n", "\n    "))
            if theirs:
                print("  torch:\n    " + "\n    ".join(theirs["text"]))
            if acc.missed:
                print(f"  valid, same decisions, but rejected: {acc.missed}")
    print("\nours prod = produced guards, dyn = those not just pinning a static dim (torch checks static sizes")
    print("outside its guard list); torch sizes = its produced lines without stride guards.")
    print("same = valid samples whose re-trace takes the same decisions; ours ok = of those, accepted by our guards;")
    print("unsound = accepted by our guards (and runtime asserts) but invalid or traced differently;")
    print("torch rej = 'same' samples that torch's produced guards reject.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
