"""torch's source spelling (guards/text/torch_sources.py): parsed and printed back identically; real arguments followed."""

from __future__ import annotations

import numpy as np
import pytest

from guards import GuardParseError, GuardSet, GuardTypeError, Source, UnknownSourceError, parse_source
from guards.text.torch_sources import parse_path, resolve, torch_base

# Every spelling the issue lists, as torch prints it: read and printed back unchanged.
TORCH_SPELLINGS = [
    "L['x'].size()[0]",
    "L['xs'][0].size()[0]",
    "L['d']['w'].size()[0]",
    "L['args'][0]",
    "L['self']._modules['fc']._parameters['weight'].size()[1]",
    "L['self']._modules['bn']._buffers['running_mean'].stride()[0]",
    "L['x']._base.size()[0]",
    "L['n'].item()",
    "L['self'].heads",
    "L['xs'][-1].storage_offset()",
    "G['w'].size()[0]",
    "G['__import_torch'].F.weight.numel()",
    "L['a b'].size()[0]",
    "L['a b'][2]['k'].size()[0]",
]


@pytest.mark.parametrize("text", TORCH_SPELLINGS)
def test_torch_spelling_round_trips(text: str) -> None:
    src = parse_source(text)
    assert src.torch_text() == text
    if parse_path(src.base) is not None:  # our dialect reads back too (an odd name like 'a b' prints L['a b'])
        assert parse_source(src.text()) == src
    gs = GuardSet.parse(f"2 <= {text}")
    assert gs.to_text() == f"2 <= {text}"


def test_project_nested_inputs_print_in_torch_spelling() -> None:
    # the names shapeenv gives pytree leaves (program.py: "xs[0]", "xs[1]['k']")
    assert Source.size("xs[0]", 0).torch_text() == "L['xs'][0].size()[0]"
    assert Source.size("xs[1]['k']", 2).torch_text() == "L['xs'][1]['k'].size()[2]"
    # the old spelling L['xs[0]'] still names the same input
    assert parse_source("L['xs[0]'].size()[0]") == Source.size("xs[0]", 0)


def test_paths_and_non_paths() -> None:
    assert parse_path("x.size()[0]") is None and parse_path("my input") is None
    assert torch_base("my input") == "L['my input']"
    assert parse_path("L['d']['w']").base() == "d['w']"


def test_dunder_steps_are_refused() -> None:
    for text in ("L['x'].__class__.size()[0] > 1", "L['x']._base.__dict__ > 1", "xs[0].__len__ > 1"):
        with pytest.raises(GuardParseError, match="__"):
            GuardSet.parse(text)


class _Module:
    def __init__(self):
        self._modules = {"fc": type("Linear", (), {"_parameters": {"weight": np.zeros((4, 3))}})()}
        self.heads = 2


def test_resolve_follows_lists_dicts_attributes_and_calls() -> None:
    args = {"self": _Module(), "xs": [np.zeros(3), np.zeros((2, 5))], "d": {"w": np.ones(7)}, "n": np.int64(5)}
    assert resolve("self._modules['fc']._parameters['weight']", args).shape == (4, 3)
    assert resolve("xs[-1]", args).shape == (2, 5)
    assert resolve("d['w']", args).shape == (7,)
    assert resolve("n.item()", args) == 5
    assert resolve("self.heads", args) == 2
    with pytest.raises(UnknownSourceError, match="no input named 'y'"):
        resolve("y[0]", args)
    with pytest.raises(GuardTypeError, match=r"L\['xs'\]\[5\]"):
        resolve("xs[5]", args)
