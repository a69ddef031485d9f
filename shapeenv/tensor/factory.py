"""Creating input fake tensors: each dim's size becomes a symbol with source ``name.size()[i]``.

>>> from shapeenv import ShapeEnv
>>> from shapeenv.tensor import Dim
>>> env = ShapeEnv()
>>> x = env.fake_tensor((8, 3), dynamic={0: Dim("batch")}, name="x")
>>> y = env.fake_tensor((8,), dynamic={0: Dim("batch")}, name="y")
>>> x.shape, y.shape
((s0, 3), (s0,))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from guards import Source

from shapeenv.errors import ConstraintViolationError, DynamicShapesError, DynamicShapesTypeError
from shapeenv.core.symbols import DimDynamic
from shapeenv.tensor.declared import derived, named_value, set_valued
from shapeenv.tensor.dims import DerivedDim, Dim
from shapeenv.tensor.dtypes import as_dtype
from shapeenv.program.layout_guards import input_layout
from shapeenv.tensor.layout import contiguous_strides
from shapeenv.tensor.tensor import FakeTensor

if TYPE_CHECKING:  # pragma: no cover
    from shapeenv.core.env import ShapeEnv

__all__ = ["make_fake_tensor", "make_input_tensor", "dim_specs"]

DynamicSpec = bool | Mapping[int, "Dim | None"] | Sequence["Dim | None"] | set


def dim_specs(shape: Sequence[int], dynamic: DynamicSpec) -> list[Dim]:
    """One Dim per dimension from the many accepted forms of ``dynamic``.

    ``True``: every dim dynamic (duck-sized); ``False``: every dim static; a set of
    indices: those dynamic; a mapping or a list: a Dim (or None for static) per dim.

    >>> dim_specs((4, 5, 6), {1})
    [Dim.STATIC, Dim('<duck>'), Dim.STATIC]
    """
    n = len(shape)
    duck = Dim("<duck>")
    if dynamic is True:
        return [duck] * n
    if dynamic is False or dynamic is None:
        return [Dim.STATIC] * n
    if isinstance(dynamic, (set, frozenset)):
        bad = [d for d in dynamic if not isinstance(d, int) or not -n <= d < n]
        if bad:
            raise DynamicShapesError(f"dynamic dims {bad} are out of range for a {n}-d tensor")
        chosen = {d % n for d in dynamic}
        return [duck if i in chosen else Dim.STATIC for i in range(n)]
    if isinstance(dynamic, Mapping):
        specs = [Dim.STATIC] * n
        for d, spec in dynamic.items():
            if not isinstance(d, int) or not -n <= d < n:
                raise DynamicShapesError(f"dynamic dim {d!r} is out of range for a {n}-d tensor")
            specs[d % n] = spec if spec is not None else Dim.STATIC
        return specs
    specs = list(dynamic)
    if len(specs) != n:
        raise DynamicShapesError(f"dynamic has {len(specs)} entries for a {n}-d tensor")
    return [s if s is not None else Dim.STATIC for s in specs]


def make_fake_tensor(env: "ShapeEnv", shape: Sequence[int], dtype: Any = "float32",
                     dynamic: DynamicSpec = True, name: str = "x") -> FakeTensor:
    """An input fake tensor whose dims are symbols (or ints) with sources ``name.size()[i]``."""
    sizes = []
    for i, (hint, spec) in enumerate(zip(shape, dim_specs(shape, dynamic))):
        if isinstance(hint, bool) or not isinstance(hint, int) or hint < 0:
            raise DynamicShapesError(f"{name}.size()[{i}] must be an int >= 0, got {hint!r}")
        if not isinstance(spec, (Dim, DerivedDim)):
            raise DynamicShapesTypeError(f"{name} dim {i}: expected a Dim, Dim.DYNAMIC, Dim.STATIC or None, got {spec!r}")
        source = Source.size(name, i)
        if isinstance(spec, DerivedDim):
            sizes.append(derived(env, spec, hint, source, _named))
        elif spec is Dim.STATIC:
            sizes.append(env.create_symint(hint, source, dynamic=DimDynamic.STATIC))
        elif spec.name == "<duck>":
            sizes.append(env.create_symint(hint, source, dynamic=DimDynamic.DUCK))
        elif spec is Dim.UNBACKED:
            sizes.append(env.create_unbacked_symint(size_like=True, source=source))
        elif spec is Dim.DYNAMIC or spec is Dim.AUTO:
            sizes.append(env.create_symint(hint, source, dynamic=DimDynamic.DYNAMIC, min=spec.min, max=spec.max))
        elif spec.choices is not None and spec.name not in env.named_dims:
            sizes.append(_first_named(env, spec, set_valued(env, spec, hint, source), source))
        else:
            sizes.append(_named(env, spec, hint, source))
    return FakeTensor(env, tuple(sizes), as_dtype(dtype), name=name)


def make_input_tensor(env: "ShapeEnv", shape: Sequence[int], dtype: Any, dynamic: DynamicSpec, name: str,
                      strides: Sequence[int] | None, offset: int | None) -> tuple[FakeTensor, list]:
    """An input of a trace with its real layout: ``(fake, ties)`` (Note [Input layouts] in :mod:`shapeenv.program.layout_guards`).

    ``strides=None`` (a shape spec, no data) means contiguous at offset 0, still pinned by the ties.

    >>> from shapeenv import ShapeEnv
    >>> x, ties = make_input_tensor(ShapeEnv(), (4, 3), "float32", False, "x", (1, 4), 0)
    >>> x.stride(), [(s.text(), v) for s, v in ties]
    ((1, 4), [('x.stride()[0]', 1), ('x.stride()[1]', 4)])
    """
    sized = make_fake_tensor(env, shape, dtype, dynamic, name)
    hints = contiguous_strides(tuple(shape)) if strides is None else tuple(strides)
    layout, off, ties = input_layout(env, name, sized.shape, hints, None if strides is None else offset or 0, tuple(shape))
    return FakeTensor(env, sized.shape, sized.dtype, stride=layout, storage_offset=off, name=name), ties


def _first_named(env: "ShapeEnv", spec: Dim, value, source: Source):
    env.named_dims[spec.name] = (spec, value, source)
    return value


def _named(env: "ShapeEnv", spec: Dim, hint: int, source: Source):
    known = env.named_dims.get(spec.name)
    if known is None:
        value = env.create_symint(hint, source, dynamic=DimDynamic.DYNAMIC, min=spec.min, max=spec.max)
        return _first_named(env, spec, value, source)
    first_spec, value, first_source = known
    if first_spec != spec:
        raise ConstraintViolationError(f"Dim {spec.name!r} is declared twice with different bounds: {first_spec} and {spec}")
    first_hint = value.node.hint if hasattr(value, "node") else value
    if first_hint != hint:
        raise ConstraintViolationError(
            f"Dim {spec.name!r} is shared by {first_source.text()} = {first_hint} and {source.text()} = {hint}: "
            "the example inputs must agree on a named dim (or give the dims different names)"
        )
    if hasattr(value, "node") and not value.node.expr.is_Symbol:  # a root first met through a derived dim
        return named_value(env, spec, hint, source, value)
    return env.alias_source(value, source)
