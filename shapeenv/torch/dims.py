"""``torch.export.Dim`` specs translated to this library's :class:`~shapeenv.tensor.dims.Dim` specs.

``dynamic_shapes`` for :func:`shapeenv.torch.export` is written as for ``torch.export``:
named dims (``Dim("b", min=2, max=64)``; dims with the same name are one symbol), derived
dims (``2 * b``, ``b + 1``: affine in a root Dim), the hints ``Dim.AUTO``, ``Dim.STATIC``,
``Dim.DYNAMIC`` and ``None``, arranged per input as torch accepts (a dict by argument name
or a tuple by position; per tensor a ``{dim: spec}`` dict or a list/tuple with one spec per
dim; nested lists/tuples/dicts for pytree inputs). :func:`translate` maps the whole
structure, leaving this library's own Dims as they are.

torch's default ``Dim("b")`` has ``min=0`` and becomes ``Dim("b")``: a backed size in
``[2, oo]`` for an example of size >= 2 (see Note [A default Dim]); any other bound is kept,
so ``Dim("b", min=1, max=64)`` is traced over ``[1, 64]`` and reported so, as torch.export
reports it.

Note [A default Dim]
    torch.export reports ``[0, oo]`` for ``Dim("b")`` (its ``min=0`` is the default, so a declared
    ``min=0`` is the same Dim), but it traces that symbol with ``[2, oo]`` (``create_symbol``'s
    default range intersected with the Dim's), so nothing its trace decides is checked at 0 or 1:
    ``x * 2 if x.shape[0] == 1 else x`` exports as ``x``, and its program is wrong at 1. We keep
    the range the trace establishes, ``[2, oo]``, which is also torch.compile's reading: the
    produced guards say ``>= 2`` where torch's contract says ``>= 0``, and every input we accept
    torch accepts. A caller who wants 0 or 1 declares it, ``Dim("b", min=1)``, or this library's
    ``Dim("b", min=0)``: the trace then reasons over the declared range, settling by cases the
    layout decisions only sizes 0 and 1 leave open (Note [Sizes that may be 0 or 1] in
    :mod:`shapeenv.tensor.layout`), and refusing, with the guard named, only code whose result
    really depends on the size being 1 (a branch on it; a reshape that is a view only at 1).
    Why not trace the default over ``[0, oo]`` too: models torch.export accepts with a default
    Dim would then be refused wherever their result does depend on 0 or 1 (torch's own trace
    never looks), and a range holding 1 costs several times the trace time of ``[2, oo]``
    (measured: resnet18 1.6 s against 0.2 s).
"""

from __future__ import annotations

from typing import Any

from torch.export import Dim as TorchDim
from torch.export.dynamic_shapes import _DerivedDim, _DimHint, _DimHintType

from shapeenv.errors import DynamicShapesTypeError
from shapeenv.tensor.dims import DerivedDim, Dim

__all__ = ["translate", "translate_dim"]


def _bound(value: Any, default: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):  # torch's int_oo (unbounded) is a sympy number
        return None
    return None if value == default or value >= 2**62 else value


def translate_dim(spec: Any) -> Any:
    """One spec: a torch Dim (named, derived or a hint) as ours; ``None`` and our own specs unchanged.

    >>> from torch.export import Dim
    >>> b = Dim("b", max=64)
    >>> translate_dim(b), translate_dim(2 * b + 1), translate_dim(Dim.AUTO), translate_dim(None)
    (Dim('b', max=64), 2*b + 1, Dim.AUTO, None)

    Raises:
        DynamicShapesTypeError: a derived dim that is not affine (``a * root + b``), or a hint with bounds.
    """
    if spec is None or isinstance(spec, (Dim, DerivedDim)):
        return spec
    if isinstance(spec, _DimHint):
        if spec.min is not None or spec.max is not None:
            raise DynamicShapesTypeError(
                f"{spec!r} with bounds (min={spec.min}, max={spec.max}) is not supported",
                fix="name the dim instead: Dim('name', min=..., max=...)")
        return {_DimHintType.AUTO: Dim.AUTO, _DimHintType.STATIC: Dim.STATIC, _DimHintType.DYNAMIC: Dim.DYNAMIC}[spec.type]
    if isinstance(spec, _DerivedDim):
        root = translate_dim(spec.root)
        b = int(spec.fn(0))
        a = int(spec.fn(1)) - b
        if int(spec.fn(2)) != 2 * a + b or not isinstance(root, Dim):
            raise DynamicShapesTypeError(f"derived dim {spec.__name__} is not of the form a * root + b",
                                         fix="derive dims with * and + only: 2 * Dim('d') + 1")
        return DerivedDim(root, a, b)
    if isinstance(spec, TorchDim):
        return Dim(spec.__name__, min=_bound(spec.min, 0), max=_bound(spec.max, -1))
    return spec


def translate(dynamic_shapes: Any) -> Any:
    """A whole ``dynamic_shapes`` structure with every torch Dim translated (see the module docstring).

    >>> from torch.export import Dim
    >>> b = Dim("b")
    >>> translate({"x": {0: b}, "y": (b, Dim.STATIC), "z": [None, 2 * b]})
    {'x': {0: Dim('b')}, 'y': (Dim('b'), Dim.STATIC), 'z': [None, 2*b]}
    """
    if isinstance(dynamic_shapes, dict):
        return {k: translate(v) for k, v in dynamic_shapes.items()}
    if isinstance(dynamic_shapes, list):
        return [translate(v) for v in dynamic_shapes]
    if isinstance(dynamic_shapes, tuple):
        return tuple(translate(v) for v in dynamic_shapes)
    return translate_dim(dynamic_shapes)
