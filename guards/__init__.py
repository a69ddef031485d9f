"""Guard sets: parse, print, prove, simplify, compile and compare conjunctions of size conditions.

>>> from symint.build import symbol_expr, ge
>>> from guards import GuardSet, Source
>>> s0 = symbol_expr("s0")
>>> GuardSet.of([ge(s0, 2)], {s0: Source.size("x", 0)}).holds({"x.size()[0]": 1})
False
"""

from .errors import AmbiguousSourceError, CodegenError, GuardError, GuardParseError, GuardTypeError, GuardValueError, SolverError, UnknownSourceError
from .guard import Guard
from .guardset import Bindings, GuardSet, decode_guard_bytes, load_guards, parse_guards
from .parse import parse_expression, parse_guard, parse_source
from .printers import to_source_text, to_sympy_text, to_torch_text
from .serialize import ranges_from_json, ranges_to_json
from .codegen import CompiledGuards, compile_guards
from .explain import Explanation, Failure, explain, explain_inputs, read_inputs
from .conflict import Conflict
from .source import Source
from .prove import ProofResult, RedundancyReport, Verdict
from .simplify import SimplifyReport, reduce_exact, simplify_with_report
from .z3_solver import SolverConfig
from .z3_translate import to_smtlib
from .torch_log import TorchLog, read_torch_log
from .torch_trace import read_torch_trace
from .torch_check import TorchGuards, explain_call, explain_recompiles, load_torch_guards, read_arguments
from .torch_export import read_exported_program
from .region import describe_region

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
    # parsing and printing (guards/parse.py, guards/printers.py, guards/serialize.py)
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
    # compiled checkers (guards/codegen.py)
    "CompiledGuards",
    "compile_guards",
    # explanations (guards/explain.py, guards/conflict.py)
    "Conflict",
    "Explanation",
    "Failure",
    "explain",
    "explain_inputs",
    "read_inputs",
    # reasoning with Z3 (guards/z3_translate.py, guards/z3_solver.py, guards/prove.py, guards/simplify.py)
    "SolverConfig",
    "Verdict",
    "ProofResult",
    "SimplifyReport",
    "simplify_with_report",
    "reduce_exact",
    "RedundancyReport",
    "to_smtlib",
    # torch's own output (guards/torch_log.py, torch_trace.py, torch_check.py, torch_export.py, export_text.py) and regions
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
