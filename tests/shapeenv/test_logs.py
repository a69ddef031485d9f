"""SHAPEENV_LOGS / shapeenv.set_logs: topics on standard logging, off by default, each line naming the user's line."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import shapeenv
from shapeenv import ShapeEnv, check, compile, ops
from shapeenv.logs import TOPICS, LogConfig

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def logs_off_afterwards():
    yield
    shapeenv.set_logs()


def test_parse_reads_topics_debug_prefix_and_all() -> None:
    cfg = LogConfig.parse("guards, recompiles ,+dynamic")
    assert (cfg.guards, cfg.recompiles, cfg.dynamic, cfg.asserts, cfg.solver) == (logging.INFO, logging.INFO, logging.DEBUG, 0, 0)
    assert LogConfig.parse("all,-solver").enabled() == ("guards", "recompiles", "asserts", "dynamic")
    assert LogConfig.parse("").enabled() == ()


def test_an_unknown_topic_warns_with_the_known_ones() -> None:
    with pytest.warns(UserWarning, match="unknown topic\\(s\\) guardz; known: guards, recompiles, asserts, solver, dynamic"):
        assert LogConfig.parse("guardz,asserts").enabled() == ("asserts",)


def _trace() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((6, 4), name="x")
    check(x.shape[0] < 100)
    if x.shape[0] > 4:
        ops.relu(x)


def test_off_by_default_even_with_the_root_logger_at_debug(caplog) -> None:
    with caplog.at_level(logging.DEBUG):
        _trace()
    assert not [r for r in caplog.records if r.name.startswith("shapeenv.")]


def test_guards_asserts_solver_and_dynamic_name_the_user_line(caplog) -> None:
    shapeenv.set_logs(guards=True, asserts=True, solver=True, dynamic=logging.DEBUG)
    env = ShapeEnv()
    x = env.fake_tensor((6, 4), name="x"); line = sys._getframe().f_lineno  # noqa: E702
    check(x.shape[0] < 100)
    bool(x.shape[0] * x.shape[1] > 10)
    here = f"{__file__}:{{}} in test_guards_asserts_solver_and_dynamic_name_the_user_line"
    by_topic = {t: [r.getMessage() for r in caplog.records if r.name == f"shapeenv.{t}"] for t in TOPICS}
    assert by_topic["dynamic"] == [
        f"create_symbol s0 = 6 for x.size()[0], range [2, oo]  # {here.format(line)}",
        f"create_symbol s1 = 4 for x.size()[1], range [2, oo]  # {here.format(line)}",
    ]
    assert by_topic["asserts"] == [f"runtime assert check(s0 < 100)  # {here.format(line + 1)}: runtime assert"]
    assert len(by_topic["guards"]) == 1 and by_topic["guards"][0].startswith(f"guard s0*s1 > 10  # {here.format(line + 2)}")
    assert len(by_topic["solver"]) == 1 and by_topic["solver"][0].endswith(f"# {here.format(line + 2)}")


def test_recompiles_give_the_failed_guard_its_line_and_the_call_site(caplog) -> None:
    shapeenv.set_logs(recompiles=True)

    def f(x):
        return x * 2 if x.shape[0] > 4 else x + 1

    g = compile(f)
    g(np.zeros(8)); g(np.zeros(9)); g(np.zeros(3)); line = sys._getframe().f_lineno  # noqa: E702
    records = [r.getMessage() for r in caplog.records if r.name == "shapeenv.recompiles"]
    call = f"{__file__}:{line} in test_recompiles_give_the_failed_guard_its_line_and_the_call_site"
    assert records == [
        f"Recompiling f: x.size()[0] == 8 failed: got 9  # called at {call}",
        f"Recompiling f: entry 0: x.size()[0] == 8 failed: got 3; entry 1: x.size()[0] >= 5 failed: got 3 "
        f"(guard from {__file__}:{line - 3} in f)  # called at {call}",
    ]
    assert [r.call_site for r in g.recompile_reasons()] == [call, call]


def test_set_logs_installs_one_stderr_handler_and_removes_it(capsys) -> None:
    shapeenv.set_logs(asserts=True)
    shapeenv.set_logs(asserts=True, guards=True)
    root = logging.getLogger("shapeenv")
    assert sum(type(h).__name__ == "_Handler" for h in root.handlers) == 1
    _trace()
    err = capsys.readouterr().err
    assert "[shapeenv.asserts] runtime assert check(s0 < 100)" in err and "[shapeenv.guards] guard s0 > 4" in err
    shapeenv.set_logs()
    assert not any(type(h).__name__ == "_Handler" for h in root.handlers)
    _trace()
    assert capsys.readouterr().err == ""


def test_the_environment_variable_is_read_at_import() -> None:
    code = "import shapeenv, shapeenv.logs as L; print(L.ENVIRONMENT.enabled())"
    env = {**os.environ, "SHAPEENV_LOGS": "guards,+dynamic", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "('guards', 'dynamic')"
