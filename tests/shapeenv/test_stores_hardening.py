"""Issue 23, items 8-18: fingerprints that are sound across processes, and stores that can't be fooled.

Each ``test_item_NN`` fails on the code before the fix (a wrong result served, or an exception in the
caller); the cross-process ones run fresh interpreters (``python -c``, ``python -``, scripts in a
temporary directory). Tampering is done the way an attacker without the store's secret could: the
records are rewritten in the database with every plain SHA-256 digest recomputed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import uuid
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from shapeenv import compile
from shapeenv.backends import numpy_backend
from shapeenv.stores import DiskStore, RedisStore, StoredEntry, function_fingerprint
from shapeenv.stores.disk import DB_NAME
from shapeenv.stores.entry import canonical_json

from .redis_server import redis
from .store_worker import inputs, killed_writers, model, reference
from .test_redis_store import redis_url  # noqa: F401  (the fixture: .ci/run's server or a private one)

ROOT = Path(__file__).resolve().parents[2]
ONES = np.ones(3, np.float32)


def run_python(args: list[str], *, stdin: str | None = None, env: dict | None = None, cwd: Path = ROOT,
               extra_path: Path | None = None) -> subprocess.CompletedProcess:
    path = str(ROOT) + (os.pathsep + str(extra_path) if extra_path else "")
    return subprocess.run([sys.executable, *args], input=stdin, cwd=cwd, capture_output=True, text=True, timeout=180,
                          env={**os.environ, **(env or {}), "PYTHONPATH": path})


def last_json(out: subprocess.CompletedProcess) -> dict:
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


CALL = """
import json, sys
import numpy as np
from shapeenv import compile
from shapeenv.backends import numpy_backend
from shapeenv.stores import DiskStore
g = compile(f, store=DiskStore(STORE), backend=numpy_backend)
out = g(np.ones(3, np.float32))
print(json.dumps({"out": float(out.sum()), "loaded": g.cache_info().loaded,
                  "compilations": g.cache_info().compilations}))
"""


def split_head(head: bytes) -> tuple[bytes, bytes]:
    """``(what precedes the compressed JSON, the compressed JSON)``: a signed head starts with a tag and its HMAC."""
    if head.startswith(b"shapeenv-entry/"):
        start = head.index(b"\n") + 1 + 32
        return head[:start], head[start:]
    return b"", head


def rewrite_entries(store_dir: Path, change) -> None:
    """Rewrite every entry's head and body with ``change(head, body)``, recomputing every plain digest
    (what someone who can write the store but does not hold its secret can do: the HMAC is kept as it was)."""
    conn = sqlite3.connect(store_dir / DB_NAME)
    for seq, head, body in conn.execute("SELECT seq, head, body FROM entries").fetchall():
        prefix, payload = split_head(head)
        h, b = json.loads(zlib.decompress(payload)), json.loads(zlib.decompress(body))
        h, b = change(h, b)
        h["body"] = hashlib.sha256(canonical_json(b).encode()).hexdigest()
        h["id"] = StoredEntry._digest(h["function"], h["key"], h["label"], h["guards"], h["pins"], h["body"])
        head = prefix + zlib.compress(json.dumps(h).encode())
        conn.execute("UPDATE entries SET id = ?, head = ?, body = ? WHERE seq = ?",
                     (h["id"], head, zlib.compress(canonical_json(b).encode()), seq))
    conn.commit()
    conn.close()


def calls_without_raising(g, *args) -> tuple[np.ndarray, list[str]]:
    """``g(*args)`` and the messages of the warnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = g(*args)
    return out, [f"{type(w.message).__name__}: {w.message}" for w in caught]


# -- 8: a functools.wraps wrapper --------------------------------------------------------------------------
def _plain(x):
    return x * 2


@functools.wraps(_plain)
def _wrapper(x):
    return _plain(x) + 1


def test_item_08_a_wraps_wrapper_does_not_share_the_plain_functions_entries(tmp_path) -> None:
    store = DiskStore(tmp_path)
    compile(_plain, store=store, backend=numpy_backend)(ONES)
    g = compile(_wrapper, store=DiskStore(tmp_path), backend=numpy_backend)  # same __name__, same __wrapped__
    np.testing.assert_allclose(g(ONES), ONES * 2 + 1)
    assert g.cache_info().loaded == 0
    assert function_fingerprint(_wrapper, {}) != function_fingerprint(_plain, {})


# -- 9: the fingerprint follows the state it covers --------------------------------------------------------
SCALE = 2


def _scaled(x):
    return x * SCALE


def test_item_09_an_entry_traced_after_a_change_is_saved_under_the_new_state(tmp_path, monkeypatch) -> None:
    f = compile(_scaled, store=DiskStore(tmp_path), backend=numpy_backend, dynamic=False)
    f(np.ones(3, np.float32))
    monkeypatch.setattr(sys.modules[__name__], "SCALE", 3)
    np.testing.assert_allclose(f(np.ones(5, np.float32)), 3.0)  # a new size: traced with SCALE = 3
    monkeypatch.setattr(sys.modules[__name__], "SCALE", 2)
    g = compile(_scaled, store=DiskStore(tmp_path), backend=numpy_backend, dynamic=False)  # a process with SCALE = 2
    np.testing.assert_allclose(g(np.ones(5, np.float32)), 2.0)
    np.testing.assert_allclose(g(np.ones(3, np.float32)), 2.0)
    assert g.cache_info().loaded == 1  # the SCALE = 2 entry is shared, the SCALE = 3 one is not


# -- 10: user modules by the state the function reads --------------------------------------------------------
def test_item_10_a_setting_from_the_environment_is_in_the_fingerprint(tmp_path) -> None:
    (tmp_path / "se_settings_mod.py").write_text("import os\nSCALE = int(os.environ['SE_TEST_SCALE'])\n")
    (tmp_path / "se_user_fn.py").write_text("import se_settings_mod\n\ndef f(x):\n    return x * se_settings_mod.SCALE\n")
    script = "import sys\nfrom se_user_fn import f\nSTORE = sys.argv[1]\n" + CALL
    store = str(tmp_path / "store")
    first = last_json(run_python(["-c", script, store], env={"SE_TEST_SCALE": "2"}, extra_path=tmp_path))
    second = last_json(run_python(["-c", script, store], env={"SE_TEST_SCALE": "3"}, extra_path=tmp_path))
    third = last_json(run_python(["-c", script, store], env={"SE_TEST_SCALE": "2"}, extra_path=tmp_path))
    assert (first["out"], second["out"], third["out"]) == (6.0, 9.0, 6.0)
    assert (second["loaded"], third["loaded"], third["compilations"]) == (0, 1, 0)


# -- 11: a class in a __main__ without a file --------------------------------------------------------------
MAIN_CLASS = """
import sys
class Cfg:
    scale = SCALE_HERE
    def apply(self, x):
        return x * self.scale
def f(x):
    return Cfg().apply(x) + Cfg.scale
STORE = sys.argv[1]
"""


def test_item_11_a_class_defined_by_python_c_is_fingerprinted_by_its_body(tmp_path) -> None:
    store = str(tmp_path / "store")
    two = MAIN_CLASS.replace("SCALE_HERE", "2") + CALL
    three = MAIN_CLASS.replace("SCALE_HERE", "3") + CALL
    first = last_json(run_python(["-c", two, store]))
    second = last_json(run_python(["-c", three, store]))
    again = last_json(run_python(["-c", two, store]))
    assert (first["out"], second["out"], again["out"]) == (12.0, 18.0, 12.0)
    assert (second["loaded"], again["loaded"]) == (0, 1)


# -- 12: no file system access, any failure falls back ---------------------------------------------------------
class _Opaque(Exception):
    """An object whose ``__wrapped__`` raises a RuntimeError (pytest looks at module globals: kept in a closure)."""

    def __getattr__(self, name):
        if name == "__wrapped__":
            raise RuntimeError(f"no attribute {name} here")
        raise AttributeError(name)


def test_item_12_a_module_from_a_zip_is_fingerprinted_without_stat(tmp_path, monkeypatch) -> None:
    name = f"se_zipped_{uuid.uuid4().hex[:8]}"
    archive = tmp_path / "code.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"{name}.py", "class K:\n    scale = 2\n\ndef f(x):\n    return x * K.scale\n")
    monkeypatch.syspath_prepend(str(archive))
    module = __import__(name)
    try:
        f = compile(module.f, store=DiskStore(tmp_path / "store"), backend=numpy_backend)
        out, caught = calls_without_raising(f, ONES)
        np.testing.assert_allclose(out, ONES * 2)
        assert caught == [] and f.cache_info().stored == 1
        g = compile(module.f, store=DiskStore(tmp_path / "store"), backend=numpy_backend)
        np.testing.assert_allclose(g(ONES), ONES * 2)
        assert g.cache_info().loaded == 1
    finally:
        sys.modules.pop(name, None)


def test_item_12_a_script_read_from_stdin_is_fingerprinted(tmp_path) -> None:
    script = MAIN_CLASS.replace("SCALE_HERE", "2") + CALL
    store = str(tmp_path / "store")
    first = last_json(run_python(["-", store], stdin=script))
    second = last_json(run_python(["-", store], stdin=script))
    assert (first["out"], second["out"], second["loaded"], second["compilations"]) == (12.0, 12.0, 1, 0)


def test_item_12_any_failure_to_fingerprint_falls_back_with_one_warning(tmp_path) -> None:
    opaque = _Opaque()

    def reads_opaque(x):
        return x * 2 if opaque else x

    f = compile(reads_opaque, store=DiskStore(tmp_path), backend=numpy_backend)
    out, caught = calls_without_raising(f, ONES)
    np.testing.assert_allclose(out, ONES * 2)
    assert len(caught) == 1 and "RuntimeError" in caught[0] and "in-process" in caught[0]
    out, caught = calls_without_raising(f, np.ones(5, np.float32))
    assert caught == [] and DiskStore(tmp_path).entries() == []


# -- 13: provenance is signed -----------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", [
    {"provenance": "not a dict"},
    {"seconds": "soon"},
    {"automatic_dynamic": [["x", 0]]},
])
def test_item_13_a_damaged_provenance_is_skipped_and_traced_again(damage, tmp_path) -> None:
    compile(model, store=DiskStore(tmp_path), backend=numpy_backend)(*inputs(3))

    def change(head, body):
        if "provenance" in damage:
            head["provenance"] = damage["provenance"]
        else:
            head["provenance"].update(damage)
        return head, body

    rewrite_entries(tmp_path, change)
    g = compile(model, store=DiskStore(tmp_path), backend=numpy_backend)
    out, caught = calls_without_raising(g, *inputs(3))
    np.testing.assert_allclose(out, reference(3), rtol=1e-6)
    assert g.cache_info().compilations == 1 and caught


# -- 14: a crafted body never raises into the caller -------------------------------------------------------------
def _nest(depth: int) -> dict:
    value: dict = {"t": "node", "v": "x"}
    for _ in range(depth):
        value = {"t": "tuple", "v": [value]}
    return value


CRAFTED = {
    "nodes not objects": lambda p: p["graph"].update(nodes=["not a node"]),
    "deep output": lambda p: p["graph"].update(outputs=_nest(3000)),  # deeper than the recursion limit
    "an op with no kernel": lambda p: p["graph"]["nodes"][1].update(op="se_no_such_op"),
}


@pytest.mark.parametrize("craft", CRAFTED)
def test_item_14_a_self_consistent_crafted_body_is_never_served(craft, tmp_path) -> None:
    f = compile(_plain, store=DiskStore(tmp_path), backend=numpy_backend)
    f(ONES)

    def change(head, body):
        CRAFTED[craft](body["program"])
        return head, body

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20000)  # to write the deep body; it is read back under the usual limit
    try:
        rewrite_entries(tmp_path, change)
    finally:
        sys.setrecursionlimit(limit)
    g = compile(_plain, store=DiskStore(tmp_path), backend=numpy_backend)
    out, caught = calls_without_raising(g, ONES)
    np.testing.assert_allclose(out, ONES * 2)
    assert g.cache_info().compilations == 1 and caught


class _FailingLoads:
    """The numpy backend, except that loading a stored artifact raises ``error``."""

    store_name = "numpy/v1"

    def __init__(self, error: BaseException):
        self.error = error

    def __call__(self, program):
        return numpy_backend(program)

    def dump_artifact(self, artifact):
        return numpy_backend.dump_artifact(artifact)

    def load_artifact(self, data, program):
        raise self.error


@pytest.mark.parametrize("error", [AttributeError("x"), RecursionError("deep"), LookupError("?"), ArithmeticError()])
def test_item_14_any_exception_loading_an_artifact_is_a_warning_and_a_trace(error, tmp_path) -> None:
    compile(_plain, store=DiskStore(tmp_path), backend=numpy_backend)(ONES)
    g = compile(_plain, store=DiskStore(tmp_path), backend=_FailingLoads(error))
    out, caught = calls_without_raising(g, ONES)
    np.testing.assert_allclose(out, ONES * 2)
    assert any("cannot be loaded" in c for c in caught)
    info = g.cache_info()
    assert info.compilations == 1
    out, caught = calls_without_raising(g, ONES)  # the broken entry stays disabled: no second warning
    assert caught == [] and g.cache_info().compilations == 1


# -- 15: tampering with recomputed digests ------------------------------------------------------------------------
def _tripled(x):
    return x * 3


def test_item_15_a_tampered_entry_with_recomputed_digests_is_skipped(tmp_path) -> None:
    other = tmp_path / "other"
    compile(_tripled, store=DiskStore(other), backend=numpy_backend)(ONES)
    (foreign_body,) = [json.loads(zlib.decompress(b)) for (b,) in
                       sqlite3.connect(other / DB_NAME).execute("SELECT body FROM entries")]
    mine = tmp_path / "mine"
    compile(_plain, store=DiskStore(mine), backend=numpy_backend)(ONES)
    rewrite_entries(mine, lambda head, body: (head, foreign_body))  # x * 3's program under x * 2's head
    g = compile(_plain, store=DiskStore(mine), backend=numpy_backend)
    out, caught = calls_without_raising(g, ONES)
    np.testing.assert_allclose(out, ONES * 2)
    assert g.cache_info().loaded == 0 and any("skipped" in c for c in caught)


def test_item_15_an_entry_copied_from_another_store_is_not_trusted(tmp_path) -> None:
    compile(_plain, store=DiskStore(tmp_path / "a"), backend=numpy_backend)(ONES)
    (tmp_path / "b").mkdir()
    compile(_plain, store=DiskStore(tmp_path / "b"), backend=numpy_backend)(np.ones(7, np.float32))  # b's secret
    conn = sqlite3.connect(tmp_path / "b" / DB_NAME)
    conn.execute("ATTACH ? AS a", (str(tmp_path / "a" / DB_NAME),))
    conn.execute("INSERT INTO entries SELECT NULL, id, function, key, name, inputs, label, guards, pins, size, created, "
                 "last_used, head, body FROM a.entries")
    conn.commit()
    conn.close()
    g = compile(_plain, store=DiskStore(tmp_path / "b"), backend=numpy_backend)
    with pytest.warns(UserWarning, match="signature does not match"):
        np.testing.assert_allclose(g(ONES), ONES * 2)
    assert (g.cache_info().loaded, g.cache_info().compilations) == (0, 1)


# -- 16-17: Redis ---------------------------------------------------------------------------------------------------
@pytest.fixture
def redis_store(redis_url):  # noqa: F811
    s = RedisStore(redis_url, namespace=f"hardening-{uuid.uuid4().hex[:12]}")
    yield s
    s._client.delete(*(list(s._client.scan_iter(match=s._k("*"))) or [s._k("none")]))


def _keys(store: RedisStore, kind: str) -> list[bytes]:
    return list(store._client.scan_iter(match=store._k(kind, "*")))


def test_item_16_a_non_utf8_index_row_is_skipped_and_cleared(redis_store) -> None:
    compile(model, store=redis_store, backend=numpy_backend)(*inputs(3))
    (index,) = redis_store._client.smembers(redis_store._k("indexes"))
    redis_store._client.rpush(index, b"\xff\xfe\x00|[]")
    fresh = RedisStore(redis_store.url, namespace=redis_store.namespace)
    g = compile(model, store=fresh, backend=numpy_backend)
    out, caught = calls_without_raising(g, *inputs(3))
    np.testing.assert_allclose(out, reference(3), rtol=1e-6)
    assert (g.cache_info().loaded, g.cache_info().compilations) == (1, 0)
    assert len(fresh.entries()) == 1 and fresh.clear() == 1
    assert not redis_store._client.exists(index)


class _Blip:
    """A Redis client whose connection drops after ``passes`` commands (pipelines included)."""

    def __init__(self, client, passes: int):
        self._client, self.passes = client, passes

    def _tick(self) -> None:
        if self.passes <= 0:
            raise redis.exceptions.ConnectionError("connection reset (injected)")
        self.passes -= 1

    def execute_command(self, *args, **kwargs):
        self._tick()
        return self._client.execute_command(*args, **kwargs)

    def pipeline(self, *args, **kwargs):
        self._tick()
        raise redis.exceptions.ConnectionError("connection reset (injected)")

    def __getattr__(self, name):
        attr = getattr(type(self._client), name, None)
        if callable(attr) and name not in ("register_script",):
            return functools.partial(attr, self)  # redis-py's command methods call self.execute_command
        return getattr(self._client, name)


@pytest.mark.parametrize("passes", [0, 1, 2])
def test_item_17_a_connection_blip_during_a_save_never_orphans_the_entry(passes, redis_store) -> None:
    blipped = RedisStore(redis_store.url, namespace=redis_store.namespace)
    save, client = blipped._save, blipped._client

    def save_with_a_blip(*args):  # the connection drops after `passes` commands of the save
        blipped._client = _Blip(client, passes)
        try:
            return save(*args)
        finally:
            blipped._client = client

    blipped._save = save_with_a_blip
    f = compile(model, store=blipped, backend=numpy_backend)
    out, caught = calls_without_raising(f, *inputs(3))
    np.testing.assert_allclose(out, reference(3), rtol=1e-6)
    assert any("injected" in c for c in caught) or passes > 0

    second = RedisStore(redis_store.url, namespace=redis_store.namespace)
    g = compile(model, store=second, backend=numpy_backend)
    np.testing.assert_allclose(g(*inputs(3)), reference(3), rtol=1e-6)  # nothing stale: served or traced
    third = compile(model, store=RedisStore(redis_store.url, namespace=redis_store.namespace), backend=numpy_backend)
    np.testing.assert_allclose(third(*inputs(3)), reference(3), rtol=1e-6)
    assert (third.cache_info().loaded, third.cache_info().compilations) == (1, 0)  # the entry is complete now
    assert len(second.entries()) == 1
    assert second.clear() == 1 and _keys(second, "entry") == [] and _keys(second, "body") == []


def test_item_17_an_orphan_head_of_the_old_protocol_is_listed_healed_and_cleared(redis_store) -> None:
    e = StoredEntry.build("f" * 64, "k" * 64, "x: int", None, {"guards": []}, {"k": 1}, {"backend": "program"},
                          {"name": "orphan"})
    client = redis_store._client  # what the old protocol left after a blip: body and head, no meta, no index row
    client.set(redis_store._k("body", e.id), e.encode_body())
    client.set(redis_store._k("entry", e.id), e.encode_head(redis_store.secret()))
    assert redis_store.load("f" * 64, "k" * 64) == []
    assert [m.name for m in redis_store.entries()] == ["orphan"]  # found by the scan, completed
    assert [x.id for _, x in redis_store.load("f" * 64, "k" * 64)] == [e.id]
    client.set(redis_store._k("entry", "0" * 64), b"garbage")  # an orphan that does not verify: not listed
    client.set(redis_store._k("body", "1" * 64), b"a stray body")
    assert [m.name for m in redis_store.entries()] == ["orphan"]
    assert redis_store.clear() == 1 and _keys(redis_store, "entry") == [] and _keys(redis_store, "body") == []


def test_the_cache_command_reads_a_redis_store_signed_with_a_given_secret(redis_store, tmp_path, capsys) -> None:
    from shapeenv.cli.cache import main as cache_main

    (tmp_path / "key").write_bytes(b"a secret every client is given\n")
    writer = RedisStore(redis_store.url, namespace=redis_store.namespace, secret=b"a secret every client is given")
    compile(model, store=writer, backend=numpy_backend)(*inputs(3))
    spec = f"{redis_store.url}#{redis_store.namespace}"
    (meta,) = writer.entries()
    assert cache_main(["show", spec, meta.id[:8], "--secret-file", str(tmp_path / "key")]) == 0
    assert "function: model" in capsys.readouterr().out
    assert cache_main(["show", spec, meta.id[:8]]) == 1  # the server-kept secret is not the one it was signed with
    assert "signature" in capsys.readouterr().err


def test_a_sigkilled_redis_writer_leaves_no_half_written_entry(redis_store) -> None:
    spec = f"{redis_store.url}#{redis_store.namespace}"
    for written in killed_writers(spec, pause=0.002):
        heads = {k.rsplit(b":", 1)[1] for k in _keys(redis_store, "entry")}
        metas = {k.rsplit(b":", 1)[1] for k in _keys(redis_store, "meta")}
        assert heads == metas and len(heads) >= written  # every head is a complete entry
        assert len(redis_store.load("f" * 64, "k" * 64)) == len(heads)


# -- 18: a read-only DiskStore -----------------------------------------------------------------------------------
@contextlib.contextmanager
def read_only(path: Path):
    """``path`` made read-only for the processes started inside (a read-only bind mount when root)."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [path, *path.rglob("*")]}
        for p in modes:
            p.chmod(modes[p] & ~0o222)
        try:
            yield path
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    mount = path.parent / f"{path.name}-ro"
    mount.mkdir()
    if subprocess.run(["mount", "--bind", str(path), str(mount)], capture_output=True).returncode != 0:
        pytest.skip("running as root without the right to mount: no way to make a directory read-only")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(mount)], check=True, capture_output=True)
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], check=True, capture_output=True)  # busy: detach lazily


def test_item_18_a_read_only_disk_store_serves_its_entries(tmp_path) -> None:
    store_dir = tmp_path / "store"
    store = DiskStore(store_dir)
    f = compile(model, store=store, backend=numpy_backend)
    for n in (3, 8, 9):
        f(*inputs(n))
    store.close()
    with read_only(store_dir) as ro:
        served = run_python(["-m", "tests.shapeenv.store_worker", "call", str(ro), "3,8,20", "--no-trace"])
        assert last_json(served)["loaded"] == 2 and last_json(served)["correct"]
        traced = run_python(["-m", "tests.shapeenv.store_worker", "call", str(ro), "2,1"])
        assert last_json(traced)["correct"] and last_json(traced)["stored"] == 0
        assert traced.stderr.count("Warning:") == 1 and "read-only" in traced.stderr, traced.stderr
        reader = DiskStore(ro)
        assert len(reader.entries()) == 2 and reader.read_only
        reader.close()


# -- a full disk ---------------------------------------------------------------------------------------------------
def test_a_full_disk_says_disk_full_and_keeps_serving(tmp_path) -> None:
    store = DiskStore(tmp_path)
    compile(model, store=store, backend=numpy_backend)(*inputs(3))
    conn = store._connection()
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    conn.execute(f"PRAGMA max_page_count = {pages}")  # what SQLite reports on a full disk: SQLITE_FULL
    f = compile(model, store=store, backend=numpy_backend)
    _, caught = calls_without_raising(f, *inputs(7))
    assert len(caught) == 1 and "disk full" in caught[0]
    out, caught = calls_without_raising(f, *inputs(3))  # the stored entry is still served
    np.testing.assert_allclose(out, reference(3), rtol=1e-6)
    assert caught == [] and f.cache_info().loaded == 1


def test_the_disk_store_secret_is_private_and_shared_by_every_process(tmp_path) -> None:
    s = DiskStore(tmp_path)
    key = s.secret()
    assert (tmp_path / "secret.key").stat().st_mode & 0o777 == 0o600 and len(key) == 32
    assert DiskStore(tmp_path).secret() == key


def test_a_call_reaching_an_installed_entry_that_fails_to_load_traces_again(tmp_path) -> None:
    store = DiskStore(tmp_path)
    f = compile(model, store=store, dynamic=True)
    assert f((6, 3), (3, 2)) == (12, 2) and f((3, 3), (3, 2)) == (3, 2)  # two entries: batch > 4, batch <= 4
    conn = sqlite3.connect(tmp_path / DB_NAME)
    (small,) = conn.execute("SELECT id FROM entries ORDER BY seq LIMIT 1 OFFSET 1").fetchone()
    conn.execute("UPDATE entries SET body = ? WHERE id = ?", (zlib.compress(b'{"lost": 1}'), small))
    conn.commit()
    conn.close()
    g = compile(model, store=DiskStore(tmp_path), dynamic=True)
    assert g((9, 3), (3, 2)) == (18, 2)  # installs both stored entries, loads the first
    assert g.cache_info().loaded == 2
    shapes, caught = calls_without_raising(g, (2, 3), (3, 2))  # reaches the damaged one
    assert shapes == (2, 2) and any("cannot be loaded" in c for c in caught)
    assert g.cache_info().compilations == 1  # traced again, the damaged entry disabled
    shapes, caught = calls_without_raising(g, (4, 3), (3, 2))
    assert shapes == (4, 2) and caught == [] and g.cache_info().compilations == 1


def test_a_redis_server_that_refuses_writes_keeps_serving(redis_store) -> None:
    key = b"a secret every client is given"
    writer = RedisStore(redis_store.url, namespace=redis_store.namespace, secret=key)
    compile(model, store=writer, backend=numpy_backend)(*inputs(3))
    user = f"reader-{uuid.uuid4().hex[:8]}"
    redis_store._client.acl_setuser(user, enabled=True, passwords=["+pw"], keys=[redis_store._k("*")],
                                    commands=["+@read", "+ping", "+evalsha", "+eval", "+script"])
    try:
        url = redis_store.url.replace("redis://", f"redis://{user}:pw@")
        reader = RedisStore(url, namespace=redis_store.namespace, secret=key)
        other = compile(model, store=RedisStore(redis_store.url, namespace=redis_store.namespace),
                        backend=numpy_backend)  # a client without the secret: the signed entry is not its own
        with pytest.warns(UserWarning, match="signature does not match"):
            other(*inputs(3))
        assert other.cache_info().compilations == 1
        g = compile(model, store=reader, backend=numpy_backend)
        out, caught = calls_without_raising(g, *inputs(3))
        np.testing.assert_allclose(out, reference(3), rtol=1e-6)
        assert g.cache_info().loaded == 1 and caught == []
        out, caught = calls_without_raising(g, *inputs(7))  # traced; its save is refused
        np.testing.assert_allclose(out, reference(7), rtol=1e-6)
        assert len(caught) == 1 and "read-only" in caught[0] and reader.available and not reader.writable
    finally:
        redis_store._client.acl_deluser(user)


# -- the fingerprint follows every kind of read (in one process: what a second process would see) ---------------------
class _Knob:
    factor = 2

    def __init__(self):
        self.offset = 0

    def apply(self, x):
        return x * self.factor + self.offset


_KNOB = _Knob()
_TABLE = {"scale": 2}
_WEIGHTS = np.ones(3, np.float32)


def _make_cases():
    import types as _types

    module = _types.ModuleType("se_fingerprint_settings")  # a user module without a file
    module.SCALE = 2
    sys.modules[module.__name__] = module
    cell = [2]

    def closure(x):
        return x * cell[0]

    def defaults(x, k=2, *, j=1):
        return x * k * j

    def reads_module(x):
        return x * se_fingerprint_settings.SCALE  # noqa: F821 - imported by name through sys.modules

    def reads_class(x):
        return x * _Knob.factor

    def reads_object(x):
        return _KNOB.apply(x)

    def reads_dict(x):
        return x * _TABLE["scale"]

    def reads_array(x):
        return x * _WEIGHTS

    @functools.wraps(closure)
    def wrapper(x):
        return x

    def set_attr(obj, name, value):
        def change():
            old = getattr(obj, name)
            setattr(obj, name, value)
            return lambda: setattr(obj, name, old)
        return change

    def set_item(obj, key, value):
        def change():
            old = obj[key]
            obj[key] = value
            return lambda: obj.__setitem__(key, old)
        return change

    def new_method():
        old = _Knob.apply
        _Knob.apply = lambda self, x: x + self.factor
        return lambda: setattr(_Knob, "apply", old)

    return {
        "closure cell": (closure, set_item(cell, 0, 3)),
        "defaults": (defaults, set_attr(defaults, "__defaults__", (3,))),
        "keyword defaults": (defaults, set_attr(defaults, "__kwdefaults__", {"j": 2})),
        "user module attribute": (reads_module, set_attr(module, "SCALE", 3)),
        "class attribute": (reads_class, set_attr(_Knob, "factor", 3)),
        "method code": (reads_object, new_method),
        "object attribute": (reads_object, set_attr(_KNOB, "offset", 5)),
        "dict mutated in place": (reads_dict, set_item(_TABLE, "scale", 3)),
        "array mutated in place": (reads_array, set_item(_WEIGHTS, 0, 7.0)),
        "what a wrapper wraps": (wrapper, set_item(cell, 0, 4)),
    }


CASES = _make_cases()


@pytest.mark.parametrize("case", CASES)
def test_the_fingerprint_changes_with_what_the_function_reads(case) -> None:
    fn, change = CASES[case]
    before = function_fingerprint(fn, {})
    undo = change()
    try:
        changed = function_fingerprint(fn, {})
    finally:
        undo()
    assert (changed != before, function_fingerprint(fn, {}) == before) == (True, True), case
