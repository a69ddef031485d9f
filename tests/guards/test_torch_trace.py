"""torch's structured traces, printed export programs and diffs by meaning, on runs captured from torch 2.13.

The data under ``data/torch_runs/`` is made by ``data/make_torch_runs.py``: each run wrote its
``TORCH_LOGS=recompiles,dynamic,guards`` text (``<run>.log``) and its ``TORCH_TRACE``
(``<run>_trace/``) in one process, so both must read as the same guard sets.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from guards import GuardParseError, GuardSet
from shapeenv.cli.guards import main
from guards.guardset import read_torch_output
from guards.torchlog.torch_check import TorchGuards, explain_call
from guards.torchlog.torch_log import read_torch_log
from guards.torchlog.torch_trace import looks_like_torch_trace, read_torch_trace

RUNS = Path(__file__).parent / "data" / "torch_runs"
NAMES = ("mask", "block", "chunks")
EXPORT, OURS = RUNS / "export_derived.txt", RUNS / "export_derived_ours.txt"


def _trace(name: str) -> Path:
    return RUNS / f"{name}_trace" / "trace_0.log"


def _run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _no_line(origin: str | None) -> str:
    return re.sub(r"^line \d+ ", "", origin or "")


# -- TORCH_TRACE reads as the TORCH_LOGS text of the same run ------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_trace_gives_the_text_logs_entries_guards_and_provenance(name: str) -> None:
    text = read_torch_log((RUNS / f"{name}.log").read_text())
    trace = read_torch_trace(_trace(name).read_text())
    assert [e.compile_id for e in trace.entries] == [e.compile_id for e in text.entries] and len(text.entries) >= 2
    for t, x in zip(trace.entries, text.entries):
        gt, gx = GuardSet.from_torch_entry(t), GuardSet.from_torch_entry(x)
        assert gt.exprs == gx.exprs and gt.source_map == gx.source_map, t.compile_id
        assert [_no_line(g.origin) for g in gt] == [_no_line(g.origin) for g in gx]
        assert t.skipped_counts() == x.skipped_counts() and len(gt) >= 5
        assert [(v.source_text, v.value) for v in t.values] == [(v.source_text, v.value) for v in x.values]
        assert [(m.source_text, m.dtype, m.size) for m in t.tensors] == [(m.source_text, m.dtype, m.size) for m in x.tensors]
    # a guard's line is its line in the trace file
    for g in trace.entries[-1].guards:
        line = _trace(name).read_text().splitlines()[g.line - 1]
        assert line.startswith("\t") and f"+- {g.kind}: " in line, (g, line)


@pytest.mark.parametrize("name", NAMES)
def test_trace_gives_the_text_logs_recompiles_and_dynamic_symbols(name: str) -> None:
    text = read_torch_log((RUNS / f"{name}.log").read_text())
    trace = read_torch_trace(_trace(name).read_text())

    def recompiles(log):
        return [(r.function, r.where, r.compile_id, [(f.compile_id, f.text) for f in r.failures]) for r in log.recompiles]

    def dynamic(log):
        return [(d.compile_id, [(s.name, s.hint, s.source_text, s.low, s.high) for s in d.symbols], [g.text for g in d.guards])
                for d in log.dynamic]  # fmt: skip

    assert recompiles(trace) == recompiles(text) and len(text.recompiles) >= 1
    # the same symbols; the trace's guards are the text's plus the ones it prints "[guard suppressed]"
    # (Note [Suppressed guards in a trace])
    assert [d[:2] for d in dynamic(trace)] == [d[:2] for d in dynamic(text)] and text.dynamic
    suppressed = [line.split("[guard suppressed] ")[1].split(" [guard added]")[0] for line in (RUNS / f"{name}.log").read_text().splitlines()
                  if "eval [guard suppressed]" in line]  # fmt: skip
    for (_, _, mine), (_, _, theirs) in zip(dynamic(trace), dynamic(text)):
        rest = list(mine)
        for g in theirs:
            rest.remove(g)
        assert all(g in suppressed for g in rest)


def test_trace_files_and_directories_read_in_the_api() -> None:
    newest = GuardSet.from_file(RUNS / "mask.log")
    assert GuardSet.from_file(_trace("mask")).exprs == newest.exprs
    assert GuardSet.from_file(RUNS / "mask_trace").exprs == newest.exprs  # the TORCH_TRACE directory
    sets = GuardSet.from_torch_log(_trace("mask").read_text())
    assert [gs.exprs for gs in sets] == [gs.exprs for gs in GuardSet.from_torch_log((RUNS / "mask.log").read_text())]
    assert looks_like_torch_trace(_trace("mask").read_text()) and not looks_like_torch_trace((RUNS / "mask.log").read_text())


def test_trace_in_every_cli_command(capsys) -> None:
    trace = _trace("mask")
    code, out, _ = _run(["check", trace], capsys)
    # before: "entry #4 of 5 (0 guards kept; skipped: none)", "satisfiable: yes", exit 0
    assert code == 0 and out.startswith("# torch trace: entry 0/2 of 3 (17 guards kept;")
    code, out, _ = _run(["explain", trace, "--recompiles"], capsys)
    assert code == 1 and "as entry 0/2 because:" in out and "entry 0/1: (L['x'].size()[1] % 2) == 0 failed" in out
    _, text_out, _ = _run(["explain", RUNS / "mask.log", "--recompiles"], capsys)
    assert re.sub(r"\(guard at line \d+\)", "", out) == re.sub(r"\(guard at line \d+\)", "", text_out)
    code, out, _ = _run(["explain", RUNS / "mask_trace", "--shape", "x=3,9,16", "mask=3,9"], capsys)
    assert code == 0 and "reused: entry 0/2" in out
    code, out, _ = _run(["region", trace, "--entry", "0/1"], capsys)
    assert code == 0 and "L['mask'].size()[1]: 2, 4, ..., 40" in out
    code, out, _ = _run(["diff", RUNS / "mask.log", trace, "--entry", "0/1", "--json"], capsys)
    assert code == 0 and json.loads(out)["equivalent"] == "yes"


def test_a_file_without_guards_is_an_error(capsys, tmp_path) -> None:
    # a trace without its guard records (the chromium events and compile metrics only)
    lines = _trace("mask").read_text().splitlines()
    kept, skip = [], False
    for line in lines:
        if not line.startswith("\t"):
            skip = any(f'"{kind}"' in line for kind in ("dynamo_cpp_guards_str", "create_symbol", "guard_added_fast"))
        if not skip:
            kept.append(line)
    stripped = tmp_path / "trace_no_guards.log"
    stripped.write_text("\n".join(kept) + "\n")
    assert "dynamo_cpp_guards_str" not in stripped.read_text()
    code, out, err = _run(["check", stripped], capsys)
    assert code == 2 and "holds no guards" in err and "satisfiable" not in out
    # the old reading: tab-indented trees read as a text log gave entries with 0 guards; now refused, never "satisfiable"
    notes = tmp_path / "notes.txt"
    notes.write_text("# just a comment\n\n")
    code, _, err = _run(["check", notes], capsys)
    assert code == 2 and "holds no guards" in err
    with pytest.raises(GuardParseError, match="holds no guards"):
        GuardSet.from_torch_log("Recompiling function f in m.py:3\n    triggered by the following guard failure(s):\n    - 0/0: x")
    with pytest.raises(GuardParseError):
        GuardSet.from_file(notes)


def test_a_dict_key_with_is_inside_is_still_a_shape_guard() -> None:
    log = "TREE_GUARD_MANAGER:\n+- LAMBDA_GUARD: L['d']['a is b'].size()[0] == L['x'].size()[0]\n+- LAMBDA_GUARD: L['a'] is L['b']"
    [entry] = read_torch_log(log).entries
    assert [g.text for g in entry.guards] == ["L['d']['a is b'].size()[0] == L['x'].size()[0]"]
    assert entry.skipped_counts() == {"LAMBDA_GUARD (object identity)": 1}


# -- float, bool, str and None values (issue 22 item 5) ---------------------------------------------------


class _LayerNorm:
    def __init__(self, eps):
        self.eps = eps


class _Module:
    def __init__(self, eps=1e-05, training=False, scale=0.5, act="gelu"):
        self._modules = {"ln1": _LayerNorm(eps)}
        self.training, self.scale, self.act = training, scale, act


_VALUES_LOG = """TREE_GUARD_MANAGER:
+- RootGuardManager
| +- LAMBDA_GUARD: L['self']._modules['ln1'].eps == 1e-05  # return F.layer_norm(
| +- EQUALS_MATCH: L['self'].scale == 0.5
| +- FALSE_MATCH: L['self'].training == False
| +- EQUALS_MATCH: L['self'].act == 'gelu'
| +- LAMBDA_GUARD: 2 <= L['n']"""


def test_non_integer_values_are_read_with_their_types() -> None:
    [entry] = read_torch_log(_VALUES_LOG).entries
    assert [(v.source_text, v.value, type(v.value)) for v in entry.values] == [
        ("L['self']._modules['ln1'].eps", 1e-05, float), ("L['self'].scale", 0.5, float),
        ("L['self'].training", False, bool), ("L['self'].act", "gelu", str)]  # fmt: skip
    tg = TorchGuards.of(entry)
    # before: eps was read as int(1e-05) == 0, "got 0", and the call was reported as a recompile
    assert tg.explain({"self": _Module(), "n": 3}).accepted
    for changed, word in ((_Module(eps=1e-6), "eps == 1e-05"), (_Module(training=True), "training == False"),
                          (_Module(scale=0.25), "scale == 0.5"), (_Module(act="relu"), "act == 'gelu'"),
                          (_Module(scale=0), "scale == 0.5")):  # fmt: skip
        verdict = tg.explain({"self": changed, "n": 3})
        assert not verdict.accepted and word in str(verdict), str(verdict)
    assert explain_call([tg], {"self": _Module(), "n": 3}).reused == "#0"


def test_real_block_dump_keeps_eps_scale_and_training() -> None:
    log = read_torch_log((RUNS / "block.log").read_text())
    kinds = {(v.source_text, v.value) for v in log.entries[-1].values}
    assert kinds == {("L['self']._modules['ln1'].eps", 1e-05), ("L['self'].scale", 0.5), ("L['self'].training", False)}


# -- printed torch.export programs --------------------------------------------------------------------------


def test_export_program_in_the_api() -> None:
    text = EXPORT.read_text()
    [gs] = GuardSet.from_torch_log(text)  # before: [] without a word
    assert GuardSet.from_file(EXPORT).exprs == gs.exprs  # before: GuardParseError at "ExportedProgram:"
    printed = gs.to_text("torch")
    assert "p_proj_weight" not in printed and "L['self']._modules['proj']._parameters['weight'].size()[1] == 16" in printed
    assert "s75" not in printed and "(L['x'].size()[1] % 2) == 0" in printed
    values = {"x.size()[0]": 4, "x.size()[2]": 16, "mask.size()[0]": 4,
              "self._modules['proj']._parameters['weight'].size()[0]": 8, "self._modules['proj']._parameters['weight'].size()[1]": 16,
              "self._modules['proj']._parameters['bias'].size()[0]": 8}  # fmt: skip
    assert gs.holds({**values, "x.size()[1]": 10, "mask.size()[1]": 10})
    assert not gs.holds({**values, "x.size()[1]": 11, "mask.size()[1]": 11})


def test_export_program_in_the_cli(capsys) -> None:
    code, out, err = _run(["explain", EXPORT, "--shape", "x=4,10,16", "mask=4,10"], capsys)
    # before: "no value given for symbol s75" and every p_* parameter demanded
    assert code == 0 and "derived dim root s75 = x.size()[1] // 2 = 5" in out, err
    code, out, _ = _run(["explain", EXPORT, "--shape", "x=4,11,16", "mask=4,11"], capsys)
    assert code == 1 and "(x.size()[1] % 2) == 0 failed: got 11" in out and "s75" not in out.split("rejected")[1].split("#")[0]
    code, out, _ = _run(["region", EXPORT], capsys)  # before: exit 4, UnboundSymbolError
    assert code == 0 and "x.size()[1]" in out
    code, out, _ = _run(["check", EXPORT], capsys)
    assert code == 0 and "satisfiable: yes" in out


# -- diff by meaning -------------------------------------------------------------------------------------


def test_diff_ours_against_torch_export_unifies_names(capsys) -> None:
    code, out, _ = _run(["diff", OURS, EXPORT, "--json"], capsys)
    report = json.loads(out)
    # torch's printed range for the root is s75 in [2, 32] (so x.size()[1] >= 4), ours accepts x.size()[1] = 2
    assert report["a_implies_b"] == "no" and report["b_implies_a"] == "yes"
    assert report["more_general"].startswith("A is more general")
    inputs = report["counterexample"]["inputs"]
    assert inputs["x.size()[1]"] == 2 and not any("self" in k or "p_" in k for k in inputs)  # user inputs only
    assert len(report["module_state_fixed"]) == 3 and not report["module_state_conflicts"]


def test_diff_equivalent_across_names_and_module_state(capsys, tmp_path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_text("\n".join([
        "L['self']._modules['proj']._parameters['weight'].size()[0] == 8",
        "L['self']._modules['proj']._parameters['weight'].size()[1] == 16",
        "L['x'].size()[2] == 16", "L['mask'].size()[0] == L['x'].size()[0]", "L['mask'].size()[1] == L['x'].size()[1]",
        "1 <= L['x'].size()[0] <= 16", "4 <= L['x'].size()[1] <= 64", "L['x'].size()[1] % 2 == 0"]) + "\n")  # fmt: skip
    code, out, _ = _run(["diff", mine, EXPORT], capsys)
    assert code == 0 and "equivalent: yes" in out, out
    other = tmp_path / "other.txt"
    other.write_text(mine.read_text().replace("size()[0] == 8", "size()[0] == 9"))
    code, out, _ = _run(["diff", other, EXPORT], capsys)
    assert "module state differs: L['self']._modules['proj']._parameters['weight'].size()[0] is 9 in A and 8 in B" in out


def test_diff_entries_per_file(capsys, tmp_path) -> None:
    log = RUNS / "mask.log"
    code, out, _ = _run(["diff", log, log, "--entry", "A:0/1", "--entry", "B:0/2", "--json"], capsys)
    report = json.loads(out)
    assert code == 1 and report["more_general"] == "neither is more general: each accepts inputs the other rejects"
    code, out, _ = _run(["diff", log, log, "--entry", "0/1", "--json"], capsys)  # the old meaning: one entry of both
    assert code == 0 and json.loads(out)["equivalent"] == "yes"
    mine = tmp_path / "even.txt"
    mine.write_text("L['x'].size()[1] % 2 == 0\n2 <= L['x'].size()[1]\n")
    code, out, err = _run(["diff", mine, log, "--entry", "B:0/1"], capsys)  # before: exit 2
    assert code == 1 and "A is more general" in out, err
    code, out, err = _run(["diff", mine, log, "--entry", "0/1"], capsys)  # a bare ID applies to the log only
    assert code == 1 and "A is more general" in out, err
    code, _, err = _run(["diff", log, log, "--entry", "0/1", "--entry", "A:0/2"], capsys)
    assert code == 2 and "bare ID" in err


def test_diff_notes_an_unsatisfiable_side(capsys, tmp_path) -> None:
    ok, unsat = tmp_path / "ok.txt", tmp_path / "unsat.txt"
    ok.write_text("L['x'].size()[0] >= 2\n")
    unsat.write_text("L['x'].size()[0] == 2\nL['x'].size()[0] == 3\n")
    code, out, _ = _run(["diff", ok, unsat], capsys)
    assert code == 1 and "note: B is unsatisfiable (it accepts no input), so 'B implies A: yes' says nothing" in out


def test_read_torch_output_dispatches() -> None:
    assert read_torch_output(_trace("chunks").read_text()).stats["format"] == "torch trace"
    assert "format" not in read_torch_output((RUNS / "chunks.log").read_text()).stats


# -- linear time on hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    'def forward(self, ' + "a" * 1_000_000 + ":",  # a name with no ': "' after it
    "def forward(self" * 60_000,  # many starts, no "):"
    'def forward(self, x: "f32[3]"):\nRange constraints: {' + "s0, " * 250_000,  # range keys without ": VR["
    'def forward(self, x: "f32[3]"):\n' + "Runtime assertion failed for expression " * 25_000,
], ids=["long-name", "many-forwards", "ranges-without-colons", "asserts-without-end"])
def test_export_reader_is_linear_on_a_1mb_line(text: str) -> None:
    import time

    from guards.torchlog.export_text import read_export_text

    start = time.perf_counter()
    try:
        read_export_text(text)
    except GuardParseError:
        pass
    assert time.perf_counter() - start < 1.0


def test_trace_and_value_readers_are_linear_on_a_1mb_line() -> None:
    import time

    from guards.torchlog.torch_log import _non_shape_lambda, _top_level_eq, literal_value

    key = "a is b " * 150_000
    hostile = [
        lambda: read_torch_trace('V1203 09:29:19.998000 1 a.py:1] {"str": ["' + "x" * 1_000_000 + '", 0]}'),
        lambda: _non_shape_lambda(f"L['{key}'].size()[0] == 2"),
        lambda: _top_level_eq(f"L['{key}'] == 1e-05"),
        lambda: literal_value("'" + "\\x41" * 250_000 + "'"),
        lambda: read_torch_log(f"TREE_GUARD_MANAGER:\n+- EQUALS_MATCH: L['{key}'] == 'v'"),
    ]
    for run in hostile:
        start = time.perf_counter()
        run()
        assert time.perf_counter() - start < 1.0


def test_real_arguments_against_a_trace() -> None:
    import numpy as np

    from guards.torchlog.torch_check import load_torch_guards

    entries = load_torch_guards(_trace("mask").read_text())
    assert [e.compile_id for e in entries] == ["0/0", "0/1", "0/2"]
    odd = {"x": np.zeros((3, 9, 16), np.float32), "mask": np.zeros((3, 9), bool)}
    even = {"x": np.zeros((3, 10, 16), np.float32), "mask": np.zeros((3, 10), bool)}
    assert explain_call(entries, odd, assume_traced=True).reused == "0/2"
    assert explain_call(entries, even, assume_traced=True).reused == "0/1"


def test_a_root_is_solved_from_its_derived_dim_everywhere_it_is_used() -> None:
    """``2*s75 + 1`` names the root ``s75 = (x.size()[0] - 1) // 2``; its range and asserts (a float one too) follow."""
    from guards import GuardSet
    from guards.torchlog.export_text import read_export_text

    text = (
        'def forward(self, x: "f32[2*s75 + 1, 3]"):\n'
        "Graph signature:\n"
        "Range constraints: {2*s75 + 1: VR[3, 65], s75: VR[1, 32]}\n"
        '    _assert_scalar = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression s75/2 < 10.5 on node \'ge\'")\n'
        '    _assert_scalar_1 = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression s75 >= 3 on node \'ge\'")\n'
    )
    e = read_export_text(text)
    assert e.roots == (("s75", "(x.size()[0] - 1) // 2"),)
    sources = dict(e.sources)
    assert all(g.free_symbols <= set(sources) for g in e.guards), [str(g.expr) for g in e.guards]  # no root is left
    gs = GuardSet.of(e.guards, sources)
    (d0,) = (s for s, src in sources.items() if src.text() == "x.size()[0]")
    (d1,) = (s for s, src in sources.items() if src.text() == "x.size()[1]")
    admitted = [n for n in range(0, 80) if gs.holds({d0: n, d1: 3})]
    assert admitted == list(range(7, 42, 2))  # odd, s75 = (n - 1) // 2 in [3, 20] (s75 / 2 < 10.5)
