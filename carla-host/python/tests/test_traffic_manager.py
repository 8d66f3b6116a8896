"""A synchronous Traffic Manager does not deadlock its client.

CARLA's client races with itself in synchronous mode (its issue 9172: the
Traffic Manager's worker can miss the tick's wake-up, and world.tick()
then waits for ever). Against a server that makes frames as fast as this
one it hung every few thousand ticks until the server started pacing
ticks around the Traffic Manager's cycle (src/rpc/tm_pacing.rs). With AI
walkers too: their batch before each tick is not the worker's, and a
tick held for it (100 ms each) would not make 3,000 in the time allowed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

TICKS = 3000
WALKERS = 10

SCRIPT = textwrap.dedent(
    f"""
    import carla
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
        # AI walkers: the client sends their batch before every tick_cue.
        world.set_pedestrians_seed(1)
        library = world.get_blueprint_library()
        walker_bp = library.filter("walker.pedestrian.*")[0]
        controller_bp = library.find("controller.ai.walker")
        controllers = []
        for _ in range({WALKERS}):
            at = world.get_random_location_from_navigation()
            walker = world.try_spawn_actor(walker_bp, carla.Transform(at + carla.Location(z=1.0)))
            if walker is not None:
                controllers.append(world.spawn_actor(controller_bp, carla.Transform(), walker))
        world.tick()
        for controller in controllers:
            controller.start()
            controller.go_to_location(world.get_random_location_from_navigation())
        print("walkers", len(controllers), flush=True)
        first = world.get_snapshot().frame
        for _ in range({TICKS}):
            last = world.tick()
        print("ticked", last - first, flush=True)
        for controller in controllers:
            controller.stop()
        tm.shut_down()
    """
)


def test_a_synchronous_traffic_manager_survives_thousands_of_ticks():
    try:
        run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail(f"world.tick() hung or crawled with a synchronous Traffic Manager (no {TICKS} ticks in 240 s)")
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"walkers {WALKERS}" in run.stdout
    assert f"ticked {TICKS}" in run.stdout
