"""The world-state ROS 2 topics read by a native DDS reader (Eclipse
Cyclone DDS in C, tests/native_dds/topics_reader.c; town_09.rs builds it
and runs this script): a hero car with a camera, other vehicles and a
walker, ticked by the unmodified client. The reader joins after
publishing has begun and must decode, with the values the client reads:
the hero's odometry (frame map, child hero, its pose in ROS's axes) and
vehicle_status; its vehicle_info (id, blueprint, role, wheels, mass,
wheel radius and steer angle in SI units; latched); /carla/objects (every
vehicle and walker, class and box); /carla/map (the OpenDRIVE text;
latched); the traffic lights' status and info (ids, trigger volumes;
latched); and /tf's REP-105 chain map -> odom -> base_link -> hero -> rgb.

Usage: python ros2_native.py PORT DOMAIN READER. Prints OK.
"""
import math
import subprocess
import sys

import carla
from common import asynchronous, check, connect, ros_hero, synchronous

port, domain, reader = int(sys.argv[1]), sys.argv[2], sys.argv[3]


client, world = connect()
library = world.get_blueprint_library()
points = world.get_map().get_spawn_points()
synchronous(world)
hero, camera = ros_hero(world, 0, (64, 48), carla.Transform(carla.Location(x=1.0, z=1.5)))
others = [world.spawn_actor(library.find(b), p)
          for b, p in [("vehicle.carlamotors.carlacola", points[3]), ("vehicle.yamaha.yzf", points[5])]]
walker = world.spawn_actor(library.filter("walker.pedestrian.*")[0],
                           carla.Transform(points[7].location + carla.Location(z=1.0)))
for _ in range(5):
    world.tick()

# The reader joins now, after the latched topics were written.
proc = subprocess.Popen([reader, "6", domain, "hero"], stdout=subprocess.PIPE, text=True)
while proc.poll() is None:
    world.tick()
out = proc.communicate()[0]
print(out, flush=True)
check(proc.returncode == 0, "the reader exited with %s" % proc.returncode)
lines = {}
pairs = set()
for line in out.splitlines():
    words = line.split()
    if words[0] == "tf":
        pairs.add((words[1], words[2]))
    else:
        lines[words[0]] = (int(words[1]), words[2:])

# Odometry and status: many, the hero's pose (y negated into ROS's axes).
n, v = lines["odometry"]
check(n >= 10, "odometry samples: %d" % n)
loc = hero.get_transform().location
check(v[:2] == ["map", "hero"], "odometry frames: %s" % v[:2])
x, y, z = map(float, v[2:5])
check(abs(x - loc.x) < 0.2 and abs(y + loc.y) < 0.2 and abs(z - loc.z) < 0.2,
      "odometry at %s, the hero at %s" % ((x, y, z), loc))
check(lines["vehicle_status"][0] >= 10, "vehicle_status samples: %d" % lines["vehicle_status"][0])

# vehicle_info: latched, the physics control in SI units.
n, v = lines["vehicle_info"]
pc = hero.get_physics_control()
check(n >= 1, "vehicle_info reached a late reader")
check(int(v[0]) == hero.id and v[1] == hero.type_id and v[2] == "hero", "vehicle_info: %s" % v)
check(int(v[3]) == len(pc.wheels), "wheels: %s of %d" % (v[3], len(pc.wheels)))
check(abs(float(v[4]) - pc.mass) < 1.0, "mass %s, the client's %.1f" % (v[4], pc.mass))
check(abs(float(v[5]) - pc.wheels[0].radius / 100.0) < 0.01, "wheel radius %s m" % v[5])
check(abs(float(v[6]) - math.radians(pc.wheels[0].max_steer_angle)) < 0.01, "max steer %s rad" % v[6])

# Objects: every vehicle and walker, class by type, box sizes.
n, v = lines["objects"]
check(n >= 10, "objects samples: %d" % n)
seen = {int(o.split(":")[0]): o.split(":")[1:] for o in v[1:]}
actors = list(world.get_actors().filter("vehicle.*")) + list(world.get_actors().filter("walker.pedestrian.*"))
check(set(seen) == {a.id for a in actors}, "objects %s, actors %s" % (sorted(seen), sorted(a.id for a in actors)))
classes = {"car": 6, "van": 6, "truck": 7, "bus": 7, "motorcycle": 8, "bicycle": 5}
for a in [hero, walker] + others:
    want = 4 if a.type_id.startswith("walker.") else classes.get(a.attributes.get("base_type", ""), 9)
    got = seen[a.id]
    check(int(got[0]) == want, "%s classified %s, not %d" % (a.type_id, got[0], want))
    e = a.bounding_box.extent
    check(all(abs(float(s) - 2 * x) < 0.02 for s, x in zip(got[1:], (e.x, e.y, e.z))),
          "%s box %s, extent %s" % (a.type_id, got[1:], e))

# The map: latched, the OpenDRIVE text.
n, v = lines["map"]
check(n >= 1 and int(v[0]) == len(world.get_map().to_opendrive().encode()), "map: %s" % v)

# Traffic lights: latched status and info, every light, trigger volumes.
lights = {l.id: l for l in world.get_actors().filter("traffic.traffic_light")}
check(len(lights) > 0, "the town has traffic lights")
n, v = lines["lights_status"]
check(n >= 1 and {int(s.split(":")[0]) for s in v[1:]} == set(lights), "lights status: %s" % v[:4])
n, v = lines["lights_info"]
check(n >= 1 and int(v[0]) == len(lights), "lights info: %s" % v[:2])
for s in v[1:]:
    f = s.split(":")
    tv = lights[int(f[0])].trigger_volume
    got, want = list(map(float, f[1:])), [tv.location.x, -tv.location.y, tv.location.z,
                                          2 * tv.extent.x, 2 * tv.extent.y, 2 * tv.extent.z]
    check(all(abs(a - b) < 0.02 for a, b in zip(got, want)), "light %s: %s, not %s" % (f[0], got, want))

# REP-105 on /tf, down to the camera's frame.
for pair in [("map", "odom"), ("odom", "base_link"), ("base_link", "hero"), ("hero", "rgb")]:
    check(pair in pairs, "/tf has no %s -> %s (it has %s)" % (pair[0], pair[1], sorted(pairs)))

asynchronous(world)
for a in [camera, walker] + others + [hero]:
    a.destroy()
print("OK", flush=True)
