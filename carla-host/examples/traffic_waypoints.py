"""Spawns traffic at the map's spawn points and drives one car along the
map's waypoints (a simple pursuit of the waypoint 6 m ahead).

    python3 carla-host/examples/traffic_waypoints.py [--port 2000] [--vehicles 20] [--ticks 400]
"""
import argparse
import math

import carla

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=2000)
parser.add_argument("--vehicles", type=int, default=20)
parser.add_argument("--ticks", type=int, default=400)
args = parser.parse_args()

client = carla.Client("127.0.0.1", args.port)
client.set_timeout(10.0)
world = client.get_world()
m = world.get_map()
bl = world.get_blueprint_library()
original = world.get_settings()
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
points = m.get_spawn_points()
batch = [carla.command.SpawnActor(bl.filter("vehicle.*")[i % 5], p)
         for i, p in enumerate(points[1:args.vehicles + 1])]
traffic = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
car = world.spawn_actor(bl.find("vehicle.lincoln.mkz_2020"), points[0])
print("spawned %d vehicles and the followed car %d" % (len(traffic), car.id), flush=True)
try:
    start = car.get_location()
    travelled, last = 0.0, start
    for _ in range(args.ticks):
        t = car.get_transform()
        wp = m.get_waypoint(t.location)
        target = wp.next(6.0)[0].transform.location
        heading = math.atan2(target.y - t.location.y, target.x - t.location.x)
        err = (math.degrees(heading) - t.rotation.yaw + 180.0) % 360.0 - 180.0
        speed = car.get_velocity().length()
        car.apply_control(carla.VehicleControl(
            throttle=0.5 if speed < 8.0 else 0.0, steer=max(-1.0, min(1.0, err / 30.0))))
        world.tick()
        loc = car.get_location()
        travelled += loc.distance(last)
        last = loc
    lane = m.get_waypoint(last)
    print("travelled %.1f m; now on road %d lane %d, %.2f m from the lane centre"
          % (travelled, lane.road_id, lane.lane_id, lane.transform.location.distance(last)), flush=True)
finally:
    client.apply_batch_sync([carla.command.DestroyActor(i) for i in traffic] + [carla.command.DestroyActor(car.id)], True)
    world.apply_settings(original)
