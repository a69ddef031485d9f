"""``einsum``: shapes and dtypes of Einstein summations, with torch's parsing and broadcasting rules.

The equation names each operand's dims with letters (``a-z``, ``A-Z``) and at most one ``...``
(the dims it does not name, right-aligned across operands); spaces are ignored. Without ``->``
the output is the ellipsis dims, then the letters that occur exactly once, in torch's order
(``A-Z`` before ``a-z``). A letter repeated within one operand takes its diagonal (the sizes
must be equal). A letter's sizes across operands must be equal or 1 (broadcast), as must the
ellipsis dims; each such equality is a :func:`~shapeenv.ops.common.require` or a broadcast
decision (a guard only when the hints alone decide). All operands must share one dtype.

Layouts: with one operand and nothing summed, the result is a view (a permutation, or a
diagonal) with the input's strides rearranged, as torch returns it. Otherwise the result is a
new tensor, reported contiguous: torch computes it by ``bmm`` over an internal dim order and
permutes back, so its strides can be a permutation of contiguous ones (see
``tests/shapeenv/rules/test_einsum.py``, which records where they differ).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); q = env.fake_tensor((2, 4, 5, 8), name="q"); k = env.fake_tensor((2, 4, 6, 8), name="k")
>>> einsum("bhqd,bhkd->bhqk", q, k).shape, einsum("...ij->...ji", q).stride(), len(env.guards)
((s0, s1, s2, s4), (s1*s2*s3, s2*s3, 1, s3), 0)
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import check_tensor, make_view, new_tensor, require
from shapeenv.ops.rules.elementwise import broadcast_dim
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule

__all__ = ["einsum", "parse_equation"]

_ELL = "..."


def _label_key(c: str) -> int:
    return ord(c) - ord("A") if c.isupper() else 26 + ord(c) - ord("a")


def _split_term(term: str, op: str) -> list:
    """``'b...ij'`` -> ``['b', '...', 'i', 'j']``."""
    out: list = []
    i = 0
    while i < len(term):
        if term.startswith(_ELL, i):
            if _ELL in out:
                raise ShapeError(f"{op}: found more than one ellipsis ('...') in one term of the equation")
            out.append(_ELL)
            i += 3
        elif term[i].isalpha() and term[i].isascii():
            out.append(term[i])
            i += 1
        else:
            raise ShapeError(f"{op}: invalid subscript given at index {i} in the equation term {term!r}: subscripts "
                             "must be letters in [a-zA-Z] (and one '...')")
    return out


def parse_equation(equation: str, count: int, op: str = "einsum") -> tuple[list[list], list | None]:
    """The operand terms and the explicit output term (None if implicit) of ``equation``.

    Raises:
        ShapeError: a malformed equation, or a number of terms other than ``count``.

    >>> parse_equation("bij, bjk -> bik", 2)
    ([['b', 'i', 'j'], ['b', 'j', 'k']], ['b', 'i', 'k'])
    """
    if not isinstance(equation, str):
        raise ShapeError(f"{op}: the equation must be a string, got {equation!r}")
    text = equation.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = [_split_term(t, op) for t in lhs.split(",")]
    if len(terms) != count:
        raise ShapeError(f"{op}: more operands were provided than specified in the equation" if count > len(terms)
                         else f"{op}: fewer operands were provided than specified in the equation",
                         fix=f"the equation {equation!r} names {len(terms)} operand(s); {count} were given")
    return terms, (_split_term(rhs, op) if arrow else None)


@rule("einsum")
def einsum(equation: str, *operands: Any) -> FakeTensor:
    """``torch.einsum(equation, *operands)`` (operands may also be one list); see the module docstring.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); a = env.fake_tensor((3, 4), name="a"); b = env.fake_tensor((4, 5), name="b")
    >>> einsum("ij,jk", a, b).shape, einsum("ij,jk->", a, b).shape, einsum("i,j->ij", a[0], b[0]).shape
    ((s0, s2), (), (s1, s2))
    """
    op = "einsum"
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ShapeError(f"{op}: must provide at least one operand")
    for t in operands:
        check_tensor(t, op, "operand")
    dtypes = {t.dtype for t in operands}
    if len(dtypes) > 1:
        raise ShapeError(f"{op}: expected all operands to have the same dtype, got {sorted(d.name for d in dtypes)}",
                         fix="convert them first, e.g. b.to(a.dtype)")
    terms, out_term = parse_equation(equation, len(operands))
    sizes: dict[str, Any] = {}
    counts: dict[str, int] = {}
    ell: tuple = ()
    ell_used = False
    for k, (term, t) in enumerate(zip(terms, operands)):
        named = [c for c in term if c != _ELL]
        if (_ELL in term and t.ndim < len(named)) or (_ELL not in term and t.ndim != len(named)):
            raise ShapeError(f"{op}: the number of subscripts in the equation ({len(named)}) does not match the number "
                             f"of dimensions ({t.ndim}) for operand {k}{'' if _ELL in term else ' and no ellipsis was given'}")
        dims: dict[str, Any] = {}
        pos = 0
        for c in term:
            if c == _ELL:
                n = t.ndim - len(named)
                mine = t.shape[pos:pos + n]
                ell = _broadcast(ell, mine, op)
                ell_used = True
                pos += n
                continue
            size = t.shape[pos]
            pos += 1
            if c in dims:  # a diagonal within one operand
                first = dims[c]
                require(first == size, lambda c=c, k=k: f"{op}: subscript {c} is repeated for operand {k} but the sizes "
                                                        f"don't match, {first} != {size}")
                continue
            dims[c] = size
            counts[c] = counts.get(c, 0) + 1
            if c in sizes:
                sizes[c] = broadcast_dim(sizes[c], size, op, f" (subscript {c} of operand {k})")
            else:
                sizes[c] = size
    if out_term is None:
        out_term = ([_ELL] if ell_used else []) + sorted((c for c, n in counts.items() if n == 1), key=_label_key)
    seen: set = set()
    for c in out_term:
        if c != _ELL and c not in sizes:
            raise ShapeError(f"{op}: output subscript {c} does not appear in the equation for any input operand")
        if c in seen:
            raise ShapeError(f"{op}: output subscript {c} appears more than once in the output")
        seen.add(c)
    shape: list = []
    for c in out_term:
        shape.extend(ell if c == _ELL else (sizes[c],))
    view = _as_view(terms[0], operands[0], out_term) if len(operands) == 1 else None
    return view if view is not None else new_tensor(operands[0].env, tuple(shape), operands[0].dtype)


def _broadcast(a: tuple, b: tuple, op: str) -> tuple:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(broadcast_dim(x, y, op, " (ellipsis dims)") for x, y in zip(a, b))


def _as_view(term: list, t: FakeTensor, out_term: list) -> FakeTensor | None:
    """The single-operand result as a view (permutation and diagonals), or None when something is summed."""
    named = [c for c in term if c != _ELL]
    n_ell = t.ndim - len(named)
    dims: list = []  # (label, [input dims])
    pos = 0
    for c in term:
        if c == _ELL:
            dims.extend((("...", i), [pos + i]) for i in range(n_ell))
            pos += n_ell
            continue
        for label, where in dims:
            if label == c:
                where.append(pos)
                break
        else:
            dims.append((c, [pos]))
        pos += 1
    wanted = [("...", i) for i in range(n_ell)] if _ELL in out_term else []
    order: list = []
    for c in out_term:
        order.extend(wanted if c == _ELL else [c])
    labels = [label for label, _ in dims]
    if sorted(map(str, labels)) != sorted(map(str, order)):
        return None  # a label is summed away: a reduction, a new tensor
    by_label = dict(dims)
    shape = [t.shape[by_label[label][0]] for label in order]
    stride: list = []
    for label in order:
        total: Any = 0
        for d in by_label[label]:
            total = total + t.stride(d)
        stride.append(total)
    return make_view(t, shape, stride)
