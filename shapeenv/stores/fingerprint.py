"""The fingerprint of a compiled function: what its stored entries are keyed by.

Note [What the fingerprint covers]
    Two processes may share an entry only if tracing would decide the same in both.
    The fingerprint is a SHA-256 over:

    * the library: its version, the stored formats, and a digest of the source files
      of ``symint``, ``valueranges``, ``guards`` and ``shapeenv`` (any change of the
      library, even without a version bump, starts a new set of entries);
    * the function: its qualified name and its code object recursively (bytecode,
      constants, names, nested functions' code), defaults and keyword defaults;
    * what the code reads from outside: the values of its closure cells and of the
      globals it names, recursively for functions it calls. Plain values (numbers,
      strings, tuples, dicts...) are hashed by value, arrays by dtype, shape and bytes,
      library objects by name (the library digest covers them), modules of other
      installed packages by name and version, and a user module (a file outside
      ``site-packages`` and the standard library) by the digest of its source file;
    * the settings: the compile options that change a trace (``dynamic``, the source
      patterns, the guard budget, the name) and the backend's stored name.

    A value none of these rules covers (an arbitrary object in a closure) makes the
    function *unfingerprintable*: :func:`function_fingerprint` raises
    :class:`Unfingerprintable` naming it, and the compiled function then stores
    nothing (it warns once). Builtins are assumed stable.

>>> def f(x):
...     return x + 1
>>> def g(x):
...     return x + 2
>>> function_fingerprint(f, {}) == function_fingerprint(f, {}), function_fingerprint(f, {}) == function_fingerprint(g, {})
(True, False)
"""

from __future__ import annotations

import enum
import functools
import hashlib
import os
import sys
import sysconfig
import types
from pathlib import Path
from typing import Any, Callable, Mapping

import guards
import symint
import valueranges

from ..errors import ShapeEnvError
from ..program_io import FORMAT as PROGRAM_FORMAT
from .entry import ENTRY_FORMAT, canonical_json

__all__ = ["Unfingerprintable", "function_fingerprint", "library_digest", "LIBRARY_VERSION"]

#: The library version that goes into every fingerprint.
LIBRARY_VERSION = "0.1.0"

_LIBRARY_ROOTS = tuple(Path(m.__file__).resolve().parent for m in (symint, valueranges, guards)) + (
    Path(__file__).resolve().parents[1],
)
_LIBRARY_PACKAGES = ("symint", "valueranges", "guards", "shapeenv")
_STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()


class Unfingerprintable(ShapeEnvError, TypeError):
    """A function reads a value whose content cannot be fingerprinted (see Note [What the fingerprint covers])."""


@functools.lru_cache(maxsize=1)
def library_digest() -> str:
    """SHA-256 of the library's source files (computed once per process: the files do not change under it).

    >>> len(library_digest())
    64
    """
    h = hashlib.sha256()
    for root in _LIBRARY_ROOTS:
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            files += [os.path.join(dirpath, f) for f in filenames if f.endswith(".py")]
        prefix = len(str(root.parent)) + 1
        for path in sorted(files):
            h.update(path[prefix:].encode())
            with open(path, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


@functools.lru_cache(maxsize=256)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _is_library(module_name: str | None) -> bool:
    return bool(module_name) and module_name.split(".")[0] in _LIBRARY_PACKAGES


class _Hasher:
    def __init__(self) -> None:
        self.seen: dict[int, int] = {}  # id -> position, for cycles (recursive functions)
        self.keep: list[Any] = []

    def value(self, v: Any, where: str) -> Any:
        if v is None or isinstance(v, (bool, int, str)):
            return [type(v).__name__, v]
        if isinstance(v, (float, complex, bytes)):
            return [type(v).__name__, repr(v)]
        if isinstance(v, (tuple, list)):
            return [type(v).__name__, [self.value(x, f"{where}[{i}]") for i, x in enumerate(v)]]
        if isinstance(v, (set, frozenset)):
            return [type(v).__name__, sorted((self.value(x, where) for x in v), key=canonical_json)]
        if isinstance(v, dict):
            items = [[self.value(k, where), self.value(x, f"{where}[{k!r}]")] for k, x in v.items()]
            return ["dict", sorted(items, key=canonical_json)]
        if isinstance(v, enum.Enum):
            return ["enum", type(v).__module__, type(v).__qualname__, v.name]
        if isinstance(v, types.ModuleType):
            return self.module(v)
        if isinstance(v, types.CodeType):
            return self.code(v, where)
        if isinstance(v, type):
            return self.named(v, where)
        if isinstance(v, types.FunctionType):
            return self.function(v, where)
        if isinstance(v, types.MethodType):
            return ["method", self.value(v.__func__, where), self.value(v.__self__, f"{where}.__self__")]
        if isinstance(v, (types.BuiltinFunctionType, types.BuiltinMethodType)):
            owner = getattr(v, "__self__", None)
            if owner is not None and not isinstance(owner, types.ModuleType):
                return ["builtin method", self.value(owner, where), v.__name__]
            return ["builtin", getattr(v, "__module__", None), v.__qualname__]
        if isinstance(v, functools.partial):
            return ["partial", self.value(v.func, where), self.value(v.args, where), self.value(v.keywords, where)]
        wrapped = getattr(v, "__wrapped__", None)
        if wrapped is not None and isinstance(wrapped, types.FunctionType):  # e.g. a CompiledFunction
            return ["wrapper", type(v).__module__, type(v).__qualname__, self.function(wrapped, where)]
        if hasattr(v, "tobytes") and hasattr(v, "shape") and hasattr(v, "dtype"):
            data = v.tobytes()
            return ["array", str(v.dtype), list(map(int, v.shape)), hashlib.sha256(data).hexdigest()]
        if _is_library(type(v).__module__):
            return ["library value", type(v).__module__, type(v).__qualname__, repr(v)]
        raise Unfingerprintable(
            f"{where} is a {type(v).__qualname__} object ({v!r:.80}), whose content cannot be fingerprinted; "
            "pass it to the function as an input, or make it a plain value (number, string, tuple, array)"
        )

    def module(self, m: types.ModuleType) -> Any:
        name = m.__name__
        if _is_library(name):
            return ["module", name]
        top = sys.modules.get(name.split(".")[0])
        version = getattr(top, "__version__", None)
        file = getattr(m, "__file__", None)
        if file is None or name in sys.builtin_module_names:
            return ["module", name, version]
        path = Path(file).resolve()
        installed = any(p in ("site-packages", "dist-packages") for p in path.parts) or _STDLIB in path.parents
        if installed:
            return ["module", name, str(version)]
        stat = path.stat()
        return ["module", name, _file_digest(str(path), stat.st_mtime_ns, stat.st_size)]

    def named(self, cls: type, where: str) -> Any:
        module = sys.modules.get(cls.__module__)
        origin = self.module(module) if module is not None else [cls.__module__]
        return ["class", cls.__qualname__, origin]

    def code(self, co: types.CodeType, where: str) -> Any:
        consts = [self.code(c, where) if isinstance(c, types.CodeType) else self.value(c, f"{where} constant")
                  for c in co.co_consts]
        return ["code", co.co_name, co.co_code.hex(), consts, list(co.co_names), list(co.co_varnames),
                list(co.co_freevars), list(co.co_cellvars), co.co_argcount, co.co_kwonlyargcount, co.co_flags]

    def function(self, fn: types.FunctionType, where: str) -> Any:
        if _is_library(fn.__module__):
            return ["library function", fn.__module__, fn.__qualname__]
        if id(fn) in self.seen:
            return ["recursive", self.seen[id(fn)]]
        self.seen[id(fn)] = len(self.seen)
        self.keep.append(fn)
        name = f"{fn.__module__}.{fn.__qualname__}"
        closure = []
        for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell (a name assigned later)
                contents = None
            closure.append([var, self.value(contents, f"{name}: closure variable {var!r}")])
        globals_ = []
        for gname in sorted(_global_names(fn.__code__)):
            if gname in fn.__globals__:
                globals_.append([gname, self.value(fn.__globals__[gname], f"{name}: global {gname!r}")])
        # The module's name is left out: a script run as __main__ and imported as a module is the same function.
        return ["function", fn.__qualname__, self.code(fn.__code__, name),
                self.value(fn.__defaults__, f"{name}: defaults"), self.value(fn.__kwdefaults__, f"{name}: defaults"),
                closure, globals_]


def _global_names(co: types.CodeType) -> set[str]:
    names = set(co.co_names)
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            names |= _global_names(c)
    return names


def function_fingerprint(fn: Callable, settings: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``fn`` and ``settings`` (Note [What the fingerprint covers]).

    Args:
        fn: the function (a plain function, a method, a partial, a callable object whose class is a library class).
        settings: JSON-ready trace settings.

    Raises:
        Unfingerprintable: ``fn`` reads a value that cannot be fingerprinted (the message names it).

    >>> k = 3
    >>> function_fingerprint(lambda x: x * k, {"dynamic": None}) != function_fingerprint(lambda x: x * k, {"dynamic": True})
    True
    """
    h = _Hasher()
    target = fn.__wrapped__ if isinstance(getattr(fn, "__wrapped__", None), types.FunctionType) else fn
    described = h.value(target, getattr(fn, "__qualname__", type(fn).__qualname__))
    doc = {
        "library": [LIBRARY_VERSION, PROGRAM_FORMAT, ENTRY_FORMAT, library_digest()],
        "function": described,
        "settings": dict(settings),
    }
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()
