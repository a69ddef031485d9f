"""``shapeenv advise``: recompile advice on three torch 2.13 runs that recompile (shapeenv/compile/advise.py).

The runs are under ``tests/guards/data/torch_runs/`` (made by ``make_torch_runs.py``), each with
the shapes of every call the script made (``<run>.calls.json``). The advice is checked by
replaying those calls: padded as proposed, every call satisfies the one proposed guard set,
so no call recompiles. ``test_advise_torch.py`` applies the advice to the real models in torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shapeenv.cli.guards_torch import read_text
from guards.guardset import read_torch_output
from guards.torchlog.torch_log import read_torch_log
from shapeenv.compile.advise import AdviceError, advise, bind_call, logged_calls, read_calls
from shapeenv.cli import main

RUNS = Path(__file__).resolve().parents[1] / "guards" / "data" / "torch_runs"
NAMES = ("mask", "block", "chunks")


def _log(name: str, trace: bool = False):
    return read_torch_output(read_text(str(RUNS / (f"{name}_trace" if trace else f"{name}.log"))))


def _recorded(name: str):
    return read_calls((RUNS / f"{name}.calls.json").read_text())


@pytest.mark.parametrize("name", NAMES)
def test_logged_calls_are_the_calls_that_compiled(name: str) -> None:
    log = _log(name)
    calls = logged_calls(log)
    recorded = {c.text() for c in _recorded(name)}
    # one call per entry, each one the script really made
    assert len(calls) == len(log.entries) >= 2 and all(c.text() in recorded for c in calls), [c.text() for c in calls]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("trace", [False, True])
def test_advice_removes_every_recompile_of_the_recorded_calls(name: str, trace: bool) -> None:
    log = _log(name, trace)
    assert len(log.entries) >= 2 and log.recompiles  # the run recompiled
    advice = advise(log, _recorded(name))
    best = advice.best
    assert best.compiles == 1 and best.proven and best.guards is not None, advice.format()
    # replay: every recorded call, padded as proposed, is accepted by the one proposed guard set
    assert len(best.padded) == len(_recorded(name))
    for call in best.padded:
        values = bind_call(best.guards, call)
        assert values is not None and not best.guards.failures(values), call.text()
    # and each padded call is no smaller than the call it serves, in every dim
    for raw, padded in zip(_recorded(name), best.padded):
        for (b, shape), (b2, shape2) in zip(raw.shapes, padded.shapes):
            assert b == b2 and all(p >= r for r, p in zip(shape, shape2))


def test_the_proposals_per_run() -> None:
    mask = advise(_log("mask"), _recorded("mask")).best
    assert mask.name == "mark_dynamic + padding" and mask.pad[1] == 2
    assert {(d.base, d.index, d.strict, d.multiple) for d in mask.dims} == {("x", 1, False, 2), ("mask", 1, False, 2)}
    assert "torch._dynamo.maybe_mark_dynamic(x, 1)" in mask.changes
    assert any('2*mask_1' in c and '"x": {1: 2*mask_1}' in c for c in mask.changes)  # tied dims share one Dim
    block = advise(_log("block"), _recorded("block")).best
    assert block.name == "mark_dynamic" and block.changes[0] == "torch._dynamo.mark_dynamic(x, 0, min=2, max=6)"
    chunks = advise(_log("chunks"), _recorded("chunks")).best
    assert [(d.index, d.strict, d.multiple) for d in chunks.dims] == [(0, True, 1), (1, False, 4)]


def test_causes_name_the_specialised_sources() -> None:
    advice = advise(_log("mask"))
    assert "L['x'].size()[1] specialised to 4 in entry 0/0 (a call had 6)" in advice.causes
    assert any(c.startswith("(x.size()[1] % 2) == 0 in entry 0/1") for c in advice.causes)
    assert dict(advice.varying)["L['x'].size()[1]"] == (4, 6, 7)


def test_a_proof_is_not_given_for_a_call_outside_the_set() -> None:
    advice = advise(_log("block"), _recorded("block"))
    gs = advice.best.guards
    wider = read_calls(json.dumps([{"x": [7, 8, 16]}]))[0]  # above the proposed max
    values = bind_call(gs, wider)
    assert values is not None and gs.failures(values)


def test_cli(capsys) -> None:
    code = main(["advise", str(RUNS / "mask_trace"), "--calls", str(RUNS / "mask.calls.json")])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("3 compiles (2 recompiles) for 7 calls")
    assert "proposal: mark_dynamic + padding (1 compile instead of 3)" in out and "proof: 5 of 5 distinct calls (padded)" in out
    code = main(["advise", str(RUNS / "chunks.log"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["proposals"][0]["proven"] and report["recompiles"] == 2


def test_errors(capsys, tmp_path) -> None:
    with pytest.raises(AdviceError, match="no guard trees"):
        advise(read_torch_log("Recompiling function f in m.py:3\n    triggered by the following guard failure(s):\n    - 0/0: x"))
    bad = tmp_path / "calls.json"
    bad.write_text('{"x": 3}')
    assert main(["advise", str(RUNS / "mask.log"), "--calls", str(bad)]) == 2
    assert "JSON list" in capsys.readouterr().err
