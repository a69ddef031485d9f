"""Sources in torch's own spelling: ``L['xs'][0]``, ``L['d']['w']``, ``L['self']._modules['fc']._parameters['weight']``.

torch names what a guard reads by an *access path* from a frame local (``L['x']``) or a
global (``G['F']``): indexing (``[0]``), dict keys (``['w']``), attributes (``.weight``,
``._modules``, ``._base``) and argument-less calls (``.item()``). A :class:`~guards.source.Source`
keeps that path in its ``base`` string, in our dialect: the root's name followed by the
steps exactly as torch writes them (``xs[0]``, ``d['w']``, ``self._modules['fc']``,
``n.item()``); a global keeps its ``G[...]`` root. :func:`torch_base` turns such a base
back into torch's spelling, :func:`read_path` reads one from guard tokens, and
:func:`resolve` follows a path through real arguments (lists, dicts, objects).

Note [Bases that read as paths]
    The project's nested inputs were named ``xs[0]``, ``xs[1]['k']`` before torch's
    spelling was supported, and printed ``L['xs[0]']``. Such a base *is* the path it reads
    as, so it now prints ``L['xs'][0]``, and ``L['xs[0]']`` read back names the same input.
    A base that does not read as a path (``"my input"``) prints as ``L['my input']``.

>>> torch_base("xs[0]"), torch_base("self._modules['fc']._parameters['weight']")
("L['xs'][0]", "L['self']._modules['fc']._parameters['weight']")
>>> torch_base("my input"), torch_base("G['F'].weight")
("L['my input']", "G['F'].weight")
>>> resolve("d['w'][1]", {"d": {"w": [10, 20]}})
20
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from typing import Literal, Mapping

from guards.errors import GuardParseError, GuardTypeError, UnknownSourceError
from guards.text.lexer import Token, TokenCursor

__all__ = ["Step", "Path", "read_path", "parse_path", "torch_base", "resolve", "SOURCE_METHODS"]

#: Attribute names that end a path and start what is read from it (``.size()[0]`` ...).
SOURCE_METHODS = ("size", "stride", "shape", "storage_offset", "numel")

StepKind = Literal["index", "key", "attr", "call"]


@dataclass(frozen=True, slots=True)
class Step:
    """One step of an access path: ``[3]`` (index), ``['w']`` (key), ``.name`` (attr) or ``()`` (call)."""

    kind: StepKind
    value: int | str | None = None

    def text(self) -> str:
        """The step as torch (and our dialect) write it.

        >>> Step("key", "w").text(), Step("index", -1).text(), Step("attr", "_base").text(), Step("call").text()
        ("['w']", '[-1]', '._base', '()')
        """
        if self.kind == "index":
            return f"[{self.value}]"
        if self.kind == "key":
            return f"[{self.value!r}]"
        if self.kind == "attr":
            return f".{self.value}"
        return "()"


@dataclass(frozen=True, slots=True)
class Path:
    """A root (``"L"`` for a frame local, ``"G"`` for a global) with its name, and steps from it."""

    scope: Literal["L", "G"]
    root: str
    steps: tuple[Step, ...] = ()

    def steps_text(self) -> str:
        return "".join(s.text() for s in self.steps)

    def base(self) -> str:
        """The base string a :class:`~guards.source.Source` keeps for this path (see the module docstring).

        >>> Path("L", "xs", (Step("index", 0),)).base(), Path("G", "F").base(), Path("L", "a b").base()
        ('xs[0]', "G['F']", 'a b')
        """
        if self.scope == "G":
            return f"G[{self.root!r}]" + self.steps_text()
        if _plain(self.root):
            return self.root + self.steps_text()
        if not self.steps:  # L['xs[0]']: a key that reads as a path is that path (Note [Bases that read as paths])
            return self.root
        return f"L[{self.root!r}]" + self.steps_text()

    def torch_text(self) -> str:
        """torch's spelling: ``L['xs'][0]``, ``G['F'].weight``."""
        return f"{self.scope}[{self.root!r}]" + self.steps_text()


def _plain(name: str) -> bool:
    return name.isidentifier() and name.isascii() and not keyword.iskeyword(name) and name not in ("L", "G")


def read_path(p: TokenCursor, first: Token) -> Path:
    """Read an access path whose first token ``first`` (already taken) is ``L``, ``G`` or a name.

    Stops before ``.size(``, ``.stride(``, ``.shape[``, ``.storage_offset(``, ``.numel(``
    (what is read from the path) and at anything that is not a step.

    Raises:
        GuardParseError: a malformed step (``L[x]``, ``['w'`` without ``]``), at its column.
    """
    if first.text in ("L", "G") and p.at("["):
        p.take()
        tok = p.peek()
        if tok.kind != "str":
            raise p.error(f"expected a quoted input name, as in {first.text}['x']", tok)
        p.take()
        p.expect("]", f"after {first.text}[{tok.text}")
        if not tok.value:
            raise p.error("an input name cannot be empty", tok)
        scope, root = first.text, tok.value
    else:
        scope, root = "L", first.text
    steps: list[Step] = []
    while True:
        if p.at("["):
            p.take()
            steps.append(_subscript(p))
            p.expect("]", "to close the index")
        elif p.at(".") and p.peek(1).kind == "name":
            name = p.peek(1).text
            if name in SOURCE_METHODS and (p.at("(", 2) or (name == "shape" and p.at("[", 2))):
                break
            if name.startswith("__"):
                raise p.error("attributes starting with '__' are not allowed in guards", p.peek(1))
            p.take(), p.take()
            steps.append(Step("attr", name))
        elif p.at("(") and p.at(")", 1) and steps:
            p.take(), p.take()
            steps.append(Step("call"))
        else:
            break
    return Path(scope, root, tuple(steps))  # type: ignore[arg-type]


def _subscript(p: TokenCursor) -> Step:
    tok = p.peek()
    if tok.kind == "str":
        p.take()
        return Step("key", tok.value)
    negative = tok.kind == "op" and tok.text == "-"
    if negative:
        p.take()
        tok = p.peek()
    if tok.kind == "num" and tok.text.isdigit() and len(tok.text) <= 9:
        p.take()
        return Step("index", -int(tok.text) if negative else int(tok.text))
    raise p.error("expected an integer index or a quoted key", tok)


def parse_path(text: str) -> Path | None:
    """The path ``text`` spells (``xs[0]``, ``L['d']['w']``, ``G['F'].w``), or None if it is not one.

    >>> parse_path("L['xs'][0]['k']").steps
    (Step(kind='index', value=0), Step(kind='key', value='k'))
    >>> parse_path("my input") is None, parse_path("x.size()[0]") is None
    (True, True)
    """
    try:
        p = TokenCursor(text)
        first = p.take()
        if first.kind != "name" or (first.text not in ("L", "G") and not _plain(first.text)):
            return None
        if first.text in ("L", "G") and not p.at("["):
            return None
        path = read_path(p, first)
        return path if p.peek().kind == "end" else None
    except GuardParseError:
        return None


def torch_base(base: str) -> str:
    """torch's spelling of a source's ``base`` (see the module docstring).

    >>> torch_base("x"), torch_base("n.item()"), torch_base("x._base"), torch_base("L['a b'][0]")
    ("L['x']", "L['n'].item()", "L['x']._base", "L['a b'][0]")
    """
    if _plain(base):  # the common case, without tokenizing
        return f"L[{base!r}]"
    path = parse_path(base)
    return f"L[{base!r}]" if path is None else path.torch_text()


def resolve(base: str, arguments: Mapping[str, object], globals_: Mapping[str, object] | None = None) -> object:
    """Follow the path ``base`` through real ``arguments`` (name -> value): lists, dicts, attributes, calls.

    A key of ``arguments`` equal to the whole ``base`` wins (flat names such as ``"xs[0]"``).

    Raises:
        UnknownSourceError: the root is not among ``arguments`` (or ``globals_``).
        GuardTypeError: a step cannot be taken (a missing key, index or attribute).

    >>> class M: weight = [1, 2, 3]
    >>> resolve("m.weight[-1]", {"m": M()}), resolve("xs[0]", {"xs[0]": 7})
    (3, 7)
    """
    if base in arguments:
        return arguments[base]
    path = parse_path(base)
    if path is None:
        raise UnknownSourceError(f"no input named {base!r} (inputs given: {', '.join(map(repr, sorted(arguments)))})")
    scope = arguments if path.scope == "L" else (globals_ or {})
    if path.root not in scope:
        where = "inputs" if path.scope == "L" else "globals"
        raise UnknownSourceError(
            f"no {'input' if path.scope == 'L' else 'global'} named {path.root!r} for {torch_base(base)} "
            f"({where} given: {', '.join(map(repr, sorted(scope))) or 'none'})"
        )
    obj = scope[path.root]
    done = f"{path.scope}[{path.root!r}]"
    for step in path.steps:
        try:
            if step.kind in ("index", "key"):
                obj = obj[step.value]  # type: ignore[index]
            elif step.kind == "attr":
                obj = getattr(obj, step.value)  # type: ignore[arg-type]
            else:
                obj = obj()  # type: ignore[operator]
        except (LookupError, AttributeError, TypeError) as exc:
            raise GuardTypeError(f"cannot read {done}{step.text()} ({type(obj).__name__}): {exc}") from None
        done += step.text()
    return obj
