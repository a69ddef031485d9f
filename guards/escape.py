"""Escaping user text for line-oriented sinks: CLI text output, SMT-LIB comments, logs.

Input names, origins and file names are user text and may hold a newline (or a
character that some readers take for one: ``\\r``, ``\\x0b``, ``\\x85``, U+2028,
...). Printed raw into a line-oriented format, such text forges lines: a source
named ``"x\\n(assert false)"`` would add an assertion to an SMT-LIB file, and an
origin ``"\\nsatisfiable: no"`` a verdict to the CLI's report. :func:`one_line`
keeps printable text as it is and writes everything else as a Python escape.

>>> one_line("x\\n(assert false)")
'x\\\\n(assert false)'
>>> one_line("model.py:12 in view")
'model.py:12 in view'
"""

from __future__ import annotations

__all__ = ["one_line"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: object) -> str:
    """``str(text)`` with every non-printable character (newlines included) escaped, so it stays on one line.

    >>> one_line("a\\u2028b\\tc")
    'a\\\\u2028b\\\\tc'
    """
    s = str(text)
    if s.isprintable():
        return s
    out = []
    for c in s:
        if c.isprintable():
            out.append(c)
        elif c in _NAMED:
            out.append(_NAMED[c])
        else:
            code = ord(c)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)
