"""The soundness check of the fuzzer: export a random program, then compare it with concrete runs.

For a program from :func:`tests.shapeenv.fuzz_programs.generate`, :func:`check_program` exports it
with dynamic dims (dims whose declared dynamism a guard contradicts are made static and the export
retried, as ``torch.export``'s suggested fixes say), samples other input sizes (per symbol, with
the export's replacements applied so unified dims agree, or per dim), and for every sample:

* the compiled guard checker and ``GuardSet.holds`` must agree;
* if the guards accept it and the runtime asserts hold, the concrete run (the same Python program on
  numpy arrays) must succeed, take the same branch decisions as the trace, and yield the shapes the
  export predicts (its symbolic output shapes evaluated at the new sizes); the numpy backend must
  compute the same values;
* if a runtime assert fails, the numpy backend must raise ``CheckFailedError``.

A violation carries a reproducer (the program, the example sizes, the failing sizes, the guard
set); :func:`shrink` makes the program minimal.

>>> import random
>>> from tests.shapeenv.fuzz_programs import generate
>>> rng = random.Random(3)
>>> report = check_program(generate(rng, 5), rng, samples=4)
>>> report.programs, report.violations
(1, [])
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from guards import Source
from guards.source import storage_offset_of
from shapeenv import CheckFailedError, ExportConstraintError, export
from shapeenv.backends import numpy_backend
from symint import SymInt
from symint.sympy_io.evaluate import evaluate

from .fuzz_programs import FakeNS, NumpyNS, Program, element_strides, make_array, produces, random_layout, run

__all__ = ["check_program", "check_sample", "export_program", "Violation", "Report", "symbol_values",
           "evaluate_shapes", "shrink", "reproduce", "describe_checks"]


def symbol_values(exported, arrays: list) -> dict:
    """The value of each input symbol (sizes, stride and offset symbols) of ``exported`` for concrete input arrays."""
    values = {}
    by_name = dict(zip(exported.arg_names, arrays))
    for spec in exported.inputs:
        if spec.kind != "tensor":
            continue
        array = by_name[spec.name]
        fake = spec.value
        pairs = list(zip(fake.shape, array.shape)) + list(zip(fake.stride(), element_strides(array)))
        pairs.append((fake.storage_offset(), storage_offset_of(array)))
        for traced, real in pairs:
            if isinstance(traced, SymInt) and traced.node.expr.is_Symbol:
                values.setdefault(traced.node.expr, int(real))
    return values


def input_bindings(names: list, arrays: list) -> dict:
    """Every source a guard may read (sizes, strides, storage offsets) for concrete input arrays."""
    out = {}
    for name, array in zip(names, arrays):
        out.update({Source.size(name, d): n for d, n in enumerate(array.shape)})
        out.update({Source.stride(name, d): st for d, st in enumerate(element_strides(array))})
        out[Source(name, "storage_offset")] = storage_offset_of(array)
    return out


def evaluate_shapes(shapes: Any, values: dict) -> Any:
    """Symbolic shapes (nested tuples of ints and SymInts) evaluated at ``values``."""
    if isinstance(shapes, (tuple, list)):
        return tuple(evaluate_shapes(s, values) for s in shapes)
    if isinstance(shapes, SymInt):
        return int(evaluate(shapes.node.expr, values))
    return shapes


@dataclass
class Violation:
    """A sample the guards accept on which the concrete run disagrees with the export."""

    program: Program
    sizes: list[tuple]
    reason: str
    guards: str
    layouts: tuple | None = None  # of the failing inputs (None: the program's)

    def __str__(self) -> str:
        layouts = "" if self.layouts is None else f"failing layouts: {list(self.layouts)}\n"
        return (f"SOUNDNESS VIOLATION: {self.reason}\n{self.program.source()}\n"
                f"example sizes: {[list(s) for s in self.program.shapes]}\n"
                f"failing sizes: {[list(s) for s in self.sizes]}\n{layouts}guards:\n  "
                + self.guards.replace("\n", "\n  "))


@dataclass
class Report:
    """What one or more programs' checks saw."""

    programs: int = 0
    export_retries: int = 0
    export_errors: list = field(default_factory=list)
    samples: int = 0
    accepted: int = 0
    assert_rejected: int = 0
    decisions: int = 0
    layouts_accepted: int = 0  # accepted samples with some non-contiguous input
    ops: dict = field(default_factory=dict)
    violations: list = field(default_factory=list)

    def merge(self, other: "Report") -> None:
        for name in ("programs", "export_retries", "samples", "accepted", "assert_rejected", "decisions",
                     "layouts_accepted"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.export_errors += other.export_errors
        self.violations += other.violations
        for k, v in other.ops.items():
            self.ops[k] = self.ops.get(k, 0) + v

    def summary(self) -> str:
        ops = ", ".join(f"{k} {v}" for k, v in sorted(self.ops.items()))
        return (f"{self.programs} programs ({ops}); {self.samples} samples, {self.accepted} accepted by the guards "
                f"({self.assert_rejected} of them stopped by a runtime assert; {self.layouts_accepted} with "
                f"non-contiguous inputs), {self.decisions} branch decisions "
                f"compared; {self.export_retries} re-exports after constraint violations; "
                f"{len(self.export_errors)} export errors; {len(self.violations)} violations")


def describe_checks(exported) -> str:
    """The guard set (torch text) and the runtime asserts of an export, for reproducers."""
    lines = exported.all_guards.to_text("torch").splitlines() or ["(no guards)"]
    lines += [f"check({r.expr})  # runtime assert" for r in exported.runtime_asserts]
    return "\n".join(lines)


def reproduce(violation: Violation, weaken: Callable[[Any], Any] = lambda e: e) -> Violation:
    """The violation with a minimal program: :func:`shrink` keeping the failure at the same sizes.

    ``weaken`` transforms each export before checking (tests use it to plant a bug).
    """

    def fails(program: Program) -> bool:
        try:
            exported, decisions, program, _ = export_program(program)
        except Exception:  # noqa: BLE001
            return False
        return check_sample(weaken(exported), program, decisions, violation.sizes, random.Random(0),
                            layouts=violation.layouts) is not None

    program = shrink(violation.program, fails)
    exported, decisions, program, _ = export_program(program)
    reason = check_sample(weaken(exported), program, decisions, violation.sizes, random.Random(0), layouts=violation.layouts)
    return Violation(program, violation.sizes, reason or violation.reason, describe_checks(weaken(exported)),
                     violation.layouts)


def export_program(program: Program, retries: int = 4):
    """``(exported, trace decisions, program)``; dims whose constraints are violated are made static."""
    for attempt in range(retries + 1):
        fake = FakeNS()
        try:
            exported = export(program.traced(fake), tuple(program.example_inputs()),
                              dynamic_shapes=program.dynamic_shapes())
            return exported, fake.decisions, program, attempt
        except ExportConstraintError as e:
            if attempt == retries:
                raise
            program = program.with_static({v.source for v in e.violations})
    raise AssertionError("unreachable")


def _sample_shapes(rng: random.Random, program: Program, exported) -> list[tuple]:
    """Other input sizes: per symbol (replacements applied, so unified dims agree) or per dim."""
    per_symbol = rng.random() < 0.6
    choose = lambda hint: rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, hint, hint + 1, max(hint - 1, 0)])  # noqa: E731
    chosen: dict = {}
    env = exported.env
    shapes = []
    for spec, example in zip(exported.inputs, program.shapes):
        shape = []
        for size, hint in zip(spec.value.shape, example):
            if not isinstance(size, SymInt):
                shape.append(hint if rng.random() < 0.9 else choose(hint))
            elif per_symbol:
                expr = env.simplify(size.node.expr)
                for s in sorted(expr.free_symbols, key=str):
                    chosen.setdefault(s, choose(env.symbols[s].hint or hint))
                shape.append(max(int(evaluate(expr, chosen)), 0))
            else:
                shape.append(choose(hint))
        shapes.append(tuple(shape))
    return shapes


def check_program(program: Program, rng: random.Random, samples: int = 8) -> Report:
    """Export ``program`` and compare the export with concrete runs at sampled sizes (see the module docstring)."""
    report = Report(programs=1)
    for ins in program.instructions:
        report.ops[ins[0]] = report.ops.get(ins[0], 0) + 1
    try:
        exported, decisions, program, retries = export_program(program)
    except Exception as e:  # noqa: BLE001  (recorded: numpy accepted the program at its example sizes)
        report.export_errors.append(f"{type(e).__name__}: {e}\n{program.source()}")
        return report
    report.export_retries += retries
    checker = exported.all_guards.compile()
    backend = numpy_backend(exported)
    for _ in range(samples):
        shapes = _sample_shapes(rng, program, exported)
        layouts = None if rng.random() < 0.6 else tuple(random_layout(rng, shape) for shape in shapes)
        report.samples += 1
        problem = check_sample(exported, program, decisions, shapes, rng, checker, backend, report, layouts=layouts)
        if problem is not None:
            report.violations.append(Violation(program, shapes, problem, describe_checks(exported), layouts))
            break
    return report


def check_sample(exported, program: Program, decisions: list, shapes: list[tuple], rng: random.Random,
                 checker=None, backend=None, report: Report | None = None, layouts: tuple | None = None) -> str | None:
    """None if the export is right about these sizes (in ``layouts``, default: the program's), else what went wrong."""
    report = report if report is not None else Report()
    layouts = layouts if layouts is not None else tuple(program.layout(i) for i in range(len(shapes)))
    arrays = [make_array(shape, spec, rng) for shape, spec in zip(shapes, layouts)]
    guards = exported.all_guards
    sources = input_bindings(program.names, arrays)
    keys = {src for _, src in guards.sources}
    accepted = guards.holds({s: v for s, v in sources.items() if s in keys})
    checker = checker or guards.compile()
    if checker.check(dict(zip(program.names, arrays))) != accepted:
        return f"the compiled checker says {not accepted} where GuardSet.holds says {accepted}"
    static_ok = all(s == e for spec, shape, ex in zip(exported.inputs, shapes, program.shapes)
                    for size, s, e in zip(spec.value.shape, shape, ex) if not isinstance(size, SymInt))
    if not accepted:
        return None
    if not static_ok:
        return "the guards accept a change of a static (specialised) dim"
    report.accepted += 1
    report.layouts_accepted += any(not _plain(a) for a in arrays)
    values = symbol_values(exported, arrays)
    asserts_hold = all(evaluate(r.expr, values) for r in exported.runtime_asserts
                       if r.expr.free_symbols <= values.keys())
    concrete = NumpyNS(getattr(decisions, "inlined", ()))
    try:
        with np.errstate(all="ignore"):
            outputs = run(program, concrete, arrays)
        error = None
    except Exception as e:  # noqa: BLE001
        outputs, error = None, e
    backend = backend or numpy_backend(exported)
    if not asserts_hold:
        report.assert_rejected += 1
        try:
            backend(*arrays)
        except CheckFailedError:
            return None
        except Exception as e:  # noqa: BLE001
            return f"a runtime assert fails, but the numpy backend raised {type(e).__name__}: {e}"
        return "a runtime assert fails for these sizes, but the numpy backend did not raise CheckFailedError"
    if error is not None:
        return f"the guards accept these sizes, but the concrete run raised {type(error).__name__}: {error}"
    report.decisions += len(decisions)
    if concrete.decisions != decisions:
        # At sizes 0 and 1, the trace that answers may be one export made with those sizes pinned: it took its
        # own decisions, and export proved its program equal to the general one (Note [Sizes 0 and 1 in export]).
        pinned = [list(o) for o in getattr(decisions, "others", [])]
        small = any(size in (0, 1) for shape in shapes for size in shape)
        if not (small and list(concrete.decisions) in pinned):
            return f"branch decisions differ: traced {decisions}, concrete {concrete.decisions}"
    predicted = evaluate_shapes(exported.output_shapes, values)
    actual = tuple(tuple(o.shape) for o in outputs)
    if predicted != actual:
        return f"output shapes differ: predicted {predicted}, concrete {actual}"
    for k, (fake, real) in enumerate(zip(_fakes(exported.outputs), outputs)):
        if fake is None or real.size == 0:
            continue
        want = [int(evaluate(st.node.expr, values)) if isinstance(st, SymInt) else st for st in fake.stride()]
        got = element_strides(real)
        if [w for w, n in zip(want, real.shape) if n != 1] != [g for g, n in zip(got, real.shape) if n != 1]:
            return f"output {k} strides differ: predicted {tuple(want)}, concrete {got} (shape {real.shape})"
    try:
        got = backend(*arrays)
    except Exception as e:  # noqa: BLE001
        return f"the numpy backend raised {type(e).__name__}: {e}"
    for k, (a, b) in enumerate(zip(got, outputs)):
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-4, equal_nan=True):
            return f"the numpy backend's output {k} differs from the concrete run ({a.shape} vs {b.shape})"
    return None


def _plain(array: np.ndarray) -> bool:
    return array.flags.c_contiguous and storage_offset_of(array) == 0 and 0 not in array.strides


def _fakes(outputs: Any) -> list:
    """The fake output tensors, flattened in order (None for non-tensor outputs)."""
    return [o if hasattr(o, "stride") and hasattr(o, "_is_fake_tensor") else None for o in outputs]


def shrink(program: Program, fails: Callable[[Program], bool]) -> Program:
    """A smaller program that still ``fails``: the shortest failing prefix, then single instructions dropped."""
    for n in range(len(program.instructions)):
        candidate = replace(program, instructions=program.instructions[:n])
        if _valid(candidate) and fails(candidate):
            program = candidate
            break
    changed = True
    while changed:
        changed = False
        for k in range(len(program.instructions)):
            candidate = _without(program, k)
            if candidate is not None and _valid(candidate) and fails(candidate):
                program, changed = candidate, True
                break
    return program


def _without(program: Program, k: int) -> Program | None:
    """``program`` without instruction ``k`` (pool references renumbered), or None if a later one uses its values."""
    base = len(program.shapes) + sum(produces(i) for i in program.instructions[:k])
    gone = set(range(base, base + produces(program.instructions[k])))
    shift = len(gone)

    def remap(value: Any) -> Any:
        if isinstance(value, tuple):
            if value and value[0] == "size":
                return ("size", remap_index(value[1]), value[2])
            return tuple(remap(v) for v in value)
        return value

    def remap_index(i: int) -> int:
        if i in gone:
            raise LookupError(i)
        return i - shift if i >= base + shift else i

    rest = []
    for ins in program.instructions[k + 1:]:
        try:
            rest.append(_remap_instruction(ins, remap, remap_index))
        except LookupError:
            return None
    return replace(program, instructions=program.instructions[:k] + tuple(rest))


_POOL_ARGS = {"binary": (2, 3), "scalar": (2,), "view": (1,), "reshape_t": (1,), "slice": (1,), "matmul": (1, 2),
              "reduce": (2,), "unsqueeze": (1,), "transpose": (1,), "branch": (2,), "scan": (1, 2),
              "scan_len": (1,), "map": (1, 2), "switch": (2,), "contig_branch": (1,), "stride_branch": (1,),
              "contiguous": (1,), "flatten": (1,)}


def _remap_instruction(ins: tuple, remap, remap_index) -> tuple:
    out = list(ins)
    if ins[0] == "cat":
        out[1] = tuple(remap_index(i) for i in ins[1])
    for pos in _POOL_ARGS.get(ins[0], ()):
        if out[pos] is not None:
            out[pos] = remap_index(out[pos])
    return tuple(remap(v) if isinstance(v, tuple) else v for v in out)


def _valid(program: Program) -> bool:
    try:
        with np.errstate(all="ignore"):
            run(program, NumpyNS(), program.example_inputs(random.Random(0)))
        return True
    except Exception:  # noqa: BLE001
        return False
