"""RedisStore against a real redis-server: the store interface, fresh processes, concurrency, and degrading."""

from __future__ import annotations

import os
import uuid
import warnings

import numpy as np
import pytest

from shapeenv import compile
from shapeenv.backends import numpy_backend
from shapeenv.stores import RedisStore, StoredEntry

from .redis_server import Server, free_port, redis, require_server
from .store_worker import inputs, model, reference, run, run_at_once


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    require_server()
    url = os.environ.get("SHAPEENV_TEST_REDIS_URL")
    if url:
        assert redis.Redis.from_url(url, socket_connect_timeout=2).ping(), f"the Redis server at {url} does not answer"
        yield url
        return
    server = Server(tmp_path_factory.mktemp("redis"))
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def store(redis_url):
    ns = f"test-{uuid.uuid4().hex[:12]}"
    s = RedisStore(redis_url, namespace=ns)
    yield s
    s.clear()


def entry(k: int, name: str = "f", function: str = "f" * 64) -> StoredEntry:
    return StoredEntry.build(function, "k" * 64, "x: int", None, {"guards": []}, {"k": k}, {"backend": "program"},
                             {"name": name})


def test_the_redis_store_interface(store) -> None:
    assert store.ping()
    assert [store.save(entry(k)) for k in (1, 2, 1)] == [True, True, False]
    loaded = store.load("f" * 64, "k" * 64)
    assert [(seq, store.body(e).program["k"]) for seq, e in loaded] == [(1, 1), (2, 2)]
    assert [store.body(e).program["k"] for _, e in store.load("f" * 64, "k" * 64, after=1)] == [2]
    store.save(entry(3, "g", function="g" * 64))
    assert sorted(m.name for m in store.entries()) == ["f", "f", "g"]
    assert store.get(loaded[0][1].id[:8]).program["k"] == 1
    assert store.clear("g") == 1 and len(store.entries()) == 2
    assert store.clear() == 2 and store.entries() == []


def test_an_evicted_entry_named_by_an_index_is_skipped(store) -> None:
    store.save(entry(1))
    store.save(entry(2))
    store._client.delete(store._k("entry", entry(1).id))  # what maxmemory eviction does
    assert [store.body(e).program["k"] for _, e in store.load("f" * 64, "k" * 64)] == [2]


def test_compiled_functions_share_entries_through_redis(store) -> None:
    f = compile(model, store=store, backend=numpy_backend)
    for n in (3, 8, 9):
        f(*inputs(n))
    g = compile(model, store=store, backend=numpy_backend)
    for n in (3, 8, 40):
        np.testing.assert_allclose(g(*inputs(n)), reference(n), rtol=1e-6)
    assert (g.cache_info().compilations, g.cache_info().loaded) == (0, 2)


def test_a_fresh_process_traces_nothing_with_a_redis_store(store) -> None:
    spec = f"{store.url}#{store.namespace}"
    assert run("call", spec, "3,8,9")["stored"] == 2
    second = run("call", spec, "3,8,21", "--no-trace")
    assert (second["compilations"], second["loaded"], second["correct"]) == (0, 2, True)


def test_processes_compiling_at_once_through_redis_trace_once(store, tmp_path) -> None:
    spec = f"{store.url}#{store.namespace}"
    results = run_at_once(spec, "8,9,10", 3, tmp_path / "go")
    assert all(r["correct"] for r in results) and sum(r["compilations"] for r in results) == 2
    assert len(store.entries()) == 2


def test_an_unreachable_server_degrades_to_the_local_cache_with_one_warning() -> None:
    s = RedisStore(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.5)
    f = compile(model, store=s, backend=numpy_backend)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (3, 5, 6, 3, 7):
            np.testing.assert_allclose(f(*inputs(n)), reference(n), rtol=1e-6)
    assert [type(w.message).__name__ for w in caught] == ["StoreUnavailableWarning"]
    assert "ConnectionError" in str(caught[0].message)
    info = f.cache_info()
    assert info.compilations == 2 and info.hits == 3 and "unavailable" in info.store


def test_a_server_that_goes_away_mid_run_degrades_with_one_warning(tmp_path) -> None:
    require_server()
    import shutil

    if shutil.which("redis-server") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must have the redis-server binary (.ci/run installs it)")
        pytest.skip("needs the redis-server binary to stop a server of its own")
    server = Server(tmp_path)
    try:
        s = RedisStore(server.url, socket_timeout=0.5)
        f = compile(model, store=s, backend=numpy_backend)
        f(*inputs(3))
        assert f.cache_info().stored == 1
    finally:
        server.stop()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (3, 5, 6, 9):
            np.testing.assert_allclose(f(*inputs(n)), reference(n), rtol=1e-6)
    assert [type(w.message).__name__ for w in caught] == ["StoreUnavailableWarning"]
