"""The pytest plugin: fixtures in a project of their own, the example
project under `pytest -n 4` (four servers at once on free ports), and a
pytest killed mid-run that leaves no server behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from conftest import EXAMPLE_PROJECT, alive, proc_argv, servers, wait_for

pytestmark = pytest.mark.usefixtures("linux_only")


def run_pytest(cwd, *args, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_fixtures_give_each_test_a_fresh_synchronous_world_and_restore_it(tmp_path):
    (tmp_path / "test_fixtures.py").write_text(textwrap.dedent(
        """
        def test_one(carla_world, carla_server):
            s = carla_world.get_settings()
            assert s.synchronous_mode and abs(s.fixed_delta_seconds - 0.1) < 1e-9
            bp = carla_world.get_blueprint_library().find("vehicle.audi.tt")
            bp.set_attribute("role_name", "left-behind")
            carla_world.spawn_actor(bp, carla_world.get_map().get_spawn_points()[0])
            frame = carla_world.tick()
            assert carla_world.tick() == frame + 1

        def test_two_finds_the_settings_restored(carla_client):
            s = carla_client.get_world().get_settings()
            assert not s.synchronous_mode and s.fixed_delta_seconds is None

        def test_three_finds_a_fresh_world(carla_world):
            roles = [a.attributes.get("role_name") for a in carla_world.get_actors().filter("vehicle.*")]
            assert "left-behind" not in roles

        def test_the_server_args_reach_the_server(carla_server):
            import pathlib
            argv = pathlib.Path(f"/proc/{carla_server.pid}/cmdline").read_bytes().split(b"\\0")
            assert b"--fps" in argv and argv[argv.index(b"--fps") + 1] == b"20"
            assert b"--seed" in argv and argv[argv.index(b"--seed") + 1] == b"5"

        def test_the_seed_fixture(carla_seed):
            assert carla_seed == 5
        """))
    run = run_pytest(tmp_path, "-q", "--carla-step", "0.1", "--carla-seed", "5",
                     "--carla-server-arg=--fps", "--carla-server-arg=20", "-p", "no:randomly")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 passed" in run.stdout


def test_a_server_that_cannot_start_fails_the_tests_with_its_reason(tmp_path):
    (tmp_path / "test_x.py").write_text("def test_x(carla_world):\n    pass\n")
    run = run_pytest(tmp_path, "-q", "--carla-maps", str(tmp_path / "missing"))
    assert run.returncode == 1
    assert "ServerStartError" in run.stdout and "missing does not exist" in run.stdout, run.stdout


def _watch(mark, seconds, until):
    """Samples the run's servers until ``until()``; returns the most seen
    at once and their ports files' contents."""
    most, ports = [], {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not until():
        now = servers(mark)
        for pid in now:
            if pid in ports:
                continue
            argv = proc_argv(pid)
            path = Path(argv[argv.index("--ports-file") + 1])
            try:
                text = path.read_text()
            except OSError:
                continue
            if text.endswith("\n"):
                ports[pid] = json.loads(text)
        if len(now) > len(most):
            most = now
        time.sleep(0.02)
    return most, ports


def _client_crashed(out):
    """Whether a worker died of CARLA's client: a segmentation fault in
    ``carla.libcarla``, as its ``reload_world`` does now and then after a
    Traffic Manager's test (docs/testing-client-code.md)."""
    return "crashed while running" in out and "Segmentation fault" in out and "carla.libcarla" in out


def _example_project_under_xdist(mark):
    env = dict(os.environ, CARLA_HOST_TEST_MARK=mark)
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "4", "-q"],
                           cwd=EXAMPLE_PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    most, ports = _watch(mark, 600, lambda: run.poll() is not None)
    return run.communicate(timeout=60)[0], run.returncode, most, ports


def test_the_example_project_under_xdist_runs_four_servers_at_once():
    mark = uuid.uuid4().hex
    out, returncode, most, ports = _example_project_under_xdist(mark)
    if returncode != 0 and _client_crashed(out):
        print("the CARLA client crashed in a worker (its own fault); once more:\n" + out)
        assert wait_for(lambda: not servers(mark), 10.0), "servers outlived the crashed run"
        mark = uuid.uuid4().hex
        out, returncode, most, ports = _example_project_under_xdist(mark)
    assert returncode == 0, out
    assert "10 passed" in out, out
    assert len(most) == 4, f"at most {len(most)} servers at once"
    taken = []
    for p in ports.values():
        taken += [p["port"], p["port"] + 1, p["port"] + 2, p["streaming_port"], *p["release_ports"].values()]
    assert len(ports) == 4 and len(taken) == len(set(taken)), ports
    assert wait_for(lambda: not servers(mark), 10.0), "servers outlived the run"


def test_killing_pytest_mid_run_leaves_no_server_behind():
    mark = uuid.uuid4().hex
    env = dict(os.environ, CARLA_HOST_TEST_MARK=mark)
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "4", "-q"],
                           cwd=EXAMPLE_PROJECT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: len(servers(mark)) == 4, 120.0), f"{len(servers(mark))} servers came up"
        seen = servers(mark)
        run.send_signal(signal.SIGKILL)
        run.wait(10)
        assert wait_for(lambda: not servers(mark), 30.0), f"left behind: {servers(mark)}"
        assert not any(alive(pid) for pid in seen)
    finally:
        if run.poll() is None:
            run.kill()
