"""The 0.9 soak, driven by the stock carla==0.9.16 client.

    python soak09.py PORT CYCLES FIRST OUT_JSON [async]

Runs cycles FIRST..FIRST+CYCLES-1 against a running carla-host: connect,
spawn a car with an RGB camera and a lidar on it, listen to both, 20
synchronous ticks (each tick's camera and lidar frames must equal the
frame the tick returned), destroy, back to asynchronous mode, disconnect.
With `async` (the clients that run at once share one world, so none
switches it to synchronous mode) each cycle takes 5 camera and 5 lidar
messages of increasing frames instead of ticking.
`scripts/soak09.sh` runs batches of these in fresh processes (the stock
client keeps per-client threads until its process exits) and then the 16
clients at once; it reads the server's RSS, descriptors and threads.
"""
import json
import queue
import sys
import time

import carla

port, cycles, first, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
synchronous = sys.argv[5:] != ["async"]
ticks_per_cycle = 20
failures = []
tick_ms = []


def cycle(n):
    client = carla.Client("127.0.0.1", port)
    client.set_timeout(20.0)
    world = client.get_world()
    lib = world.get_blueprint_library()
    points = world.get_map().get_spawn_points()
    car = None
    for k in range(len(points)):
        car = world.try_spawn_actor(lib.filter("vehicle.*")[0], points[(n * 7 + k) % len(points)])
        if car is not None:
            break
    if car is None:
        raise RuntimeError("no free spawn point")
    cam_bp = lib.find("sensor.camera.rgb")
    cam_bp.set_attribute("image_size_x", "320")
    cam_bp.set_attribute("image_size_y", "240")
    lidar_bp = lib.find("sensor.lidar.ray_cast")
    lidar_bp.set_attribute("points_per_second", "20000")
    mount = carla.Transform(carla.Location(x=1.5, z=2.0))
    cam = world.spawn_actor(cam_bp, mount, attach_to=car)
    lidar = world.spawn_actor(lidar_bp, mount, attach_to=car)
    images, scans = queue.Queue(), queue.Queue()
    cam.listen(images.put)
    lidar.listen(scans.put)
    # A subscription is made asynchronously (the client's stream
    # connection): data sent before the server has it is not for this
    # client, as with CARLA. Take one message of each first, in
    # asynchronous mode, so every synchronous tick below must be delivered.
    images.get(timeout=10.0)
    scans.get(timeout=10.0)
    settings = world.get_settings()
    if not synchronous:
        try:
            last = (0, 0)
            for _ in range(5):
                image, scan = images.get(timeout=10.0), scans.get(timeout=10.0)
                if image.frame <= last[0] or scan.frame <= last[1]:
                    raise AssertionError("frames went back: %s then %s" % (last, (image.frame, scan.frame)))
                last = (image.frame, scan.frame)
        finally:
            cam.stop()
            lidar.stop()
            for a in (cam, lidar, car):
                a.destroy()
        return
    settings.synchronous_mode = True
    settings.fixed_delta_seconds = 0.05
    world.apply_settings(settings)
    try:
        for k in range(ticks_per_cycle):
            t0 = time.perf_counter()
            frame = world.tick()
            try:
                image = images.get(timeout=10.0)
            except queue.Empty:
                raise AssertionError("tick %d (%d of the cycle): no image within 10 s" % (frame, k))
            try:
                scan = scans.get(timeout=10.0)
            except queue.Empty:
                raise AssertionError("tick %d (%d of the cycle): no lidar scan within 10 s" % (frame, k))
            tick_ms.append((time.perf_counter() - t0) * 1000.0)
            while image.frame < frame:
                image = images.get(timeout=10.0)
            while scan.frame < frame:
                scan = scans.get(timeout=10.0)
            if image.frame != frame or scan.frame != frame:
                raise AssertionError("tick %d: camera %d lidar %d" % (frame, image.frame, scan.frame))
    finally:
        settings.synchronous_mode = False
        settings.fixed_delta_seconds = None
        world.apply_settings(settings)
        cam.stop()
        lidar.stop()
        for a in (cam, lidar, car):
            a.destroy()


for n in range(first, first + cycles):
    try:
        cycle(n)
    except Exception as e:  # counted, and the soak goes on
        failures.append("cycle %d: %s: %s" % (n, type(e).__name__, e))
tick_ms.sort()
with open(out, "w") as f:
    json.dump({"failures": failures, "ticks": len(tick_ms),
               "p50_ms": tick_ms[len(tick_ms) // 2] if tick_ms else None,
               "p99_ms": tick_ms[len(tick_ms) * 99 // 100] if tick_ms else None}, f)
