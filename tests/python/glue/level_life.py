"""The unmodified carla 0.9.16 client against the Unreal glue (SimGame's rpc
scenario, port in argv[1], after spawn_sensors.py): what a real engine does
to the level while clients watch.

- A fixed step the engine cannot simulate (0.5 s > 0.01 s x 10 substeps) is
  refused with a clear error; at 0.1 s the physics simulates the whole step
  (Unreal clamps it to MaxPhysicsDeltaTime, 1/30 s, unless the glue lifts it).
- The lidar sees the walker (a stock Pawn profile, which ignores Visibility).
- A car game code spawns after BeginPlay gets an id and a tag.
- A level car game code destroys, then garbage collection frees, leaves the
  clients' lists and the lidar, and the engine goes on.
- Maps: the level is the one map clients may load; another map and a world
  from OpenDRIVE text are refused with clear errors."""
import queue
import sys
import time

import carla
from glue_checks import check, expected, same_pixels, take, tick_until

HERO_ID, WALKER_ID, PARKED_ID, LATE_ID = 10000, 10002, 10003, 10004
CAR_TAG, PEDESTRIAN_TAG = 14, 12


client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.get_world()
walker = world.get_actor(WALKER_ID)
check(walker is not None and walker.type_id == "walker.pedestrian.unreal", "the level's walker is listed: %s" % walker)
check(world.get_actor(PARKED_ID) is not None, "the parked car is listed")

s = world.get_settings()
s.synchronous_mode = True
s.fixed_delta_seconds = 0.5
try:
    world.apply_settings(s)
    check(False, "a 0.5 s step with 10 substeps of 0.01 s was accepted")
except RuntimeError as e:
    check("cannot simulate" in str(e), "the refusal says why: %s" % e)
s.fixed_delta_seconds = 0.1
world.apply_settings(s)
check(abs(world.get_settings().fixed_delta_seconds - 0.1) < 1e-9, "the 0.1 s step is in force")

hero = world.get_actor(HERO_ID)
bp = world.get_blueprint_library().find("sensor.lidar.ray_cast_semantic")
for k, v in dict(channels=32, range=100, points_per_second=200000, rotation_frequency=10,
                 upper_fov=10, lower_fov=-30).items():
    bp.set_attribute(k, str(v))
# Placed in the level, between the walker (5, -45), the parked car (-20,
# -45) and where game code spawns a car (20, -10): not on the hero, which
# still has the first script's full throttle and, on a busy machine (more
# ticks while streams connect), had driven out of their sight.
lidar = world.spawn_actor(bp, carla.Transform(carla.Location(x=0.0, y=-20.0, z=1.0)))
scans = queue.Queue()
lidar.listen(scans.put)


def scan_after(frame):
    while True:
        m = take(scans, "the lidar, up to frame %d" % frame)
        if m.frame >= frame:
            return {(d.object_idx, d.object_tag) for d in m}


tick_until(world, lambda: not scans.empty(), "the lidar's first scan")
seen = scan_after(world.tick())
check((WALKER_ID, PEDESTRIAN_TAG) in seen, "the lidar sees the walker: %s" % sorted(seen))
check((PARKED_ID, CAR_TAG) in seen, "the lidar sees the parked car: %s" % sorted(seen))

# Physics simulates the whole 0.1 s step: 10 m/s is 1 m per tick (positions
# from the snapshots of known frames).
def hero_x(frame):
    for _ in range(500):
        snap = world.get_snapshot()
        if snap.frame >= frame:
            return snap.find(HERO_ID).get_transform().location.x, snap.frame
        time.sleep(0.01)
    check(False, "no snapshot of frame %d" % frame)


# The hero still has the first script's full throttle; this client caches
# a vehicle's last control and sends only a change: brake, then release.
hero.apply_control(carla.VehicleControl(brake=1.0))
world.tick()
hero.apply_control(carla.VehicleControl())
world.tick()
hero.set_target_velocity(carla.Vector3D(10.0, 0.0, 0.0))
x0, f0 = hero_x(world.tick())
for _ in range(4):
    world.tick()
x1, f1 = hero_x(world.tick())
speed = (x1 - x0) / ((f1 - f0) * 0.1)
check(abs(speed - 10.0) < 0.1, "10 m/s over frames %d..%d of 0.1 s: %.3f m/s (1/30 s of physics a tick gives 3.333)" % (f0, f1, speed))
hero.set_target_velocity(carla.Vector3D(0.0, 0.0, 0.0))
world.tick()

# Game code spawns a car (the 30th 0.1 s step), destroys the parked one
# (the 60th) and collects garbage (the 61st).
late_seen = parked_gone = False
for _ in range(120):
    frame = world.tick()
    ids = {a.id for a in world.get_actors()}
    if not late_seen and LATE_ID in ids:
        late_seen = True
        late = world.get_actor(LATE_ID)
        check(late.type_id == "vehicle.unreal.vehicle", "the late car is a vehicle: %s" % late.type_id)
        seen = scan_after(world.tick())
        check((LATE_ID, CAR_TAG) in seen, "the lidar sees the late car with its id and tag: %s" % sorted(seen))
    if late_seen and PARKED_ID not in ids:
        parked_gone = True
        break
check(late_seen, "the car spawned after BeginPlay was never listed")
check(parked_gone, "the destroyed car is still listed")
for _ in range(5):
    seen = scan_after(world.tick())
    check(all(i != PARKED_ID for i, _ in seen), "the lidar hit the destroyed car: %s" % sorted(seen))
snap = world.get_snapshot()
check(snap.find(PARKED_ID) is None, "the destroyed car is in the snapshot of frame %d" % snap.frame)
check(snap.find(LATE_ID) is not None, "the late car is in the snapshot")

lidar.stop()
check(lidar.destroy(), "destroy the lidar")
s.synchronous_mode = False
s.fixed_delta_seconds = None
world.apply_settings(s)

# Asynchronous frames: the engine does not wait for the GPU; an image is
# handed over when its copy is ready, a frame or more later, and carries
# the frame it shows.
bp = world.get_blueprint_library().find("sensor.camera.rgb")
bp.set_attribute("image_size_x", "64")
bp.set_attribute("image_size_y", "48")
camera = world.spawn_actor(bp, carla.Transform(carla.Location(x=2.3, z=0.5)), attach_to=hero)
images = queue.Queue()
camera.listen(images.put)
frames = []
for _ in range(5):
    img = take(images, "an image in asynchronous mode (%d so far)" % len(frames), seconds=20.0)
    same_pixels("the asynchronous image of frame %d" % img.frame, bytes(img.raw_data), expected(64, 48, img.frame, 0))
    frames.append(img.frame)
check(all(a < b for a, b in zip(frames, frames[1:])), "asynchronous frames in order: %s" % frames)
# Nobody listens for a while, then someone does again: what the camera
# copied before is not handed over late; the first image is a new one.
camera.stop()
time.sleep(0.5)
quiet = world.get_snapshot().frame
images = queue.Queue()
camera.listen(images.put)
img = take(images, "an image after listening again", seconds=20.0)
check(img.frame > quiet, "listening again from frame %d, the first image is of frame %d" % (quiet, img.frame))
same_pixels("the image of frame %d" % img.frame, bytes(img.raw_data), expected(64, 48, img.frame, 0))
camera.stop()
check(camera.destroy(), "destroy the camera")

# Maps: one level, and no world built from OpenDRIVE text.
maps = client.get_available_maps()
check(maps == ["/Game/Carla/Maps/SimTown"], "the one level: %s" % maps)
try:
    client.load_world("Town01")
    check(False, "loading another map raised nothing")
except RuntimeError as e:
    check("Town01" in str(e) and "SimTown" in str(e), "another map is refused by name: %s" % e)
try:
    client.generate_opendrive_world("<OpenDRIVE><header/></OpenDRIVE>")
    check(False, "a world from OpenDRIVE text raised nothing")
except RuntimeError as e:
    check("this engine cannot build a world from OpenDRIVE text" in str(e), "OpenDRIVE: %s" % e)
check(world.get_snapshot().frame > 0, "the engine goes on")
print("OK", flush=True)
