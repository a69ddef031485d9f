"""``compile``: a function behind a guarded compilation cache, like ``torch.compile`` for shapes.

``compile(fn)`` returns a :class:`CompiledFunction`. Call it with real arrays
(numpy arrays, torch tensors: anything with ``.shape`` and ``.dtype``), ints and
constants, or with shape specs (tuples, :class:`~shapeenv.program.program.TensorSpec`):

* it binds the input sizes and looks up a cache entry whose guard set accepts
  them, layout guards included: the strides it was traced for, so a transposed
  array does not reuse an entry traced for a contiguous one (the dispatch index
  of :class:`guards.runtime.cache.GuardedCache` hashes on the sizes entries pin, so
  lookup does not scan every entry);
* the entry also checks what its trace read besides the inputs: the globals, module
  attributes, closure cells and defaults of the user's code that ran, and the state
  of object arguments (:mod:`shapeenv.compile.reads`; Dynamo's GLOBAL, CLOSURE,
  ID_MATCH and EQUALS_MATCH guards); the key covers container types, lengths and
  keys, and arrays passed twice (:mod:`shapeenv.compile.binding`);
* on a hit it runs the entry's artifact on the real inputs (with shape specs it
  returns the output shapes);
* on a miss it traces ``fn`` with :func:`shapeenv.export.export`, passes the program to
  ``backend``, and caches the artifact with the program's guards. The reason
  (the first failed guard of each entry, ``x.size()[0] == 8 failed: got 9``) is
  kept: see :meth:`CompiledFunction.cache_info` and :func:`suggest_dynamic`.

Dynamism follows torch: the first call is traced static; a later call whose size
differs from the first call's in a dim recompiles with that dim dynamic
(automatic dynamic). ``dynamic=True`` makes every dim dynamic from the start,
``dynamic=False`` none; ``mark_dynamic``/``maybe_mark_dynamic``/``mark_static``
(:mod:`shapeenv.compile.marks`) and the ``dynamic_sources``/``static_sources``
whitelists override that (precedence in :mod:`shapeenv.compile.plan`). Stances
(:mod:`shapeenv.compile.stance`) switch to eager execution or make recompiles errors.

>>> import numpy as np
>>> f = compile(lambda x, y: x + y)
>>> f(np.ones(3), np.ones(3)).tolist()
[2.0, 2.0, 2.0]
>>> _ = f(np.ones(4), np.ones(4))              # the size changed: recompiled with dim 0 dynamic
>>> _ = f(np.ones(5), np.ones(5))              # served by that entry
>>> info = f.cache_info()
>>> len(info.entries), info.entries[1].reason.text
(2, 'x.size()[0] == 3 failed: got 4')
>>> print(info.entries[1].guards.to_text("source"))   # x + y needs equal sizes: a guard; strides as traced
y.size()[0] == x.size()[0]
x.size()[0] >= 2
x.stride()[0] == 1
y.stride()[0] == 1
>>> f((6,), (6,))                              # shape specs: the output shapes
(6,)
"""

from __future__ import annotations

from typing import Callable, Sequence

from shapeenv.compile.marks import SourcePatterns
from shapeenv.compile.binding import describe_key
from shapeenv.compile.budget import Fallback, GuardBudget
from shapeenv.compile.errors import RecompileError, RecompileLimitWarning, UnguardedReadWarning
from shapeenv.compile.function import Backend, CompiledFunction
from shapeenv.compile.info import CacheInfo, EntryInfo, RecompileReason, Suggestion, suggest_dynamic
from shapeenv.compile.persist import StorableBackend
from shapeenv.compile.plan import CompileOptions

__all__ = [
    "compile",
    "CompiledFunction",
    "CompileOptions",
    "CacheInfo",
    "EntryInfo",
    "RecompileReason",
    "Suggestion",
    "suggest_dynamic",
    "RecompileError",
    "RecompileLimitWarning",
    "UnguardedReadWarning",
    "Backend",
    "StorableBackend",
    "GuardBudget",
    "Fallback",
    "describe_key",
]


def compile(  # noqa: A001 - the name mirrors torch.compile
    fn: Callable | None = None,
    *,
    dynamic: bool | None = None,
    backend: Backend | None = None,
    recompile_limit: int = 8,
    dynamic_sources: str | Sequence[str] | None = None,
    static_sources: str | Sequence[str] | None = None,
    name: str | None = None,
    store=None,
    budget: GuardBudget | None = None,
) -> "CompiledFunction | Callable[[Callable], CompiledFunction]":
    """Put ``fn`` behind a guarded compilation cache (see the module docstring).

    Args:
        fn: the function; it uses :mod:`shapeenv.ops`, tensor methods and the higher-order ops,
            so it can be traced on fake tensors. Omit it to use ``compile(...)`` as a decorator.
        dynamic: None: automatic dynamic (static first, a dim becomes dynamic once it changes);
            True: every dim and int dynamic from the first call; False: never (except marks
            and ``dynamic_sources``).
        backend: takes the traced :class:`~shapeenv.program.program.ExportedProgram` and returns the
            artifact to cache (default: the program itself). A callable artifact is called with
            the real arguments; otherwise ``fn`` runs eagerly on them.
        recompile_limit: how many compilations at most; past it, calls no entry accepts run
            eagerly, with a :class:`RecompileLimitWarning` saying what to mark dynamic.
        dynamic_sources / static_sources: comma-separated source names or regexes (``x``,
            ``x.size()[0]``, ``L['x']``, ``x:0`` for one dim) to trace dynamic / static; they
            beat ``dynamic=``, and ``static_sources`` beats ``dynamic_sources``.
        name: the name in messages and programs (default: ``fn.__name__``).
        store: a :mod:`shapeenv.stores` store (``DiskStore(path)``, ``RedisStore(url)``,
            ``MemoryStore()``) to load entries from and save them to, keyed by the function's
            fingerprint (see :mod:`shapeenv.compile.persist`); None: this process only.
        budget: a :class:`GuardBudget`: limits on guards and recompiles, with fallbacks
            (see :mod:`shapeenv.compile.budget`).

    Returns:
        A :class:`CompiledFunction` (or a decorator making one, when ``fn`` is omitted).

    Raises:
        TypeError / ValueError: bad options (the message says which).

    >>> import numpy as np
    >>> @compile(dynamic=True)
    ... def double(x):
    ...     return x * 2
    >>> double(np.arange(3)).tolist()
    [0, 2, 4]
    >>> print(double.cache_info().entries[0].guards.to_text("source"))
    x.size()[0] >= 2
    x.stride()[0] == 1
    """
    title = name or getattr(fn, "__name__", None) or type(fn).__name__
    if fn is None:
        def decorate(f: Callable) -> CompiledFunction:
            return compile(f, dynamic=dynamic, backend=backend, recompile_limit=recompile_limit,
                           dynamic_sources=dynamic_sources, static_sources=static_sources, name=name,
                           store=store, budget=budget)
        return decorate
    options = CompileOptions(
        "lambda" if title == "<lambda>" else title,
        dynamic,
        SourcePatterns.parse(dynamic_sources),
        SourcePatterns.parse(static_sources),
        recompile_limit,
    )
    return CompiledFunction(fn, options, backend, store, budget)
