"""A printed torch.export program read as a guard set (guards/torchlog/torch_export.py), on the checked-in real print."""

from __future__ import annotations

from pathlib import Path

import pytest

from guards import GuardParseError, describe_region, read_exported_program

EXPORT = Path(__file__).parent / "data" / "torch_dumps" / "transformer_export.txt"


def _values(gs, b: int, s: int, d: int = 16) -> dict:
    pinned = describe_region(gs).pinned
    values = {src.text(): v for src, v in ((src, pinned.get(src.text(), pinned.get(src.torch_text()))) for _, src in gs.sources) if v is not None}
    values.update({"x.size()[0]": b, "x.size()[1]": s, "x.size()[2]": d})
    return values


def test_real_export_print_reads_as_ranges_and_pins() -> None:
    gs = read_exported_program(EXPORT.read_text())
    text = gs.to_text()
    assert "L['x'].size()[2] == 16" in text and "L['x'].size()[0] <= 64" in text and "2 <= L['x'].size()[1]" in text
    # a parameter placeholder is the module's own source, as torch.compile names it (the Graph signature's target)
    assert "L['self']._modules['qkv']._parameters['weight'].size()[0] == 48" in text and "p_qkv_weight" not in text
    assert gs.holds(_values(gs, 8, 100))
    assert not gs.holds(_values(gs, 65, 100)) and not gs.holds(_values(gs, 8, 1)) and not gs.holds(_values(gs, 8, 100, 17))


def test_shared_symbols_become_equalities_and_asserts_guards() -> None:
    text = '''def forward(self, x: "f32[s0, 2*s0]", y: "f32[s0]"):
        _assert_scalar = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed for expression s0 >= 3 on node 'ge'")
Range constraints: {s0: VR[2, 10]}'''
    gs = read_exported_program(text)
    assert gs.holds({"x.size()[0]": 4, "x.size()[1]": 8, "y.size()[0]": 4})
    assert not gs.holds({"x.size()[0]": 4, "x.size()[1]": 9, "y.size()[0]": 4})
    assert not gs.holds({"x.size()[0]": 2, "x.size()[1]": 4, "y.size()[0]": 2})  # the runtime assert
    assert "line 2 runtime assert" in [g.origin for g in gs.guards]


def test_not_an_export_print() -> None:
    with pytest.raises(GuardParseError, match="def forward"):
        read_exported_program("L['x'].size()[0] == 2")
