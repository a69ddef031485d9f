"""The guard set of a printed ``torch.export`` program: ``read_exported_program(str(ep))``.

Paste ``print(torch.export.export(model, args, dynamic_shapes=...))`` and get the guards an
input must satisfy, over torch.compile's sources: user inputs are ``L['x']``, parameters and
buffers the module's own (``p_proj_weight`` is ``L['self']._modules['proj']._parameters['weight']``,
taken as traced), and the root of a derived dim (``S = 2*_S`` prints ``2*s75``) is solved from
the inputs (``x.size()[1] % 2 == 0``). :mod:`guards.torchlog.export_text` reads the text;
``GuardSet.from_file``, ``GuardSet.from_torch_log`` and every ``shapeenv guards`` command take
the same text.

>>> text = '''def forward(self, x: "f32[s77, 3]", y: "f32[s77]"):
... Range constraints: {s77: VR[2, 64]}'''
>>> print(read_exported_program(text))
L['x'].size()[1] == 3
L['y'].size()[0] == L['x'].size()[0]
2 <= L['x'].size()[0]
L['x'].size()[0] <= 64
"""

from __future__ import annotations

from guards.torchlog.export_text import read_export_text
from guards.guardset import GuardSet

__all__ = ["read_exported_program"]


def read_exported_program(text: str) -> GuardSet:
    """The guard set of a printed ExportedProgram (see :mod:`guards.torchlog.export_text`).

    Raises:
        GuardParseError: no ``def forward(self, ...)`` line, or a shape, range or assert that cannot be read.

    >>> gs = read_exported_program('def forward(self, x: "f32[2*s75]"):\\nRange constraints: {2*s75: VR[2, 64], s75: VR[1, 32]}')
    >>> print(gs.to_text("source"))
    (x.size()[0] % 2) == 0
    2 <= 2*(x.size()[0] // 2)
    2*(x.size()[0] // 2) <= 64
    1 <= x.size()[0] // 2
    x.size()[0] // 2 <= 32
    >>> gs.holds({"x.size()[0]": 10}), gs.holds({"x.size()[0]": 11})
    (True, False)
    """
    return GuardSet.from_exported_program(text)
