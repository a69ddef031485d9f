"""The op registry: one shape rule and (once numpy is loaded) one eager kernel per op name.

A rule is a plain function from fake values to fake values that validates its inputs and
computes output shapes; :func:`shapeenv.ops.dispatch.call` applies it. The public face of each
op (its ``shapeenv.ops`` function, Tensor methods, torch names) is its :class:`OpDef` in
:mod:`shapeenv.ops.table`.

>>> import shapeenv.ops
>>> "add" in registered(), rule_of("add").__name__
(True, 'add')
"""

from __future__ import annotations

from dataclasses import dataclass
import inspect
from typing import Any, Callable, Mapping, Sequence

from ..errors import ShapeEnvValueError

__all__ = ["rule", "rule_family", "registered", "rule_of", "eager_kernel", "eager_kernel_of", "load_eager_kernels",
           "on_first_eager_use", "has_eager_loaders", "OpDef", "Spelling"]

Rule = Callable[..., Any]
_RULES: dict[str, Rule] = {}  # filled once, at import time, by the @rule decorators of shapeenv.ops.rules.*
_EAGER: dict[str, Callable[..., Any]] = {}  # filled by shapeenv.ops.kernels.numpy when it is imported (real arrays)
#: Called once, the first time real arrays reach an op: imports the numpy kernels (so numpy is
#: imported only by programs that use it). Set by ``shapeenv/__init__``.
_EAGER_LOADERS: list[Callable[[], None]] = []


def load_eager_kernels() -> None:
    """Import the eager kernels now if they are not loaded yet (a no-op without numpy)."""
    while _EAGER_LOADERS:
        _EAGER_LOADERS.pop()()


def has_eager_loaders() -> bool:
    """Whether the eager kernels are still to be loaded (:func:`load_eager_kernels` has work to do)."""
    return bool(_EAGER_LOADERS)


def on_first_eager_use(loader: Callable[[], None]) -> None:
    """Run ``loader`` the first time an op is called on real arrays (it registers the eager kernels)."""
    _EAGER_LOADERS.append(loader)


def rule(name: str) -> Callable[[Rule], Rule]:
    """Register ``fn`` as the shape rule of op ``name`` (each name once)."""

    def register(fn: Rule) -> Rule:
        if name in _RULES:
            raise ShapeEnvValueError(f"op {name!r} already has a shape rule ({_RULES[name].__module__})", fix="register the rule under another name")
        _RULES[name] = fn
        return fn

    return register


def rule_family(impl: Callable[..., Any], docs: Mapping[str, str], params: Sequence[str],
                defaults: Mapping[str, Any] | None = None) -> None:
    """Register one rule per ``name: docstring`` of ``docs`` for ops that differ by name only: each takes
    ``params`` (positional or keyword; ``defaults`` gives some a default) and returns ``impl(name, *args)``.

    >>> import inspect, shapeenv.ops
    >>> str(inspect.signature(rule_of("lt"))), rule_of("lt").__doc__
    ('(a, b)', '``a < b`` elementwise: a bool tensor of the broadcast shape.')
    """
    empty = inspect.Parameter.empty
    signature = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                     default=(defaults or {}).get(p, empty)) for p in params])
    n = len(params)

    def member(name: str, doc: str) -> Rule:
        def fn(*args: Any, **kwargs: Any) -> Any:
            if kwargs or len(args) != n:  # keywords or defaults to fill in (a bad call: Python's TypeError)
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                args = bound.args
            return impl(name, *args)

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = doc
        fn.__signature__ = signature  # type: ignore[attr-defined]  (what forward.py and help() read)
        return fn

    for name, doc in docs.items():
        rule(name)(member(name, doc))


def rule_of(name: str) -> Rule | None:
    """The shape rule registered as ``name``, or None."""
    return _RULES.get(name)


def eager_kernel(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the kernel that runs op ``name`` on real arrays when it is called outside a trace.

    This is what lets a function written with :mod:`shapeenv.ops` run eagerly on numpy
    arrays (``compile``'s eager stances, the first call of ``eager_then_compile``).
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        _EAGER.setdefault(name, fn)
        return fn

    return register


def eager_kernel_of(name: str) -> Callable[..., Any] | None:
    """The eager kernel of op ``name`` (None until the kernels are loaded, or when it has none)."""
    return _EAGER.get(name)


def registered() -> tuple[str, ...]:
    """The names of all ops with a shape rule, sorted."""
    return tuple(sorted(_RULES))


# -- the public face of each op ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Spelling:
    """One way users call an op: a ``shapeenv.ops`` function or a Tensor method.

    Attributes:
        name: the function or method name (``"add"``, ``"__radd__"``, ``"clip"``).
        doc: its docstring, when it is not the op's.
        like: a callable whose signature is this spelling's (``lambda self, other: None``), when it
            is not the op's (for a method: the op's with its first parameter named ``self``).
        reflected: a method whose operands are swapped (``x.__radd__(y)`` is ``add(y, x)``).
    """

    name: str
    doc: str | None = None
    like: Callable[..., Any] | None = None
    reflected: bool = False

    @classmethod
    def of(cls, spelling: "str | Spelling") -> "Spelling":
        """``spelling`` itself, or a plain spelling of that name.

        >>> Spelling.of("add")
        Spelling(name='add', doc=None, like=None, reflected=False)
        """
        return spelling if isinstance(spelling, Spelling) else cls(spelling)


@dataclass(frozen=True, slots=True)
class OpDef:
    """Everything public about one op name; the one place the op's function and methods come from.

    The shape rule is registered under ``name`` by ``@rule(name)`` in its family's module of
    :mod:`shapeenv.ops.rules`; the numpy kernel under the same name in the module of the same
    family of :mod:`shapeenv.ops.kernels.numpy`. Torch reaches the op through these spellings:
    :mod:`shapeenv.torch.table` maps ``torch.foo`` and ``torch.Tensor.foo`` by name to the function
    or method ``foo`` (its own entries cover torch names spelled otherwise).

    Attributes:
        name: the op name (the graph node's target).
        doc: what the op does, in torch's terms: the docstring of its function and methods.
        functions: the ``shapeenv.ops`` functions calling it (by default one, named ``name``).
        methods: the Tensor methods calling it.
        like: a callable carrying the public signature, when it is not the rule's (for example
            torch's keyword-only ``dtype``, which the rule takes positionally).

    >>> d = OpDef.of("neg", "``-a``.", methods=("neg", "__neg__"))
    >>> d.functions[0].name, [m.name for m in d.methods]
    ('neg', ['neg', '__neg__'])
    """

    name: str
    doc: str
    functions: tuple[Spelling, ...]
    methods: tuple[Spelling, ...] = ()
    like: Callable[..., Any] | None = None

    @classmethod
    def of(cls, name: str, doc: str, *, functions: "tuple[str | Spelling, ...] | None" = None,
           methods: "tuple[str | Spelling, ...]" = (), like: Callable[..., Any] | None = None) -> "OpDef":
        """An OpDef with its spellings normalised (``functions=None``: one function named ``name``)."""
        spelled = (name,) if functions is None else functions
        return cls(name, doc, tuple(map(Spelling.of, spelled)), tuple(map(Spelling.of, methods)), like)

    @property
    def rule(self) -> Rule | None:
        """The registered shape rule (None until its module is imported)."""
        return _RULES.get(self.name)

    @property
    def kernel(self) -> Callable[..., Any] | None:
        """The eager numpy kernel (None until the kernels are loaded, or when it has none)."""
        return _EAGER.get(self.name)
