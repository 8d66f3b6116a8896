"""Item 2: the blueprint library a 0.9 user expects from a town."""
import time

import carla
from common import end_ok, connect, check, synchronous, asynchronous, stop_sensors

client, world = connect()
bl = world.get_blueprint_library()
ids = {b.id for b in bl}
vehicles = bl.filter("vehicle.*")
check(len(vehicles) == 41, "CARLA 0.9.16's 41 vehicles: %d" % len(vehicles))
for b in vehicles:
    for attr in ("role_name", "number_of_wheels", "base_type", "sticky_control", "generation"):
        check(b.has_attribute(attr), "%s has %s" % (b.id, attr))
    if b.id != "vehicle.tesla.cybertruck":  # as in CARLA: no colour
        color = b.get_attribute("color")
        check(color.type == carla.ActorAttributeType.RGBColor, "color is RGB")
        # What scripts do: pick a recommended colour.
        check(len(color.recommended_values) >= 1, "%s recommends colours" % b.id)
# Filters scripts use, with CARLA's answers.
wheels = {b.id: b.get_attribute("number_of_wheels").as_int() for b in vehicles}
check(sum(1 for n in wheels.values() if n == 2) == 7, "seven two-wheelers")
check(wheels["vehicle.carlamotors.european_hgv"] == 6, "the truck has 6 wheels")
check(bl.find("vehicle.audi.tt").get_attribute("base_type").as_str() == "car", "audi.tt is a car")
emergency = [b.id for b in vehicles if b.get_attribute("special_type").as_str() == "emergency"]
check("vehicle.dodge.charger_police" in emergency, "emergency vehicles: %s" % emergency)
bikes = bl.find("vehicle.bh.crossbike")
check(len(bikes.get_attribute("driver_id").recommended_values) >= 1, "bike drivers")
# Each spawns with its own box (CARLA's extents).
synchronous(world, 0.05)
sp = world.get_map().get_spawn_points()
for i, name in enumerate(["vehicle.audi.a2", "vehicle.carlamotors.firetruck"]):
    v = None
    for p in sp[i * 20:]:
        v = world.try_spawn_actor(bl.find(name), p)
        if v is not None:
            break
    check(v is not None, "%s spawns" % name)
    world.tick()
    e = v.bounding_box.extent
    want = {"vehicle.audi.a2": 1.85, "vehicle.carlamotors.firetruck": 4.2}[name]
    check(abs(e.x - want) < 0.1, "%s extent %.2f" % (name, e.x))
    v.destroy()
world.tick()
asynchronous(world)
check(len(bl.filter("walker.pedestrian.*")) >= 1, "pedestrians")
check("traffic.traffic_light" in ids and "spectator" in ids, "traffic light and spectator blueprints")
sensors = ["sensor.camera.rgb", "sensor.camera.depth", "sensor.camera.semantic_segmentation",
           "sensor.camera.instance_segmentation", "sensor.lidar.ray_cast",
           "sensor.lidar.ray_cast_semantic", "sensor.other.gnss", "sensor.other.imu",
           "sensor.other.collision", "sensor.other.obstacle", "sensor.other.radar",
           "sensor.other.lane_invasion", "sensor.other.safe_distance", "sensor.camera.dvs",
           "sensor.camera.optical_flow", "sensor.camera.normals",
           "sensor.camera.cosmos_visualization", "sensor.other.v2x", "sensor.other.v2x_custom"]
for s in sensors:
    check(s in ids, "%s listed" % s)
listed = {i for i in ids if i.startswith("sensor.")}
check(listed == set(sensors), "only what the world produces: %s" % sorted(listed - set(sensors)))
rgb = bl.find("sensor.camera.rgb")
check(rgb.get_attribute("image_size_x").as_int() == 800, "rgb width default")
check(abs(rgb.get_attribute("fov").as_float() - 90.0) < 1e-6, "rgb fov default")
check(abs(bl.find("sensor.other.radar").get_attribute("range").as_float() - 100.0) < 1e-6, "radar range")
check(abs(bl.find("sensor.lidar.ray_cast").get_attribute("range").as_float() - 10.0) < 1e-6, "lidar range")
check(bl.find("sensor.other.obstacle").has_attribute("only_dynamics"), "obstacle attributes")
check(bl.find("sensor.other.imu").has_attribute("noise_accel_stddev_x"), "imu attributes")
check(world.get_spectator().type_id == "spectator", "spectator")

# An unknown blueprint is a clear RuntimeError.
fake = bl.find("vehicle.tesla.model3")
try:
    world.spawn_actor(bl.find("sensor.other.rss"), carla.Transform())
    check(False, "RSS is not listed")
except IndexError:
    pass

# sensor_tick: a camera with sensor_tick 0.5 at a 0.05 s step gives one
# image per 10 ticks.
synchronous(world, 0.05)
cam_bp = bl.find("sensor.camera.rgb")
cam_bp.set_attribute("image_size_x", "64")
cam_bp.set_attribute("image_size_y", "48")
cam_bp.set_attribute("sensor_tick", "0.5")
cam = world.spawn_actor(cam_bp, carla.Transform(carla.Location(x=30, y=30, z=20)))
frames = []
cam.listen(lambda im: frames.append(im.frame))
# The stream subscribes while the first ticks run (on a busy machine that
# can take a few): tick until the first image, then count.
for _ in range(200):
    world.tick()
    if frames:
        break
    time.sleep(0.01)
start = world.tick()
for _ in range(40):
    last = world.tick()
time.sleep(0.3)  # the client's stream thread delivers the last image
got = [f for f in frames if start < f <= last]
check(3 <= len(got) <= 5, "sensor_tick 0.5 s over 2 s: %d images" % len(got))
stop_sensors([cam])
world.tick()
asynchronous(world)
end_ok()
