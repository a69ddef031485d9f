"""Guard sets: parse, print, prove, simplify, compile and compare conjunctions of size conditions.

>>> from symint.build import symbol_expr, ge
>>> from guards import GuardSet, Source
>>> s0 = symbol_expr("s0")
>>> GuardSet.of([ge(s0, 2)], {s0: Source.size("x", 0)}).holds({"x.size()[0]": 1})
False
"""

from guards.errors import AmbiguousSourceError, CodegenError, GuardError, GuardParseError, GuardTypeError, GuardValueError, SolverError, UnknownSourceError
from guards.guard import Guard
from guards.guardset import Bindings, GuardSet, decode_guard_bytes, load_guards, parse_guards
from guards.text.parse import parse_expression, parse_guard, parse_source
from guards.text.printers import to_source_text, to_sympy_text, to_torch_text
from guards.text.serialize import ranges_from_json, ranges_to_json
from guards.runtime.codegen import CompiledGuards, compile_guards
from guards.runtime.explain import Explanation, Failure, explain, explain_inputs, read_inputs
from guards.solver.conflict import Conflict
from guards.source import Source
from guards.solver.prove import ProofResult, RedundancyReport, Verdict
from guards.simplify.passes import SimplifyReport, reduce_exact, simplify_with_report
from guards.solver.z3_solver import SolverConfig
from guards.solver.z3_translate import to_smtlib
from guards.torchlog.torch_log import TorchLog, read_torch_log
from guards.torchlog.torch_trace import read_torch_trace
from guards.torchlog.torch_check import TorchGuards, explain_call, explain_recompiles, load_torch_guards, read_arguments
from guards.torchlog.torch_export import read_exported_program
from guards.runtime.region import describe_region

__all__ = [
    "Guard",
    "GuardSet",
    "Bindings",
    "Source",
    "GuardError",
    "GuardParseError",
    "UnknownSourceError",
    "AmbiguousSourceError",
    "GuardTypeError",
    "GuardValueError",
    "SolverError",
    "CodegenError",
    # parsing and printing (guards/text/parse.py, guards/text/printers.py, guards/text/serialize.py)
    "parse_guard",
    "parse_guards",
    "parse_expression",
    "parse_source",
    "load_guards",
    "decode_guard_bytes",
    "to_sympy_text",
    "to_torch_text",
    "to_source_text",
    "ranges_to_json",
    "ranges_from_json",
    # compiled checkers (guards/runtime/codegen.py)
    "CompiledGuards",
    "compile_guards",
    # explanations (guards/runtime/explain.py, guards/solver/conflict.py)
    "Conflict",
    "Explanation",
    "Failure",
    "explain",
    "explain_inputs",
    "read_inputs",
    # reasoning with Z3 (guards/solver/z3_translate.py, guards/solver/z3_solver.py, guards/solver/prove.py, guards/simplify/passes.py)
    "SolverConfig",
    "Verdict",
    "ProofResult",
    "SimplifyReport",
    "simplify_with_report",
    "reduce_exact",
    "RedundancyReport",
    "to_smtlib",
    # torch's own output (guards/torchlog/torch_log.py, torch_trace.py, torch_check.py, torch_export.py, export_text.py) and regions
    "TorchLog",
    "read_torch_log",
    "read_torch_trace",
    "TorchGuards",
    "load_torch_guards",
    "read_arguments",
    "explain_call",
    "explain_recompiles",
    "read_exported_program",
    "describe_region",
]
