"""The Traffic Manager drives 30 cars on the demo world's physics without
leaving the road: 1000 synchronous ticks of 0.05 s, then 50 of 3 s (as
CARLA's lidar_to_camera.py ticks). A car counts as off the road on a
tick where the map has no driving lane under it. Prints the figures and
OK.

Usage: python tm_on_road.py PORT"""

import carla
from common import end_ok, connect, check, free_port, synchronous

client, world = connect()
synchronous(world, 0.05)
tm_port = free_port()  # this test's own Traffic Manager
tm = client.get_trafficmanager(tm_port)
tm.set_synchronous_mode(True)
tm.set_random_device_seed(7)
m = world.get_map()
bl = world.get_blueprint_library()
four = [b for b in bl.filter("vehicle.*") if int(b.get_attribute("number_of_wheels")) == 4]
cars = []
for i, p in enumerate(m.get_spawn_points()):
    if len(cars) == 30:
        break
    car = world.try_spawn_actor(four[i % len(four)], p)
    if car is not None:
        cars.append(car)
check(len(cars) >= 25, "30 cars spawned: %d" % len(cars))
world.tick()
for car in cars:
    car.set_autopilot(True, tm.get_port())


def drive(ticks):
    off = {}
    moved = {c.id: c.get_location() for c in cars}
    for _ in range(ticks):
        world.tick()
        for c in cars:
            if m.get_waypoint(c.get_location(), project_to_road=False) is None:
                off[c.id] = off.get(c.id, 0) + 1
    far = sum(moved[c.id].distance(c.get_location()) > 10.0 for c in cars)
    return off, far


short_off, short_far = drive(1000)
settings = world.get_settings()
settings.fixed_delta_seconds = 3.0
world.apply_settings(settings)
long_off, long_far = drive(50)
print("%d cars: 1000 ticks of 0.05 s: %d moved over 10 m, off the road %s; "
      "50 ticks of 3 s: %d moved, off the road %s" % (len(cars), short_far, short_off, long_far, long_off))
check(short_far >= len(cars) // 2, "cars drive at 0.05 s: %d of %d" % (short_far, len(cars)))
check(long_far >= len(cars) // 2, "cars drive at 3 s: %d of %d" % (long_far, len(cars)))
check(not short_off, "off the road at 0.05 s: %s" % short_off)
check(not long_off, "off the road at 3 s: %s" % long_off)
for c in cars:
    c.set_autopilot(False, tm.get_port())
synchronous(world, 0.05)
world.tick()
end_ok()
