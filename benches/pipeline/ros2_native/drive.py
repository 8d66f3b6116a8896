"""Drives carla-host for the native DDS readers (run.sh): a hero car
(ros_name "hero") with N cameras of W x H enabled for ROS 2
(rt/carla/hero/cam<i>/image), ticked synchronously for S seconds at most
HZ ticks a second (0: as fast as it goes).

    drive.py PORT N W H S HZ
"""
import sys, time, carla
port, n, w, h, secs, hz = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
c = carla.Client("127.0.0.1", port); c.set_timeout(30); world = c.get_world()
s = world.get_settings(); s.synchronous_mode = True; s.fixed_delta_seconds = 0.05; world.apply_settings(s)
bl = world.get_blueprint_library()
car_bp = bl.find("vehicle.audi.tt"); car_bp.set_attribute("role_name", "hero"); car_bp.set_attribute("ros_name", "hero")
car = world.spawn_actor(car_bp, world.get_map().get_spawn_points()[0])
cams = []
for i in range(n):
    bp = bl.find("sensor.camera.rgb")
    bp.set_attribute("image_size_x", str(w)); bp.set_attribute("image_size_y", str(h))
    bp.set_attribute("ros_name", "cam%d" % i)
    cam = world.spawn_actor(bp, carla.Transform(carla.Location(x=1.5, z=1.6), carla.Rotation(yaw=90 * i)), attach_to=car)
    cam.enable_for_ros()
    cams.append(cam)
world.tick()
time.sleep(3)  # discovery
print("ticking", flush=True)
t0 = time.time(); ticks = 0
while time.time() - t0 < secs:
    world.tick(); ticks += 1
    if hz > 0:
        wait = t0 + ticks / hz - time.time()
        if wait > 0: time.sleep(wait)
dt = time.time() - t0
print("ticks %d in %.1f s: %.1f ticks/s" % (ticks, dt, ticks / dt), flush=True)
for x in cams: x.destroy()
car.destroy(); world.tick()
import os; os._exit(0)
