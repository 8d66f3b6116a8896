"""Bad requests a script can make get clear errors and the world goes on."""
import math

import carla
from common import end_ok, connect, check, synchronous, asynchronous

client, world = connect()
synchronous(world, 0.05)
bl = world.get_blueprint_library()
points = world.get_map().get_spawn_points()


def refused(what, fn, text):
    try:
        fn()
    except RuntimeError as e:
        check(text in str(e), "%s: error names the cause: %s" % (what, e))
        return
    check(False, "%s was refused" % what)


nan = carla.Transform(carla.Location(x=math.nan, y=0, z=0))
refused("a NaN spawn", lambda: world.spawn_actor(bl.find("vehicle.audi.a2"), nan), "finite")
far = carla.Transform(carla.Location(x=1e9, y=0, z=0))
refused("a spawn 1e9 m away", lambda: world.spawn_actor(bl.find("vehicle.audi.a2"), far), "within")
big = bl.find("sensor.camera.rgb")
big.set_attribute("image_size_x", "16384")
big.set_attribute("image_size_y", "16384")
# 1 GiB an image: over the client's share of sensor bytes per tick.
refused("a 16384x16384 camera", lambda: world.spawn_actor(big, carla.Transform()), "max_frame_bytes")
refused("a traffic light", lambda: world.spawn_actor(bl.find("traffic.traffic_light"), points[0]), "cannot be spawned")
car = world.spawn_actor(bl.find("vehicle.audi.a2"), points[0])
refused("a second car on the same spot", lambda: world.spawn_actor(bl.find("vehicle.audi.a2"), points[0]), "collision")
world.tick()
car.set_transform(nan)
car.set_target_velocity(carla.Vector3D(math.inf, math.nan, 0))
car.apply_control(carla.VehicleControl(throttle=math.nan, steer=math.inf))
for _ in range(5):
    world.tick()
loc = car.get_location()
check(all(math.isfinite(v) for v in (loc.x, loc.y, loc.z)), "the car stays finite: %s" % loc)
check(loc.distance(points[0].location) < 2.0, "NaN requests did not move it: %s" % loc)
check(car.destroy(), "destroy")
world.tick()
again = client.apply_batch_sync([carla.command.DestroyActor(car.id)], False)
check(again[0].error, "a second destroy is refused, not fatal")
# The world still works.
other = world.spawn_actor(bl.find("vehicle.tesla.model3"), points[1])
other.apply_control(carla.VehicleControl(throttle=1.0))
start = other.get_location()
for _ in range(20):
    world.tick()
check(other.get_location().distance(start) > 1.0, "world still runs")
other.destroy()
world.tick()
asynchronous(world)
end_ok()
