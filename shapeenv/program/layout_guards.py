"""The layout of traced inputs: strides and storage offsets as torch's ShapeEnv makes them, and their guards.

Note [Input layouts]
    ``export`` gives each example tensor its real strides and storage offset (numpy's byte
    strides divided by the item size; a shape spec is contiguous at offset 0), following
    torch's ``_compute_symbolic_stride``:

    * an input whose sizes are all static gets its strides as constants, pinned by the guards
      (``x.stride()[0] == 4``), as torch's TENSOR_MATCH pins them;
    * otherwise the strides are visited from the smallest: a stride 0 or 1 (that is not the
      contiguous continuation of the next dim) stays that constant; a stride equal to
      ``size * stride`` of an already visited dim becomes that product of sizes
      (``x.stride()[0] == x.size()[1]`` for a contiguous input, ``x.stride()[1] == x.size()[0]``
      for a transposed one); any other stride gets a symbol of its own with the source
      ``x.stride()[i]`` (a stepped slice, a padded row);
    * the storage offset of a real array is a symbol with range ``[0, oo]`` and source
      ``x.storage_offset()``: nothing is guarded about it unless the function decides on it.

    The pins and product ties are the *layout guards* of the program
    (:func:`layout_guard_set`); a compiled entry checks them with its other guards, so a
    transposed input never reuses an entry traced for a contiguous one. Every decision made
    later on strides (view legality, ``is_contiguous``, pointwise output layouts) is guarded or
    proven where it is made (Note [Layout decisions are guarded] in :mod:`shapeenv.tensor.layout`).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> sizes = (env.create_symint(4, Source.size("x", 0)), env.create_symint(3, Source.size("x", 1)))
>>> strides, offset, ties = input_layout(env, "x", sizes, (1, 4), 0)
>>> strides, offset
((1, s0), s2)
>>> print(layout_guard_set(env, ties).to_text("torch"))
L['x'].stride()[0] == 1
L['x'].stride()[1] == L['x'].size()[0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from symint.lazy_sympy import sympy

from guards import Guard, GuardSet, Source
from guards.source import contiguous_strides_of
from symint import SymInt, build
from symint import form as F

from shapeenv.core.symbols import DimDynamic
from shapeenv.errors import InputsError

if TYPE_CHECKING:  # pragma: no cover
    from shapeenv.core.env import ShapeEnv

__all__ = ["input_layout", "layout_guard_set", "array_strides", "array_storage_offset"]

Tie = tuple[Source, Any]  # a stride source and the int or SymInt the trace uses for it


def array_strides(value: Any) -> tuple[int, ...] | None:
    """The strides of an example tensor in elements (torch's ``stride()``, numpy's ``strides // itemsize``), or None.

    >>> import numpy as np
    >>> array_strides(np.zeros((2, 3), np.float32).T)
    (1, 3)
    """
    stride = getattr(value, "stride", None)
    if callable(stride):
        return tuple(int(s) for s in stride())
    strides = getattr(value, "strides", None)
    itemsize = getattr(value, "itemsize", None)
    if strides is None or not itemsize:
        return None
    if getattr(value, "size", 1) == 0:  # numpy gives empty arrays strides 0; torch lays them out contiguously
        return contiguous_strides_of(value.shape)
    return tuple(int(s) // int(itemsize) for s in strides)


def array_storage_offset(value: Any) -> int:
    """The storage offset of an example tensor in elements (see :meth:`guards.Source.read`)."""
    return Source("_", "storage_offset").read(value)


def input_layout(env: "ShapeEnv", name: str, sizes: Sequence[Any], strides: Sequence[int],
                 offset: int | None, example: Sequence[int] | None = None) -> tuple[tuple, Any, list[Tie]]:
    """``(strides, storage_offset, ties)`` of an input tensor (Note [Input layouts]); ``offset=None``: 0, no symbol.

    ``example``: the example's sizes (default: the sizes' hints; an unbacked size has none).

    Raises:
        InputsError: a negative stride (numpy's reversed views; torch tensors have none); a ``ValueError``.
    """
    if any(s < 0 for s in strides):
        raise InputsError(
            f"input {name} has negative strides {tuple(strides)} (a reversed numpy view); torch tensors cannot have them",
            fix=f"pass a copy: np.ascontiguousarray({name})",
        )
    static = all(not isinstance(s, SymInt) for s in sizes)
    out: list[Any] = [None] * len(sizes)
    ties: list[Tie] = []
    if static:
        out = list(strides)
        ties = [(Source.stride(name, i), s) for i, s in enumerate(strides)]
    else:
        candidates: dict[int, Any] = {}
        hints = list(example) if example is not None else [s.node.hint if isinstance(s, SymInt) else s for s in sizes]
        for val, neg_i in sorted((v, -i) for i, v in enumerate(strides)):
            i = -neg_i
            continues = i != len(strides) - 1 and strides[i] == hints[i + 1] * strides[i + 1]
            source = Source.stride(name, i)
            if val in (0, 1) and not continues:
                value: Any = val
                ties.append((source, val))
            elif val in candidates:
                value = candidates[val]
                ties.append((source, value))
            else:
                value = env.create_symint(val, source, DimDynamic.DYNAMIC)
                if not isinstance(value, SymInt):
                    ties.append((source, value))
            out[i] = value
            candidates.setdefault(hints[i] * val, sizes[i] * value)
    ties.sort(key=lambda tie: tie[0].index)
    off: Any = 0 if offset is None else env.create_symint(offset, Source(name, "storage_offset"), DimDynamic.DYNAMIC, min=0)
    return tuple(out), off, ties


def layout_guard_set(env: "ShapeEnv", ties: Sequence[Tie]) -> GuardSet:
    """The guards pinning or tying each traced stride to what the trace assumed (Note [Input layouts])."""
    sources: dict[sympy.Symbol, Source] = {}
    guards: list[Guard] = []
    for k, (source, value) in enumerate(ties):
        alias = build.symbol_expr(f"L{k}")
        sources[alias] = source
        form = value.node.form if isinstance(value, SymInt) else F.const(int(value))
        for name in form.symbols:
            sym = build.symbol_expr(name)
            info = env.symbols.get(sym)
            if info is not None and info.sources:
                sources[sym] = info.sources[0]
        what = f"a product of sizes ({value})" if isinstance(value, SymInt) else f"the constant {value}"
        guards.append(Guard.of(F.rel("==", F.sym(alias.name), form), f"{source.text()} was traced as {what}"))
    return GuardSet.of(guards, sources)
