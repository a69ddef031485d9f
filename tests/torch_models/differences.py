"""How our guard set for each model compares with torch's, and why: the record the differential suite checks.

Three comparisons, each a Z3 verdict the tests recompute (they fail when Z3's answer differs from
the record, so it cannot go stale):

* ``EXPORT[name]``: ``shapeenv.torch.export``'s guards against ``torch.export``'s contract (the
  printed program's input shapes and range constraints, and ``ep._guards_code``, which
  ``ep.module()`` checks), on the user inputs, both traced with the case's bounded Dims.
* ``COMPILE[name]``: our guards, layout guards included, with torch's default (unbounded) Dims,
  against the guard dump of ``torch.compile(model, backend="eager", dynamic=True)`` (sizes and
  strides). This is the comparison for the models whose natural range torch.export refuses.
* ``ZERO_ONE[name]``: our guards against torch.export's contract with torch's default Dims
  (``min=0``), for the models torch.export accepts that way.

A verdict is ``equivalent``, ``more general`` (torch's guards imply ours: every input torch
accepts, we accept, and Z3 finds one only we accept, which the test runs in torch) or
``narrower`` (ours implies torch's).

| model | vs torch.export, bounded Dims | vs torch.compile(dynamic=True), sizes and strides | vs torch.export, default Dims |
|---|---|---|---|
| gpt2   | equivalent | equivalent   | narrower: sizes 0 and 1 |
| vit    | equivalent | more general: torch's `W // 4 != 1` and two `%` guards | (both refuse: a named Dim is narrowed) |
| resnet | equivalent | more general: torch's `B <= 15` and conv-output `!= 1` | (torch refuses) |
| unet   | equivalent | more general: torch's `B <= 15` and pool-output `!= 1` | (torch refuses) |
| lstm   | equivalent | equivalent   | narrower: sizes 0 and 1 |
| moe    | equivalent | equivalent   | narrower: sizes 0 and 1 |
| audio  | equivalent | more general: torch's `B <= 15` and conv-output `!= 1` | (torch refuses) |
| text   | equivalent | equivalent   | narrower: a sequence of 1 (batch: torch's own guards need 2) |

>>> sorted(EXPORT) == sorted(COMPILE)
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Difference", "EXPORT", "COMPILE", "ZERO_ONE"]


@dataclass(frozen=True)
class Difference:
    """The verdict of one comparison and the reason for any difference."""

    verdict: str
    reason: str


_SAME = "the same static dims and the same ranges (the Dims' bounds); no other guard on either side"

#: The CPU conv backend and contiguity guards torch adds and we do not: implementation choices
#: of torch's kernels, not facts about the model's shapes.
_CONV = ("torch adds `2 <= B <= 15` on the batch of a conv input (its CPU conv backend selection) and `!= 1` on "
         "conv/pool output sizes (contiguity and stride computations in its meta functions); we have neither, so "
         "we also accept a batch of 16 and spatial sizes whose conv output is 1, and torch runs those")

EXPORT: dict[str, Difference] = {
    "gpt2": Difference("equivalent", "torch's printed program gives past_key and past_value two symbols although both "
                       "use Dim('past'), and ties them only in _guards_code (seq + past_value == past_key + seq); "
                       "read with it, the same set as ours, which has one symbol for both"),
    "vit": Difference("equivalent", "with min=8 for height and width (torch.export refuses less: its SDPA/contiguity "
                      "guards need H // 4 != 1), torch's _guards_code guards ((H//4)*(W//4) != H//4, two % guards) "
                      "are implied by the bounds; ours has only the bounds"),
    "resnet": Difference("equivalent", _SAME + " (min=3: torch.export refuses less, its conv outputs guard != 1)"),
    "unet": Difference("equivalent", _SAME + " (min=4: torch.export refuses less, its pool outputs guard != 1)"),
    "lstm": Difference("equivalent", _SAME + "; scan's ys stacked along dim 1 as torch stacks them"),
    "moe": Difference("equivalent", _SAME + "; torch.cond on the token count leaves no guard on either side"),
    "audio": Difference("equivalent", _SAME + " (min=5: torch.export refuses less, its conv outputs guard != 1)"),
    "text": Difference("equivalent", "torch's _guards_code holds EmbeddingBag's offsets arithmetic "
                       "(B + (-1 // S) + 1 >= 2 and == B), which the bounds (B, S >= 2) imply; ours has the bounds"),
}

COMPILE: dict[str, Difference] = {
    "gpt2": Difference("equivalent", "sizes >= 2, duck-sized batch and cache lengths, static widths, contiguous strides"),
    "vit": Difference("more general", "torch adds (H//4)*(W//4) != H//4 (i.e. W // 4 != 1) and two % guards from "
                      "the contiguity checks of its attention path; we have H, W >= 4 (the conv's kernel) only, so we "
                      "also accept a width of 4 to 7, and torch runs it"),
    "resnet": Difference("more general", _CONV),
    "unet": Difference("more general", _CONV),
    "lstm": Difference("equivalent", "sizes >= 2, static features, contiguous strides"),
    "moe": Difference("equivalent", "sizes >= 2, static width, contiguous strides; no guard from the cond"),
    "audio": Difference("more general", _CONV),
    "text": Difference("equivalent", "torch's EmbeddingBag guards (B + (-1 // S) + 1 != 1, == B) hold for all "
                       "B, S >= 2, the 0/1-specialised ranges both sides have"),
}

_ZERO_ONE = ("torch.export reports a default Dim's [0, oo] but traces it with [2, oo], so nothing it decides is "
             "checked at 0 or 1 (its program does run at size 1 and mostly 0); shapeenv.torch.export reports the "
             "[2, oo] its trace establishes (Note [A default Dim] in shapeenv.torch.dims; Dim(min=1) gets 1 soundly): "
             "once every dynamic dim is >= 2 the two sets are equivalent")

ZERO_ONE: dict[str, Difference] = {
    "gpt2": Difference("narrower", _ZERO_ONE),
    "lstm": Difference("narrower", _ZERO_ONE + "; torch's promise is wrong at time 0 (its program raises IndexError "
                       "in scan)"),
    "moe": Difference("narrower", _ZERO_ONE),
    "text": Difference("narrower", _ZERO_ONE + "; torch's own guards already need a batch of 2, and its program "
                       "raises ZeroDivisionError at a sequence of 0"),
}
