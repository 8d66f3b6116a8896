"""A CARLA user's script, run with the unmodified `carla` package of each
release from PyPI (0.9.12 ... 0.9.16) against a host built on this library
(tests/rpc/python.rs runs it against a Rust host and a C host, on the RPC
port of the client's release). Every check raises on failure; the last line
is OK.

Usage: python carla_flow.py HOST PORT RELEASE (RELEASE: the wheel's, e.g. 0.9.12)
Protocol with the test: after spawning, prints `SPAWNED <json>` and waits for
one line on stdin (the test subscribes to the safe-distance stream then).
"""
import json
import os
import queue
import subprocess
import sys
import time

import carla

host, port, release = sys.argv[1], int(sys.argv[2]), sys.argv[3]
minor = int(release.split(".")[2])


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def vehicle_bp_color_ok(library):
    """Typed attributes read as their types (numbered per release)."""
    box = library.find("vehicle.test.box")
    color = box.get_attribute("color").as_color()
    return ((color.r, color.g, color.b) == (255, 0, 0)
            and box.get_attribute("number_of_wheels").as_int() == 4
            and box.get_attribute("role_name").as_str() == "autopilot")


client = carla.Client(host, port)
client.set_timeout(10.0)
check(client.get_client_version() == release, "the %s wheel runs" % release)
# The release's own port answers its version (no mismatch warning).
check(client.get_server_version() == release, "server version")
world = client.get_world()

# Blueprints, as a user finds them.
library = world.get_blueprint_library()
ids = [bp.id for bp in library]
for wanted in ("sensor.camera.rgb", "sensor.lidar.ray_cast_semantic",
               "sensor.other.safe_distance", "vehicle.test.box"):
    check(wanted in ids, "blueprint %s listed (%s)" % (wanted, ids))
cam_bp = library.find("sensor.camera.rgb")
check(cam_bp.get_attribute("image_size_x").as_int() == 800, "camera default width")
# Every 0.9.16 sensor the library offers, with 0.9.16's attributes.
# (0.9.12 has no instance segmentation camera: not listed for it.)
check(("sensor.camera.instance_segmentation" in ids) == (minor >= 13),
      "instance segmentation camera listed from 0.9.13 on")
check(("sensor.camera.normals" in ids) == (minor >= 14), "normals camera from 0.9.14 on")
for wanted in ("sensor.camera.depth", "sensor.camera.semantic_segmentation",
               "sensor.lidar.ray_cast",
               "sensor.other.gnss", "sensor.other.imu", "sensor.other.collision",
               "sensor.other.obstacle", "sensor.other.radar", "sensor.other.lane_invasion"):
    check(wanted in ids, "blueprint %s listed" % wanted)
check(cam_bp.get_attribute("lens_k").as_float() == -1.0, "rgb lens_k")
check(cam_bp.get_attribute("exposure_mode").as_str() == "histogram", "rgb exposure_mode")
check(cam_bp.get_attribute("blade_count").as_int() == 5, "rgb blade_count")
check(cam_bp.get_attribute("enable_postprocess_effects").as_bool(), "rgb post-processing")
radar_bp = library.find("sensor.other.radar")
check(radar_bp.get_attribute("range").as_float() == 100.0, "radar range")
check(radar_bp.get_attribute("points_per_second").as_int() == 1500, "radar points")
check(not library.find("sensor.other.obstacle").get_attribute("only_dynamics").as_bool(),
      "obstacle only_dynamics")
# Every blueprint carries CARLA 0.9.16's ROS 2 attributes.
ROS = {"ros_name", "ros_frame_id", "ros_publish_tf"}
gnss_names = {a.id for a in library.find("sensor.other.gnss")} - ROS
check(gnss_names == {"role_name", "sensor_tick", "noise_seed", "noise_lat_stddev",
                     "noise_lat_bias", "noise_lon_stddev", "noise_lon_bias",
                     "noise_alt_stddev", "noise_alt_bias"}, "gnss attributes %s" % gnss_names)
imu_names = {a.id for a in library.find("sensor.other.imu")} - ROS
check(imu_names == {"role_name", "sensor_tick", "noise_seed"}
      | {"noise_accel_stddev_" + c for c in "xyz"}
      | {"noise_gyro_stddev_" + c for c in "xyz"}
      | {"noise_gyro_bias_" + c for c in "xyz"}, "imu attributes %s" % imu_names)
check({a.id for a in library.find("sensor.other.collision")} == {"role_name"} | ROS, "collision")
check(library.find("vehicle.test.box").get_attribute("ros_publish_tf").as_bool(), "ros_publish_tf")
if minor >= 13:
    instance_bp = library.find("sensor.camera.instance_segmentation")
    check(instance_bp.has_attribute("lens_circle_falloff")
          and not instance_bp.has_attribute("gamma"), "instance segmentation camera attributes")
# Attribute types in the release's numbering: each reads as its type.
check(vehicle_bp_color_ok(library), "vehicle colour attribute")
cam_bp.set_attribute("image_size_x", "800")
cam_bp.set_attribute("image_size_y", "600")
lidar_bp = library.find("sensor.lidar.ray_cast_semantic")
lidar_bp.set_attribute("channels", "32")
lidar_bp.set_attribute("points_per_second", "100000")
lidar_bp.set_attribute("range", "50")
sd_bp = library.find("sensor.other.safe_distance")
sd_bp.set_attribute("safe_distance_front", "3.0")
vehicle_bp = library.filter("vehicle.*")[0]
vehicle_bp.set_attribute("role_name", "hero")

try:
    world.spawn_actor(library.find("sensor.camera.depth"), carla.Transform(carla.Location(z=1)))
except RuntimeError as e:  # the host refuses depth cameras: a clear error
    check("refused by the test host" in str(e), "spawn refusal text: %s" % e)
else:
    raise AssertionError("a refused spawn raised nothing")

# Spawn a vehicle with three sensors attached, and a second vehicle.
hero = world.spawn_actor(vehicle_bp, carla.Transform(carla.Location(x=10, y=2, z=0.5), carla.Rotation(yaw=90)))
other = world.spawn_actor(library.find("vehicle.test.box"), carla.Transform(carla.Location(x=10, y=6, z=0.5)))
camera = world.spawn_actor(cam_bp, carla.Transform(carla.Location(x=1.5, z=2.4)), attach_to=hero)
lidar = world.spawn_actor(lidar_bp, carla.Transform(carla.Location(z=2.5)), attach_to=hero)
safe = world.spawn_actor(sd_bp, carla.Transform(), attach_to=hero)
# A stock client would crash on the safe-distance sensor's data: it gets a
# plain actor, without a stream to listen to.
check(not hasattr(safe, "listen"), "the safe-distance sensor is a plain actor to a stock client")
check(hasattr(camera, "listen"), "a camera is a sensor")
check(camera.parent.id == hero.id, "camera parent")
check(camera.type_id == "sensor.camera.rgb", "camera type id")
check(abs(hero.bounding_box.extent.x - 2.0) < 1e-6, "vehicle bounding box %s" % hero.bounding_box)
# Semantic tags in the release's numbering: Car 14 from 0.9.14, Vehicles 10 before.
check(list(hero.semantic_tags) == [14 if minor >= 14 else 10], "tags %s" % list(hero.semantic_tags))
check(hero.attributes.get("role_name") == "hero", "role_name read back")
print("SPAWNED " + json.dumps({"hero": hero.id, "other": other.id, "safe_distance": safe.id}), flush=True)
sys.stdin.readline()

# Synchronous mode, then another fixed delta: apply_settings ticks until the
# snapshots carry the new delta, which must take at most 2 ticks (never the
# client's 30 attempts).
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.1
world.apply_settings(settings)
time.sleep(0.2)  # a free-running state sent before the switch may still arrive
frame_before = world.get_snapshot().frame
settings.fixed_delta_seconds = 0.05
started = time.time()
world.apply_settings(settings)
apply_seconds = time.time() - started
check(world.get_settings().synchronous_mode, "settings read back")
check(abs(world.get_settings().fixed_delta_seconds - 0.05) < 1e-9, "fixed delta read back")
ticks_in_apply = world.get_snapshot().frame - frame_before

images, points = queue.Queue(), queue.Queue()
camera.listen(images.put)
lidar.listen(points.put)
# listen() returns before the stream connection exists (rpc-0.9.md 2.6):
# tick until both streams deliver, then every tick must.
for _ in range(100):
    world.tick()
    if not images.empty() and not points.empty():
        break
check(not images.empty() and not points.empty(), "streams connected")
# Messages of the warm-up ticks may still be on their way: tick once more
# and read each stream up to that frame; from then on nothing is pending.
frame = world.tick()
for q in (images, points):
    while q.get(timeout=10).frame < frame:
        pass

for i in range(100):
    frame = world.tick()
    image = images.get(timeout=10)
    cloud = points.get(timeout=10)
    check(image.frame == frame, "image frame %d == tick %d" % (image.frame, frame))
    check(cloud.frame == frame, "lidar frame %d == tick %d" % (cloud.frame, frame))
    check((image.width, image.height) == (800, 600), "image size")
    raw = image.raw_data
    check(len(raw) == 800 * 600 * 4 and raw[0] == frame % 256, "image pixels")
    check(len(cloud) > 0, "lidar points")
    # The host's rays hit Roads: 1 from 0.9.14, 7 in the old numbering.
    tag = next(iter(cloud)).object_tag
    check(tag == (1 if minor >= 14 else 7), "semantic lidar tag %d" % tag)
    snapshot = world.get_snapshot()
    check(snapshot.frame == frame, "snapshot frame")
    check(abs(snapshot.timestamp.delta_seconds - 0.05) < 1e-6, "snapshot delta")
    for actor in (hero, other, camera, lidar, safe):
        check(snapshot.has_actor(actor.id), "actor %d in snapshot" % actor.id)
    check(snapshot.has_actor(world.get_spectator().id), "spectator in snapshot")
hero_state = world.get_snapshot().find(hero.id)
check(abs(hero_state.get_transform().location.x - 10) < 1e-3, "hero transform")
check(abs(hero_state.get_velocity().y - 1.0) < 1e-3, "hero velocity")
camera_state = world.get_snapshot().find(camera.id)
check(abs(camera_state.get_transform().location.z - 2.9) < 1e-3, "camera follows its parent")
# A sensor of its own moved by hand reports where it was put.
free = world.spawn_actor(library.find("sensor.other.collision"), carla.Transform(carla.Location(z=1)))
free.set_transform(carla.Transform(carla.Location(x=3, y=-4, z=5), carla.Rotation(yaw=30)))
world.tick()
moved = world.get_snapshot().find(free.id).get_transform()
check(abs(moved.location.x - 3) < 1e-3 and abs(moved.location.y + 4) < 1e-3
      and abs(moved.rotation.yaw - 30) < 1e-3, "a moved sensor reports %s" % moved)
check(abs(free.get_transform().location.z - 5) < 1e-3, "a moved sensor's get_transform")
free.destroy()

# A second client at the same time sees the same world.
second = carla.Client(host, port)
second.set_timeout(10.0)
world2 = second.get_world()
check(world2.id == world.id, "same episode")
# Its world stream connects asynchronously; once it has, it follows every tick.
for _ in range(200):
    frame = world.tick()
    time.sleep(0.01)
    if world2.get_snapshot().frame == frame:
        break
check(world2.get_snapshot().frame == frame, "second client's snapshot follows the ticks")
frame = world.tick()
deadline = time.time() + 10
while world2.get_snapshot().frame != frame and time.time() < deadline:
    time.sleep(0.005)
check(world2.get_snapshot().frame == frame, "second client's snapshot of the next tick")
seen = {a.id: a.type_id for a in world2.get_actors()}
check(seen.get(camera.id) == "sensor.camera.rgb", "second client resolves the camera: %s" % seen)
check(seen.get(hero.id) == "vehicle.test.box", "second client resolves the hero")

# A client killed while listening does not disturb the others.
victim = subprocess.Popen([sys.executable, "-c", """
import carla, sys, time
c = carla.Client(sys.argv[1], int(sys.argv[2])); c.set_timeout(10.0)
w = c.get_world()
s = w.spawn_actor(w.get_blueprint_library().find('sensor.camera.rgb'), carla.Transform())
s.listen(lambda image: None)
print('ready', flush=True)
time.sleep(60)
""", host, str(port)], stdout=subprocess.PIPE)
check(victim.stdout.readline().strip() == b"ready", "victim ready")
for _ in range(3):
    world.tick()
victim.kill()
victim.wait()
# Images of the ticks meanwhile may still be on their way: read up to the
# next tick's frame, then every tick must deliver exactly its own.
frame = world.tick()
while images.get(timeout=10).frame < frame:
    pass
for _ in range(3):
    frame = world.tick()
    check(images.get(timeout=10).frame == frame, "camera after the kill")
third = carla.Client(host, port)
third.set_timeout(10.0)
check(third.get_world().get_snapshot().frame >= 0, "a new client after the kill")

# 0.9.14+ ask for a sensor's token before connecting to its stream: the
# tick right after listen() delivers its frame to the new listener (a
# synchronous agent waits for exactly that frame: ScenarioRunner's), and a
# listener that joins after a tick gets the next tick's frame first.
if minor >= 14:
    for _ in range(30):
        extra = world.spawn_actor(cam_bp, carla.Transform(carla.Location(z=3)), attach_to=hero)
        got = queue.Queue()
        extra.listen(got.put)
        frame = world.tick()
        check(got.get(timeout=10).frame == frame, "the tick right after listen() delivers its frame")
        extra.stop()
        extra.destroy()
    extra = world.spawn_actor(cam_bp, carla.Transform(carla.Location(z=3)), attach_to=hero)
    world.tick()
    got = queue.Queue()
    extra.listen(got.put)
    time.sleep(0.3)  # the stream connection is made meanwhile
    frame = world.tick()
    check(got.get(timeout=10).frame == frame, "a listener after a tick starts at the next tick")
    extra.stop()
    extra.destroy()
    while images.get(timeout=10).frame < frame:
        pass

# Destroy; one tick later the actors are gone from the snapshot.
camera.stop()
lidar.stop()
for actor in (camera, lidar, safe, other):
    check(actor.destroy(), "destroy %d" % actor.id)
frame = world.tick()
snapshot = world.get_snapshot()
for actor_id in (camera.id, lidar.id, safe.id, other.id):
    check(not snapshot.has_actor(actor_id), "destroyed actor %d gone" % actor_id)
check(snapshot.has_actor(hero.id), "hero still there")

settings.synchronous_mode = False
settings.fixed_delta_seconds = None
world.apply_settings(settings)
world.wait_for_tick(10.0)
check(hero.destroy(), "destroy hero")
print("RESULT " + json.dumps({"ticks_in_apply_settings": ticks_in_apply,
                              "apply_settings_seconds": apply_seconds}), flush=True)
print("OK", flush=True)
# Out at once: the client's objects torn down in the interpreter's exit
# while its stream threads still release stopped sensors' callbacks can
# abort it after OK ("terminate called without an active exception";
# docs/compatibility.md, "Known client-side failures"; once in a full
# test run with the 0.9.15 client).
sys.stderr.flush()
os._exit(0)
