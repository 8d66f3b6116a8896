"""Item 5: sensors computed from the world."""
import math
import time
import struct

import carla
from common import end_ok, connect, check, synchronous, asynchronous, stop_sensors, car_and_parked_car

client, world = connect()
synchronous(world, 0.05)
bl = world.get_blueprint_library()
m = world.get_map()
# Our car on a spawn point, a parked car 15 m ahead in the same lane.
car, parked = car_and_parked_car(world, 15.0)
world.tick()

data = {}
def attach(bp_id, loc=carla.Location(x=0.0, z=1.0), **attrs):
    bp = bl.find(bp_id)
    for k, v in attrs.items():
        bp.set_attribute(k, str(v))
    s = world.spawn_actor(bp, carla.Transform(loc), attach_to=car)
    data[bp_id] = []
    s.listen(lambda d, k=bp_id: data[k].append(d))
    return s

sensors = [
    attach("sensor.camera.rgb", image_size_x=200, image_size_y=150),
    attach("sensor.camera.depth", image_size_x=200, image_size_y=150),
    attach("sensor.camera.semantic_segmentation", image_size_x=200, image_size_y=150),
    attach("sensor.camera.instance_segmentation", image_size_x=200, image_size_y=150),
    attach("sensor.lidar.ray_cast_semantic", range=50, points_per_second=100000),
    attach("sensor.lidar.ray_cast", range=50),
    attach("sensor.other.gnss"),
    attach("sensor.other.imu"),
    attach("sensor.other.obstacle", distance=30, only_dynamics=True),
    attach("sensor.other.radar", range=50),
    attach("sensor.other.collision"),
]
# The streams subscribe while the first ticks run (on a busy machine that
# can take a few): data sent before is discarded. Tick until every sensor
# delivered once.
for _ in range(200):
    world.tick()
    if all(v for k, v in data.items() if k != "sensor.other.collision"):
        break
    time.sleep(0.01)
frame = world.tick()
# In synchronous mode the data of `frame` went out before the tick's
# answer; the client's stream threads may still be delivering it.
for _ in range(1000):
    if all(any(i.frame == frame for i in v) for k, v in data.items() if k != "sensor.other.collision"):
        break
    time.sleep(0.01)
d = [i for i in data["sensor.camera.depth"] if i.frame == frame]
check(d, "a depth image of frame %d (got %s)" % (frame, [i.frame for i in data["sensor.camera.depth"]]))
img = d[0]
px = img.raw_data[(img.height // 2 * img.width + img.width // 2) * 4:][:4]
depth = (px[2] + px[1] * 256 + px[0] * 65536) / (256 ** 3 - 1) * 1000.0
loc, other = car.get_location(), parked.get_location()
gap = loc.distance(other) - parked.bounding_box.extent.x
# The centre ray, 1 m up, meets the parked car between its rear bumper and
# its middle (over the boot: its rear window).
check(gap - 0.5 < depth < gap + parked.bounding_box.extent.x,
      "depth of the parked car %.2f m, its rear at %.2f" % (depth, gap))
for key in ("sensor.camera.rgb", "sensor.camera.semantic_segmentation", "sensor.camera.instance_segmentation"):
    check(any(i.frame == frame for i in data[key]), "%s image of frame %d" % (key, frame))
sem = [i for i in data["sensor.camera.semantic_segmentation"] if i.frame == frame][0]
tags = {sem.raw_data[i * 4 + 2] for i in range(sem.width * sem.height)}
check(14 in tags and 1 in tags, "0.9.16 tags: car 14 and road 1 in %s" % sorted(tags))
check(tags <= set(range(29)), "tags within 0.9.16's table: %s" % sorted(tags))
inst = [i for i in data["sensor.camera.instance_segmentation"] if i.frame == frame][0]
c = (inst.height // 2 * inst.width + inst.width // 2) * 4
ident = inst.raw_data[c + 1] + inst.raw_data[c] * 256
check(inst.raw_data[c + 2] == 14 and ident == parked.id % 65536,
      "instance pixel: tag %d id %d, expected 14 / %d" % (inst.raw_data[c + 2], ident, parked.id))
lidar = data["sensor.lidar.ray_cast_semantic"][-1]
ltags = {p.object_tag for p in lidar}
check(1 in ltags and 14 in ltags, "semantic lidar tags %s" % sorted(ltags))
check(any(p.object_idx == parked.id for p in lidar), "lidar sees the parked car's id")
check(len(data["sensor.lidar.ray_cast"][-1]) > 0, "lidar points")
g = data["sensor.other.gnss"][-1]
check(abs(g.latitude - 49.0) < 0.1 and abs(g.longitude - 8.0) < 0.1, "gnss near the geo reference: %s" % g)
imu = data["sensor.other.imu"][-1]
check(abs(imu.accelerometer.z - 9.81) < 0.5, "imu at rest reads g: %s" % imu.accelerometer)
obs = data["sensor.other.obstacle"]
check(obs and obs[-1].other_actor.id == parked.id, "obstacle event for the parked car")
check(abs(obs[-1].distance - (gap + 0.0)) < 2.0, "obstacle distance %.2f ~ %.2f" % (obs[-1].distance, gap))
radar = data["sensor.other.radar"][-1]
check(any(abs(r.depth - gap) < 1.0 for r in radar), "radar detects the parked car at %.1f m" % gap)
# Drive into it: a collision with the parked car.
car.apply_control(carla.VehicleControl(throttle=1.0))
for _ in range(60):
    world.tick()
    if data["sensor.other.collision"]:
        break
world.tick()
hits = data["sensor.other.collision"]
check(hits and hits[0].other_actor.id == parked.id, "collision with the parked car")
check(hits[0].actor.id == car.id, "the event's actor is the car that collided (as CARLA's)")
check(hits[0].normal_impulse.length() > 0, "collision impulse")
radar = data["sensor.other.radar"]
stop_sensors(sensors)
car.destroy()
parked.destroy()
world.tick()
asynchronous(world)
end_ok()
