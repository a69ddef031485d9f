"""The ``shapeenv export`` command: export a function of the user's module and print the program.

``shapeenv export pkg.models:attention --shape x=B,S,512 --shape mask=B,S --dynamic x:2``

* ``--shape NAME=D1,D2,...`` gives an input tensor's example shape. A number is a
  static size (unless ``--dynamic`` lists its dim); a name (``B``, ``seq``) is a
  dynamic dim called that name, shared by every input that uses it, with a
  default example size of 8, 16, 24, ... by order of first use (``--hint B=4``
  overrides, ``--range B=2:64`` bounds it). ``NAME=`` alone is a 0-d tensor.
* ``--dynamic NAME:0,1`` makes those dims of NAME dynamic (``Dim.DYNAMIC``).
* ``--dtype NAME=int64`` (default float32); ``--int NAME=5`` passes a constant int,
  ``--int NAME=B`` a symbolic one sharing the dim ``B``.

The module is imported by name with :func:`importlib.import_module` (the current
directory is searched first, as with ``python -m``); nothing is evaluated.

>>> main(["operator:mul", "--shape", "a=N,5", "--shape", "b=N,1"])  # doctest: +ELLIPSIS
ExportedProgram mul(a: f32[s0, 5], b: f32[s0, 1])
...
0
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import os
import re
import sys
from typing import Any, Callable, Iterator, Sequence

from shapeenv.cli.guards import internal_error
from guards.text.escape import one_line

from shapeenv.errors import ShapeEnvError
from shapeenv.export.export import export
from shapeenv.tensor.dims import Dim
from shapeenv.tensor.dtypes import DTYPES
from shapeenv.program.program import TensorSpec
from shapeenv.cli.guards import run_command

__all__ = ["EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "configure", "run", "main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 4

EXIT_CODES = """\
exit codes:
  0  exported; the program is printed
  1  export failed: a shape error, a constraint violation or a data-dependent branch in the
     function, or the function itself raised (the message says where)
  2  usage error: bad option syntax, a module or function that cannot be found (or that
     fails to import), a missing input
  4  internal error: a bug in shapeenv (the message names it; please report it)
"""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FIRST_HINT, _HINT_STEP = 8, 8


class UsageError(ValueError):
    """A command-line option is malformed or names something that does not exist."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``export`` arguments to ``parser``.

    >>> p = argparse.ArgumentParser(prog="export")
    >>> configure(p)
    >>> p.parse_args(["m:f", "--shape", "x=B,3", "--hint", "B=4"]).hint
    ['B=4']
    """
    parser.epilog = EXIT_CODES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("target", metavar="MODULE:FUNCTION", help="the function to export, e.g. pkg.models:forward")
    parser.add_argument("--shape", nargs="+", action="extend", default=[], metavar="NAME=D1,D2,...",
                        help="an input tensor's example shape; names (B, seq) are dynamic dims shared by name")
    parser.add_argument("--dynamic", action="append", default=[], metavar="NAME:DIMS",
                        help="make numbered dims of an input dynamic, e.g. x:0,1")
    parser.add_argument("--dtype", action="append", default=[], metavar="NAME=DTYPE", help="an input's dtype (default float32)")
    parser.add_argument("--int", action="append", default=[], metavar="NAME=VALUE",
                        help="an int input: a number (a constant) or a dim name (symbolic)")
    parser.add_argument("--hint", action="append", default=[], metavar="DIM=SIZE", help="the example size of a named dim")
    parser.add_argument("--range", action="append", default=[], metavar="DIM=MIN:MAX", help="bounds of a named dim (either may be empty)")
    parser.add_argument("--format", choices=("torch", "source", "sympy"), default="torch", help="how guards print (default: torch)")
    parser.add_argument("--json", action="store_true", help="print one JSON object: the program, its guards, the exit code")


def run(args: argparse.Namespace, out=None, err=None) -> int:
    """Export ``args.target`` with the inputs the options describe and print it; returns the exit code.

    >>> import io
    >>> parser = argparse.ArgumentParser(); configure(parser); err = io.StringIO()
    >>> run(parser.parse_args(["operator:add", "--shape", "a=3", "--shape", "b=4"]), err=err), err.getvalue()[:47]
    (1, 'shapeenv export: ShapeError: add: sizes 3 and 4')
    """
    out = out or sys.stdout
    err = err or sys.stderr
    as_json = getattr(args, "json", False)
    try:
        fn = load_function(args.target)
        call_args, call_kwargs, dynamic = build_inputs(fn, args)
    except UsageError as e:
        return _fail(f"error: {e}", EXIT_USAGE, as_json, out, err)
    try:
        program = export(fn, call_args, dynamic, call_kwargs)
    except ShapeEnvError as e:
        notes = "".join(f"\n{n}" for n in getattr(e, "__notes__", ()))
        return _fail(f"{type(e).__name__}: {e}{notes}", EXIT_FAILED, as_json, out, err)
    except Exception as e:  # noqa: BLE001 - sorted below: the user's code, or a bug of ours
        where = user_frame(e)
        if where is None:
            return internal_error(e, err)
        return _fail(f"{args.target} raised {type(e).__name__} at {where}: {one_line(e)}", EXIT_FAILED, as_json, out, err)
    try:
        if as_json:
            guards = program.guards.to_text(args.format).splitlines() if len(program.guards) else []
            report = {"command": "export", "exit_code": EXIT_OK, "target": args.target, "program": program.format(args.format), "guards": guards}
            print(json.dumps(report, indent=2), file=out)
        else:
            print(program.format(args.format), file=out)
        out.flush()
    except BrokenPipeError:  # `shapeenv export ... | head`
        pass
    return EXIT_OK


def _fail(message: str, code: int, as_json: bool, out, err) -> int:
    """Report a failure: on stderr, or as the JSON object on stdout with ``--json``."""
    if as_json:
        print(json.dumps({"command": "export", "exit_code": code, "error": message}, indent=2), file=out)
    else:
        print(f"shapeenv export: {message}", file=err)
    return code


_OUR_DIRS = tuple(
    os.path.dirname(os.path.abspath(m.__file__)) + os.sep
    for m in (sys.modules["symint"], sys.modules["valueranges"], sys.modules["guards"], sys.modules["shapeenv"])
)
_STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep


def user_frame(exc: BaseException) -> str | None:
    """``file:line`` of the innermost frame of the user's code that ``exc`` passed through, or None.

    An exception whose traceback never reaches code outside this library and the standard
    library is ours (a bug); one that passes through the user's function is theirs, even if
    it was raised inside a shape rule the function called with bad arguments.

    >>> try:
    ...     exec(compile("1 // 0", "/home/me/model.py", "exec"))
    ... except ZeroDivisionError as e:
    ...     user_frame(e)
    '/home/me/model.py:1'
    """
    found = None
    tb = exc.__traceback__
    while tb is not None:
        raw = tb.tb_frame.f_code.co_filename
        name = os.path.abspath(raw)
        if not raw.startswith("<") and not name.startswith(_OUR_DIRS) and not name.startswith(_STDLIB):
            found = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``shapeenv export`` on its own (the console script mounts it as the ``export`` group)."""
    return run_command("shapeenv export", configure, run, argv, "Export a function and print the program.")


@contextlib.contextmanager
def _cwd_on_path() -> Iterator[None]:
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        yield
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def load_function(target: str) -> Callable:
    """The function named by ``module:function`` (``function`` may be a dotted attribute path).

    Raises:
        UsageError: malformed target, a module that cannot be imported, or a missing attribute.

    >>> load_function("os.path:join").__name__
    'join'
    """
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODULE:FUNCTION (e.g. mypkg.models:forward), got {target!r}")
    if not all(_NAME.match(part) for part in module_name.split(".") + attr.split(".")):
        raise UsageError(f"{target!r} is not a dotted module path and attribute name")
    with _cwd_on_path():
        try:
            obj: Any = importlib.import_module(module_name)
        except ImportError as e:
            raise UsageError(f"cannot import module {module_name!r}: {e}") from None
        except Exception as e:  # noqa: BLE001 - the module's own code raised while importing
            raise UsageError(f"importing {module_name!r} raised {type(e).__name__}: {e}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{module_name!r} has no attribute {attr!r}") from None
    if not callable(obj):
        raise UsageError(f"{target} is a {type(obj).__name__}, not a function")
    return obj


def _pairs(items: Sequence[str], sep: str, option: str) -> dict[str, str]:
    out = {}
    for item in items:
        name, found, value = item.partition(sep)
        if not found or not _NAME.match(name.strip()):
            raise UsageError(f"{option} expects NAME{sep}VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return out


def _int(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{option}: {text!r} is not an integer") from None


def build_inputs(fn: Callable, args: argparse.Namespace) -> tuple[tuple, dict, dict]:
    """The example ``args``, ``kwargs`` and ``dynamic_shapes`` the options describe, in ``fn``'s parameter order.

    Raises:
        UsageError: malformed options, or a required parameter with no ``--shape``/``--int``.

    >>> ns = argparse.Namespace(shape=["x=B,3"], int=["n=2"], dtype=[], dynamic=["x:1"], hint=[], range=[])
    >>> build_inputs(lambda x, n: None, ns)
    ((TensorSpec(shape=(8, 3), dtype='float32'), 2), {}, {'x': {0: Dim('B'), 1: Dim.DYNAMIC}, 'n': None})
    """
    shapes = {n: [d.strip() for d in v.split(",")] if v else [] for n, v in _pairs(args.shape, "=", "--shape").items()}
    ints = _pairs(args.int, "=", "--int")
    dtypes = _pairs(args.dtype, "=", "--dtype")
    both = sorted(set(shapes) & set(ints))
    if both:
        raise UsageError(f"{both} given both --shape and --int")
    for name, dtype in dtypes.items():
        if name not in shapes:
            raise UsageError(f"--dtype {name}: no --shape {name}=... is given")
        if dtype not in DTYPES:
            raise UsageError(f"--dtype {name}={dtype}: unknown dtype; use one of {', '.join(sorted(DTYPES))}")
    dims = _named_dims(shapes, ints, args)
    dynamic_dims = _dynamic(args.dynamic, shapes)

    values: dict[str, Any] = {}
    dynamic: dict[str, Any] = {}
    for name, sizes in shapes.items():
        shape, spec = [], {}
        for i, size in enumerate(sizes):
            if _NAME.match(size):
                shape.append(dims[size][1])
                spec[i] = dims[size][0]
            else:
                value = _int(size, f"--shape {name}")
                if value < 0:
                    raise UsageError(f"--shape {name}: size {value} is negative")
                shape.append(value)
                if i in dynamic_dims.get(name, ()):
                    spec[i] = Dim.DYNAMIC
        bad = [d for d in dynamic_dims.get(name, ()) if d >= len(sizes)]
        if bad:
            raise UsageError(f"--dynamic {name}: dims {bad} are out of range for a {len(sizes)}-d input")
        values[name] = TensorSpec(tuple(shape), dtypes.get(name, "float32"))
        dynamic[name] = spec or None
    for name, text in ints.items():
        if _NAME.match(text):
            values[name], dynamic[name] = dims[text][1], dims[text][0]
        else:
            values[name], dynamic[name] = _int(text, f"--int {name}"), None
    for name in args.dynamic:
        if name.partition(":")[0].strip() not in shapes:
            raise UsageError(f"--dynamic {name}: no --shape {name.partition(':')[0]}=... is given")
    return _bind(fn, values, dynamic)


def _named_dims(shapes: dict[str, list[str]], ints: dict[str, str], args: argparse.Namespace) -> dict[str, tuple[Dim, int]]:
    """Each dim name used in ``--shape``/``--int``: its Dim (with ``--range``) and example size (``--hint`` or default)."""
    used = list(dict.fromkeys([s for sizes in shapes.values() for s in sizes if _NAME.match(s)]
                              + [v for v in ints.values() if _NAME.match(v)]))
    hints = {k: _int(v, f"--hint {k}") for k, v in _pairs(args.hint, "=", "--hint").items()}
    ranges = _pairs(args.range, "=", "--range")
    for option, names in (("--hint", hints), ("--range", ranges)):
        unknown = sorted(set(names) - set(used))
        if unknown:
            raise UsageError(f"{option} names {unknown}, which no --shape or --int uses")
    taken = set(hints.values())
    out = {}
    for name in used:
        lo, hi = _bounds(ranges.get(name), name)
        hint = hints[name] if name in hints else _default_hint(taken, lo, hi)
        taken.add(hint)
        try:
            out[name] = (Dim(name, lo, hi), hint)
        except ValueError as e:
            raise UsageError(f"--range {name}: {e}") from None
    return out


def _default_hint(taken: set[int], lo: int | None, hi: int | None) -> int:
    """8, 16, 24, ...: the first not taken by another dim, moved into ``[lo, hi]`` if it falls outside."""
    hint = _FIRST_HINT
    while hint in taken:
        hint += _HINT_STEP
    if hi is not None and hint > hi:
        hint = hi
    if lo is not None and hint < lo:
        hint = lo
    return hint


def _bounds(text: str | None, name: str) -> tuple[int | None, int | None]:
    if text is None:
        return None, None
    lo, sep, hi = text.partition(":")
    if not sep:
        raise UsageError(f"--range {name} expects MIN:MAX (either may be empty), got {text!r}")
    return (_int(lo, f"--range {name}") if lo.strip() else None, _int(hi, f"--range {name}") if hi.strip() else None)


def _dynamic(items: Sequence[str], shapes: dict[str, list[str]]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for name, dims in _pairs(items, ":", "--dynamic").items():
        try:
            out.setdefault(name, set()).update(int(d) for d in dims.split(","))
        except ValueError:
            raise UsageError(f"--dynamic {name}:{dims}: expected comma-separated dim numbers, e.g. {name}:0,1") from None
    return out


def _bind(fn: Callable, values: dict[str, Any], dynamic: dict[str, Any]) -> tuple[tuple, dict, dict]:
    """Order ``values`` by ``fn``'s parameters: positional while there is no gap, then by keyword."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        raise UsageError(f"cannot read the parameters of {fn!r}") from None
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in params)
    named = {p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    unknown = sorted(set(values) - named)
    if unknown and not accepts_any:
        raise UsageError(f"{fn.__name__} has no parameter {', '.join(unknown)} (its parameters: {', '.join(sorted(named))})")
    args, kwargs, gap = [], {}, False
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name not in values:
            if p.default is p.empty:
                raise UsageError(f"no input for parameter {p.name!r} of {fn.__name__}: add --shape {p.name}=... or --int {p.name}=...")
            gap = True
            continue
        if gap or p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = values[p.name]
        else:
            args.append(values[p.name])
    kwargs.update({k: values[k] for k in unknown})
    return tuple(args), kwargs, dynamic
