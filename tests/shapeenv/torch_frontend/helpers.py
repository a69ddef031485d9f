"""Comparing a program of ``shapeenv.torch.export`` with ``torch.export.export``'s on the same model.

Symbols are matched through the inputs: each torch symbol standing for an input dim is
replaced by our symbol (or constant) for that dim, then output sizes and strides are
compared as expressions (their difference simplifies to 0).
"""

from __future__ import annotations

import inspect

import pytest
import sympy

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")

import shapeenv.torch as st  # noqa: E402
from shapeenv.hops.pytree import flatten  # noqa: E402
from shapeenv.ops.dispatch import is_tensor  # noqa: E402
from symint import SymInt  # noqa: E402


def _expr(value, env=None):
    if isinstance(value, SymInt):
        e = value.node.expr
        return env.simplify(e) if env is not None else e
    if isinstance(value, torch.SymInt):
        return value.node.expr
    return sympy.Integer(int(value))


def torch_outputs(ep):
    out = [n for n in ep.graph.nodes if n.op == "output"][0]
    return [n.meta["val"] if hasattr(n, "meta") else n for n in flatten(out.args[0])[0]]


def symbol_map(ours, ep) -> dict:
    """torch symbol -> our expression, through the user inputs' dims."""
    names = ep.graph_signature.user_inputs
    placeholders = {n.name: n.meta["val"] for n in ep.graph.nodes if n.op == "placeholder"}
    fakes = [s.value for s in ours.inputs if s.kind == "tensor" and not s.name.startswith("self")]
    mapping = {}
    for name, fake in zip(names, fakes):
        theirs = placeholders[name]
        for a, b in zip(theirs.shape, fake.shape):
            e = _expr(a)
            if isinstance(e, sympy.Symbol):
                mapping[e] = _expr(b, ours.env)
            elif len(e.free_symbols) == 1 and sympy.degree(e, next(iter(e.free_symbols))) == 1:
                (sym,) = e.free_symbols  # a derived dim: a*root + b, so root = (ours - b) / a
                mapping.setdefault(sym, sympy.solve(sympy.Eq(e, _expr(b, ours.env)), sym)[0])
    return mapping


def as_module(fn) -> torch.nn.Module:
    """A function as an ``nn.Module`` whose ``forward`` has the function's signature (torch.export takes modules only)."""
    if isinstance(fn, torch.nn.Module):
        return fn
    sig = inspect.signature(fn)

    def forward(self, *args, **kwargs):
        return fn(*args, **kwargs)

    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    forward.__signature__ = sig.replace(parameters=[self_param, *sig.parameters.values()])
    return type(getattr(fn, "__name__", "Fn"), (torch.nn.Module,), {"forward": forward})()


def assert_same_as_torch_export(model, args, dynamic_shapes=None, ours_dynamic_shapes=None, kwargs=None):
    """Export both ways; output shapes, strides and dtypes must agree as expressions. Returns both programs.

    ``kwargs`` (keyword inputs) must be given in the order of the model's signature, as torch.export lists them.
    """
    ours = st.export(model, args, kwargs, dynamic_shapes=dynamic_shapes if ours_dynamic_shapes is None else ours_dynamic_shapes)
    ep = torch.export.export(as_module(model), args, kwargs, dynamic_shapes=dynamic_shapes)
    mapping = symbol_map(ours, ep)
    mine = [v for v in flatten(ours.outputs)[0] if is_tensor(v)]
    theirs = [v for v in torch_outputs(ep) if isinstance(v, torch.Tensor)]
    assert len(mine) == len(theirs), (mine, theirs)
    for i, (a, b) in enumerate(zip(mine, theirs)):
        assert a.dtype.name == str(b.dtype).removeprefix("torch."), (i, a.dtype, b.dtype)
        for what, xs, ys in (("shape", a.shape, b.shape), ("stride", a.stride(), b.stride())):
            assert len(xs) == len(ys), (i, what, xs, ys)
            for d, (x, y) in enumerate(zip(xs, ys)):
                theirs_expr = _expr(y).xreplace(mapping)
                if what == "stride" and (a.shape[d] == 1 or sympy.simplify(_expr(a.shape[d], ours.env) - 1) == 0):
                    continue  # the stride of a size-1 dim is arbitrary (torch and we may pick different ones)
                for values in _samples(ours):
                    mine_v, theirs_v = _eval(_expr(x, ours.env), values), _eval(theirs_expr, values)
                    assert mine_v == theirs_v, (
                        f"output {i} {what}[{d}]: ours {x}, torch.export's {y} (= {theirs_expr} in our symbols); "
                        f"at {values}: {mine_v} != {theirs_v}")
    return ours, ep


def _samples(program):
    """Assignments of the program's symbols its guards accept (the example's hints first, then a few more)."""
    roots = {s: r for s, r in program.range_constraints.items() if s.is_Symbol}  # derived dims (2*s0) follow their root
    out = [{s: program.env.symbols[s].hint for s in roots}]
    for k in range(12):
        values = {}
        for s, r in roots.items():
            lo = int(r.lower) if abs(r.lower) != float("inf") else 2
            hi = int(r.upper) if abs(r.upper) != float("inf") else lo + 20
            values[s] = min(lo + k, hi)
        if all(_holds(g.expr, program.env, values) for g in program.env.guards):
            out.append(values)
    assert len(out) >= 3, f"too few sizes accepted by the guards to compare on: {out}"
    return out


def _holds(expr, env, values) -> bool:
    """Whether a recorded guard holds for ``values`` (its symbols as recorded, else after the env's replacements)."""
    for e in (expr, env.simplify(expr)):
        value = e.xreplace({s: sympy.Integer(v) for s, v in values.items()})
        if value in (sympy.true, sympy.false):
            return bool(value)
    raise AssertionError(f"guard {expr} is not decided by {values}")


def _eval(expr, values):
    return sympy.sympify(expr).xreplace({s: sympy.Integer(v) for s, v in values.items()})
