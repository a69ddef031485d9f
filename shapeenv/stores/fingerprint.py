"""The fingerprint of a compiled function: what its stored entries are keyed by.

Note [What the fingerprint covers]
    Two processes may share an entry only if tracing would decide the same in both.
    The fingerprint is a SHA-256 over:

    * the library: its version, the stored formats, and a digest of the source files
      of ``symint``, ``valueranges``, ``guards`` and ``shapeenv`` (any change of the
      library, even without a version bump, starts a new set of entries);
    * the function and every wrapper around it: a ``functools.wraps`` wrapper is hashed
      as itself (its code and closure) and so is what it wraps (the ``__wrapped__``
      chain), so a wrapper never shares the entries of the plain function;
    * the code: its qualified name and its code object recursively (bytecode,
      constants, names, nested functions' code), defaults and keyword defaults;
    * the state the code reads, by value: its closure cells, the globals it names,
      and, of a user module it reads (``settings.SCALE``), the module's attributes the
      code names, recursively for the functions and classes it calls. Plain values
      (numbers, strings, tuples, dicts...) are hashed by value, arrays by dtype, shape
      and bytes, an object of a user class by its class and its ``__dict__``, a user
      class (a file's or a ``__main__`` without one: Jupyter, ``python -c``) by its
      body (methods by their code, attributes by value) and bases. Library objects
      are hashed by name (the library digest covers them), modules, classes and
      functions of installed packages and of the standard library by name and the
      package's version. No file is read nor stat-ed: a module imported from a zip, a
      script read from stdin and one changed on disk after import are all hashed by
      what the process holds;
    * the settings: the compile options that change a trace (``dynamic``, the source
      patterns, the guard budget, the name) and the backend's stored name.

    A value none of these rules covers (an open file or a lock in a closure, a torch
    module) makes the function *unfingerprintable*: :func:`function_fingerprint` raises
    :class:`Unfingerprintable` naming it, and the compiled function then stores
    nothing (it warns once). Builtins are assumed stable. What is not covered: an
    attribute read by a name the code does not spell (``getattr(cfg, name)``), and
    dunder entries of a class body that are neither functions nor plain values
    (``__dataclass_fields__``: what they describe is in the generated methods).

Note [A fingerprint per miss]
    The state a function reads can change at any time (``SCALE = 3``), so a compiled
    function computes its fingerprint again on every miss of its in-process cache,
    before it looks in the store, and saves what it then traces under that
    fingerprint (:mod:`shapeenv.compile.persist`); a cached fingerprint would file an
    entry traced after a change under the state before it. Hits never compute it.
    The costly, unchanging part, the digest of each code object, is kept in a
    :class:`CodeDigests` memo on the compiled function (code objects are immutable);
    the values read are hashed afresh each time.

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

from shapeenv.core.provenance import code_names
from shapeenv.errors import ShapeEnvError
from shapeenv.program.io import FORMAT as PROGRAM_FORMAT
from shapeenv.stores.entry import ENTRY_FORMAT, canonical_json

__all__ = ["Unfingerprintable", "function_fingerprint", "library_digest", "LIBRARY_VERSION", "CodeDigests"]

#: The library version that goes into every fingerprint.
LIBRARY_VERSION = "0.1.0"

_LIBRARY_ROOTS = tuple(Path(m.__file__).resolve().parent for m in (symint, valueranges, guards)) + (
    Path(__file__).resolve().parents[1],
)
_LIBRARY_PACKAGES = ("symint", "valueranges", "guards", "shapeenv")
_STDLIB = os.path.normcase(os.path.abspath(sysconfig.get_paths()["stdlib"])) + os.sep
#: Entries of a class body that say nothing about its behaviour (or are the class itself).
_CLASS_NOISE = frozenset({"__dict__", "__weakref__", "__module__", "__doc__", "__qualname__", "__firstlineno__",
                          "__static_attributes__"})
_WRAPPER_DEPTH = 64


class Unfingerprintable(ShapeEnvError, TypeError):
    """A function reads a value whose content cannot be fingerprinted (see Note [What the fingerprint covers])."""


class CodeDigests:
    """The hashed form of each code object seen, for one compiled function (Note [A fingerprint per miss]).

    >>> memo, code = CodeDigests(), (lambda x: x).__code__
    >>> memo.put(code, ["code"]); memo.get(code), len(memo)
    (['code'], 1)
    """

    def __init__(self) -> None:
        self._memo: dict[int, tuple[types.CodeType, Any]] = {}  # id -> (the code, kept alive; its form)

    def get(self, co: types.CodeType) -> Any:
        hit = self._memo.get(id(co))
        return hit[1] if hit is not None and hit[0] is co else None

    def put(self, co: types.CodeType, form: Any) -> None:
        self._memo[id(co)] = (co, form)

    def __len__(self) -> int:
        return len(self._memo)


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


def _is_library(module_name: Any) -> bool:
    return isinstance(module_name, str) and module_name.split(".")[0] in _LIBRARY_PACKAGES


def _installed(module_name: Any) -> bool:
    """Whether a module is of the standard library or an installed package (hashed by name and version).

    Decided from the module's name and its ``__file__`` string only (no file system access).
    """
    if not isinstance(module_name, str):
        return False
    top = module_name.split(".")[0]
    if top in sys.builtin_module_names or top in sys.stdlib_module_names:
        return True
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return False  # a user module without a file: __main__ in Jupyter or python -c, a namespace package
    path = os.path.normcase(os.path.abspath(file))
    return path.startswith(_STDLIB) or any(p in ("site-packages", "dist-packages") for p in path.split(os.sep))


def _version(module_name: str) -> Any:
    top = sys.modules.get(module_name.split(".")[0])
    version = getattr(top, "__version__", None)
    return version if isinstance(version, str) else None


_ABSENT = object()  # what a read gives for a name that is gone


def _global_read(g: dict, name: str) -> Callable[[], Any]:
    return lambda: g.get(name, _ABSENT)


def _cell_read(cell: types.CellType) -> Callable[[], Any]:
    def read() -> Any:
        try:
            return cell.cell_contents
        except ValueError:
            return _ABSENT

    return read


def _attr_read(owner: Any, name: str) -> Callable[[], Any]:
    return lambda: getattr(owner, name, _ABSENT)


class _Hasher:
    def __init__(self, codes: CodeDigests) -> None:
        self.seen: dict[int, int] = {}  # id -> position, for cycles (recursive functions, classes, objects)
        self.keep: list[Any] = []
        self.codes = codes
        # Note [Reads behind a fingerprint]: each top-level value the fingerprint hashed, as
        # (what, read again, value): a stored entry loaded under this fingerprint is served on later
        # calls only while every read still gives the same value (shapeenv.compile.persist).
        self.reads: list[tuple[str, Callable[[], Any], Any]] = []

    def _enter(self, v: Any) -> int | None:
        """The position of ``v`` if it was seen before (a cycle), else None after recording it."""
        if id(v) in self.seen:
            return self.seen[id(v)]
        self.seen[id(v)] = len(self.seen)
        self.keep.append(v)
        return None

    def value(self, v: Any, where: str, names: frozenset[str] = frozenset()) -> Any:
        """The hashed form of ``v``; ``names``: the names the code reading ``v`` spells (for module attributes)."""
        if v is None or isinstance(v, (bool, int, str)):
            return [type(v).__name__, v if type(v) in (bool, int, str, type(None)) else repr(v)]
        if isinstance(v, (float, complex, bytes)):
            return [type(v).__name__, repr(v)]
        if isinstance(v, (tuple, list)):
            return [type(v).__name__, [self.value(x, f"{where}[{i}]", names) for i, x in enumerate(v)]]
        if isinstance(v, (set, frozenset)):
            return [type(v).__name__, sorted((self.value(x, where, names) for x in v), key=canonical_json)]
        if isinstance(v, dict):  # a defaultdict's factory answers the keys it lacks
            items = [[self.value(k, where), self.value(x, f"{where}[{k!r}]", names)] for k, x in v.items()]
            factory = getattr(v, "default_factory", None)
            return ["dict", sorted(items, key=canonical_json), None if factory is None else self.value(factory, where)]
        if isinstance(v, enum.Enum):
            return ["enum", self.named(type(v), where), v.name]
        if isinstance(v, types.ModuleType):
            return self.module(v, where, names)
        if isinstance(v, types.CodeType):
            return self.code(v, where)
        if isinstance(v, type):
            return self.named(v, where)
        if isinstance(v, types.FunctionType):
            return self.function(v, where)
        if isinstance(v, types.MethodType):
            return ["method", self.value(v.__func__, where), self.value(v.__self__, f"{where}.__self__", names)]
        if isinstance(v, (types.BuiltinFunctionType, types.BuiltinMethodType)):
            owner = getattr(v, "__self__", None)
            if owner is not None and not isinstance(owner, types.ModuleType):
                return ["builtin method", self.value(owner, where), v.__name__]
            return ["builtin", getattr(v, "__module__", None), v.__qualname__]
        if isinstance(v, functools.partial):
            return ["partial", self.value(v.func, where), self.value(v.args, where), self.value(v.keywords, where)]
        if isinstance(v, (staticmethod, classmethod)):
            return [type(v).__name__, self.value(v.__func__, where)]
        if isinstance(v, property):
            return ["property", self.value(v.fget, where), self.value(v.fset, where), self.value(v.fdel, where)]
        if _is_numpy_dtype(v):
            return ["numpy dtype", repr(v)]
        if hasattr(v, "tobytes") and hasattr(v, "shape") and hasattr(v, "dtype"):
            data = v.tobytes()
            return ["array", str(v.dtype), list(map(int, v.shape)), hashlib.sha256(data).hexdigest()]
        if _user_instance(v):
            return self.instance(v, where)
        wrapped = getattr(v, "__wrapped__", None)
        if wrapped is not None:  # a library's wrapper (a CompiledFunction, an lru_cache): what it wraps
            return ["wrapper", self.named(type(v), where), self.value(wrapped, f"{where}.__wrapped__")]
        if _is_library(type(v).__module__):
            return ["library value", type(v).__module__, type(v).__qualname__, repr(v)]
        raise Unfingerprintable(
            f"{where} is a {type(v).__qualname__} object ({_short_repr(v)}), whose content cannot be fingerprinted; "
            "pass it to the function as an input, or make it a plain value (number, string, tuple, array)"
        )

    def module(self, m: types.ModuleType, where: str, names: frozenset[str]) -> Any:
        name = m.__name__
        if _is_library(name):
            return ["module", name]
        if _installed(name):
            return ["module", name, _version(name)]
        # A user module: the values of the attributes the code names (Note [What the fingerprint covers]).
        state = vars(m)
        self.reads.extend((f"{name}.{a}", _global_read(state, a), state[a]) for a in sorted(names) if a in state)
        return ["user module", [[a, self.value(state[a], f"{name}.{a}", names)] for a in sorted(names) if a in state]]

    def named(self, cls: type, where: str) -> Any:
        module = getattr(cls, "__module__", None)
        if _is_library(module):
            return ["class", module, cls.__qualname__]
        if module == "builtins" or _installed(module):
            return ["class", module, cls.__qualname__, _version(module)]
        again = self._enter(cls)
        if again is not None:
            return ["recursive", again]
        body = []
        for attr, member in sorted(vars(cls).items()):
            if attr in _CLASS_NOISE:
                continue
            at = f"{where}: class {cls.__qualname__}.{attr}"
            try:
                body.append([attr, self.value(member, at)])
            except Unfingerprintable:
                if not (attr.startswith("__") and attr.endswith("__")):
                    raise
                body.append([attr, ["not hashed", type(member).__qualname__]])  # generated metadata
        meta = type(cls)
        return ["user class", cls.__qualname__, [self.named(b, where) for b in cls.__bases__],
                None if meta is type else self.named(meta, where), body]

    def instance(self, v: Any, where: str) -> Any:
        again = self._enter(v)
        if again is not None:
            return ["recursive", again]
        state = vars(v)
        return ["object", self.named(type(v), where),
                sorted([[k, self.value(x, f"{where}.{k}")] for k, x in state.items()], key=canonical_json)]

    def code(self, co: types.CodeType, where: str) -> Any:
        form = self.codes.get(co)
        if form is None:
            consts = [self.code(c, where) if isinstance(c, types.CodeType) else self.value(c, f"{where} constant")
                      for c in co.co_consts]
            form = ["code", co.co_name, co.co_code.hex(), consts, list(co.co_names), list(co.co_varnames),
                    list(co.co_freevars), list(co.co_cellvars), co.co_argcount, co.co_kwonlyargcount, co.co_flags]
            self.codes.put(co, form)
        return form

    def function(self, fn: types.FunctionType, where: str) -> Any:
        if _is_library(fn.__module__):
            return ["library function", fn.__module__, fn.__qualname__]
        if _installed(fn.__module__):
            return ["installed function", fn.__module__, fn.__qualname__, _version(fn.__module__)]
        again = self._enter(fn)
        if again is not None:
            return ["recursive", again]
        name = f"{fn.__module__}.{fn.__qualname__}"
        names = frozenset(code_names(fn.__code__))
        closure = []
        for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell (a name assigned later)
                contents = None
            closure.append([var, self.value(contents, f"{name}: closure variable {var!r}", names)])
            self.reads.append((f"closure variable {var} of {name}", _cell_read(cell), contents))
        self.reads.append((f"{name}.__defaults__", _attr_read(fn, "__defaults__"), fn.__defaults__))
        self.reads.append((f"{name}.__kwdefaults__", _attr_read(fn, "__kwdefaults__"), fn.__kwdefaults__))
        globals_ = []
        for gname in sorted(names):
            if gname in fn.__globals__:
                globals_.append([gname, self.value(fn.__globals__[gname], f"{name}: global {gname!r}", names)])
                self.reads.append((f"global {gname} of {name}", _global_read(fn.__globals__, gname),
                                   fn.__globals__[gname]))
            elif isinstance(sys.modules.get(gname), types.ModuleType):  # `import cfg` in the body
                globals_.append([gname, self.value(sys.modules[gname], f"{name}: module {gname!r}", names)])
        wrapped = fn.__dict__.get("__wrapped__")  # functools.wraps: the wrapper and what it wraps
        # The module's name is left out: a script run as __main__ and imported as a module is the same function.
        return ["function", fn.__qualname__, self.code(fn.__code__, name),
                self.value(fn.__defaults__, f"{name}: defaults"), self.value(fn.__kwdefaults__, f"{name}: defaults"),
                closure, globals_, None if wrapped is None else self.value(wrapped, f"{name}.__wrapped__")]


def _user_instance(v: Any) -> bool:
    """Whether ``v`` is an object of user classes only (its state is its ``__dict__``)."""
    cls = type(v)
    if not isinstance(getattr(v, "__dict__", None), dict):
        return False
    for c in cls.__mro__[:-1]:  # all but object
        module = getattr(c, "__module__", None)
        if module == "builtins" or _is_library(module) or _installed(module) or "__slots__" in vars(c):
            return False
    return True


def _is_numpy_dtype(v: Any) -> bool:
    """Whether ``v`` is a numpy dtype object (its repr is its whole content: fields, byte order, shape)."""
    return str(type(v).__module__).split(".")[0] == "numpy" and all(
        hasattr(v, a) for a in ("kind", "itemsize", "byteorder", "descr"))


def _short_repr(v: Any) -> str:
    try:
        return f"{v!r:.80}"
    except Exception:
        return "its repr fails"


def function_fingerprint(fn: Callable, settings: Mapping[str, Any], codes: CodeDigests | None = None) -> str:
    """SHA-256 (hex) of ``fn`` (see :func:`fingerprint_and_reads`, which also gives what was read).

    >>> k = 3
    >>> function_fingerprint(lambda x: x * k, {"dynamic": None}) != function_fingerprint(lambda x: x * k, {"dynamic": True})
    True
    """
    return fingerprint_and_reads(fn, settings, codes)[0]


def fingerprint_and_reads(fn: Callable, settings: Mapping[str, Any], codes: CodeDigests | None = None
                          ) -> tuple[str, list[tuple[str, Callable[[], Any], Any]]]:
    """SHA-256 (hex) of ``fn``, the functions it wraps, and ``settings`` (Note [What the fingerprint covers]).

    Args:
        fn: the function (a plain function, a wrapper, a method, a partial, a callable object).
        settings: JSON-ready trace settings.
        codes: a memo of code objects' forms to reuse (Note [A fingerprint per miss]).

    Raises:
        Unfingerprintable: ``fn`` reads a value that cannot be fingerprinted (the message names it).

    Returns:
        The fingerprint, and the values it covers at the top level as ``(what, read, value)``:
        ``read()`` reads the value again (Note [Reads behind a fingerprint]).

    >>> k = 3
    >>> fp, reads = fingerprint_and_reads(lambda x: x * k, {"dynamic": None})
    >>> len(fp), type(reads).__name__  # the doctest's lambda is this library's code: nothing of it is read
    (64, 'list')
    """
    h = _Hasher(codes if codes is not None else CodeDigests())
    chain, obj = [], fn
    while obj is not None and len(chain) < _WRAPPER_DEPTH and all(obj is not c for c in chain):
        chain.append(obj)
        obj = getattr(obj, "__wrapped__", None)
    name = getattr(fn, "__qualname__", type(fn).__qualname__)
    doc = {
        "library": [LIBRARY_VERSION, PROGRAM_FORMAT, ENTRY_FORMAT, library_digest()],
        "function": [h.value(c, str(name)) for c in chain],
        "settings": dict(settings),
    }
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest(), h.reads
