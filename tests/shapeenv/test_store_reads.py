"""A stored entry is served only while what its function reads is unchanged (Note [Reads behind a fingerprint]).

Found by combining the two halves of the cache-key work: a process that *loads* an entry from a
store (rather than tracing it) had no record of the trace's reads, so after a global changed the
loaded entry kept serving the old answer.
"""

from __future__ import annotations

import sys
import types

import numpy as np

from shapeenv import compile
from shapeenv.backends import numpy_backend
from shapeenv.stores import DiskStore


def _module(name: str, source: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__file__ = f"<{name}>"
    exec(compile_source(source), mod.__dict__)  # noqa: S102 -- the test's own source text
    sys.modules[name] = mod
    return mod


def compile_source(text: str):
    import builtins

    return builtins.compile(text, "<test module>", "exec")


def test_a_loaded_entry_is_not_served_after_a_global_it_reads_changes(tmp_path) -> None:
    mod = _module("store_reads_scale", "SCALE = 2\ndef f(x):\n    return x * SCALE\n")
    try:
        x = np.ones(3)
        first = compile(mod.f, backend=numpy_backend, store=DiskStore(tmp_path / "s"))
        assert first(x)[0] == 2.0  # traced and saved
        second = compile(mod.f, backend=numpy_backend, store=DiskStore(tmp_path / "s"))  # as a fresh process
        assert second(x)[0] == 2.0
        assert "loaded from" in second.cache_info().entries[0].reason.text  # served from the store
        mod.SCALE = 3
        assert second(x)[0] == 3.0  # before: 2.0, the loaded entry was served
        assert second.cache_info().entries[1].reason.text == "global SCALE of store_reads_scale.f == 2 failed: got 3"
        mod.SCALE = 2
        assert second(x)[0] == 2.0
    finally:
        sys.modules.pop("store_reads_scale", None)


def test_a_loaded_entry_checks_closures_and_defaults_too(tmp_path) -> None:
    def make(k):
        def g(x, bias=1.0):
            return x * k + bias
        return g

    g = make(5)
    x = np.ones(2)
    compile(g, backend=numpy_backend, store=DiskStore(tmp_path / "s"))(x)
    loaded = compile(g, backend=numpy_backend, store=DiskStore(tmp_path / "s"))
    assert loaded(x)[0] == 6.0
    g.__defaults__ = (10.0,)
    assert loaded(x)[0] == 15.0
