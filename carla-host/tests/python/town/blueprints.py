"""Item 2: the blueprint library a 0.9 user expects from a town."""
import carla
from common import connect, check, synchronous, asynchronous

client, world = connect()
bl = world.get_blueprint_library()
ids = {b.id for b in bl}
vehicles = bl.filter("vehicle.*")
check(len(vehicles) >= 5, "a handful of vehicles: %d" % len(vehicles))
for b in vehicles:
    for attr in ("role_name", "color", "number_of_wheels", "base_type", "sticky_control"):
        check(b.has_attribute(attr), "%s has %s" % (b.id, attr))
    check(b.get_attribute("number_of_wheels").as_int() == 4, "4 wheels")
    check(b.get_attribute("color").type == carla.ActorAttributeType.RGBColor, "color is RGB")
check(len(bl.filter("walker.pedestrian.*")) >= 1, "pedestrians")
check("traffic.traffic_light" in ids and "spectator" in ids, "traffic light and spectator blueprints")
sensors = ["sensor.camera.rgb", "sensor.camera.depth", "sensor.camera.semantic_segmentation",
           "sensor.camera.instance_segmentation", "sensor.lidar.ray_cast",
           "sensor.lidar.ray_cast_semantic", "sensor.other.gnss", "sensor.other.imu",
           "sensor.other.collision", "sensor.other.obstacle", "sensor.other.radar",
           "sensor.other.lane_invasion", "sensor.other.safe_distance"]
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
    world.spawn_actor(bl.find("sensor.camera.optical_flow"), carla.Transform())
    check(False, "optical flow is not listed")
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
world.tick()  # subscription settles
start = world.tick()
for _ in range(40):
    world.tick()
got = [f for f in frames if f > start]
check(3 <= len(got) <= 5, "sensor_tick 0.5 s over 2 s: %d images" % len(got))
cam.destroy()
world.tick()
asynchronous(world)
print("OK")
