"""Torch's layout rules over (symbolic) shapes and strides: contiguity, density, and the strides of new tensors.

Every function takes plain sequences of sizes and strides (ints or SymInts), so rules,
fake tensors and the input factory share one implementation of each torch rule:

* :func:`contiguous_strides`, :func:`channels_last_strides`: the strides ``empty`` and
  ``empty(memory_format=torch.channels_last)`` give;
* :func:`is_contiguous` (``memory_format`` ``contiguous``/``channels_last``/``channels_last_3d``)
  and :func:`is_non_overlapping_and_dense`: c10's ``_compute_contiguous`` & co.;
* :func:`like_strides`: ``empty_like``/``clone`` with ``preserve_format`` (the input's strides
  if it is dense, else ``infer_dense_strides``);
* :func:`elementwise_strides`: the output strides ``TensorIterator`` computes for a pointwise op
  (the all-contiguous / all-channels-last / same-dense-strides fast paths, then the insertion sort
  of dims by the operands' strides);
* :func:`suggest_memory_format`: channels-last or contiguous, as ``Tensor.suggest_memory_format``.

Note [Layout decisions are guarded]
    Each comparison these rules make (``stride0 < stride1``, ``size == 1``) goes through
    :func:`_ask`: a plain bool for ints; for a SymBool the provable answer, else the traced
    example's answer recorded as a guard (torch's ``guard_or_false``), and False when it reads a
    data-dependent size. So the layout a trace predicts holds for every input its guard set
    accepts: nothing about strides is assumed without either a proof or a guard.

Note [Sizes that may be 0 or 1]
    torch.export traces a ``Dim(min=0)`` or ``Dim(min=1)`` size with the range ``[2, oo]`` and
    reports the declared range, so its layout decisions never guard ``s != 1``, and its program
    is simply not checked at 0 and 1 (a branch on ``x.size(0) == 1`` is silently dropped). Here
    a declared range is the range the trace reasons with, and a layout question that only the
    sizes 0 and 1 leave open is settled by cases instead of by a guard (:func:`_by_cases`):
    the rule runs once in the world of the hints (every such size ``>= 2``, guards recorded there
    are implications ``s < 2 or g``) and once per world where some of them are 0 or 1, in which
    it may only use what is provable. If every world agrees (the same answer; for strides, the
    same stride on every dim that is not of size 1, and nothing when a size is 0: the strides
    torch itself treats as significant), the hints' answer holds for the whole range and no
    guard on ``s`` is recorded; otherwise the rule runs as before and guards. At most
    ``_MAX_SMALL`` such sizes are split (3 ** k worlds); beyond that, the old guards.
    In an export, such a guard on a declared ``Dim(min=0 or 1)`` is then settled as a branch of
    the user's code is: by tracing again at 0 and 1 (Note [Sizes 0 and 1 in export] in
    :mod:`shapeenv.export.small`).

>>> contiguous_strides((2, 3, 4)), channels_last_strides((2, 3, 4, 5))
((12, 4, 1), (60, 1, 15, 3))
>>> elementwise_strides((3, 2), [((3, 2), (1, 3))])
(1, 3)
"""

from __future__ import annotations

import contextvars
import functools
import itertools
from typing import Any, Callable, Iterator, Sequence

from symint.lazy_sympy import sympy

from symint import SymBool, SymInt, sym_max

from shapeenv.errors import ShapeError

__all__ = [
    "MEMORY_FORMATS",
    "memory_format_name",
    "contiguous_strides",
    "channels_last_strides",
    "format_strides",
    "is_contiguous",
    "provably_row_major",
    "is_non_overlapping_and_dense",
    "like_strides",
    "dense_strides_for_order",
    "elementwise_strides",
    "suggest_memory_format",
    "contiguous_layout",
    "ask",
    "known",
    "decided_by_cases",
]

#: The memory formats by name (torch's ``torch.contiguous_format`` etc. are accepted by their names).
MEMORY_FORMATS = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")


def memory_format_name(fmt: Any) -> str:
    """The name of a memory format given as a string or a torch object (``torch.channels_last``).

    Raises:
        ValueError: an unknown memory format.

    >>> memory_format_name("channels_last"), memory_format_name(None)
    ('channels_last', 'preserve_format')
    """
    if fmt is None:
        return "preserve_format"
    name = str(fmt).replace("torch.", "")
    if name == "contiguous":
        name = "contiguous_format"
    if name not in MEMORY_FORMATS:
        raise ShapeError(f"unknown memory_format {fmt!r}; expected one of {', '.join(MEMORY_FORMATS)}")
    return name


#: How layout questions are answered in this context (Note [Sizes that may be 0 or 1]): "top" (a
#: public rule splits by cases, then guards), "exact" (first, over the whole range: only what is
#: provable, else :class:`_Undecided`), "inner" (inside a case: guard, no further split), "probe"
#: (inside a world other than the hints': only what that world's facts prove, else :class:`_Undecided`).
_MODE: contextvars.ContextVar[str] = contextvars.ContextVar("shapeenv_layout_mode", default="top")
_MAX_SMALL = 2


class _Undecided(Exception):
    """A question a world other than the hints' cannot settle without a guard (internal)."""


def ask(cond: Any, default: bool = False, guard: bool = True) -> bool:
    """A layout question: provable, else (``guard``) the hints' answer recorded as a guard, else ``default``.

    Data-dependent questions get ``default`` (torch's ``guard_or_false`` / ``guard_or_true``).
    Inside a case split (Note [Sizes that may be 0 or 1]) a world other than the hints' only
    takes provable answers.

    >>> ask(3 > 2), ask(1 == 2, default=True)
    (True, False)
    """
    if not isinstance(cond, SymBool):
        return bool(cond)
    static = _try(cond)
    if static is not None:
        return static
    if not guard:
        return default
    if _MODE.get() in ("probe", "exact"):
        if cond.node.hint is None and cond.node.env.hint_of(cond.node.env.simplify(cond.node.expr)) is None:
            return default
        raise _Undecided
    env = cond.node.env
    return env.guard_or_true(cond) if default else env.guard_or_false(cond)


def _ask(cond: Any) -> bool:
    """See Note [Layout decisions are guarded]."""
    return ask(cond) if isinstance(cond, SymBool) else bool(cond)


def known(cond: Any) -> bool:
    """Provably true (records nothing).

    >>> known(2 > 1)
    True
    """
    return _try(cond) is True


_known = known


def _try(cond: Any) -> bool | None:
    """The provable answer of ``cond``, or None (records nothing).

    Outside a case split, an answer the traced example contradicts is not taken (a fact
    learned on a path the example does not take); inside one, the world's facts decide
    alone (the hints belong to another world).
    """
    if not isinstance(cond, SymBool):
        return bool(cond)
    env = cond.node.env
    if env is None:
        return None
    if _MODE.get() == "probe":
        return env.facts.decide(cond.node.form)
    if cond.node.hint is not False and env.statically_known_true(cond):
        return True
    if cond.node.hint is not True and env.statically_known_false(cond):
        return False
    return None


def _symints(value: Any) -> Iterator[SymInt]:
    if isinstance(value, SymInt):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _symints(v)


def _small_sizes(args: tuple) -> tuple[Any, list[sympy.Symbol]]:
    """The environment and the backed symbols of ``args`` whose range holds 0 or 1 while their hint is >= 2."""
    env = None
    found: dict[sympy.Symbol, None] = {}
    for v in _symints(args):
        env = env or v.node.env
        for sym in v.node.expr.free_symbols:
            found.setdefault(sym, None)
    if env is None:
        return None, []
    small = []
    for sym in found:
        info = env.symbols.get(sym)
        if info is None or info.hint is None or info.hint < 2:
            continue
        if env.facts.range_of(sym).lower < 2:
            small.append(sym)
    return env, sorted(small, key=lambda s: env.symbols[s].index)


def _agrees(hints: Any, other: Any, shape: Sequence[Any] | None) -> bool:
    """Whether a world's answer is the hints' (Note [Sizes that may be 0 or 1]); asked inside the world."""
    if shape is None or not isinstance(hints, tuple) or not isinstance(other, tuple):
        if isinstance(hints, tuple) and isinstance(other, tuple):
            return len(hints) == len(other) and all(_try(a == b) is True for a, b in zip(hints, other))
        return hints == other
    if len(hints) != len(other):
        return False
    if any(_try(size == 0) is True for size in shape):
        return True  # an empty tensor: no stride is significant
    return all(_try(size == 1) is True or _try(a == b) is True for size, a, b in zip(shape, hints, other))


def _by_cases(fn: Callable, args: tuple, kwargs: dict, shape_arg: int | None) -> Any:
    """``fn(*args, **kwargs)`` settled by cases on the sizes that may be 0 or 1 (Note [Sizes that may be 0 or 1])."""
    env, small = _small_sizes(args)
    if not small or len(small) > _MAX_SMALL:
        return fn(*args, **kwargs)
    token = _MODE.set("exact")  # most calls: every question provable over the whole range, no case needed
    try:
        return fn(*args, **kwargs)
    except (_Undecided, ShapeError):
        pass
    finally:
        _MODE.reset(token)
    shape = args[shape_arg] if shape_arg is not None else None
    token = _MODE.set("inner")
    try:
        with env.assuming(sympy.And(*(s >= 2 for s in small))):
            answer = fn(*args, **kwargs)
    finally:
        _MODE.reset(token)
    choices = [[v for v in (0, 1) if v >= env.facts.range_of(s).lower] + [None] for s in small]
    for values in itertools.product(*choices):
        if all(v is None for v in values):
            continue
        cond = sympy.And(*(sympy.Eq(s, v) if v is not None else s >= 2 for s, v in zip(small, values)))
        if not _world_agrees(env, cond, answer, fn, args, kwargs, shape):
            return fn(*args, **kwargs)
    return answer


def _world_agrees(env: Any, cond: sympy.Basic, answer: Any, fn: Callable, args: tuple, kwargs: dict,
                  shape: Sequence[Any] | None) -> bool:
    """Whether ``fn`` gives ``answer`` (up to insignificant strides) where ``cond`` holds, by proofs alone."""
    token = _MODE.set("probe")
    try:
        with env.assuming(cond) as known_case:
            if known_case is False:
                return True  # no input reaches this world
            return _agrees(answer, fn(*args, **kwargs), shape)
    except (_Undecided, ShapeError):
        return False
    finally:
        _MODE.reset(token)


def decided_by_cases(shape_arg: int | None = None) -> Callable[[Callable], Callable]:
    """A public layout rule that settles by cases what only sizes 0 and 1 leave open; ``shape_arg``:
    the argument holding the result's shape, for a rule that returns strides (Note [Sizes that may be 0 or 1]).

    >>> from shapeenv import ShapeEnv
    >>> from guards import Source
    >>> env = ShapeEnv(); b = env.create_symint(3, Source.size("x", 0), min=1, max=64)
    >>> is_contiguous((b, 4, 5), (20, 5, 1)), is_non_overlapping_and_dense((b, 4), (1, b)), len(env.guards)
    (True, True, 0)
    >>> like_strides((4, b), (1, 4)), len(env.guards)
    ((1, 4), 0)
    """

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def rule(*args: Any, **kwargs: Any) -> Any:
            if _MODE.get() != "top":
                return fn(*args, **kwargs)
            return _by_cases(fn, args, kwargs, shape_arg)

        return rule

    return wrap


def _max1(size: Any) -> Any:
    if isinstance(size, int):
        return max(size, 1)
    return size if _provably_ge1(size) else sym_max(size, 1)


def _provably_ge1(size: Any) -> bool:
    env = size.node.env
    return env is not None and env.statically_known_true(size >= 1)


def contiguous_strides(shape: Sequence[Any]) -> tuple:
    """Row-major strides of ``shape``, as ``torch.empty`` gives them (a size 0 counts as 1).

    >>> contiguous_strides((2, 3, 4)), contiguous_strides((3, 0)), contiguous_strides(())
    ((12, 4, 1), (1, 1), ())
    """
    strides = []
    acc: Any = 1
    for size in reversed(tuple(shape)):
        strides.append(acc)
        acc = acc * _max1(size)
    return tuple(reversed(strides))


@decided_by_cases(0)
def dense_strides_for_order(shape: Sequence[Any], order: Sequence[int], *, skip_small: bool = False) -> tuple:
    """Dense strides laying out dims in ``order`` (innermost first).

    ``skip_small``: sizes 0 and 1 do not grow the stride (``infer_dense_strides``); otherwise
    each size multiplies it as it is (``TensorIterator``'s ``compatible_stride``).

    >>> dense_strides_for_order((2, 3), (0, 1))
    (1, 2)
    """
    strides: list[Any] = [0] * len(shape)
    acc: Any = 1
    for d in order:
        strides[d] = acc
        size = shape[d]
        if skip_small:  # a size 1 multiplies by 1 anyway: only a possible 0 needs a question
            if _known(size >= 1) or _ask(size > 1):
                acc = acc * size
        else:
            acc = acc * size
    return tuple(strides)


_CL_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def channels_last_strides(shape: Sequence[Any]) -> tuple:
    """The strides of ``shape`` in channels-last order (4-d: NHWC; 5-d: NDHWC), as c10 computes them.

    Raises:
        ValueError: ``shape`` is neither 4-d nor 5-d.

    >>> channels_last_strides((2, 3, 4, 5))
    (60, 1, 15, 3)
    """
    order = _CL_ORDER.get(len(shape))
    if order is None:
        raise ShapeError(f"channels_last needs a 4-d tensor (channels_last_3d a 5-d one), got {len(shape)} dims")
    return dense_strides_for_order(shape, order)


def format_strides(shape: Sequence[Any], memory_format: str) -> tuple:
    """The strides of a new tensor of ``shape`` in ``memory_format`` (not ``preserve_format``).

    Raises:
        ValueError: the format does not fit the rank (channels_last on a 3-d shape).

    >>> format_strides((2, 3, 4, 5), "channels_last"), format_strides((2, 3), "contiguous_format")
    ((60, 1, 15, 3), (3, 1))
    """
    if memory_format == "contiguous_format":
        return contiguous_strides(shape)
    want = {"channels_last": 4, "channels_last_3d": 5}[memory_format]
    if len(shape) != want:
        raise ShapeError(f"required rank {want} tensor to use {memory_format} format, got {len(shape)} dims")
    return channels_last_strides(shape)


@decided_by_cases(0)
def contiguous_layout(shape: Sequence[Any], strides: Sequence[Any], memory_format: str = "contiguous_format") -> tuple:
    """The strides of ``t.contiguous(memory_format)``: ``strides`` themselves when already contiguous, else the format's.

    Settled by cases as one question (Note [Sizes that may be 0 or 1]): whether ``t`` is contiguous
    may depend on a size being 1 or 0 where the resulting strides do not (a size-1 dim's stride, an
    empty tensor's).

    >>> contiguous_layout((2, 3), (1, 2)), contiguous_layout((2, 3), (3, 1))
    ((3, 1), (3, 1))
    """
    if is_contiguous(shape, strides, memory_format):
        return tuple(strides)
    return format_strides(shape, memory_format)


def _numel_is_zero(shape: Sequence[Any]) -> bool:
    return any(_ask(s == 0) for s in shape)


@decided_by_cases()
def is_contiguous(shape: Sequence[Any], strides: Sequence[Any], memory_format: str = "contiguous_format") -> bool:
    """c10's contiguity: dims of size 1 are skipped; an empty tensor is contiguous (Note [Layout decisions are guarded]).

    >>> is_contiguous((2, 3), (3, 1)), is_contiguous((2, 3), (1, 2)), is_contiguous((2, 1), (1, 7))
    (True, False, True)
    >>> is_contiguous((2, 3, 4, 5), (60, 1, 15, 3), "channels_last")
    True
    """
    if memory_format == "contiguous_format":
        order: Sequence[int] = range(len(shape) - 1, -1, -1)
    else:
        order = _CL_ORDER.get(len(shape), ())
        if len(shape) != {"channels_last": 4, "channels_last_3d": 5}.get(memory_format, -1):
            return False
    if _running_products(shape, strides, order, lambda size: size) or _running_products(shape, strides, order, _max1):
        return True
    if _numel_is_zero(shape):
        return True
    settled = _contiguous_without_guards(shape, strides, tuple(order), 0, 1)
    if settled is not None:
        return settled
    expected = 1
    for d in order:
        size = shape[d]
        if _ask(size == 1):
            continue
        if not _ask(strides[d] == expected):
            return False
        expected = expected * size
    return True


def _running_products(shape, strides, order, size_of) -> bool:
    """Whether each stride is provably the product of ``size_of(size)`` of the dims inside it (no question asked).

    With ``size_of = _max1`` this is the layout ``empty`` gives (``(Max(1, u1), 1)`` for
    ``[u0, u1]``): it is contiguous whatever the sizes, because ``Max(1, u1)`` differs from
    ``u1`` only when ``u1 == 0``, and a tensor with no elements is contiguous (torch agrees).
    """
    expected: Any = 1
    for d in order:
        if not _known(strides[d] == expected):
            return False
        expected = expected * size_of(shape[d])
    return True


def provably_row_major(shape: Sequence[Any], strides: Sequence[Any]) -> bool:
    """Whether the strides are provably the row-major products of ``max(1, size)`` (``empty``'s layout):
    contiguous whatever the sizes; records nothing.

    >>> provably_row_major((2, 3), (3, 1)), provably_row_major((2, 3), (1, 2))
    (True, False)
    """
    return _running_products(shape, strides, range(len(shape) - 1, -1, -1), _max1)


def _contiguous_without_guards(shape, strides, order: tuple, k: int, expected: Any) -> bool | None:
    """c10's contiguity loop from ``order[k]`` on, answered by proofs alone, trying both answers to each
    ``size == 1`` that is not provable: None when the answer depends on something only a guard can settle."""
    for idx in range(k, len(order)):
        d = order[idx]
        one = _try(shape[d] == 1)
        if one is None:
            as_one = _contiguous_without_guards(shape, strides, order, idx + 1, expected)
            match = _try(strides[d] == expected)
            as_other = False if match is False else (
                None if match is None else _contiguous_without_guards(shape, strides, order, idx + 1, expected * shape[d]))
            return as_one if as_one is not None and as_one == as_other else None
        if one:
            continue
        match = _try(strides[d] == expected)
        if match is not True:
            return match
        expected = expected * shape[d]
    return True


def _stride_sorted(shape: Sequence[Any], strides: Sequence[Any]) -> list[int]:
    """Dims sorted by stride (c10's ``is_non_overlapping_and_dense`` sort: sizes < 2 last), stably."""
    out: list[int] = []
    for d in range(len(shape)):
        k = len(out)
        while k > 0 and _before(shape, strides, d, out[k - 1]):
            k -= 1
        out.insert(k, d)
    return out


def _before(shape, strides, a: int, b: int) -> bool:
    if _ask(shape[a] < 2):
        return False
    if _ask(shape[b] < 2):
        return True
    return _ask(strides[a] < strides[b])


@decided_by_cases()
def is_non_overlapping_and_dense(shape: Sequence[Any], strides: Sequence[Any]) -> bool:
    """Whether the elements fill a block of memory exactly once in some dim order (c10's rule).

    >>> is_non_overlapping_and_dense((3, 2), (1, 3)), is_non_overlapping_and_dense((3, 2), (2, 6))
    (True, False)
    """
    if len(shape) == 1:
        return _ask(shape[0] < 2) or _ask(strides[0] == 1)
    if is_contiguous(shape, strides) or is_contiguous(shape, strides, "channels_last"):
        return True
    required: Any = 1
    for d in _stride_sorted(shape, strides):
        if _ask(shape[d] < 2):
            return True
        if not _ask(strides[d] == required):
            return False
        required = required * shape[d]
    return True


def _insertion_perm(ndim: int, should_swap) -> list[int]:
    """TensorIterator's insertion sort with ambiguous comparisons; ``perm[0]`` is the innermost dim."""
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


@decided_by_cases(0)
def like_strides(shape: Sequence[Any], strides: Sequence[Any]) -> tuple:
    """``empty_like``/``clone`` with ``preserve_format``: the same strides if dense, else ``infer_dense_strides``.

    >>> like_strides((3, 2), (1, 3)), like_strides((4, 3), (6, 2)), like_strides((3, 4), (1, 0))
    ((1, 3), (3, 1), (4, 1))
    """
    if is_non_overlapping_and_dense(shape, strides):
        return tuple(strides)

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = strides[d0], strides[d1]
        if _ask(s0 == 0) or _ask(s1 == 0):
            return 0
        if _ask(s0 < s1):
            return -1
        if _ask(s0 > s1):
            return 1
        return 1 if _ask(shape[d0] > shape[d1]) else 0

    return dense_strides_for_order(shape, _insertion_perm(len(shape), should_swap), skip_small=True)


def _broadcast_strides(out_shape: Sequence[Any], shape: Sequence[Any], strides: Sequence[Any]) -> list[Any]:
    """An operand's strides in the output's dims: 0 for new leading dims and for broadcast size-1 dims."""
    lead = len(out_shape) - len(shape)
    out: list[Any] = [0] * lead
    for i, (size, stride) in enumerate(zip(shape, strides)):
        full = out_shape[lead + i]
        if size is full or _known(size == full):
            out.append(stride)
        else:
            out.append(0 if _ask(size == 1) and not _ask(full == 1) else stride)
    return out


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(x is y or _known(x == y) for x, y in zip(a, b))


@decided_by_cases(0)
def elementwise_strides(out_shape: Sequence[Any], operands: Sequence[tuple]) -> tuple:
    """The strides ``TensorIterator`` gives the output of a pointwise op; ``operands`` are ``(shape, strides)``.

    >>> elementwise_strides((4, 3), [((4, 3), (1, 4)), ((3,), (1,))])
    (1, 4)
    >>> elementwise_strides((2, 3, 4, 5), [((2, 3, 4, 5), (60, 1, 15, 3))])
    (60, 1, 15, 3)
    """
    ndim = len(out_shape)
    if ndim == 0:
        return ()
    if ndim == 1:
        return (1,)
    if not operands:
        return contiguous_strides(out_shape)
    if all(_same(shape, out_shape) for shape, _ in operands):
        if all(is_contiguous(shape, st) for shape, st in operands):
            return contiguous_strides(out_shape)
        if ndim in (4, 5):
            fmt = "channels_last" if ndim == 4 else "channels_last_3d"
            if all(is_contiguous(shape, st, fmt) for shape, st in operands):
                return channels_last_strides(out_shape)
        if all(is_non_overlapping_and_dense(shape, st) for shape, st in operands):
            first = operands[-1][1]
            if all(_same(st, first) for _, st in operands):
                return tuple(first)
    per_op = [_broadcast_strides(out_shape, shape, st) for shape, st in operands]

    def should_swap(d0: int, d1: int) -> int:
        for st in per_op:
            s0, s1 = st[d0], st[d1]
            if _ask(s0 == 0) or _ask(s1 == 0):
                continue
            if _ask(s0 < s1):
                return -1
            if _ask(s0 > s1):
                return 1
            if _ask(out_shape[d0] > out_shape[d1]):
                return 1
        return 0

    return dense_strides_for_order(out_shape, _insertion_perm(ndim, should_swap))


def _channels_last_like(shape: Sequence[Any], strides: Sequence[Any]) -> bool:
    """c10's ``is_channels_last_strides_2d``/``_3d`` heuristic (ambiguous layouts count as contiguous)."""
    order = _CL_ORDER.get(len(shape))
    if order is None or _ask(strides[1] == 0):
        return False
    low: Any = 0
    for d in order:
        if _ask(shape[d] == 0) or _ask(strides[d] < low):
            return False
        if d == 0 and _ask(low == strides[1]):
            return False
        low = strides[d]
        if _ask(shape[d] > 1):
            low = low * shape[d]
    return True


@decided_by_cases()
def suggest_memory_format(shape: Sequence[Any], strides: Sequence[Any]) -> str:
    """``Tensor.suggest_memory_format()``: ``channels_last`` (or ``channels_last_3d``) if the strides look so.

    >>> suggest_memory_format((2, 3, 4, 5), (60, 1, 15, 3)), suggest_memory_format((2, 3), (3, 1))
    ('channels_last', 'contiguous_format')
    """
    if _channels_last_like(shape, strides):
        return "channels_last" if len(shape) == 4 else "channels_last_3d"
    return "contiguous_format"
