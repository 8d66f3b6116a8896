"""Item 6: asynchronous, synchronous and no-rendering modes."""
import time

import carla
from common import end_ok, connect, check, synchronous, asynchronous, stop_sensors

client, world = connect()
# Asynchronous: the world ticks by itself.
s1 = world.wait_for_tick()
s2 = world.wait_for_tick()
check(s2.frame > s1.frame, "asynchronous ticks advance")
check(s2.timestamp.delta_seconds > 0, "a delta")
# Synchronous: nothing moves between ticks; each tick is one fixed delta.
synchronous(world, 0.1)
a = world.get_snapshot()
time.sleep(0.3)
check(world.get_snapshot().frame == a.frame, "no tick without world.tick()")
f = world.tick()
b = world.get_snapshot()
check(f == b.frame and abs(b.timestamp.delta_seconds - 0.1) < 1e-6, "one tick, one fixed delta")
check(abs(b.timestamp.elapsed_seconds - a.timestamp.elapsed_seconds - 0.1) < 1e-4, "elapsed by one delta")
# No rendering: cameras produce nothing, the rest runs.
bl = world.get_blueprint_library()
cam_bp = bl.find("sensor.camera.rgb")
cam_bp.set_attribute("image_size_x", "64")
cam_bp.set_attribute("image_size_y", "48")
cam = world.spawn_actor(cam_bp, carla.Transform(carla.Location(x=60, y=60, z=10)))
gnss = world.spawn_actor(bl.find("sensor.other.gnss"), carla.Transform(carla.Location(x=60, y=60, z=10)))
images, fixes = [], []
cam.listen(lambda i: images.append(i.frame))
gnss.listen(lambda g: fixes.append(g.frame))
# The streams subscribe while the first ticks run (on a busy machine that
# can take a while): tick until both sensors delivered.
for _ in range(200):
    world.tick()
    if images and fixes:
        break
    time.sleep(0.01)
check(images and fixes, "rendering: images and fixes")
synchronous(world, 0.1, no_rendering=True)
world.tick()
mark = world.tick()
for _ in range(10):
    last = world.tick()
for _ in range(500):
    if [f for f in fixes if f >= last]:
        break
    time.sleep(0.01)
check(not [f for f in images if f > mark], "no images in no_rendering_mode")
check([f for f in fixes if f > mark], "gnss still runs in no_rendering_mode")
stop_sensors([cam, gnss])
world.tick()
asynchronous(world)
time.sleep(0.2)
s3 = world.wait_for_tick()
s4 = world.wait_for_tick()
check(s4.frame > s3.frame, "back to asynchronous")
end_ok()
