"""Ticks per second of a synchronous loop with the client's Traffic Manager
driving VEHICLES cars and WALKERS walkers walking with controller.ai.walker
(no sensors), as generate_traffic.py makes them; 0 0 is the baseline.

    python3 carla-host/benches/python/traffic_load.py PORT VEHICLES WALKERS TICKS [SERVER_PID]

Prints `traffic V W: R ticks/s (N ticks in S s, D m driven)`, and with the
server's pid (Linux) the CPU time the server process used per tick in the
timed loop, all its threads. The game loop's own share of each tick is in
carla-host's exit line.
"""
import os
import random
import socket
import sys
import time

import carla

port, n_vehicles, n_walkers, ticks = (int(a) for a in sys.argv[1:5])
server_pid = int(sys.argv[5]) if len(sys.argv) > 5 else None


def server_cpu():
    """CPU seconds the server process used so far (user + system)."""
    if server_pid is None:
        return 0.0
    with open("/proc/%d/stat" % server_pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

random.seed(3)
client = carla.Client("127.0.0.1", port)
client.set_timeout(30.0)
world = client.get_world()
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    tm_port = s.getsockname()[1]
tm = client.get_trafficmanager(tm_port)
tm.set_synchronous_mode(True)
tm.set_random_device_seed(3)
settings = world.get_settings()
settings.synchronous_mode, settings.fixed_delta_seconds = True, 0.05
world.apply_settings(settings)

bl = world.get_blueprint_library()
cars = [b for b in bl.filter("vehicle.*") if b.get_attribute("base_type").as_str() == "car"]
# Spawn points, then more along the lanes, 12 m apart, off junctions.
places = list(world.get_map().get_spawn_points())
if len(places) < n_vehicles:
    lanes = [w for w in world.get_map().generate_waypoints(12.0) if not w.is_junction]
    random.shuffle(lanes)
    for w in lanes:
        t = w.transform
        t.location.z += 0.3
        if all(t.location.distance(p.location) > 8.0 for p in places):
            places.append(t)
        if len(places) >= 2 * n_vehicles:
            break
random.shuffle(places)
Spawn, Autopilot, Future = carla.command.SpawnActor, carla.command.SetAutopilot, carla.command.FutureActor
vehicles = []
for p in places:
    if len(vehicles) >= n_vehicles:
        break
    batch = [Spawn(random.choice(cars), p).then(Autopilot(Future, True, tm_port))]
    vehicles += [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
walkers = []
if n_walkers:
    wbp = bl.filter("walker.pedestrian.*")
    batch = [Spawn(random.choice(wbp), carla.Transform(world.get_random_location_from_navigation()))
             for _ in range(n_walkers)]
    walkers = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
    cbp = bl.find("controller.ai.walker")
    batch = [Spawn(cbp, carla.Transform(), w) for w in walkers]
    controllers = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
    world.tick()
    for c in world.get_actors(controllers):
        c.start()
        c.go_to_location(world.get_random_location_from_navigation())
        c.set_max_speed(1.4)

for _ in range(40):  # warm-up: the TM builds its map and routes
    world.tick()
start_loc = {a.id: a.get_location() for a in world.get_actors(vehicles)}
cpu0, start = server_cpu(), time.perf_counter()
for _ in range(ticks):
    world.tick()
elapsed, cpu = time.perf_counter() - start, server_cpu() - cpu0
driven = sum(a.get_location().distance(start_loc[a.id]) for a in world.get_actors(vehicles))
print("traffic %d %d: %.1f ticks/s (%d ticks in %.2f s, %.0f m driven)"
      % (len(vehicles), len(walkers), ticks / elapsed, ticks, elapsed, driven), flush=True)
if server_pid is not None:
    print("server CPU: %.3f ms per tick" % (cpu * 1000.0 / ticks), flush=True)
tm.shut_down()
settings.synchronous_mode, settings.fixed_delta_seconds = False, None
world.apply_settings(settings)
