"""``ShapeTraceMode``: the ``TorchFunctionMode`` that sends every torch call of traced code to this library's rules.

While torch code runs under the mode, each call of a torch function, Tensor method,
operator or property reaches :meth:`ShapeTraceMode.__torch_function__` before any torch
kernel. The mode looks the callable up in the dispatch table
(:mod:`shapeenv.torch.table`), unwraps the arguments (:class:`~shapeenv.torch.tensor.TracedTensor`
-> fake tensor; a module's parameters and buffers -> their fake inputs; any other real
tensor -> a static fake constant; torch dtypes -> names), applies the op, and wraps the
fake results back into ``TracedTensor`` s. Calls that involve no tensor at all (grad
mode, default dtype, ...) run as they are; a call with tensors that nothing answers is an
:class:`~shapeenv.errors.UnsupportedTorchOpError` naming the op and the user's line.

Note [Why a TorchFunctionMode]
    ``__torch_function__`` on a tensor subclass sees only calls that have such a tensor
    among their arguments: ``torch.zeros(B, H)``, ``torch.arange(T)`` or ``F.linear`` on
    a real parameter would slip past it into torch's kernels. A mode sees every call,
    including factories and calls on real tensors, and it sees them at the highest level
    (``torch.nn.functional.layer_norm`` itself, not the ``aten`` ops it decomposes into),
    where torch's signatures match :mod:`shapeenv.ops`. ``__torch_dispatch__`` (below
    autograd, after torch's Python wrappers ran on concrete sizes) would be too late for
    SymInts that are not torch's. The wrapper subclass carries the fake tensor through
    ``isinstance(x, torch.Tensor)`` checks in torch's Python code. Sizes reach user code as
    ``torch.SymInt`` s over this library's SymInts (:mod:`shapeenv.torch.symbolic`) because
    torch's C++ argument parser checks argument types before any handler runs and takes
    no other symbolic int; :func:`~shapeenv.torch.tensor.unwrap` turns them back into this
    library's SymInts for the shape rules.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch
from torch.overrides import TorchFunctionMode

from symint import SymBool, SymFloat, SymInt

from shapeenv.errors import ShapeEnvError, UnsupportedTorchOpError
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.dispatch import describe, is_tensor
from shapeenv.hops.pytree import any_leaf
from shapeenv.torch.convert import TORCH_DIR, as_dtype, to_ours, torch_site, user_site
from shapeenv.torch.table import DEFAULT, TorchOpTable, adapt, torch_name
from shapeenv.torch.tensor import TracedTensor, unwrap, wrap

__all__ = ["ShapeTraceMode", "unsupported"]


class ShapeTraceMode(TorchFunctionMode):
    """Routes torch calls to shape rules (see the module docstring).

    Args:
        env: the ShapeEnv of the trace (fake tensors created for constants live there).
        params: ``id(real tensor) -> fake tensor`` for the module's parameters and buffers.
        table: the dispatch table (default: the process-wide one of :func:`register_torch_op`).
        exporting: the trace is an export (``torch.compiler.is_exporting()`` answers True in it,
            Note [Library trace paths] in :mod:`shapeenv.torch.hops`).

    Attributes:
        env, exporting: as given.
        device: the device of the call being handled (the first traced tensor's, or ``device=``).
    """

    def __init__(self, env, params: Mapping[int, Any] | None = None, table: TorchOpTable | None = None,
                 keep: tuple = (), exporting: bool = False):
        super().__init__()
        self.env = env
        self.exporting = exporting
        self.table = table if table is not None else DEFAULT
        self._params = dict(params or {})
        self._keep = keep  # the real tensors of _params, so their ids stay theirs during the trace
        self._constants: dict[int, tuple[torch.Tensor, FakeTensor]] = {}
        self._literals: dict[int, tuple[FakeTensor, int, Any]] = {}
        self.device = torch.device("cpu")

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        entry = self.table.lookup(func)
        if entry is None:
            if not _has_tensor(args) and not _has_tensor(kwargs):
                return _passthrough(func, args, kwargs)
            raise unsupported(func, args=args, kwargs=kwargs)
        name = torch_name(func)
        self.device = _device_of(args, kwargs)
        a, k = adapt(entry, name, unwrap(args, self.real), unwrap(kwargs, self.real))
        try:
            out = entry.fn(self, *a, **k) if entry.context else entry.fn(*a, **k)
        except ShapeEnvError as e:
            _relocate(e, name)
            if isinstance(e, TypeError):  # torch would turn it into NotImplemented inside an operator
                raise UnsupportedTorchOpError(f"{name}: {e.message}", op=name, fix=e.fix, where=e.where) from e
            raise
        except TypeError as e:
            raise UnsupportedTorchOpError(f"{name}: {entry.target} rejected the arguments: {e}", op=name,
                                          where=user_site(2)) from e
        if type(out) is tuple:
            out = _structseq(name, out)
        return wrap(out, self.device)

    def real(self, tensor: torch.Tensor) -> FakeTensor:
        """The fake tensor standing for a real one: a parameter's input, or a static constant (made once)."""
        fake = self._params.get(id(tensor))
        if fake is not None:
            return fake
        known = self._constants.get(id(tensor))
        if known is not None:
            return known[1]
        fake = FakeTensor(self.env, tuple(tensor.shape), as_dtype(to_ours(tensor.dtype)),
                          stride=tuple(tensor.stride()), storage_offset=tensor.storage_offset(), name=None)
        self._constants[id(tensor)] = (tensor, fake)  # keeps the tensor alive: its id stays its own
        return fake

    def remember_literal(self, fake: FakeTensor, data: Any) -> None:
        """``fake`` was made by ``torch.tensor(data)`` from Python numbers: :meth:`literal` answers ``data``.

        Note [Literal tensors]: torch's FakeTensor keeps the value of a tensor built from Python
        scalars, so ``torch.tensor([4096]).item()`` is ``4096`` under torch.export (transformers
        rebuilds a sliding-window cache layer that way). Here too, until an in-place op writes to
        the tensor (its storage's version moves); any other op's result has no value.
        """
        self._literals[id(fake)] = (fake, fake.version, data)

    def literal(self, fake: Any) -> Any:
        """The Python data ``fake`` was built from (see :meth:`remember_literal`), or None."""
        known = self._literals.get(id(fake))
        if known is None or known[0] is not fake or known[1] != fake.version:
            return None
        return known[2]

    @property
    def constants(self) -> tuple[torch.Tensor, ...]:
        """The real tensors the traced code used that are neither inputs nor parameters (lifted as constants)."""
        return tuple(t for t, _ in self._constants.values())


def _structseq(name: str, out: tuple) -> tuple:
    """``(values, indices)`` as torch returns it (``torch.return_types.max``: ``.values``, ``.indices``)."""
    kind = getattr(torch.return_types, name.rsplit(".", 1)[-1], None)
    if isinstance(kind, type) and getattr(kind, "n_fields", None) == len(out):
        return kind(out)
    return out


def _has_tensor(value: Any) -> bool:
    return any_leaf(lambda v: isinstance(v, torch.Tensor) or is_tensor(v), value)


def _has_symbolic(value: Any) -> bool:
    return any_leaf(lambda v: isinstance(v, (SymInt, SymBool, SymFloat)), value)


def _passthrough(func, args: tuple, kwargs: dict) -> Any:
    """A torch call without tensors (grad mode, default dtype, ...): run it, unless it needs our symbolic sizes."""
    if _has_symbolic(args) or _has_symbolic(kwargs):
        raise unsupported(func, "its arguments include symbolic sizes, which torch's own implementation cannot take",
                          args=args, kwargs=kwargs)
    return func(*args, **kwargs)


def _device_of(args: tuple, kwargs: dict) -> torch.device:
    device = kwargs.get("device")
    if device is not None:
        return torch.device(device) if not isinstance(device, torch.device) else device
    for a in args:
        if isinstance(a, TracedTensor):
            return a.fake_device
        if isinstance(a, torch.Tensor):
            return a.device
        if isinstance(a, (list, tuple)) and a and isinstance(a[0], TracedTensor):
            return a[0].fake_device
    return torch.device("cpu")


def _arg_text(value: Any) -> str:
    if isinstance(value, TracedTensor):
        return describe(value.fake)
    if isinstance(value, torch.Tensor):
        return f"tensor{list(value.shape)}"
    if isinstance(value, (list, tuple)) and len(value) <= 8:
        inner = ", ".join(_arg_text(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def unsupported(func, why: str | None = None, args: tuple = (), kwargs: dict | None = None) -> UnsupportedTorchOpError:
    """The error for a torch call nothing answers: the op and its arguments, the user's line, and how to add it."""
    name = torch_name(func)
    call_text = ", ".join([_arg_text(a) for a in args] + [f"{k}={_arg_text(v)}" for k, v in (kwargs or {}).items()])
    short = name.rsplit(".", 1)[-1]
    where = user_site(2)
    inside = torch_site(2)
    at = f" (inside {inside})" if inside and inside != where else ""
    reason = why or "no entry in the dispatch table and no shapeenv op of that name"
    return UnsupportedTorchOpError(
        f"shapeenv.torch cannot trace {name}({call_text}): {reason}{at}",
        op=name,
        where=where,
        fix=(f"add a shape rule of that name, which {name} then reaches by name: "
             f"@shapeenv.ops.registry.rule({short!r}) def {short}(...): return <a fake tensor built with shapeenv.ops>; "
             f"or map it to an adapter: shapeenv.torch.register_torch_op({name}, lambda *args, **kwargs: ...)"),
    )


def _relocate(error: ShapeEnvError, name: str) -> None:
    """Point an error raised inside torch's own code at the user's line (and say which torch op it was)."""
    where = error.where or ""
    if not where or where.startswith(TORCH_DIR):
        user = user_site(3)
        inside = torch_site(3)
        error.where = f"{user} (in {name}{', ' + inside if inside and inside != user else ''})" if user else where
