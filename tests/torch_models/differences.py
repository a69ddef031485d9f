"""How our guard set for each model compares with torch's, and why: the record the differential suite checks.

``EXPORT[name]`` compares ``shapeenv.torch.export``'s guards with ``torch.export``'s contract (the
printed program's input shapes and range constraints and ``ep._guards_code``, on the user inputs),
both traced with the case's ``torch.export.Dim`` specs. ``COMPILE[name]`` compares our guards
(layout guards included) for the natural range (``Dim`` without bounds) with the guard dump of
``torch.compile(model, backend="eager", dynamic=True)``, for the models whose natural range
torch.export refuses. The verdict is the Z3 answer: ``equivalent``, or ``more general`` (torch's
guards imply ours: we accept every input torch accepts, and more). The test fails when Z3's
answer differs from the record, so the record cannot go stale.

>>> sorted(EXPORT) == sorted(COMPILE) or sorted(COMPILE)
['audio', 'resnet', 'text', 'unet', 'vit']
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Difference", "EXPORT", "COMPILE"]


@dataclass(frozen=True)
class Difference:
    """The verdict of one comparison and the reason for any difference."""

    verdict: str
    reason: str


EXPORT: dict[str, Difference] = {}

COMPILE: dict[str, Difference] = {}
