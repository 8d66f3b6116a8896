"""Ticks per second of a synchronous loop against the demo world, the
client's own decoding included: with no sensors, or with an 800x600 RGB
camera and a 32-channel semantic lidar at 100 000 points/s on a car.

    python3 carla-host/benches/python/sync_loop.py PORT none|camera_lidar TICKS
"""
import queue
import sys
import time

import carla

port, workload, ticks = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
client = carla.Client("127.0.0.1", port)
client.set_timeout(20.0)
world = client.get_world()
s = world.get_settings()
s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
world.apply_settings(s)
bl = world.get_blueprint_library()
queues = []
if workload == "camera_lidar":
    car = world.spawn_actor(bl.find("vehicle.tesla.model3"), world.get_map().get_spawn_points()[0])
    cam = world.spawn_actor(bl.find("sensor.camera.rgb"), carla.Transform(carla.Location(x=1.5, z=2.4)), attach_to=car)
    lb = bl.find("sensor.lidar.ray_cast_semantic")
    lb.set_attribute("channels", "32")
    lb.set_attribute("points_per_second", "100000")
    lb.set_attribute("range", "50")
    lidar = world.spawn_actor(lb, carla.Transform(carla.Location(z=2.5)), attach_to=car)
    car.apply_control(carla.VehicleControl(throttle=0.4))
    for sensor, decode in ((cam, lambda im: im.raw_data), (lidar, lambda pc: len(pc))):
        q = queue.Queue()
        sensor.listen(lambda d, q=q, decode=decode: (decode(d), q.put(d.frame)))
        queues.append(q)


def wait(q, frame):
    while q.get(timeout=10.0) < frame:
        pass


for _ in range(10):  # warm-up (subscriptions settle)
    f = world.tick()
for q in queues:
    wait(q, f)
start = time.perf_counter()
for _ in range(ticks):
    f = world.tick()
    for q in queues:
        wait(q, f)
elapsed = time.perf_counter() - start
print("%s: %.1f ticks/s (%d ticks in %.2f s)" % (workload, ticks / elapsed, ticks, elapsed), flush=True)
s.synchronous_mode, s.fixed_delta_seconds = False, None
world.apply_settings(s)
