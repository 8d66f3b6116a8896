"""carla_host.serve(): free ports, a server that answers, one that stops
with its parent, and clear errors for what cannot start."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import carla
import pytest

import carla_host
from conftest import alive, proc_argv, wait_for

pytestmark = pytest.mark.usefixtures("linux_only")


def all_ports(server: carla_host.Server) -> set:
    p = server.ports
    return {
        p["port"], p["legacy_stream_port"], p["legacy_control_port"],
        p["rpc_port"], p["streaming_port"], *p["release_ports"].values(),
    }


def test_a_server_on_free_ports_answers_a_client():
    with carla_host.serve() as server:
        assert server.alive() and server.ports["pid"] == server.pid
        p = server.ports
        assert p["legacy_stream_port"] == p["port"] + 1 and p["legacy_control_port"] == p["port"] + 2
        assert sorted(p["release_ports"]) == ["0.9.12", "0.9.13", "0.9.14", "0.9.15"]
        assert p["rpc_port"] == p["port"]  # 0.8.4 and 0.9.16 share the world port
        assert len(all_ports(server)) == 8, p
        client = server.client(timeout=5.0)
        assert client.get_server_version() == "0.9.16"
        assert client.get_world().get_map().name == p["map"]
        # Every port is really the server's: nobody else can bind it.
        for port in all_ports(server):
            with socket.socket() as s, pytest.raises(OSError):
                s.bind(("127.0.0.1", port))
        assert server.traffic_manager_port not in all_ports(server)
        assert server.release_port("0.9.13") == p["release_ports"]["0.9.13"]
        argv = proc_argv(server.pid)
        assert argv[argv.index("--fps") + 1] == "100.0"  # serve()'s default, for quick reloads
        with pytest.raises(KeyError, match="0.9.11 is not served"):
            server.release_port("0.9.11")
    assert not server.alive()
    assert server.stop() == server.process.returncode  # a second stop is harmless


def test_two_servers_started_at_once_never_share_a_port():
    with carla_host.serve() as a, carla_host.serve() as b:
        assert not all_ports(a) & all_ports(b)
        assert a.client().get_server_version() == b.client().get_server_version()


def test_stop_frees_the_ports():
    server = carla_host.serve()
    ports = all_ports(server)
    assert server.stop() == 0, server.log_tail()
    for port in ports:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("0.0.0.0", port))


def test_the_server_does_not_outlive_a_killed_parent(tmp_path):
    script = textwrap.dedent(
        """
        import os, signal, sys, carla_host
        server = carla_host.serve()
        print(server.pid, flush=True)
        sys.stdin.readline()
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    server_pid = int(parent.stdout.readline())
    assert alive(server_pid)
    parent.stdin.write("go\n")
    parent.stdin.flush()
    assert parent.wait(10) == -signal.SIGKILL
    assert wait_for(lambda: not alive(server_pid), 10.0), f"server {server_pid} outlived its parent"


def test_sync_puts_the_world_in_synchronous_mode():
    with carla_host.serve(sync=True, fixed_delta_seconds=0.1) as server:
        settings = server.client().get_world().get_settings()
        assert settings.synchronous_mode
        assert settings.fixed_delta_seconds == pytest.approx(0.1)


def _town_traffic(seed):
    with carla_host.serve(seed=seed) as server:
        world = server.client().get_world()
        actors = world.get_actors().filter("vehicle.*")
        return [(a.type_id, a.get_location().x, a.get_location().y) for a in actors]


def _same_traffic(a, b):
    """The same cars at the same places, give or take the few centimetres
    they drive between the server's start and the query."""
    return len(a) == len(b) and all(
        any(t == u and abs(x - v) + abs(y - w) < 1.0 for (u, v, w) in b) for (t, x, y) in a
    )


def test_the_seed_decides_the_towns_own_traffic():
    first, again, other = _town_traffic(7), _town_traffic(7), _town_traffic(8)
    assert first and _same_traffic(first, again), (first, again)
    assert not _same_traffic(first, other), (first, other)


def test_a_maps_folder_that_does_not_exist(tmp_path):
    missing = tmp_path / "no-maps-here"
    with pytest.raises(carla_host.ServerStartError, match="maps folder .*no-maps-here does not exist"):
        carla_host.serve(maps=missing)


def test_a_ports_file_in_a_folder_that_does_not_exist(tmp_path):
    with pytest.raises(carla_host.ServerStartError, match="the folder .*nowhere does not exist"):
        carla_host.serve(ports_file=tmp_path / "nowhere" / "ports.json")


def test_the_server_refuses_a_ports_file_in_a_folder_that_does_not_exist(tmp_path):
    # The same mistake reaching the binary (through extra_args to a server
    # started by hand): its own words, its exit status.
    exe = carla_host.find_binary()
    run = subprocess.run(
        [str(exe), "--port", "0", "--ports-file", str(tmp_path / "nowhere" / "p.json")],
        capture_output=True, text=True, timeout=30,
    )
    assert run.returncode == 1
    assert "the folder" in run.stderr and "nowhere does not exist" in run.stderr, run.stderr


def test_a_server_that_dies_at_start_says_why(tmp_path):
    with pytest.raises(carla_host.ServerStartError) as e:
        carla_host.serve(town="NoSuchTown")
    assert "NoSuchTown: no such map" in str(e.value)
    assert e.value.returncode == 1
    assert "error" in e.value.log_tail


def test_a_binary_that_dies_at_start(tmp_path, monkeypatch):
    broken = tmp_path / "carla-host"
    broken.write_text("#!/bin/sh\necho 'error: the GPU is on fire' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv(carla_host.BINARY_ENV, str(broken))
    with pytest.raises(carla_host.ServerStartError, match="the GPU is on fire") as e:
        carla_host.serve()
    assert e.value.returncode == 3


def test_a_binary_that_never_gets_ready_is_stopped(tmp_path, monkeypatch):
    slow = tmp_path / "carla-host"
    slow.write_text("#!/bin/sh\necho starting\nexec sleep 60\n")
    slow.chmod(0o755)
    monkeypatch.setenv(carla_host.BINARY_ENV, str(slow))
    before = time.monotonic()
    with pytest.raises(carla_host.ServerStartError, match="did not get ready in 0.5 s") as e:
        carla_host.serve(start_timeout=0.5)
    assert time.monotonic() - before < 10
    assert "starting" in e.value.log_tail


def test_a_missing_binary(tmp_path, monkeypatch):
    monkeypatch.setenv(carla_host.BINARY_ENV, str(tmp_path / "nothing"))
    with pytest.raises(carla_host.ServerStartError, match="CARLA_HOST_BINARY names .*nothing, which is not a file"):
        carla_host.serve()


def test_the_log_and_the_ports_file_where_asked(tmp_path):
    with carla_host.serve(log_dir=tmp_path, ports_file=tmp_path / "ports.json") as server:
        assert server.log_path.parent == tmp_path
        assert json.loads((tmp_path / "ports.json").read_text())["port"] == server.port
        assert "carla-host: serving" in server.log_tail()
    assert server.log_path.exists()  # the caller's folder is left as it is
