"""What torch says about the models of :mod:`tests.torch_models.models`: exported programs, guard dumps, shapes.

Everything here reads torch's own output into this project's values: the guard set of a
``torch.export`` program (:func:`guards.torchlog.torch_export.read_exported_program` on its printed
text, restricted to the user inputs), the output shapes and strides of its graph as
expressions over input *sources* (``x.size()[0]``), and the ``TORCH_LOGS=guards`` dump of a
``torch.compile(backend="eager")`` run (:meth:`guards.GuardSet.from_torch_log`). torch is
imported inside the functions only: this module imports without torch.

>>> sorted(__all__)
['Outputs', 'compile_guard_log', 'export_guards', 'export_outputs', 'source_symbols', 'torch_export']
"""

from __future__ import annotations

import io
import logging
import sys
from dataclasses import dataclass
from typing import Any

import sympy

from guards import GuardSet, Source
from guards.text.parse import parse_expression, parse_guards_text
from guards.text.values import view
from guards.torchlog.torch_export import read_exported_program

__all__ = ["Outputs", "compile_guard_log", "export_guards", "export_outputs", "source_symbols", "torch_export"]


def torch_export(case, model=None) -> Any:
    """``torch.export.export`` of ``case``'s model at its example sizes with its Dims (a fresh model unless given)."""
    import torch

    model = case.build() if model is None else model
    return torch.export.export(model, case.args(), dynamic_shapes=case.dynamic_shapes())


def export_guards(ep) -> GuardSet:
    """The guards of a torch ExportedProgram on its user inputs: static dims, equal dims, ranges, asserts, and the rest.

    The printed program holds the input shapes and range constraints; ``ep.module()`` also
    checks the guards of ``ep._guards_code`` (``L['x'].size()[0] == L['past_key'].size()[0]``,
    torch's own ``!= 1`` and divisibility guards), which the printout leaves out: both are read.
    Parameters and buffers are placeholders too (``p_fc_weight: "f32[4, 16]"``); their static
    sizes are left out, as they are not inputs of the user's call.
    """
    full = read_exported_program(str(ep))
    sources = dict(full.source_map)
    extra = parse_guards_text(list(getattr(ep, "_guards_code", ())), symbols=sources)
    sources.update(extra.source_map)
    users = set(ep.graph_signature.user_inputs)
    kept = {s: src for s, src in sources.items() if src.base in users}
    guards = [g.expr for g in full.guards] + list(extra.exprs)
    return GuardSet.of([g for g in guards if g.free_symbols <= set(kept)], kept)


def source_symbols(ep) -> dict[sympy.Symbol, Source]:
    """Each symbol of a torch ExportedProgram -> the first user-input dim that has it (``x.size()[0]``)."""
    out: dict[sympy.Symbol, Source] = {}
    users = set(ep.graph_signature.user_inputs)
    for node in ep.graph.nodes:
        if node.op != "placeholder" or node.name not in users:
            continue
        for i, size in enumerate(node.meta["val"].shape):
            if hasattr(size, "node") and size.node.expr.is_Symbol:
                sym = _expr(str(size.node.expr))
                out.setdefault(sym, Source.size(node.name, i))
    return out


@dataclass(frozen=True)
class Outputs:
    """One output tensor of a program: its shape and strides as sympy expressions, and its dtype name."""

    shape: tuple[sympy.Basic, ...]
    stride: tuple[sympy.Basic, ...]
    dtype: str


def export_outputs(ep) -> list[Outputs]:
    """The output tensors of a torch ExportedProgram, flattened in order, over torch's symbols (see :func:`source_symbols`)."""
    out = []
    node = next(n for n in ep.graph.nodes if n.op == "output")
    for leaf in _flatten(node.args[0]):
        val = leaf.meta["val"]
        out.append(Outputs(tuple(_expr(str(d)) for d in val.shape), tuple(_expr(str(d)) for d in val.stride()),
                           str(val.dtype).removeprefix("torch.")))
    return out


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _flatten(v)]
    return [value]


def _expr(text: str) -> sympy.Basic:
    """torch's printed size expression, read by this project's safe parser."""
    return view(parse_expression(text, dialect="sympy"))


def compile_guard_log(case, model=None, dynamic: bool | None = True) -> str:
    """The ``TORCH_LOGS=guards`` text of one ``torch.compile(model, backend="eager", dynamic=...)`` call at the example sizes."""
    import torch

    torch._dynamo.reset()
    compiled = torch.compile(case.build() if model is None else model, backend="eager", dynamic=dynamic)
    stream = io.StringIO()
    torch._logging.set_logs(guards=True)
    redirected = []  # torch's handlers (torch's formatter) write to stderr: point them at ``stream``
    for logger in [logging.getLogger(n) for n in list(logging.Logger.manager.loggerDict) if n.startswith("torch")]:
        for handler in getattr(logger, "handlers", ()):
            if type(handler) is logging.StreamHandler and handler.stream is sys.stderr:
                redirected.append((handler, handler.setStream(stream)))
    try:
        compiled(*case.args())
    finally:
        for handler, old in redirected:
            handler.setStream(old)
        torch._logging.set_logs()
        torch._dynamo.reset()
    return stream.getvalue()
