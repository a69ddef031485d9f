"""Reading torch's own logs (guards/torchlog/torch_log.py, GuardSet.from_torch_log) on the checked-in real dumps.

The dumps under data/torch_dumps/ are what torch 2.13 printed for six models
(benchmarks/capture_torch_dumps.py); these tests need no torch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

from guards import GuardParseError, GuardSet
from guards.torchlog.torch_log import looks_like_torch_log, read_torch_log, strip_log_prefix

DUMPS = Path(__file__).parent / "data" / "torch_dumps"
NAMES = ["cnn", "lstm", "pad_pool", "patchify", "router", "transformer"]


def _dump(name: str) -> str:
    return (DUMPS / f"{name}.log").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", NAMES)
def test_every_real_dump_is_read_whole(name: str) -> None:
    text = _dump(name)
    log = read_torch_log(text)
    assert log.lines == len(text.splitlines())
    assert len(log.entries) >= 2
    for entry in log.entries:
        # every line of the tree is accounted for: structure, kept guard or skipped guard
        tree = [n for n in range(entry.first_line + 1, entry.last_line + 1)]
        assert entry.structure_lines + entry.guard_lines == len(tree), (name, entry.compile_id)
        assert not [s for s in entry.skipped if s.kind.startswith("unrecognised")], entry.skipped
        assert entry.tensors, "each model has tensor inputs"
    # from_torch_log gives one set per entry, in torch's order
    sets = GuardSet.from_torch_log(text)
    assert [len(gs) for gs in sets] == [len({g.text for g in e.guards}) for e in log.entries]
    assert [e.compile_id for e in log.entries] == [f"0/{k}" for k in range(len(log.entries))]


def test_first_entry_is_static_and_pins_sizes_and_strides() -> None:
    [first, second] = GuardSet.from_torch_log(_dump("cnn"))
    text = first.to_text()
    assert "L['x'].size()[0] == 2" in text and "L['x'].stride()[0] == 768" in text
    assert "L['self']._modules['conv1']._parameters['weight'].size()[0] == 4" in text
    # the automatic-dynamic entry keeps the shape lines with their bounds
    assert "2 <= L['x'].size()[0] <= 15" in second.to_text()
    assert second.holds(dict(_cnn_values(second, 3, 20, 24)))
    assert not second.holds(dict(_cnn_values(second, 16, 20, 24)))


def _cnn_values(gs: GuardSet, b: int, h: int, w: int) -> dict:
    values = {}
    for sym, src in gs.sources:
        if src.base == "x":
            values[sym] = {("size", 0): b, ("size", 1): 3, ("size", 2): h, ("size", 3): w,
                           ("stride", 0): 3 * h * w, ("stride", 1): h * w, ("stride", 2): w, ("stride", 3): 1}[(src.kind, src.index)]  # fmt: skip
        else:  # parameters and module attributes: as traced
            for g in gs.guards:
                if isinstance(g.expr, sympy.Eq) and g.expr.lhs == sym:
                    values[sym] = int(g.expr.rhs)
    return values


def test_comments_are_kept_as_provenance() -> None:
    [_, second] = GuardSet.from_torch_log(_dump("cnn"))
    bound = next(g for g in second.guards if "<= 15" in second.with_guards([g]).to_text())
    assert bound.origin.startswith("line 546 LAMBDA_GUARD")
    assert "return F.conv2d(" in bound.origin and "nn/modules/conv.py:560" in bound.origin


def test_skipped_guards_are_counted_by_kind_with_lines() -> None:
    log = read_torch_log(_dump("transformer"))
    counts = log.skipped_counts()
    assert counts["DIMENSION_DYNAMIC_MARKING_GUARD"] == 105
    assert counts["TYPE_MATCH"] == 44 and counts["ID_MATCH"] == 24 and counts["GLOBAL_STATE"] == 3
    assert counts["LAMBDA_GUARD (object identity)"] == 3  # G['...'].F is G['...'].F
    identity = [s for s in log.entries[2].skipped if s.kind == "LAMBDA_GUARD (object identity)"]
    assert identity and identity[0].text.startswith("G['__import_torch_dot_nn_dot_modules_dot_")
    assert all(s.line > log.entries[2].first_line for s in log.entries[2].skipped)


def test_nested_sources_in_torch_spelling() -> None:
    [_, dyn] = GuardSet.from_torch_log(_dump("patchify"))
    text = dyn.to_text()
    assert "L['xs'][1].size()[0] == L['xs'][0].size()[0]" in text
    assert "L['xs'][0].stride()[0] == 3*L['xs'][0].size()[2]*L['xs'][0].size()[3]" in text
    [_, lstm] = GuardSet.from_torch_log(_dump("lstm"))
    assert "2 <= L['lengths']['scale'].size()[0]" in lstm.to_text()


def test_int_equals_match_becomes_a_guard() -> None:
    [first, second] = GuardSet.from_torch_log(_dump("router"))
    n = first.symbol_for("L['n']")
    assert first.guards[[g.expr for g in first.guards].index(sympy.Eq(n, 2))].origin.startswith("line 38 EQUALS_MATCH")
    assert "L['n']" not in second.to_text()  # automatic dynamic made n a free int


def test_recompiles_are_read() -> None:
    log = read_torch_log(_dump("pad_pool"))
    assert [(r.compile_id, [(f.compile_id, f.text) for f in r.failures]) for r in log.recompiles] == [
        ("0/1", [("0/0", "tensor 'x' size mismatch at index 0. expected 2, actual 3")]),
        ("0/2", [("0/1", "tensor 'x' stride mismatch at index 2. expected 1, actual 2"),
                 ("0/0", "tensor 'x' size mismatch at index 0. expected 2, actual 3")]),
    ]  # fmt: skip
    [router] = read_torch_log(_dump("router")).recompiles
    assert router.failures[0].text == "n == 2"


def test_dynamic_symbols_are_read() -> None:
    log = read_torch_log(_dump("cnn"))
    [env] = log.dynamic
    assert env.compile_id == "0/1"
    assert [(s.name, s.hint, s.source_text, s.low, s.high) for s in env.symbols] == [
        ("s77", 3, "L['x'].size()[0]", 2, None),
        ("s53", 20, "L['x'].size()[2]", 2, None),
        ("s0", 24, "L['x'].size()[3]", 2, None),
    ]
    assert env.guards[0].text == "s77 < 16"


def test_prefixes_are_optional() -> None:
    bare = "\n".join(strip_log_prefix(line)[0] for line in _dump("cnn").splitlines())
    assert [str(gs) for gs in GuardSet.from_torch_log(bare)] == [str(gs) for gs in GuardSet.from_torch_log(_dump("cnn"))]
    assert looks_like_torch_log(bare) and not looks_like_torch_log("L['x'].size()[0] == 2\n")


def test_a_broken_shape_line_is_an_error_naming_line_and_column() -> None:
    text = "TREE_GUARD_MANAGER:\n+- RootGuardManager\n| +- LAMBDA_GUARD: 2 <= L['x'].size()[0] <= = 15  # f.py:3"
    with pytest.raises(GuardParseError) as info:
        read_torch_log(text)
    err = info.value
    assert (err.line, err.column) == (3, text.splitlines()[2].index("= 15") + 1), str(err)
    assert "line 3" in str(err) and "column" in str(err)


def test_unknown_kinds_are_skipped_or_fatal_in_strict_mode() -> None:
    text = "TREE_GUARD_MANAGER:\n+- SOME_NEW_GUARD: ___check_new(L['x'])\n+- LAMBDA_GUARD: 2 <= L['x'].size()[0]"
    [entry] = read_torch_log(text).entries
    assert [(s.line, s.kind) for s in entry.skipped] == [(2, "unrecognised SOME_NEW_GUARD")]
    with pytest.raises(GuardParseError, match="SOME_NEW_GUARD"):
        read_torch_log(text, strict=True)
    # recognised non-shape guards stay skipped in strict mode
    assert read_torch_log("TREE_GUARD_MANAGER:\n+- TYPE_MATCH: ___check_type_id(L['x'], 1)", strict=True).entries[0].skipped_counts() == {"TYPE_MATCH": 1}


def test_a_float_nan_guard_is_skipped_not_fatal() -> None:
    [entry] = read_torch_log("TREE_GUARD_MANAGER:\n+- LAMBDA_GUARD: not math.isnan(L['s'])  # y = x * s").entries
    assert entry.skipped_counts() == {"LAMBDA_GUARD (float NaN check)": 1} and not entry.guards


def test_a_dict_guard_managers_key_value_lines_do_not_end_the_tree() -> None:
    # torch 2.13 prints one "KeyValueManager pair at index=N" line per entry of a module dict
    # (nn.Sequential, nn.ModuleList): a structure line, after which the tree goes on.
    text = """TREE_GUARD_MANAGER:
+- RootGuardManager
| +- GuardManager: source=L['self']._modules['mlp']._modules, accessed_by=DictGetItemGuardAccessor('_modules'), type=<class 'dict'>
| | +- DictGuardManager: source=L['self']._modules['mlp']._modules, type=<class 'dict'>
| | | +- KeyValueManager pair at index=0
| | | | +- ValueManager: GuardManager: source=L['self']._modules['mlp']._modules['0']
+- LAMBDA_GUARD: 2 <= L['x'].size()[0]  # b, t, d = x.size()"""
    [entry] = read_torch_log(text).entries
    assert [g.text for g in entry.guards] == ["2 <= L['x'].size()[0]"]
    assert entry.structure_lines == 5
