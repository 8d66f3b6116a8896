"""Shared by the town scripts: connect to the demo world (port in argv[1]),
synchronous mode, a check helper that names what failed, a free port for
a script's own Traffic Manager, a hash of actors' states (runs that must
repeat), and end_ok()."""
import hashlib
import os
import socket
import struct
import sys
import time

import carla


def free_port():
    """A port nothing listens on now (for a script's Traffic Manager)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def state_hash(actors, with_ids=False):
    """A hash of actor snapshots' transforms and velocities, bit for bit
    (with their ids too if `with_ids`), in the order given."""
    h = hashlib.sha256()
    for a in actors:
        t, v = a.get_transform(), a.get_velocity()
        if with_ids:
            h.update(struct.pack("<I", a.id))
        h.update(struct.pack("<9f", t.location.x, t.location.y, t.location.z, t.rotation.pitch,
                             t.rotation.yaw, t.rotation.roll, v.x, v.y, v.z))
    return h.hexdigest()


def connect():
    client = carla.Client("127.0.0.1", int(sys.argv[1]))
    client.set_timeout(20.0)
    return client, client.get_world()


def end_ok():
    """Prints OK and ends the script at once, skipping the interpreter's
    teardown: there the stock 0.9.16 client can abort on one of its own
    threads ("trying to operate on a destroyed actor", SIGABRT) after every
    check passed, now and then on a busy machine: its objects are torn
    down in no fixed order while its worker threads still run
    (docs/compatibility.md)."""
    print("OK", flush=True)
    sys.stderr.flush()
    os._exit(0)


def check(cond, what):
    if not cond:
        print("FAILED:", what, flush=True)
        sys.exit(1)


def synchronous(world, delta=0.05, no_rendering=False):
    s = world.get_settings()
    s.synchronous_mode = True
    s.fixed_delta_seconds = delta
    s.no_rendering_mode = no_rendering
    world.apply_settings(s)


def asynchronous(world):
    s = world.get_settings()
    s.synchronous_mode = False
    s.fixed_delta_seconds = None
    s.no_rendering_mode = False
    world.apply_settings(s)


def ros_hero(world, point, size, pose=None):
    """A hero car (role and ros name "hero") at spawn point `point` with an
    RGB camera of `size` (ros name "rgb", at `pose` on the car, 2 m up by
    default) enabled for ROS 2: (hero, camera)."""
    library = world.get_blueprint_library()
    car_bp = library.find("vehicle.tesla.model3")
    car_bp.set_attribute("role_name", "hero")
    car_bp.set_attribute("ros_name", "hero")
    hero = world.spawn_actor(car_bp, world.get_map().get_spawn_points()[point])
    cam_bp = library.find("sensor.camera.rgb")
    cam_bp.set_attribute("ros_name", "rgb")
    cam_bp.set_attribute("image_size_x", str(size[0]))
    cam_bp.set_attribute("image_size_y", str(size[1]))
    pose = pose or carla.Transform(carla.Location(z=2))
    camera = world.spawn_actor(cam_bp, pose, attach_to=hero)
    camera.enable_for_ros()
    return hero, camera


def free_spawn(world, bp, points):
    """Spawns bp at the first free point of points."""
    for p in points:
        a = world.try_spawn_actor(bp, p)
        if a is not None:
            return a
    raise RuntimeError("no free spawn point")


def drain_until(items, frame, world, ticks=20):
    """Ticks until an item of `frame` or later arrived."""
    for _ in range(ticks):
        if any(i.frame >= frame for i in items):
            return
        world.tick()


def stop_sensors(sensors, then_destroy=True):
    """Stops (and destroys) sensors once their last data has landed.

    LibCarla 0.9.16's streaming client closes a subscription's socket from
    the calling thread, outside the strand its reads run on
    (tcp::Client::Stop): a message still being read when stop() runs can
    be decoded from a half-torn-down read and abort the process
    (clmdep_msgpack type_error). In synchronous mode nothing more is sent
    after the last tick, so a short wait lets that tick's data land first.
    The stopped stream's last (aborted) read then releases the Python
    callback on the client's stream thread: if that happens after the
    interpreter began to exit, taking Python's lock there aborts ("terminate
    called without an active exception"), so wait for it too.
    """
    time.sleep(0.3)
    for s in sensors:
        s.stop()
    time.sleep(0.3)
    if then_destroy:
        for s in sensors:
            s.destroy()


def car_and_parked_car(world, gap):
    """A Tesla on a spawn point and an Audi A2 parked `gap` metres ahead in
    the same lane (off junctions): (car, parked)."""
    m, bl = world.get_map(), world.get_blueprint_library()
    for p in m.get_spawn_points():
        wp = m.get_waypoint(p.location)
        ahead = wp.next(gap)[0]
        if ahead.is_junction or ahead.road_id != wp.road_id:
            continue
        car = world.try_spawn_actor(bl.find("vehicle.tesla.model3"), p)
        if car is None:
            continue
        t = ahead.transform
        t.location.z = 0.5
        parked = world.try_spawn_actor(bl.find("vehicle.audi.a2"), t)
        if parked is not None:
            return car, parked
        car.destroy()
    check(False, "a spawn point with room for a parked car ahead")


def watched(seen, frame):
    """The watcher world `seen`'s snapshot of `frame` or later (its stream
    may lag the ticking client's by a moment on a busy machine)."""
    for _ in range(200):
        snap = seen.get_snapshot()
        if snap.frame >= frame:
            return snap
        time.sleep(0.01)
    check(False, "the watcher never saw frame %d" % frame)


def listening_camera(world, kind, pose, size, attach_to=None, **attrs):
    """A `sensor.camera.<kind>` of `size` (width, height) at `pose` (on
    `attach_to` if given) with blueprint `attrs`, listening into a queue:
    (camera, queue)."""
    import queue
    bp = world.get_blueprint_library().find("sensor.camera." + kind)
    for k, v in dict(image_size_x=size[0], image_size_y=size[1], **attrs).items():
        bp.set_attribute(k, str(v))
    cam = world.spawn_actor(bp, pose, attach_to=attach_to)
    q = queue.Queue()
    cam.listen(q.put)
    return cam, q


def frame_image(q, frame, timeout=20.0):
    """The image of `frame` from camera queue `q` (older ones dropped), as
    a height x width x 4 BGRA array of its own."""
    import numpy as np
    while True:
        img = q.get(timeout=timeout)
        if img.frame == frame:
            return np.frombuffer(img.raw_data, dtype=np.uint8).reshape(img.height, img.width, 4).copy()
