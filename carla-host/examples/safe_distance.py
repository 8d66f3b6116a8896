"""The "add a new sensor" tutorial's safe-distance sensor in the town.

Spawns a car with `sensor.other.safe_distance` attached and another car
right behind it, then ticks. The stock carla 0.9.16 client cannot decode
this sensor (listen() on it would crash the client), so this script does
not listen: it prints the sensor's actor id; run, in another terminal,

    cargo run --example safe_distance_ids -- 2000 <that id>

to see the ids of the vehicles inside its box.

    python3 carla-host/examples/safe_distance.py [--port 2000] [--ticks 200]
"""
import argparse
import time

import carla

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=2000)
parser.add_argument("--ticks", type=int, default=200)
args = parser.parse_args()

client = carla.Client("127.0.0.1", args.port)
client.set_timeout(10.0)
world = client.get_world()
bl = world.get_blueprint_library()
m = world.get_map()
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
actors = []
try:
    for p in m.get_spawn_points():
        car = world.try_spawn_actor(bl.find("vehicle.tesla.model3"), p)
        if car is None:
            continue
        behind = m.get_waypoint(p.location).previous(6.0)[0].transform
        behind.location.z = 0.5
        other = world.try_spawn_actor(bl.find("vehicle.audi.a2"), behind)
        if other is None:
            car.destroy()
            continue
        actors += [car, other]
        break
    sensor_bp = bl.find("sensor.other.safe_distance")
    sensor_bp.set_attribute("safe_distance_back", "5.0")
    sensor = world.spawn_actor(sensor_bp, carla.Transform(), attach_to=actors[0])
    actors.append(sensor)
    world.tick()
    print("safe-distance sensor: actor %d on car %d; car %d is %.1f m behind" % (
        sensor.id, actors[0].id, actors[1].id, actors[0].get_location().distance(actors[1].get_location())),
        flush=True)
    for _ in range(args.ticks):
        world.tick()
        time.sleep(0.05)  # real time, so another program can follow along
finally:
    for a in reversed(actors):
        a.destroy()
    settings.synchronous_mode = False
    settings.fixed_delta_seconds = None
    world.apply_settings(settings)
