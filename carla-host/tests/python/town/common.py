"""Shared by the town scripts: connect to the demo world (port in argv[1]),
synchronous mode, and a check helper that names what failed."""
import sys

import carla


def connect():
    client = carla.Client("127.0.0.1", int(sys.argv[1]))
    client.set_timeout(20.0)
    return client, client.get_world()


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
