"""Helpers shared by the shape rules: dims, sizes, decisions that guard only when they must, views.

How a rule asks a question decides what the trace records:

* :func:`known_true` / :func:`known_false` never record anything (``statically_known_*``);
* :func:`require` is torch's ``torch._check`` for a condition the op needs: nothing if it is
  provable, a guard if only the hints decide it, a runtime assert if it reads an unbacked size,
  and a :class:`~shapeenv.errors.ShapeError` if it is false;
* :func:`decide` is ``bool(cond)`` for a branch the op must take (a guard when not provable), and
  returns None instead of raising when the condition reads an unbacked size;
* :func:`smin` / :func:`smax` are ``sym_min`` / ``sym_max`` that pick the answer when it is provable.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((6,), name="x"); n = x.shape[0]
>>> known_true(n >= 2), smin(n, 1), smax(n - 10, 0), len(env.guards)
(True, 1, Max(0, s0 - 10), 0)
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from symint import SymBool, SymInt, build, sym_max, sym_min
from symint.node import compute_hint, merge_envs
from symint.values import unwrap, wrap

from shapeenv.api import statically_known_false, statically_known_true
from shapeenv.errors import GuardOnDataDependentSymNode, ShapeEnvTypeError, ShapeError
from shapeenv.tensor.dtypes import DType, as_dtype
from shapeenv.tensor import layout
from shapeenv.tensor.tensor import FakeTensor, contiguous_strides
from shapeenv.core.messages import short_repr
from shapeenv.core.provenance import local_name, user_frame_object
from shapeenv.ops.dispatch import is_tensor

__all__ = [
    "known_true",
    "known_false",
    "require",
    "decide",
    "smin",
    "smax",
    "ceil_div",
    "prod",
    "canonical_dim",
    "canonical_dims",
    "check_size",
    "check_tensor",
    "size_args",
    "as_dtype_arg",
    "is_contiguous",
    "like_strides",
    "make_view",
    "unsqueeze_view",
    "new_tensor",
    "fmt_shape",
    "check_inplace",
]

# -- questions ---------------------------------------------------------------------------------------
def _static(cond: SymBool) -> bool | None:
    """The provable answer of ``cond``, or None.

    The hints satisfy every known fact, so only the hint's answer can be provable: a condition
    false at the hints is never provably true, and the solver checks one direction only.
    """
    env = cond.node.env
    if env is None or not hasattr(env, "decider"):  # another SymbolicEnv: its public queries
        return True if statically_known_true(cond) else (False if statically_known_false(cond) else None)
    return env.decider.static(cond.node.form, hint=cond.node.hint)


def known_true(cond: SymBool | bool) -> bool:
    """True only if ``cond`` is provable; records nothing."""
    if not isinstance(cond, SymBool):
        return bool(cond)
    return cond.node.hint is not False and _static(cond) is True


def known_false(cond: SymBool | bool) -> bool:
    """True only if ``cond`` is provably false; records nothing."""
    if not isinstance(cond, SymBool):
        return not cond
    return cond.node.hint is not True and _static(cond) is False


def require(cond: SymBool | bool, message: Callable[[], str], fix: Callable[[], str] | None = None) -> None:
    """Make sure ``cond`` holds, as ``torch._check`` does (see the module docstring).

    ``message`` builds the error text lazily; it should name the op, its arguments and the condition.
    ``fix`` (also lazy) says what to do, in code the user can paste.

    Raises:
        ShapeError: ``cond`` is false (statically or for the traced hints).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); n = env.fake_tensor((6,)).shape[0]
    >>> require(n % 3 == 0, lambda: "n must be a multiple of 3"); [str(g.expr) for g in env.guards]
    ['Eq(Mod(s0, 3), 0)']
    """
    if not isinstance(cond, SymBool):
        if not cond:
            raise ShapeError(message(), fix=fix() if fix else None)
        return
    if known_true(cond):
        return
    if known_false(cond):
        raise ShapeError(message(), fix=fix() if fix else None)
    try:
        holds = bool(cond)  # a guard: decided by the hints
    except GuardOnDataDependentSymNode:
        cond.node.env.check(cond, message())  # unbacked: a runtime assert, as torch._check does
        return
    if not holds:
        raise ShapeError(message(), fix=fix() if fix else None)


def decide(cond: SymBool | bool) -> bool | None:
    """``bool(cond)`` (a guard unless provable), or None when ``cond`` reads an unbacked size nothing decides.

    >>> decide(3 > 2)
    True
    """
    if not isinstance(cond, SymBool):
        return bool(cond)
    if known_true(cond):
        return True
    if known_false(cond):
        return False
    try:
        return bool(cond)
    except GuardOnDataDependentSymNode:
        return None


def smin(a: Any, b: Any) -> Any:
    """``min(a, b)`` without a guard: the provably smaller one, else ``Min(a, b)``.

    >>> smin(3, 5)
    3
    """
    if known_true(a <= b):
        return a
    if known_true(b <= a):
        return b
    return sym_min(a, b)


def smax(a: Any, b: Any) -> Any:
    """``max(a, b)`` without a guard: the provably larger one, else ``Max(a, b)``.

    >>> smax(3, 5)
    5
    """
    if known_true(a >= b):
        return a
    if known_true(b >= a):
        return b
    return sym_max(a, b)


def ceil_div(a: Any, b: Any) -> Any:
    """``ceil(a / b)`` for integers (Python semantics for negatives), as ``CeilDiv`` when symbolic.

    >>> ceil_div(7, 2), ceil_div(-7, 2)
    (4, -3)
    """
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    ua, ub = unwrap(a), unwrap(b)
    if ua is None or ub is None:
        raise ShapeEnvTypeError(f"ceil_div expects integers, got {a!r} and {b!r}")
    env = merge_envs(*(u[3] for u in (ua, ub) if u[3] is not None))
    hint = compute_hint(lambda x, y: -(-x // y), ua[1], ub[1])
    return wrap(build.ceildiv(ua[0], ub[0]), int, hint, env)


def prod(sizes: Iterable[Any]) -> Any:
    """The product of sizes (1 for none).

    >>> prod((2, 3, 4)), prod(())
    (24, 1)
    """
    out: Any = 1
    for s in sizes:
        out = out * s
    return out


def fmt_shape(shape: Sequence[Any]) -> str:
    """``[s0, 3]``: a shape as torch prints it in messages."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


# -- arguments ---------------------------------------------------------------------------------------
def canonical_dim(dim: Any, ndim: int, op: str, *, what: str = "dimension") -> int:
    """``dim`` in ``[0, ndim)`` (negative counts from the end; a 0-d tensor accepts -1 and 0).

    Raises:
        ShapeError: ``dim`` is not an int or is out of range.

    >>> canonical_dim(-1, 3, "sum")
    2
    """
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise ShapeError(f"{op}: {what} must be an int, got {dim!r}")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise ShapeError(f"{op}: {what} out of range (expected to be in range of [{-n}, {n - 1}], but got {dim}) "
                         f"for a {ndim}-d input",
                         fix=f"pass a {what} in [{-n}, {n - 1}], e.g. {what if what.endswith('dim') else 'dim'}=-1 for the last")
    return dim % n


def canonical_dims(dims: Any, ndim: int, op: str) -> list[int]:
    """A list of distinct canonical dims from an int or a sequence of ints.

    Raises:
        ShapeError: a dim is out of range or repeated.

    >>> canonical_dims((0, -1), 3, "sum")
    [0, 2]
    """
    items = [dims] if isinstance(dims, int) else list(dims)
    out = []
    for d in items:
        c = canonical_dim(d, ndim, op)
        if c in out:
            raise ShapeError(f"{op}: dim {c} appears multiple times in the list of dims {list(items)}")
        out.append(c)
    return out


def check_size(value: Any, op: str, what: str) -> Any:
    """Validate one size argument (an int or SymInt), returning it.

    Raises:
        ShapeError: a bool, float, tensor or other non-integer.
    """
    if isinstance(value, bool) or not isinstance(value, (int, SymInt)):
        raise ShapeError(f"{op}: {what} must be an int or SymInt, got {value!r} of type {type(value).__name__}")
    return value


def check_tensor(value: Any, op: str, what: str = "input") -> FakeTensor:
    """Validate a tensor argument, returning it.

    Raises:
        ShapeError: ``value`` is not a fake tensor.
    """
    if not is_tensor(value):
        fix = None
        if hasattr(value, "shape") and hasattr(value, "dtype"):  # a captured array: never print its data
            name = local_name(value, user_frame_object()) or "w"
            fix = (f"pass {name} as an input of the traced function instead of capturing it, so that it becomes a "
                   f"fake tensor: def fn(x, {name}): ...; export(fn, (x, {name})) (or f(x, {name}) if compiled)")
        raise ShapeError(f"{op}: {what} must be a FakeTensor, got {short_repr(value)}"
                         + ("" if fix else f" of type {type(value).__name__}"), fix=fix)
    return value


_KIND_RANK = {"bool": 0, "int": 1, "float": 2}


def check_inplace(op: str, target: FakeTensor, shape: Sequence[Any] | None = None, dtype: DType | None = None, *,
                  what: str = "", fix: str | None = None) -> None:
    """In-place ops: the broadcast ``shape`` must be ``target``'s (identical symbols or equal ints) and the
    result ``dtype`` must cast to ``target``'s (bool < int < float), as torch checks.

    Raises:
        ShapeError: ``target`` cannot hold the result (``what`` names the operand that broadcasts it).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3), "int64", name="x"); check_inplace("add_", x, x.shape, x.dtype)
    >>> try:
    ...     check_inplace("add_", x, (x.shape[0], 1, x.shape[1]))
    ... except ShapeError as e:
    ...     print(str(e).splitlines()[0])
    add_: output with shape [s0, s1] doesn't match the broadcast shape [s0, 1, s1]
    """
    if shape is not None and (len(shape) != target.ndim or any(
            s is not t and not (isinstance(s, int) and s == t) for s, t in zip(shape, target.shape))):
        raise ShapeError(f"{op}: output with shape {fmt_shape(target.shape)} doesn't match the broadcast shape "
                         f"{fmt_shape(shape)}" + (f" (the {what})" if what else ""), fix=fix)
    if dtype is not None and _KIND_RANK[dtype.kind] > _KIND_RANK[target.dtype.kind]:
        raise ShapeError(f"{op}: result type {dtype} can't be cast to the desired output type {target.dtype}")


def size_args(args: tuple, op: str) -> tuple:
    """Sizes given either as ``f(2, 3)`` or ``f((2, 3))``, validated.

    >>> size_args(((2, 3),), "view"), size_args((2, 3), "view")
    ((2, 3), (2, 3))
    """
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(check_size(a, op, f"size {i}") for i, a in enumerate(args))


def as_dtype_arg(dtype: Any, op: str) -> DType | None:
    """``dtype`` as a DType (None stays None)."""
    if dtype is None:
        return None
    try:
        return as_dtype(dtype)
    except TypeError as e:
        raise ShapeError(f"{op}: {getattr(e, 'message', e)}") from None  # the message without the inner error's location


# -- layouts -----------------------------------------------------------------------------------------
def is_contiguous(t: FakeTensor) -> bool:
    """Whether ``t`` is provably row-major contiguous (strides of size-1 dims do not matter); records nothing.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3))
    >>> is_contiguous(x), is_contiguous(x.t())
    (True, False)
    """
    if known_true(prod(t.shape) == 0):
        return True
    expected: Any = 1
    for size, stride in zip(reversed(t.shape), reversed(t.stride())):
        if known_true(size == 1):
            continue
        if not known_true(stride == expected):
            return layout.provably_row_major(t.shape, t.stride())  # e.g. empty's (Max(1, u1), 1)
        expected = expected * size
    return True


def like_strides(t: FakeTensor) -> tuple:
    """Strides of a new tensor "like" ``t`` (torch's ``preserve_format``): ``t``'s strides if it is
    non-overlapping and dense, else a dense layout in ``t``'s stride order (``infer_dense_strides``).
    Layout questions that are not provable are guarded (see :mod:`shapeenv.tensor.layout`).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3), dynamic=False)
    >>> like_strides(x.t()), like_strides(x[:, ::2])
    ((1, 3), (2, 1))
    """
    return layout.like_strides(t.shape, t.stride())


def make_view(t: FakeTensor, shape: Sequence[Any], stride: Sequence[Any], offset: Any = None) -> FakeTensor:
    """A view of ``t``: shares its storage (and so its version counter)."""
    return FakeTensor(t.env, tuple(shape), t.dtype, stride=tuple(stride), storage=t.storage,
                      storage_offset=t.storage_offset() if offset is None else offset)


def unsqueeze_view(t: FakeTensor, d: int) -> FakeTensor:
    """A view of ``t`` with a size-1 dim inserted at ``d`` (in ``[0, ndim]``), with torch's stride for it."""
    stride = 1 if d >= t.ndim else t.shape[d] * t.stride(d)
    return make_view(t, t.shape[:d] + (1,) + t.shape[d:], t.stride()[:d] + (stride,) + t.stride()[d:])


def new_tensor(env, shape: Sequence[Any], dtype: DType, stride: Sequence[Any] | None = None) -> FakeTensor:
    """A fresh tensor (new storage), row-major unless ``stride`` is given."""
    return FakeTensor(env, tuple(shape), dtype, stride=None if stride is None else tuple(stride))
