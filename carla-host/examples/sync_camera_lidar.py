"""Synchronous loop with an RGB camera and a semantic lidar on a car;
saves the camera images as PNGs and the last point cloud as PLY.

    python3 carla-host/examples/sync_camera_lidar.py [--port 2000] [--ticks 100] [--out _out]
"""
import argparse
import os
import queue
import time

import carla

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=2000)
parser.add_argument("--ticks", type=int, default=100)
parser.add_argument("--out", default="_out")
parser.add_argument("--save-every", type=int, default=10)
args = parser.parse_args()
os.makedirs(args.out, exist_ok=True)

client = carla.Client("127.0.0.1", args.port)
client.set_timeout(10.0)
world = client.get_world()
original = world.get_settings()
settings = world.get_settings()
settings.synchronous_mode = True
settings.fixed_delta_seconds = 0.05
world.apply_settings(settings)
bl = world.get_blueprint_library()
actors = []
try:
    spawn = world.get_map().get_spawn_points()
    car = next(a for a in (world.try_spawn_actor(bl.find("vehicle.tesla.model3"), p) for p in spawn) if a)
    actors.append(car)
    car.apply_control(carla.VehicleControl(throttle=0.5))
    cam_bp = bl.find("sensor.camera.rgb")
    cam_bp.set_attribute("image_size_x", "800")
    cam_bp.set_attribute("image_size_y", "600")
    camera = world.spawn_actor(cam_bp, carla.Transform(carla.Location(x=1.5, z=2.4)), attach_to=car)
    lidar_bp = bl.find("sensor.lidar.ray_cast_semantic")
    lidar_bp.set_attribute("channels", "32")
    lidar_bp.set_attribute("points_per_second", "100000")
    lidar_bp.set_attribute("range", "50")
    lidar = world.spawn_actor(lidar_bp, carla.Transform(carla.Location(z=2.5)), attach_to=car)
    actors += [camera, lidar]
    images, clouds = queue.Queue(), queue.Queue()
    camera.listen(images.put)
    lidar.listen(clouds.put)

    def take(q, frame):
        """The item of `frame` (older ones are skipped)."""
        while True:
            item = q.get(timeout=5.0)
            if item.frame >= frame:
                return item

    world.tick()  # the streams subscribe during the first tick
    start = time.time()
    for i in range(args.ticks):
        frame = world.tick()
        image = take(images, frame)
        cloud = take(clouds, frame)
        if i % args.save_every == 0:
            image.save_to_disk(os.path.join(args.out, "%06d.png" % image.frame))
    elapsed = time.time() - start
    cloud.save_to_disk(os.path.join(args.out, "%06d.ply" % cloud.frame))
    print("%d ticks in %.2f s: %.1f ticks/s; last frame %d: %d lidar points"
          % (args.ticks, elapsed, args.ticks / elapsed, cloud.frame, len(cloud)), flush=True)
finally:
    # Let the last tick's data land before stopping: the 0.9.16 client's
    # stop() tears its stream down from this thread while a read may still
    # run on another (see docs/compatibility.md, client-side issues).
    time.sleep(0.3)
    for a in actors:
        if isinstance(a, carla.Sensor):
            a.stop()  # unsubscribe before the actor goes
    # ... and let the stopped streams' last reads release the callbacks
    # while Python is still running (else the exit can abort).
    time.sleep(0.3)
    for a in reversed(actors):
        a.destroy()
    world.apply_settings(original)
