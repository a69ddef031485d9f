"""Input dims declared as a set of values or as a function of another dim (see :mod:`shapeenv.tensor.dims`).

Both record what the declaration says as *declared guards*: ordinary guards (they
must hold for an input to reuse the trace, so they are in the produced guard set),
listed in ``env.declared_guards`` so that export does not report them as constraint
violations (the caller asked for them).

* ``Dim("b", choices=(1, 8, 16))``: a symbol with range ``[1, 16]`` (declared, so 0 and
  1 are not specialised) and the guard ``Eq(s, 1) | Eq(s, 8) | Eq(s, 16)``, printed
  ``x.size()[0] in (1, 8, 16)``.
* ``2 * d + 1``: a symbol for the input dim, with range inherited from ``d``'s, and the
  guard ``Eq(s, 2*r + 1)`` where ``r`` is ``d``'s symbol. When ``d`` itself is not an
  input dim, ``r`` is ``(s - 1) // 2`` and the guard is ``Eq(Mod(s - 1, 2), 0)`` (the
  size must be of the declared form).

>>> from shapeenv import ShapeEnv
>>> from shapeenv.tensor import Dim
>>> env = ShapeEnv(); d = Dim("d", max=5)
>>> x = env.fake_tensor((3, 6), dynamic=[d, 2 * d], name="x")
>>> print(env.produce_guards().to_text("source"))
x.size()[1] == 2*x.size()[0]
x.size()[0] >= 2
x.size()[0] <= 5
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from guards import Source
from symint import SymInt
from symint import form as F

from shapeenv.errors import ConstraintViolationError
from shapeenv.core.provenance import GuardRecord, Provenance
from shapeenv.core.symbols import DimDynamic
from shapeenv.tensor.dims import DerivedDim, Dim

if TYPE_CHECKING:  # pragma: no cover
    from shapeenv.core.env import ShapeEnv

__all__ = ["declare_guard", "set_valued", "derived", "named_value"]


def declare_guard(env: "ShapeEnv", cond: "F.BoolForm", why: str) -> None:
    """Record the boolean form ``cond`` (true for the hints) as a guard the caller declared, and learn it."""
    cond = env.facts.simplify_bool(cond)
    if cond is F.TRUE:
        return
    record = GuardRecord(cond, Provenance(cond, None, None, why))
    env.guards.append(record)
    env.declared_guards.append(record)
    env.facts.learn_form(cond)


def set_valued(env: "ShapeEnv", spec: Dim, hint: int, source: Source) -> SymInt | int:
    """A size that may only take ``spec``'s choices (see the module docstring).

    Raises:
        ConstraintViolationError: the example's size is not one of the choices.
    """
    values = spec.values
    if hint not in values:
        raise ConstraintViolationError(
            f"{source.text()} = {hint} is not one of the choices {values} of {spec!r}; "
            "fix the example input or add the value to the choices"
        )
    if len(values) == 1:
        return env.create_symint(hint, source, DimDynamic.STATIC)
    value = env.create_symint(hint, source, DimDynamic.DYNAMIC, min=values[0], max=values[-1])
    s = value.node.form
    declare_guard(env, F.or_(*(F.rel("==", s, F.const(v)) for v in values)), f"{source.text()} is declared in {values} ({spec!r})")
    return value


def _int_range(rng: tuple) -> tuple[int | None, int | None]:
    lo, hi = rng
    return (None if lo == -math.inf else int(lo)), (None if hi == math.inf else int(hi))


def derived(env: "ShapeEnv", spec: DerivedDim, hint: int, source: Source, named) -> SymInt | int:
    """A size declared as ``coeff * root + offset`` (see the module docstring).

    ``named(root_spec, hint, source)`` creates (or finds) the root's own size.

    Raises:
        ConstraintViolationError: the example's size is not of the declared form, or the
            root value it implies is outside the root's range or disagrees with the root's size.
    """
    root = spec.root
    known = env.named_dims.get(root.name)
    lo, hi = spec.range
    if known is None:
        root_hint = spec.root_value(hint)
        rlo, rhi = root.range
        if root_hint is None or not rlo <= root_hint <= rhi:
            raise ConstraintViolationError(
                f"{source.text()} = {hint} was declared {spec!r}, but no {root.name} in "
                f"{_range_text(root)} gives {hint}; fix the example input or the declaration"
            )
        low, high = _int_range((lo, hi))
        value = env.create_symint(hint, source, DimDynamic.DYNAMIC, min=low, max=high)
        if not isinstance(value, SymInt):
            return value
        shifted = value - spec.offset
        if spec.coeff != 1:
            declare_guard(env, F.rel("==", F.mod(shifted.node.form, F.const(spec.coeff)), F.const(0)),
                          f"{source.text()} is declared {spec!r} ({root.name} in {_range_text(root)})")
        root_value = shifted // spec.coeff if spec.coeff != 1 else shifted
        env.named_dims[root.name] = (root, root_value, source)
        return value
    first_spec, root_value, first_source = known
    if first_spec != root:
        raise ConstraintViolationError(f"Dim {root.name!r} is declared twice with different bounds: {first_spec} and {root}")
    root_hint = root_value.node.hint if isinstance(root_value, SymInt) else root_value
    if spec.of(root_hint) != hint:
        raise ConstraintViolationError(
            f"{source.text()} = {hint} was declared {spec!r}, but {root.name} = {root_hint} (from "
            f"{first_source.text()}) makes it {spec.of(root_hint)}; fix the example inputs"
        )
    expected = spec.coeff * root_value + spec.offset
    if not isinstance(expected, SymInt):
        return env.create_symint(hint, source, DimDynamic.STATIC)
    low, high = _int_range((lo, hi))
    value = env.create_symint(hint, source, DimDynamic.DYNAMIC, min=low, max=high)
    if isinstance(value, SymInt):
        declare_guard(env, F.rel("==", value.node.form, expected.node.form),
                      f"{source.text()} is declared {spec!r} ({root.name} in {_range_text(root)})")
    return value


def named_value(env: "ShapeEnv", spec: Dim, hint: int, source: Source, root_value) -> SymInt | int:
    """The size of ``source`` declared as the named dim ``spec`` whose value is the expression ``root_value``
    (a root first met through a derived dim): a symbol of its own tied to it by a declared guard."""
    rng = _int_range(spec.range)
    value = env.create_symint(hint, source, DimDynamic.DYNAMIC, min=rng[0], max=rng[1])
    if isinstance(value, SymInt):
        declare_guard(env, F.rel("==", value.node.form, root_value.node.form), f"{source.text()} is {spec.name}")
    return value


def _range_text(root: Dim) -> str:
    lo, hi = root.range
    return f"{lo} <= {root.name}" if hi == math.inf else f"{lo} <= {root.name} <= {hi}"
