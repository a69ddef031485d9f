"""A Redis server for the RedisStore tests: the one ``.ci/run`` started, or a private one.

``.ci/run`` starts ``redis-server`` on a loopback port and exports its URL as
``SHAPEENV_TEST_REDIS_URL``. Without it, a private server is started from the
``redis-server`` binary if there is one. With neither, the tests are skipped, except in
CI (``CI=true``), where a missing server is a failure: the Redis tests must run there.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

redis = pytest.importorskip("redis") if os.environ.get("CI") != "true" else __import__("redis")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A private ``redis-server`` process on a loopback port."""

    def __init__(self, directory: Path):
        binary = shutil.which("redis-server")
        assert binary is not None
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(directory)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)
        for _ in range(200):
            try:
                if client.ping():
                    return
            except redis.exceptions.ConnectionError:
                time.sleep(0.025)
        self.stop()
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def server_available() -> bool:
    return bool(os.environ.get("SHAPEENV_TEST_REDIS_URL")) or shutil.which("redis-server") is not None


def require_server() -> None:
    """Skip (outside CI) or fail (in CI) when no Redis server can be had."""
    if server_available():
        return
    message = ("no Redis server: set SHAPEENV_TEST_REDIS_URL or install redis-server "
               "(apt-get install redis-server); .ci/run starts one")
    if os.environ.get("CI") == "true":
        pytest.fail(message + " -- in CI the Redis tests must run")
    pytest.skip(message)
