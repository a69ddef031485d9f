"""Read a printed ``torch.export`` program (``print(exported_program)``) into guards over the user's inputs.

The printed program shows each placeholder with its symbolic shape (``x: "f32[s31, 2*s75, 16]"``),
the ``Graph signature`` (``p_proj_weight: PARAMETER target='proj.weight'``), the
``Range constraints: {s31: VR[1, 16], 2*s75: VR[2, 64], s75: VR[2, 32]}`` line and any
``_assert_scalar`` runtime asserts. :func:`read_export_text` turns that into plain values
(guards with their sources); :func:`guards.torchlog.torch_export.read_exported_program` and
:meth:`guards.guardset.GuardSet.from_torch_log` build the guard set from them.

* **Inputs by their sources.** A user input ``x`` is ``L['x']``; a parameter or buffer
  placeholder is the module's own source, as torch.compile names it:
  ``p_proj_weight`` (target ``proj.weight``) is ``L['self']._modules['proj']._parameters['weight']``,
  ``b_scale`` is ``L['self']._buffers['scale']``. Module state is traced, not given by a
  caller: its sizes are pins (origin ``module state``) that explanations take as traced.
* **Root symbols solved from the inputs.** A dim that is an expression of a symbol no input
  dim is alone (a derived dim: ``S = 2*_S`` prints ``2*s75``) names that root through the
  first dim that uses it: ``s75 = x.size()[1] // 2``, with ``x.size()[1] % 2 == 0``. Every other
  use of ``s75`` (another dim, its range, an assert) is rewritten that way, so the guards
  read the caller's inputs only and a rejection is said in their terms.

Note [Range constraints are the contract]
    This is the program's documented contract. ``exported_program.module()`` checks fewer
    things when called: with torch 2.13, an attention block exported with
    ``Dim("seq", min=2, max=512)`` rejects a sequence of 600 (``Guard failed: x.size()[1] <= 512``)
    but runs one of length 1. So a call this guard set rejects may still run; one it
    accepts is inside the range torch promised.

>>> e = read_export_text('''def forward(self, p_fc_weight: "f32[4, 8]", x: "f32[s77, 2*s9]"):
... Graph signature:
...     p_fc_weight: PARAMETER target='fc.weight'
... Range constraints: {s77: VR[2, 64], 2*s9: VR[2, 64], s9: VR[1, 32]}''')
>>> [str(g.expr) for g in e.guards][:3]
['Eq(d0, 4)', 'Eq(d1, 8)', 'Eq(Mod(d2, 2), 0)']
>>> e.roots
(('s9', 'x.size()[1] // 2'),)
>>> e.sources[0][1].torch_text()
"L['self']._modules['fc']._parameters['weight'].size()[0]"
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from symint.lazy_sympy import sympy

from symint import form as F
from symint.build import symbol_expr
from symint.form import logic as B

from guards.errors import GuardParseError
from guards.guard import Guard
from guards.simplify.folding import substitute_symbols
from guards.text.parse import parse_expression, parse_guard
from guards.text.printers import to_source_text
from guards.text.values import Value, relation
from guards.source import Source

__all__ = ["ExportText", "read_export_text", "looks_like_export_program", "MODULE_STATE"]

#: The word in a guard's origin that marks a parameter's or buffer's traced size (see torch_check.pinned_values).
MODULE_STATE = "module state"

# Note [Linear-time reading]: a name starts where no word character precedes it, a range key after "{" or ","
# (so a long run of word characters, or of text without ":", is scanned once, not once per position); the
# forward line, the range constraints and the asserts are cut with str.find, not with ".*" patterns.
_PLACEHOLDER = re.compile(r'(?<!\w)(?P<name>\w+): "(?P<dtype>[a-z]+\d*)\[(?P<dims>[^\]"]*)\](?:\[[^\]"]*\])?"')
_RANGE = re.compile(r"(?:^|(?<=[{,]))\s*(?P<key>[^:,{}]+): VR\[(?P<lo>-?\w+), (?P<hi>-?\w+)\]")
_FORWARD_HEAD, _RANGES_HEAD = "def forward(self", "Range constraints: {"
_ASSERT_HEAD, _ASSERT_TAIL = "Runtime assertion failed for expression ", " on node"
_SIGNATURE = re.compile(r"^\s*(?P<name>\w+): (?P<kind>PARAMETER|BUFFER|CONSTANT_TENSOR|CUSTOM_OBJ|USER_INPUT|TOKEN)\b(?: target='(?P<target>[^']*)')?")
_INT = re.compile(r"^-?\d+$")
_SYMBOL = re.compile(r"^[su]\d+$")
_STATE_PREFIX = {"p_": "PARAMETER", "b_": "BUFFER", "c_": "CONSTANT_TENSOR"}


@dataclass(frozen=True, slots=True)
class ExportText:
    """What a printed program says about its inputs, as plain values.

    Attributes:
        guards: the guards (input shapes, range constraints, runtime asserts), each with its origin.
        sources: ``(symbol, source)`` pairs.
        roots: ``(root symbol, how it is solved from the inputs)`` for each derived dim's root.
        module_state: ``(placeholder, source base)`` of each parameter, buffer and constant.
        user_inputs: the placeholders a caller passes.
    """

    guards: tuple[Guard, ...]
    sources: tuple[tuple[sympy.Symbol, Source], ...]
    roots: tuple[tuple[str, str], ...] = ()
    module_state: tuple[tuple[str, str], ...] = ()
    user_inputs: tuple[str, ...] = ()


def looks_like_export_program(text: str) -> bool:
    """Whether ``text`` is ``print(exported_program)`` output.

    >>> looks_like_export_program('ExportedProgram:\\n    class GraphModule(torch.nn.Module):\\n        def forward(self, x: "f32[3]"):')
    True
    """
    return "def forward(self" in text and ("Range constraints:" in text or "ExportedProgram" in text)


def _state_base(kind: str, target: str) -> str:
    """The source base of a parameter/buffer/constant ``target`` (``proj.weight``) as torch.compile names it.

    >>> _state_base("PARAMETER", "layers.0.fc.weight")
    "self._modules['layers']._modules['0']._modules['fc']._parameters['weight']"
    """
    *mods, leaf = target.split(".")
    base = "self" + "".join(f"._modules[{m!r}]" for m in mods)
    if kind == "PARAMETER":
        return f"{base}._parameters[{leaf!r}]"
    if kind == "BUFFER":
        return f"{base}._buffers[{leaf!r}]"
    return f"{base}.{leaf}"


def _signature(lines: list[str]) -> dict[str, tuple[str, str | None]]:
    """placeholder -> (kind, target) from the ``Graph signature`` block."""
    out: dict[str, tuple[str, str | None]] = {}
    inside = False
    for line in lines:
        if line.strip().startswith("Graph signature"):
            inside = True
            continue
        if inside:
            if line.strip().startswith("# outputs") or line.strip().startswith("Range constraints"):
                break
            m = _SIGNATURE.match(line)
            if m:
                out[m.group("name")] = (m.group("kind"), m.group("target"))
    return out


def _forward_args(line: str) -> str | None:
    """The text between ``def forward(self`` and the last ``):`` of ``line``, or None."""
    start = line.find(_FORWARD_HEAD)
    end = line.rfind("):")
    return line[start + len(_FORWARD_HEAD) : end] if 0 <= start < end else None


class _Reader:
    def __init__(self) -> None:
        self.sources: dict[sympy.Symbol, Source] = {}
        self.guards: list[Guard] = []
        self.derived: list[tuple[Source, Value]] = []  # (dim, expression of symbols: a form) in order

    def dim_symbol(self, src: Source) -> sympy.Symbol:
        """A fresh symbol ``d<k>`` for a dim that is not a lone symbol (a static or derived dim)."""
        for sym, s in self.sources.items():
            if s == src:
                return sym
        k = 0
        while symbol_expr(f"d{k}") in self.sources:
            k += 1
        sym = symbol_expr(f"d{k}")
        self.sources[sym] = src
        return sym


def read_export_text(text: str) -> ExportText:
    """The guards of a printed ExportedProgram over the caller's inputs and the module's sources (see the module docstring).

    Raises:
        GuardParseError: no ``def forward(self, ...)`` line, or a shape, range or assert that cannot be read.
    """
    lines = text.splitlines()
    forward = next(((n, args) for n, line in enumerate(lines, 1) if (args := _forward_args(line)) is not None), None)
    if forward is None:
        raise GuardParseError("no 'def forward(self, ...)' line: paste the whole print(exported_program) output", text[:80], 1, "")
    line_no, forward_args = forward
    signature = _signature(lines)
    r = _Reader()
    state: list[tuple[str, str]] = []
    users: list[str] = []
    for p in _PLACEHOLDER.finditer(forward_args):
        name = p.group("name")
        kind, target = signature.get(name, (None, None))
        if kind is None and name[:2] in _STATE_PREFIX and not signature:
            kind = _STATE_PREFIX[name[:2]]  # no signature printed: the placeholder's own name stands for the target
        if kind in ("PARAMETER", "BUFFER", "CONSTANT_TENSOR"):
            base = _state_base(kind, target) if target else f"self.{name}"
            state.append((name, base))
            origin = f"line {line_no} {MODULE_STATE} {name} (traced)"
        else:
            base = name
            users.append(name)
            origin = f"line {line_no} input shapes"
        dims = [d.strip() for d in p.group("dims").split(",") if d.strip()]
        for i, dim in enumerate(dims):
            src = Source.size(base, i)
            if _INT.match(dim):
                r.guards.append(Guard.of(B.rel("==", F.sym(r.dim_symbol(src).name), F.const(int(dim))), origin))
                continue
            if _SYMBOL.match(dim) and symbol_expr(dim) not in r.sources:
                r.sources[symbol_expr(dim)] = src
                continue
            try:
                value = parse_expression(dim, dialect="sympy")  # a form (solved for roots in _solve_roots)
            except GuardParseError as exc:
                raise GuardParseError(f"an input dim that cannot be read: {exc.message}", lines[line_no - 1], 0, dim, line_no) from None
            sym = r.dim_symbol(src)
            r.derived.append((src, value))
            r.guards.append(Guard.of(relation("==", F.sym(sym.name), value), origin))
    for n, line in enumerate(lines, 1):
        start = line.find(_RANGES_HEAD)
        end = line.rfind("}")
        if start >= 0 and end > start:
            for v in _RANGE.finditer(line[start + len(_RANGES_HEAD) : end]):
                key = v.group("key").strip()
                try:
                    value = parse_expression(key, dialect="sympy")
                except GuardParseError as exc:
                    raise GuardParseError(f"a range constraint that cannot be read: {exc.message}", line, 0, key, n) from None
                if _INT.match(v.group("lo")):
                    r.guards.append(Guard.of(relation("<=", F.const(int(v.group("lo"))), value), f"line {n} range constraints"))
                if _INT.match(v.group("hi")):
                    r.guards.append(Guard.of(relation("<=", value, F.const(int(v.group("hi")))), f"line {n} range constraints"))
        head = line.find(_ASSERT_HEAD)
        tail = line.find(_ASSERT_TAIL, head + len(_ASSERT_HEAD)) if head >= 0 else -1
        if tail >= 0:
            expr = line[head + len(_ASSERT_HEAD) : tail]
            r.guards.append(Guard.of(parse_guard(expr, dialect="sympy"), f"line {n} runtime assert"))
    guards, roots = _solve_roots(r)
    return ExportText(tuple(guards), tuple(sorted(r.sources.items(), key=lambda kv: kv[0].name)), roots, tuple(state), tuple(users))


def _solve_roots(r: _Reader) -> tuple[list[Guard], tuple[tuple[str, str], ...]]:
    """Replace each root symbol (no input dim of its own) by its value solved from the first dim ``a*root + b`` using it.

    On forms: a dim's form is linear in the root when it is one symbol with a coefficient and a constant.
    """
    named = {s.name for s in r.sources}
    free = sorted({n for g in r.guards for n in g.form.symbols if n not in named})
    guards = list(r.guards)
    roots: list[tuple[str, str]] = []
    for root in free:
        for src, value in r.derived:
            linear = value.linear() if isinstance(value, F.Form) and value.symbols == {root} else None
            if not linear:
                continue
            a, b = linear[root], value.const
            dim = F.sym(r.dim_symbol(src).name)
            shifted = F.sub(dim, F.const(b)) if b else dim
            solved = F.floordiv(shifted, F.const(a)) if a != 1 else shifted
            text = to_source_text(solved, r.sources)
            origin = f"derived dim: {root} = {text}"
            # the dim that names the root: its own guard becomes "divisible by a" (true if a is 1 or -1)
            defining = Guard.of(B.rel("==", dim, value))
            divisible = Guard.of(B.rel("==", F.mod(shifted, F.const(a)), F.const(0)), origin)
            memo: dict = {}
            guards = [divisible if g == defining else Guard.of(substitute_symbols(g.form, {root: solved}, memo, into_opaque=True), g.why)
                      for g in guards]
            roots.append((root, text))
            break
    return [g for g in guards if g.form is not B.TRUE], tuple(roots)
