"""Hostile input for the guards package (issue 11): injection payloads, wrong types, escaping, bindings.

Each finding of the adversarial pass has a test here that failed before the fix:
the connective order, Python's ``**`` at a negative exponent, ambiguous source names,
U+2028 inside a JSON guard, newlines in SMT-LIB comments and CLI output, raw errors
for wrong arguments, binary and non-UTF-8 guard files, JSON integers over 4,300 digits.
Resource bombs and the mark-table GC test run in subprocesses: tests/test_adversarial_resources.py.
Brute-force agreement of simplify/diff/codegen: tests/guards/test_adversarial_bruteforce.py.
"""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sympy

from guards import (
    AmbiguousSourceError,
    GuardError,
    GuardParseError,
    GuardSet,
    GuardTypeError,
    Source,
    compile_guards,
    explain,
    explain_inputs,
    load_guards,
    parse_expression,
    parse_guard,
    parse_guards,
    parse_source,
    ranges_from_json,
    ranges_to_json,
    read_inputs,
    simplify_with_report,
    to_smtlib,
    to_source_text,
    to_sympy_text,
    to_torch_text,
)
from shapeenv.cli.guards import EXIT_INTERNAL, EXIT_NO, EXIT_OK, EXIT_USAGE
from guards.text.escape import one_line
from symint.build import ge, symbol_expr
from symint.sympy_io.connectives import OrderedAnd, OrderedOr
from valueranges import ValueRanges

ROOT = Path(__file__).resolve().parents[2]

# -- injection payloads ---------------------------------------------------------------------------

#: Things an attacker would like the parser to evaluate. None may run: see test_payloads_never_execute.
CODE = [
    "__import__('os').system('touch {sentinel}')",
    "open('{sentinel}', 'w').write('x')",
    "exec(\"open('{sentinel}','w')\")",
    "eval('1+1')",
    "compile('1', 'f', 'eval')",
    "globals()['__builtins__']",
    "().__class__.__bases__[0].__subclasses__()",
    "(lambda: open('{sentinel}', 'w'))()",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "getattr(__builtins__, 'open')('{sentinel}', 'w')",
    "sympy.sympify(\"open('{sentinel}','w')\")",
    "torch.ops.aten.empty(1)",
    "math.__dict__",
    "L.__class__",
    "L['x'].__class__",
    "L['x'].size.__globals__",
    "x.size()[0].__class__",
    "import os",
    "os.system('id')",
    "f'{{open(\"{sentinel}\", \"w\")}}'",
    "b'\\x00'",
    "'%s' % open",
    "Eq(s0, 1) if open('{sentinel}', 'w') else True",
    "s0 := 3",
    "*s0",
    "s0; open('{sentinel}', 'w')",
    "\\\nopen('{sentinel}', 'w')",
    "@s0",
    "`s0`",
    "s0 @ s1",
    "Symbol('x')",
    "Function('f')(s0)",
    "Lambda(s0, s0)(1)",
    "S('open')",
    "Integer.__new__",
    "FloorDiv.__subclasses__()",
    "Max(*[1])",
    "Max(**{})",
    "s0[0]",
    "s0.real",
    "s0()",
    "(s0)(1)",
    "L[0]",
    "L[s0]",
    "L['x'].size()[s0]",
    "L['x'].size()[-1]",
    "L['x'].size()[99999999999]",
    "L['x'].shape.__len__()",
    "L['x'].stride(0)[0]",
    "L['x'].numel()()",
    "L['x']['y']",
    "L[\"x\"].size()[0] == L['x'].size()[0]",
    "x.size()[0] if True else 1",
    "not",
    "and s0",
    "s0 or",
    "((((",
    "))))",
    "s0 ==",
    "== s0",
    "s0 <> 1",
    "s0 === 1",
    "s0 != = 1",
    "s0 ** ** 2",
    "s0 // // 2",
    "1 < 2 < 3 < 4 < 5 < s0",
    "True == False",
    "True < False",
    "s0 + True > 1",
    "Eq(True, s0)",
    "Mod(s0, 0) == 1",
    "s0 // 0 == 1",
    "s0 / 0.0 > 1",
    "1e309 > s0",
    "1e-400 < s0",
    "0x10 > s0",
    "0o7 > s0",
    "0b1 > s0",
    "1_000 > s0",
    "1j > s0",
    "nan > s0",
    "inf > s0",
    "oo > s0",
    "zoo > s0",
    "__debug__ > s0",
    "_ > s0",
    "é > 1",
    "ｓ0 > 1",
    "s\u200b0 > 1",
    "s0\u00a0> 1",
    "s0 > 1\x00",
    "s0 > 1\u2028s1 > 2",
    "L['\u2028'] > 1",
    "L['\\u2028'] > 1",
    "L['\\x00'] > 1",
    "L['\\N{BULLET}'] > 1",
    "L['\\777'] > 1",
    "L['a' 'b'] > 1",
    "L[r'x'] > 1",
    "L[b'x'] > 1",
    "L[f'x'] > 1",
    "L['''x'''] > 1",
    "L['x\n(assert false)'] > 1",
    "L['x'] > 1 # \n satisfiable: no",
    "PowByNatural(s0, -1) > 0",
    "IfThenElse(s0, 1, 2) > 0",
    "IfThenElse(s0 > 1, s0 > 1, 2) > 0",
    "Identity(s0 > 1)",
    "Not(s0)",
    "And(s0, s1)",
    "Or()",
    "Max()",
    "Eq(s0)",
    "Eq(s0, s1, s2)",
    "torch.sym_not(s0 > 1, s1 > 1)",
    "torch.unknown(s0) > 1",
    "math.pi > s0",
    "math.floor(s0 / s1, 2) > 1",
    "sympy.Symbol('x') > 1",
    "x." + "a" * 2000 + " > 1",
    "s" + "0" * 2000 + " > 1",
    "1" * 1001 + " > s0",
    "1." + "0" * 200 + " > s0",
]

#: Where a payload is put: bare, as an operand, inside a source name, in a function call.
WRAPPERS = [
    "{p}",
    "{p} > 1",
    "s0 > 1 and {p}",
    "not ({p})",
    "Max({p}, 1) > 0",
    "L['{q}'].size()[0] > 1",
    "L[\"{q}\"] == 2",
    "x.size()[0] == {p}",
]


def _payloads(sentinel: Path) -> list[str]:
    out = []
    for code in CODE:
        p = code.replace("{sentinel}", str(sentinel))
        q = p.replace("\\", "\\\\").replace("'", "\\'").replace('"', '\\"')
        out += [w.replace("{p}", p).replace("{q}", q) for w in WRAPPERS]
    return out


def _try_all_readers(text: str) -> None:
    """Every way text reaches the parser: each call either succeeds or raises a GuardError."""
    for reader in (
        lambda: parse_guard(text),
        lambda: parse_expression(text),
        lambda: parse_source(text),
        lambda: GuardSet.parse(text),
        lambda: GuardSet.parse(text, dialect="source"),
        lambda: GuardSet.from_json(json.dumps({"guards": [text]})),
        lambda: GuardSet.from_json(json.dumps({"guards": [{"expr": "s0 >= 0", "origin": text}], "sources": {}})),
        lambda: GuardSet.from_json(text),
    ):
        try:
            result = reader()
        except GuardError:
            continue
        if isinstance(result, GuardSet):  # what was accepted also prints, serialises and compiles (or says why not)
            for use in (lambda: result.to_text("torch"), lambda: result.to_text("source"), result.to_json,
                        lambda: to_smtlib(result), result.compile, result._repr_html_, result._repr_latex_):  # fmt: skip
                try:
                    use()
                except GuardError:
                    pass


def test_payloads_never_execute(tmp_path):
    """8 wrappers x 123 payloads through 8 readers: typed errors or harmless guards, and no code runs.

    An audit hook (in a subprocess: hooks cannot be removed) fails on any compile/exec
    other than the compiled checker's own (filename ``<guards.runtime.codegen>``) and on any
    file opened for writing, process started or module imported while reading payloads.
    """
    sentinel = tmp_path / "PWNED"
    script = textwrap.dedent(
        f"""
        import sys, json
        sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'tests' / 'guards')!r})
        import guards, numpy  # everything the readers need is imported before the hook
        from test_adversarial import _payloads, _try_all_readers
        from pathlib import Path
        bad = []
        def hook(event, args):
            if event == "exec" and getattr(args[0], "co_filename", "") == "<guards.runtime.codegen>":
                pass  # the compiled checker (Note [Why exec is safe here] in guards/runtime/codegen.py)
            elif event in ("exec", "os.system", "subprocess.Popen", "os.exec", "os.spawn", "ctypes.dlopen"):
                bad.append((event, repr(args)[:80]))
            elif event == "compile" and args[1] not in ("<guards.runtime.codegen>",):
                bad.append((event, repr(args)[:120]))
            elif event == "open" and len(args) > 1 and isinstance(args[1], str) and any(c in args[1] for c in "wax+"):
                bad.append((event, repr(args)[:80]))
            elif event == "import" and args[0] not in sys.modules:
                bad.append((event, args[0]))
        payloads = _payloads(Path({str(sentinel)!r}))
        # warm up every code path once, so that lazy imports inside sympy happen before the hook
        _try_all_readers("L['x'].size()[0] // 2 > Max(L['n'], 1) and not (L['x'].size()[0] % 3 == 1)")
        _try_all_readers("L['x'].size()[0] / 3 > 1.5 - L['n']")  # floats: the only guards built in sympy
        sys.addaudithook(hook)
        for p in payloads:
            _try_all_readers(p)
        found = list(bad)
        eval("1")  # the positive control: the hook does see an eval
        print(json.dumps({{"tried": len(payloads), "bad": found[:5], "control": len(bad) > len(found)}}))
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["tried"] >= 900 and report["control"]
    assert report["bad"] == []
    assert not sentinel.exists()


# -- wrong types on every public entry point --------------------------------------------------------

_GS = GuardSet.parse("L['x'].size()[0] >= 2\nL['n'] < 10")
_WRONG = [None, 3, 3.5, "x", b"x", [1], {"a": 1}, object(), True, sympy.Symbol("q"), -1]
ENTRY_POINTS = {
    "parse_guard": lambda a: parse_guard(a),
    "parse_guard(symbols=)": lambda a: parse_guard("s0 >= 1", symbols=a),
    "parse_guard(dialect=)": lambda a: parse_guard("s0 >= 1", dialect=a),
    "parse_guards": lambda a: parse_guards(a),
    "parse_guards(symbols=)": lambda a: parse_guards("s0 >= 1", symbols=a),
    "parse_expression": lambda a: parse_expression(a),
    "parse_source": lambda a: parse_source(a),
    "to_sympy_text": lambda a: to_sympy_text(a),
    "to_torch_text": lambda a: to_torch_text(a),
    "to_torch_text(sources)": lambda a: to_torch_text(ge(symbol_expr("s0"), 2), a),
    "to_source_text": lambda a: to_source_text(a),
    "ranges_from_json": lambda a: ranges_from_json(a),
    "ranges_to_json": lambda a: ranges_to_json(a),
    "compile_guards": lambda a: compile_guards(a),
    "explain(bindings)": lambda a: explain(_GS, a),
    "explain(guardset)": lambda a: explain(a, {}),
    "explain_inputs": lambda a: explain_inputs(_GS, a),
    "read_inputs": lambda a: read_inputs(_GS, a),
    "to_smtlib": lambda a: to_smtlib(a),
    "simplify_with_report": lambda a: simplify_with_report(a),
    "simplify_with_report(config)": lambda a: simplify_with_report(_GS, a if a is not None else 1),
    "GuardSet.of": lambda a: GuardSet.of(a),
    "GuardSet.of(sources)": lambda a: GuardSet.of([], a),
    "GuardSet.of(domain)": lambda a: GuardSet.of([], {}, a),
    "GuardSet.holds": lambda a: _GS.holds(a),
    "GuardSet.holds(value)": lambda a: _GS.holds({"x.size()[0]": a, "n": 3}),
    "GuardSet.bind": lambda a: _GS.bind(a),
    "GuardSet.symbol_for": lambda a: _GS.symbol_for(a),
    "GuardSet.implies": lambda a: _GS.implies(a),
    "GuardSet.equivalent": lambda a: _GS.equivalent(a),
    "GuardSet.counterexample": lambda a: _GS.counterexample(a),
    "GuardSet.overlap": lambda a: _GS.overlap(a),
    "GuardSet.is_satisfiable": lambda a: _GS.is_satisfiable(a if a is not None else 1),
    "GuardSet.redundant": lambda a: _GS.redundant(a if a is not None else 1),
    "GuardSet.simplify": lambda a: _GS.simplify(a if a is not None else 1),
    "GuardSet.explain": lambda a: _GS.explain(a),
    "GuardSet.to_text": lambda a: _GS.to_text(a),
    "GuardSet.with_guards": lambda a: _GS.with_guards(a),
    "GuardSet.parse": lambda a: GuardSet.parse(a),
    "GuardSet.parse(dialect=)": lambda a: GuardSet.parse("n > 1", a),
    "GuardSet.from_json": lambda a: GuardSet.from_json(a),
    "CompiledGuards.check": lambda a: _GS.compile().check(a),
    "CompiledGuards.check_ints": lambda a: _GS.compile().check_ints(a, a),
    "CompiledGuards.first_failure": lambda a: _GS.compile().first_failure(a),
    "CompiledGuards.first_failure_ints": lambda a: _GS.compile().first_failure_ints(a, a),
    "Source": lambda a: Source(a),
    "Source.size": lambda a: Source.size("x", a),
    "Source.read": lambda a: Source.size("x", 0).read(a),
    "load_guards": lambda a: load_guards(a if not isinstance(a, (str, bytes)) else 3),  # ints would be fds
}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_wrong_arguments_raise_typed_errors(name):
    """Every wrong value either works (a str that parses, say) or raises a GuardError, never a raw builtin error."""
    raw = []
    for value in _WRONG:
        try:
            ENTRY_POINTS[name](value)
        except GuardError:
            pass
        except Exception as exc:  # noqa: BLE001 - what the test is about
            raw.append(f"{value!r}: {type(exc).__name__}: {exc}")
    assert raw == [], f"{name} raised untyped errors: {raw}"


def test_a_file_descriptor_is_not_a_path(capsys):
    """``load_guards(1)`` used to open (and then close) standard output."""
    with pytest.raises(GuardTypeError, match="str or os.PathLike"):
        load_guards(1)
    print("stdout still open")
    assert "stdout still open" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, message",
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00", "binary file"),
        (b"L['x'].size()[0] >= 2\n\xff\xfe >= 1\n", "not UTF-8"),
        (b"L['\xe9'] >= 2\n", "not UTF-8"),  # latin-1, not UTF-8
    ],
)
def test_binary_and_non_utf8_files(tmp_path, content, message):
    path = tmp_path / "g.txt"
    path.write_bytes(content)
    with pytest.raises(GuardParseError, match=message):
        load_guards(path)


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "g.txt"
    path.write_bytes("\ufeffL['x'].size()[0] >= 2\n".encode())
    assert len(load_guards(path)) == 1


def test_json_integer_over_4300_digits_is_a_parse_error():
    text = '{"guards": ["s0 >= 1"], "domain": {"s0": {"lower": ' + "9" * 5000 + ', "upper": "oo"}}}'
    with pytest.raises(GuardParseError, match="malformed JSON"):
        GuardSet.from_json(text)


# -- one evaluation order for and/or -------------------------------------------------------------------

SHORT_CIRCUIT = "(L['y'].size()[0] == 0 and L['x'].size()[0] >= 0) or L['x'].size()[0] // L['y'].size()[0] == 2"


def test_or_short_circuits_as_written():
    """Python accepts x=5, y=0 (the left side is True, the division is never evaluated)."""
    gs = GuardSet.parse(SHORT_CIRCUIT)
    sizes = {"x.size()[0]": 5, "y.size()[0]": 0}
    python = eval(SHORT_CIRCUIT, {"L": {"x": _Shape(5), "y": _Shape(0)}})  # our own test text
    assert python is True
    assert gs.holds(sizes) is True
    assert gs.compile().check({"x": _Shape(5), "y": _Shape(0)}) is True
    assert gs.explain(sizes).accepted
    assert gs.to_text("torch") == SHORT_CIRCUIT.replace("(", "", 1).replace(") or", " or")  # same order, no parens
    assert isinstance(gs.exprs[0], OrderedOr) and isinstance(gs.exprs[0].args[0], OrderedAnd)


def test_connectives_keep_the_written_order_through_every_form():
    for text in ("L['b'] == 0 or L['a'] // L['b'] > 1", "L['b'] != 0 and (L['a'] % L['b']) == 0", "not (L['b'] == 0 or L['a'] // L['b'] > 1)"):
        gs = GuardSet.parse(text)
        assert gs.to_text("torch") == text
        assert GuardSet.parse(gs.to_text("sympy"), symbols=gs.source_map) == gs
        assert GuardSet.from_json(gs.to_json()) == gs
        for a, b in itertools.product(range(-2, 3), repeat=2):
            try:
                want = bool(eval(text, {"L": {"a": a, "b": b}}))
            except ZeroDivisionError:
                want = False
            assert gs.holds({"a": a, "b": b}) is want, (text, a, b)
            assert gs.compile().check({"a": a, "b": b}) is want, (text, a, b)


def test_chains_print_only_adjacent_relations_in_order():
    gs = GuardSet.parse("2 <= L['x'] and L['y'] // L['z'] > 0 and L['x'] <= 9")
    assert gs.to_text() == "2 <= L['x'] and L['y'] // L['z'] > 0 and L['x'] <= 9"
    assert GuardSet.parse("2 <= L['x'] <= 9").to_text() == "2 <= L['x'] <= 9"


def test_symbolic_exponent_is_pythons_power():
    """``1 ** -1 == 1.0`` in Python: the guard holds; no raw ValueError from holds()."""
    gs = GuardSet.parse("L['a'] ** L['b'] >= 1")
    for a, b in itertools.product(range(-3, 4), range(-3, 4)):
        try:
            want = a**b >= 1
        except ZeroDivisionError:
            want = False
        assert gs.holds({"a": a, "b": b}) is want, (a, b)
        assert gs.compile().check({"a": a, "b": b}) is want, (a, b)
    assert gs.to_text() == "L['a']**L['b'] >= 1"
    assert GuardSet.from_json(gs.to_json()) == gs


def test_written_power_by_natural_keeps_its_meaning():
    gs = GuardSet.parse("PowByNatural(L['a'], L['b']) >= 1")
    assert gs.to_text() == "PowByNatural(L['a'], L['b']) >= 1"
    assert gs.holds({"a": 1, "b": -1}) is False  # a natural power of a negative exponent raises: the guard fails
    assert gs.compile().check({"a": 1, "b": -1}) is False
    assert GuardSet.parse("2 ** L['x'].size()[0] >= 2").to_text() == "2**L['x'].size()[0] >= 2"  # sizes are natural


@pytest.mark.parametrize("text", ["L['x'] // L['y'] == L['x'] // L['y']", "0 // L['y'] == 0", "L['y'] % L['y'] == 0"])
def test_folding_widens_at_a_zero_divisor_as_documented(text):
    """Note [Canonical forms] in symint.sympy_io.functions: folding may drop a division by zero (y = 0 is accepted)."""
    gs = GuardSet.parse(text)
    values = {src.base: {"x": 3, "y": 0}[src.base] for _, src in gs.sources}
    assert gs.holds(values) is True
    assert gs.compile().check(values) is True
    with pytest.raises(ZeroDivisionError):
        eval(text, {"L": {"x": 3, "y": 0}})


class _Shape:
    def __init__(self, n: int):
        self.shape = (n,)

    def size(self):
        return self.shape


# -- bindings ------------------------------------------------------------------------------------------


def test_an_int_input_named_like_a_size_is_refused():
    with pytest.raises(AmbiguousSourceError, match="both written 'x.size\\(\\)\\[0\\]'"):
        GuardSet.parse("L['x.size()[0]'] == L['x'].size()[0] + 1")
    s0, s1 = symbol_expr("s0"), symbol_expr("s1")
    with pytest.raises(AmbiguousSourceError):
        GuardSet.of([ge(s0, s1)], {s0: Source.value("x.size()[0]"), s1: Source.size("x", 0)})


def test_a_symbol_named_like_an_input_is_an_ambiguous_key():
    gs = GuardSet.parse("s0 >= L['s0']")
    with pytest.raises(AmbiguousSourceError):
        gs.holds({"s0": 3, "L['s0']": 2})
    (sym,) = [s for s, src in gs.sources]
    assert gs.holds({symbol_expr("s0"): 3, Source.value("s0"): 2}) is True


def test_two_keys_for_one_symbol_must_agree():
    with pytest.raises(AmbiguousSourceError, match="different values"):
        _GS.bind({"x.size()[0]": 3, "L['x'].size()[0]": 4, "n": 1})
    assert _GS.holds({"x.size()[0]": 3, "L['x'].size()[0]": 3, "n": 1})


# -- escaping in every text sink --------------------------------------------------------------------------

NASTY = "x\n(assert false)\r\u2028\x85\nSPOOF satisfiable: no"


def _nasty_set() -> GuardSet:
    s0, s1 = symbol_expr("s0"), symbol_expr("s1")
    return GuardSet.of(
        [sympy_guard(ge(s0, 2), NASTY), sympy_guard(ge(s1, s0), "o\nSPOOF: no")],
        {s0: Source.size(NASTY, 0), s1: Source.value("n\nSPOOF: none")},
    )


def sympy_guard(expr, origin):
    from guards import Guard

    return Guard.of(expr, origin)


def test_smtlib_comments_cannot_inject_commands():
    text = to_smtlib(_nasty_set())
    assert "(assert false)" not in [line.strip() for line in text.splitlines()]
    for line in text.splitlines():
        assert line.startswith(";") or line.startswith("(")
    assert sum(line.startswith("(assert") for line in text.splitlines()) == 3  # the domain of s0 and the two guards


def test_json_keeps_a_line_separator_inside_one_guard():
    gs = GuardSet.parse("L['a\u2028b'] >= 1\nL['c\x85d'] < 3")
    assert len(gs) == 2
    back = GuardSet.from_json(gs.to_json())
    assert back == gs and len(back) == 2
    assert len(GuardSet.from_json(json.dumps({"guards": ["L['a\u2028b'] >= 1"]}))) == 1


@pytest.mark.parametrize("command", ["check", "simplify", "explain", "eval"])
def test_cli_text_output_has_one_line_per_fact(tmp_path, command):
    from shapeenv.cli import main

    path = tmp_path / "g.json"
    path.write_text(_nasty_set().to_json())
    out, err = io.StringIO(), io.StringIO()
    argv = ["guards", command, str(path)]
    if command in ("explain", "eval"):
        argv += ["--sizes", f"{Source.size(NASTY, 0).torch_text()}=1", "L['n\\nSPOOF: none']=0"]
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code in (EXIT_OK, EXIT_NO), err.getvalue()
    lines = out.getvalue().splitlines()
    assert lines and not any(line.startswith(("SPOOF", "(assert false)")) for line in lines)


def test_html_and_latex_escape_user_text():
    gs = GuardSet.of([sympy_guard(ge(symbol_expr("s0"), 2), "<script>alert(1)</script>")], {symbol_expr("s0"): Source.size("<b>}\\", 0)})
    page = gs._repr_html_()
    assert "<script>" not in page and "<b>" not in page
    latex = gs._repr_latex_()
    assert "}\\" not in latex.replace(r"\}", "").replace(r"\backslash", "") or r"\}" in latex


def test_one_line_escapes_every_line_break():
    for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
        assert len(("a" + one_line(f"b{c}c")).splitlines()) == 1


# -- the CLI never shows a traceback --------------------------------------------------------------------


def _cli(*argv: str, cwd: Path | None = None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "shapeenv.cli", *argv],
        capture_output=True,
        cwd=cwd,
        input=stdin,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_cli_user_errors_have_no_traceback(tmp_path):
    (tmp_path / "bin.txt").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.txt").write_bytes(b"L['\xe9'] > 1\n")
    (tmp_path / "bomb.txt").write_text("((x ** 8192) ** 8192) ** 8192 >= 1\n")
    (tmp_path / "user_mod.py").write_text("def f(x):\n    raise RuntimeError('boom in user code')\n")
    (tmp_path / "import_fails.py").write_text("raise ValueError('at import')\n")
    cases = [
        (("guards", "check", str(tmp_path / "bin.txt")), EXIT_USAGE, "binary file"),
        (("guards", "check", str(tmp_path / "latin.txt")), EXIT_USAGE, "not UTF-8"),
        (("guards", "check", str(tmp_path / "bomb.txt")), EXIT_USAGE, "too large"),
        (("guards", "check", "-"), EXIT_USAGE, "binary file"),
        (("export", "user_mod:f", "--shape", "x=3"), 1, "user_mod.py:2"),
        (("export", "import_fails:f", "--shape", "x=3"), EXIT_USAGE, "raised ValueError"),
    ]
    for argv, code, message in cases:
        proc = _cli(*argv, cwd=tmp_path, stdin=b"\x00binary" if "-" in argv else None)
        err = proc.stderr.decode()
        assert proc.returncode == code, (argv, err)
        assert "Traceback" not in err and message in err, (argv, err)


def test_internal_errors_have_their_own_exit_code(monkeypatch, capsys):
    from shapeenv.cli import guards as guards_cli
    from shapeenv.cli import main

    def broken(args):
        raise KeyError("a bug")

    monkeypatch.setitem(guards_cli._COMMANDS, "check", broken)
    code = main(["guards", "check", "whatever.txt"])
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL and err.startswith("internal error: KeyError") and "please report it" in err
    assert "4  internal error" in guards_cli.EXIT_CODES
