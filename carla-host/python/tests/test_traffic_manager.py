"""A synchronous Traffic Manager does not deadlock its client.

CARLA's client races with itself in synchronous mode (its issue 9172: the
Traffic Manager's worker can miss the tick's wake-up, and world.tick()
then waits for ever). Against a server that makes frames as fast as this
one it hung every few thousand ticks until the server started pacing
ticks around the Traffic Manager's cycle (src/rpc/tm_pacing.rs)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

TICKS = 3000

SCRIPT = textwrap.dedent(
    f"""
    import carla_host
    with carla_host.serve() as server:
        client = server.client(timeout=10.0)
        world = client.reload_world()
        s = world.get_settings()
        s.synchronous_mode = True
        s.fixed_delta_seconds = 0.05
        world.apply_settings(s)
        tm = client.get_trafficmanager(server.traffic_manager_port)
        tm.set_synchronous_mode(True)
        bp = world.get_blueprint_library().find("vehicle.audi.tt")
        cars = [world.try_spawn_actor(bp, p) for p in world.get_map().get_spawn_points()[:5]]
        for car in cars:
            if car is not None:
                car.set_autopilot(True, server.traffic_manager_port)
        first = world.get_snapshot().frame
        for _ in range({TICKS}):
            last = world.tick()
        print("ticked", last - first, flush=True)
        tm.shut_down()
    """
)


def test_a_synchronous_traffic_manager_survives_thousands_of_ticks():
    try:
        run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail(f"world.tick() hung with a synchronous Traffic Manager (no {TICKS} ticks in 240 s)")
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"ticked {TICKS}" in run.stdout
