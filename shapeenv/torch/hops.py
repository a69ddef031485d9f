"""torch's higher-order ops while tracing: ``torch.cond`` -> switch, torch's ``scan`` -> scan, ``map`` -> map.

torch's ``cond``, ``scan`` and ``map`` (``torch._higher_order_ops``) validate and flatten
their arguments in Python and then call a higher-order operator (``cond_op``,
``scan_op``, ``map_impl``). In eager mode they do so through ``torch.compile``
(``torch._higher_order_ops.utils._hop_compile_and_call``), which cannot trace this
library's values. While a trace runs, :func:`patched` replaces that one helper by a plain
call on the tracing thread, so the operator itself is called, reaches the function mode
like any torch op (a higher-order operator honours ``TorchFunctionMode``), and is answered
here:

* ``cond_op(pred, true_fn, false_fn, operands)`` -> ``switch(index, [false_fn, true_fn], operands)``
  with ``index`` 1 where ``pred`` holds: ``sym_ite(pred, 1, 0)`` for a SymBool, the int64
  conversion of a bool tensor (a Python bool never gets here: torch runs one branch);
* ``scan_op(combine_fn, init, xs, additional_inputs)`` -> :func:`shapeenv.ops.scan`, the carry
  and outputs rebuilt in the structure ``combine_fn`` returns them;
* ``map_impl(f, xs, args)`` -> :func:`shapeenv.ops.map`.

``torch._check(cond, message)`` becomes :func:`shapeenv.check` (a runtime assert) and
``torch._check_is_size(n)`` ``check(n >= 0)``, for this library's symbolic conditions.
``torch.compiler.is_compiling()`` is True on the tracing thread (so are ``torch._dynamo.is_compiling()``
and ``torch._utils.is_compiling()``, which call it), and ``torch.compiler.is_exporting()`` is True
there when the trace is an export (Note [Library trace paths]).
Branch and body functions are torch code: they run on
:class:`~shapeenv.torch.tensor.TracedTensor` s under the same mode.

Note [Patching torch during a trace]
    ``_hop_compile_and_call``, ``torch._check`` and ``torch._check_is_size`` are replaced
    process-wide while any trace runs (reference-counted: the originals come back when the
    last trace ends). On a thread that is not tracing, the replacements call the originals
    with the same arguments, so other threads see torch's behaviour. Because the patched
    helper is looked up at call time, ``from torch._higher_order_ops import scan`` bound
    before the trace is intercepted too.

Note [Library trace paths]
    Libraries skip data-dependent work when torch traces them: transformers' ``masking_utils``
    asks ``torch.compiler.is_compiling()`` before ``_ignore_causal_mask_sdpa`` or
    ``find_packed_sequence_indices`` would call ``bool()`` on a mask, so under torch's
    export and compile it builds the mask symbolically. A trace here must take the same path:
    on the tracing thread, ``is_compiling()`` answers True (export and compile) and
    ``is_exporting()`` answers ``mode.exporting`` (export only), as under torch's own entry points.
    torch 2.13 keeps both answers in module globals (``torch.compiler._is_compiling_flag`` and
    ``_is_exporting_flag``, set by ``torch._export.utils._compiling_state_context`` and
    ``torch.compiler._compile_session_context``); those switches are process-wide, so another
    thread running eager torch during the trace would take the traced path too. torch offers no
    per-thread switch, so the two readers are replaced while a trace runs, as the Note above
    says: off the tracing thread they call torch's functions (and read torch's flags), so a
    concurrent eager thread sees False and a concurrent ``torch.export`` sees its own True.
    ``torch._dynamo.is_compiling`` and ``torch._utils.is_compiling`` look
    ``torch.compiler.is_compiling`` up at call time and follow. What this cannot cover: code
    that bound ``from torch.compiler import is_compiling`` before the trace (none in
    transformers 5.24 or torch 2.13), and Dynamo compiling on another thread during a trace
    (it recognises these functions by identity and would inline the replacement).
    Data-dependent checks that libraries keep on the traced path (``if mask.all():``) still
    raise :class:`~shapeenv.errors.ShapeError` naming the line.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
from typing import Any, Iterator

import torch
import torch.utils._pytree as pytree

import symint
from symint import SymBool

from shapeenv.api import check
from shapeenv.hops import map as se_map
from shapeenv.hops import scan as se_scan
from shapeenv.hops import switch as se_switch
from shapeenv.ops.dispatch import call
from shapeenv.torch.symbolic import to_ours
from shapeenv.torch.table import DEFAULT, Entry
from shapeenv.torch.tensor import TracedTensor, unwrap, wrap

__all__ = ["patched", "active_mode"]

_local = threading.local()
_lock = threading.Lock()
_installed: list = []  # [(owner, attribute, original)] while any trace runs
_depth = [0]


def active_mode():
    """The :class:`~shapeenv.torch.mode.ShapeTraceMode` of the trace running on this thread, or None.

    >>> active_mode() is None   # no trace runs here
    True
    """
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


def _branch(ctx, fn):
    """A torch function of tensors as a function of fake values (wraps its arguments, unwraps its result)."""

    def body(*args):
        with ctx:  # the mode is off while it handles the operator: back on for the branch's torch code
            return unwrap(fn(*wrap(args, ctx.device)), ctx.real)

    body.__name__ = getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", "body")
    return body


def _cond_op(ctx, pred, true_fn, false_fn, operands=()):
    if isinstance(pred, (bool, int)):
        return _branch(ctx, true_fn if pred else false_fn)(*operands)
    index = symint.sym_ite(pred, 1, 0) if isinstance(pred, SymBool) else call("to", pred, "int64")
    return se_switch(index, [_branch(ctx, false_fn), _branch(ctx, true_fn)], tuple(operands))


def _scan_op(ctx, combine_fn, init, xs, additional_inputs=()):
    init, xs, extra = list(init), list(xs), tuple(additional_inputs)
    n = len(init)
    specs: list = []

    def combine(carry, x):
        with ctx:
            out = combine_fn(*wrap(list(carry), ctx.device), *wrap(list(x), ctx.device), *wrap(extra, ctx.device))
        if not specs and isinstance(out, (tuple, list)) and len(out) == 2:
            specs.extend([pytree.tree_flatten(out[0])[1], pytree.tree_flatten(out[1])[1]])
        leaves = [unwrap(v, ctx.real) for v in pytree.tree_leaves(out)]
        return leaves[:n], leaves[n:]

    combine.__name__ = getattr(getattr(combine_fn, "keywords", {}).get("combine_fn"), "__name__", "combine_fn")
    carry, ys = se_scan(combine, init, xs)
    if len(specs) == 2 and specs[0].num_leaves == len(carry) and specs[1].num_leaves == len(ys):
        return pytree.tree_unflatten(list(carry), specs[0]), pytree.tree_unflatten(list(ys), specs[1])
    return carry, ys


def _map_impl(ctx, f, xs, args):
    def body(x, *rest):
        with ctx:
            return unwrap(f(*wrap(list(x), ctx.device), *wrap(list(rest), ctx.device)), ctx.real)

    body.__name__ = getattr(getattr(f, "keywords", {}).get("f"), "__name__", "f")
    return se_map(body, list(xs), *list(args))


def _register_operators() -> None:
    import torch._higher_order_ops  # noqa: F401  (loads the operators)

    for module, name, fn in (("torch._higher_order_ops.cond", "cond_op", _cond_op),
                             ("torch._higher_order_ops.scan", "scan_op", _scan_op),
                             ("torch._higher_order_ops.map", "map_impl", _map_impl)):
        op = getattr(sys.modules.get(module), name, None)
        if op is not None:
            DEFAULT.register(op, Entry(fn, f"shapeenv.ops.{fn.__name__.strip('_').split('_')[0]}", context=True))


_register_operators()


# -- the patches (Note [Patching torch during a trace]) -------------------------------------------------
def _compile_and_call(original):
    def _hop_compile_and_call(fn, args, kwargs=None):
        if active_mode() is None:
            return original(fn, args, kwargs)
        return fn(*args, **(kwargs or {}))

    return _hop_compile_and_call


def _check(original):
    def _torch_check(cond, message=None):
        ours = to_ours(cond)
        if active_mode() is None or not isinstance(ours, SymBool):
            return original(cond, message) if message is not None else original(cond)
        check(ours, message() if callable(message) else message)

    return _torch_check


def _check_is_size(original):
    def _torch_check_is_size(i, message=None):
        ours = to_ours(i)
        if active_mode() is None or not isinstance(ours, symint.SymInt):
            return original(i, message) if message is not None else original(i)
        check(ours >= 0, message() if callable(message) else message)

    return _torch_check_is_size


def _is_compiling(original):
    @functools.wraps(original)
    def is_compiling() -> bool:
        return True if active_mode() is not None else original()

    return is_compiling


def _is_exporting(original):
    @functools.wraps(original)
    def is_exporting() -> bool:
        mode = active_mode()
        return bool(mode.exporting) if mode is not None else original()

    return is_exporting


def _targets() -> list[tuple[Any, str, Any]]:
    """``(owner, attribute, make_replacement)``."""
    utils = sys.modules["torch._higher_order_ops.utils"]
    out = [(utils, "_hop_compile_and_call", _compile_and_call), (torch, "_check", _check),
           (torch, "_check_is_size", _check_is_size),
           (torch.compiler, "is_compiling", _is_compiling), (torch.compiler, "is_exporting", _is_exporting)]
    return [(owner, attr, make) for owner, attr, make in out if hasattr(owner, attr)]


@contextlib.contextmanager
def patched(mode) -> Iterator[None]:
    """Run the block with ``mode`` as this thread's trace, torch patched as the Note says."""
    with _lock:
        if _depth[0] == 0:
            for owner, attr, make in _targets():
                original = getattr(owner, attr)
                _installed.append((owner, attr, original))
                setattr(owner, attr, make(original))
        _depth[0] += 1
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    stack.append(mode)
    try:
        yield
    finally:
        stack.pop()
        with _lock:
            _depth[0] -= 1
            if _depth[0] == 0:
                for owner, attr, original in reversed(_installed):
                    setattr(owner, attr, original)
                _installed.clear()
