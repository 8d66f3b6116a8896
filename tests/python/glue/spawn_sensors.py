"""The unmodified carla 0.9.16 client against the Unreal glue (SimGame's rpc
scenario, port in argv[1]): it finds the level's cars, spawns an RGB camera,
a depth camera and a semantic lidar on the hero through the glue, ticks in
synchronous mode and checks every image against the stand-in's rendering
(byte c of pixel (x, y) at frame f with material salt s is
(7x + 13y + 61c + 29f + 101s) mod 256) and every lidar detection's actor id
and tag; drives the hero; destroys the sensors; is refused a sensor the
glue does not produce."""
import queue
import sys

import carla
from glue_checks import check, expected, same_pixels, take, tick_until

PLAYER_ID, ONCOMING_ID = 10000, 10001
CAR_TAG = 14  # CARLA 0.9.16: Car


client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.get_world()
actors = world.get_actors()
hero = [a for a in actors if a.attributes.get("role_name") == "hero"]
check(len(hero) == 1, "one hero: %s" % [(a.id, a.type_id) for a in actors])
hero = hero[0]
check(hero.id == PLAYER_ID and hero.type_id == "vehicle.unreal.vehicle", "the hero %d %s" % (hero.id, hero.type_id))
check(world.get_actor(ONCOMING_ID) is not None, "the oncoming car is listed")

s = world.get_settings()
s.synchronous_mode = True
s.fixed_delta_seconds = 0.05
world.apply_settings(s)

bl = world.get_blueprint_library()
q = {}


def attach(bp_id, loc, **attrs):
    bp = bl.find(bp_id)
    for k, v in attrs.items():
        bp.set_attribute(k, str(v))
    sensor = world.spawn_actor(bp, carla.Transform(loc), attach_to=hero)
    q[bp_id] = queue.Queue()
    sensor.listen(q[bp_id].put)
    return sensor


rgb = attach("sensor.camera.rgb", carla.Location(x=2.3, z=0.5), image_size_x=64, image_size_y=48)
depth = attach("sensor.camera.depth", carla.Location(x=2.3, z=0.5), image_size_x=32, image_size_y=24, fov=110)
lidar = attach("sensor.lidar.ray_cast_semantic", carla.Location(z=1.0), channels=8, range=40,
               points_per_second=16000, rotation_frequency=20, upper_fov=5, lower_fov=-25)
check(rgb.parent is not None and rgb.parent.id == hero.id, "the camera's parent is the hero")

# listen() returns before the stream connections exist, and the glue's
# sensors skip capture while nobody listens (IsWanted): tick until every
# stream delivers, then read each up to one more tick's frame; from then on
# every tick must deliver on every stream.
connect_ticks = tick_until(world, lambda: all(not each.empty() for each in q.values()), "a message on every stream")
warm = world.tick()
for each in q.values():
    while take(each, "a stream, up to frame %d" % warm).frame < warm:
        pass

car_hits = 0
for i in range(10):
    frame = world.tick()
    img = take(q["sensor.camera.rgb"], "sensor.camera.rgb")
    check(img.frame == frame, "rgb frame %d, tick %d" % (img.frame, frame))
    check((img.width, img.height) == (64, 48), "rgb size")
    same_pixels("rgb pixels at frame %d" % frame, bytes(img.raw_data), expected(64, 48, frame, 0))
    d = take(q["sensor.camera.depth"], "sensor.camera.depth")
    check(d.frame == frame and (d.width, d.height) == (32, 24) and abs(d.fov - 110) < 1e-3, "depth frame/size/fov")
    same_pixels("depth pixels (its material) at frame %d" % frame, bytes(d.raw_data), expected(32, 24, frame, 1))
    m = take(q["sensor.lidar.ray_cast_semantic"], "sensor.lidar.ray_cast_semantic")
    check(m.frame == frame, "lidar frame")
    for det in m:
        if det.object_idx != 0:
            check(det.object_idx == ONCOMING_ID and det.object_tag == CAR_TAG,
                  "a lidar hit on an actor is the oncoming car: %d/%d" % (det.object_idx, det.object_tag))
            car_hits += 1
check(car_hits > 0, "the lidar saw the oncoming car")

# sensor_tick 0.25 s at 0.05 s per tick: an image every fifth tick.
fast_queue = q["sensor.camera.rgb"]
slow = attach("sensor.camera.rgb", carla.Location(x=2.3, z=0.5), image_size_x=16, image_size_y=12, sensor_tick=0.25)
slow_queue, q["sensor.camera.rgb"] = q["sensor.camera.rgb"], fast_queue
tick_until(world, lambda: not slow_queue.empty(), "the sensor_tick camera's first image")
for _ in range(40):
    world.tick()
slow_frames = []
while True:
    try:
        slow_frames.append(slow_queue.get(timeout=2).frame)
    except queue.Empty:
        break
gaps = [b - a for a, b in zip(slow_frames, slow_frames[1:])]
check(len(slow_frames) >= 8 and set(gaps) == {5}, "sensor_tick 0.25: frames %r" % slow_frames)
slow.stop()
check(slow.destroy(), "destroy the slow camera")

x0 = hero.get_location().x
hero.apply_control(carla.VehicleControl(throttle=1.0))
for i in range(10):
    world.tick()
x1 = hero.get_location().x
check(x1 - x0 > 0.5, "the hero drove forward: %.3f -> %.3f" % (x0, x1))
check(abs(hero.get_control().throttle - 1.0) < 1e-6, "the applied control is reported")

try:
    world.spawn_actor(bl.find("sensor.other.gnss"), carla.Transform(), attach_to=hero)
    check(False, "a GNSS through the glue")
except RuntimeError as e:
    check("does not produce" in str(e), "the refusal names why: %s" % e)

for sensor in (rgb, depth, lidar):
    sensor.stop()
    check(sensor.destroy(), "destroy")
world.tick()
left = [a.id for a in world.get_actors().filter("sensor.*")]
check(left == [], "no sensors left: %s" % left)
try:
    destroyed = hero.destroy()
except RuntimeError:
    destroyed = False
check(not destroyed and world.get_actor(PLAYER_ID) is not None, "the level's car cannot be destroyed by a client")
s.synchronous_mode = False
s.fixed_delta_seconds = None
world.apply_settings(s)
print("OK: the streams delivered after %d ticks" % connect_ticks, flush=True)
