"""The demo world's ROS 2 topics (carla-host --ros2), read by an independent
DDS implementation: Eclipse Cyclone DDS's Python binding (`cyclonedds` on
PyPI), with the ROS 2 type names and QoS. The unmodified carla==0.9.16
client spawns a hero car with a camera, a lidar, an IMU, a GNSS and a DVS
camera (with CARLA's `ros_name` attributes) and calls `enable_for_ros()`;
then:
- rt/carla/hero/rgb/image, .../camera_info, .../lidar/point_cloud,
  .../imu, .../gnss, .../dvs/image and .../dvs/point_cloud, rt/clock and
  rt/tf arrive with CARLA's type names;
- sizes, encodings, frame ids and field layouts are as ROS 2 defines them;
- a frame's ROS 2 image has the pixels the camera's own stream delivered;
- every stamp equals the simulation time of a tick the client made;
- a CarlaEgoVehicleControl published from Cyclone moves the hero, and an
  AckermannDriveStamped sets its speed.

Usage: python ros2.py PORT DOMAIN. Prints OK at the end.
"""
import math
import sys
import time
import carla
from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from ros2_msgs import (AckermannDrive, AckermannDriveStamped, CameraInfo, CarlaEgoVehicleControl,
                       CarlaEgoVehicleStatus, CarlaTrafficLightStatusList, Clock, Header, Image, Imu, NavSatFix, Odometry, PointCloud2, String,
                       TFMessage, Time)

port, domain = int(sys.argv[1]), int(sys.argv[2])


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# The DDS side first, so it is discovered while the world is set up.
dp = DomainParticipant(domain)
# What rviz2 asks for: reliable, volatile, the last 5.
reliable = Qos(Policy.Reliability.Reliable(1_000_000_000), Policy.Durability.Volatile, Policy.History.KeepLast(5))


def reader(name, kind):
    return DataReader(dp, Topic(dp, name, kind), qos=reliable)


readers = {
    "image": reader("rt/carla/hero/rgb/image", Image),
    "info": reader("rt/carla/hero/rgb/camera_info", CameraInfo),
    "cloud": reader("rt/carla/hero/lidar/point_cloud", PointCloud2),
    "imu": reader("rt/carla/hero/imu", Imu),
    "gnss": reader("rt/carla/hero/gnss", NavSatFix),
    "dvs": reader("rt/carla/hero/dvs/image", Image),
    "events": reader("rt/carla/hero/dvs/point_cloud", PointCloud2),
    "clock": reader("rt/clock", Clock),
    "tf": reader("rt/tf", TFMessage),
    "odometry": reader("rt/carla/hero/odometry", Odometry),
    "status": reader("rt/carla/hero/vehicle_status", CarlaEgoVehicleStatus),
}
control_writer = DataWriter(dp, Topic(dp, "rt/carla/hero/vehicle_control_cmd", CarlaEgoVehicleControl),
                            qos=Qos(Policy.Reliability.BestEffort, Policy.History.KeepLast(1)))
ackermann_writer = DataWriter(dp, Topic(dp, "rt/carla/hero/ackermann_control_cmd", AckermannDriveStamped),
                              qos=Qos(Policy.Reliability.BestEffort, Policy.History.KeepLast(1)))

client = carla.Client("127.0.0.1", port)
client.set_timeout(20.0)
world = client.get_world()
library = world.get_blueprint_library()
for bp in (library.find("sensor.camera.rgb"), library.find("vehicle.tesla.model3")):
    check(bp.has_attribute("ros_name") and bp.get_attribute("ros_publish_tf").as_bool(),
          "%s carries CARLA's ros attributes" % bp.id)
spawn = world.get_map().get_spawn_points()[0]
car_bp = library.find("vehicle.tesla.model3")
car_bp.set_attribute("role_name", "hero")
car_bp.set_attribute("ros_name", "hero")
hero = world.spawn_actor(car_bp, spawn)
sensors = []


def sensor(kind, name, transform, **attrs):
    bp = library.find(kind)
    bp.set_attribute("ros_name", name)
    bp.set_attribute("role_name", name)
    for k, v in attrs.items():
        bp.set_attribute(k, str(v))
    s = world.spawn_actor(bp, transform, attach_to=hero)
    check(not s.is_enabled_for_ros(), "%s not on ROS before enable_for_ros()" % name)
    s.enable_for_ros()
    sensors.append(s)
    return s


camera = sensor("sensor.camera.rgb", "rgb", carla.Transform(carla.Location(x=-4.5, z=2.5), carla.Rotation(pitch=-20)),
                image_size_x=320, image_size_y=240, fov=90.0)
lidar = sensor("sensor.lidar.ray_cast", "lidar", carla.Transform(carla.Location(z=2.4)),
               channels=16, points_per_second=20000, rotation_frequency=20, range=50)
sensor("sensor.other.imu", "imu", carla.Transform(carla.Location(x=2, z=2)))
sensor("sensor.other.gnss", "gnss", carla.Transform(carla.Location(x=1, z=2)))
sensor("sensor.camera.dvs", "dvs", carla.Transform(carla.Location(x=1.5, z=1.5)), image_size_x=64, image_size_y=48)
check(camera.is_enabled_for_ros(), "is_enabled_for_ros() after enable_for_ros()")
# The same camera's images through CARLA's own stream, by frame: the ROS 2
# image of a frame must carry exactly these pixels (DDS sends them from the
# buffer the stream sends, not from a copy).
streamed = {}
camera.listen(lambda image: streamed.__setitem__(image.frame, bytes(image.raw_data)))

settings = world.get_settings()
settings.synchronous_mode, settings.fixed_delta_seconds = True, 0.05
world.apply_settings(settings)
ticked = {}  # (sec, nanosec) of every tick -> frame
got = {k: [] for k in readers}


def stamp_of(seconds):
    sec = math.floor(seconds)
    return (sec, min(int((seconds - sec) * 1e9), 999_999_999))


def near(stamp):
    """The tick whose simulation time is this stamp (1 ns of rounding);
    True for a stamp before the first tick (the world ran asynchronously
    until the switch)."""
    if (stamp.sec, stamp.nanosec) < min(ticked):
        return True
    for (s, n), f in ticked.items():
        if s == stamp.sec and abs(n - stamp.nanosec) <= 1:
            return f
    return None


# The DVS publishes when its frame has events: the hero standing, its first
# frame only; checked once the hero has driven.
EVENTS = ("dvs", "events")


def drain():
    for k, r in readers.items():
        got[k].extend(r.take(N=100))


start = time.time()
while time.time() - start < 60:
    frame = world.tick()
    ticked[stamp_of(world.get_snapshot().timestamp.elapsed_seconds)] = frame
    time.sleep(0.02)
    drain()
    if len(ticked) > 40 and all(len(v) >= 5 for k, v in got.items() if k not in EVENTS):
        break
missing = [k for k, v in got.items() if len(v) < 5 and k not in EVENTS]
check(not missing, "topics with fewer than 5 samples in 60 s: %s (%s)"
      % (missing, {k: len(v) for k, v in got.items()}))

late = [im for im in got["image"] if (im.header.stamp.sec, im.header.stamp.nanosec) >= min(ticked)]
check(len(late) >= 3, "images of the client's ticks: %d" % len(late))
for im in got["image"]:
    check((im.width, im.height, im.encoding, im.step, len(im.data)) == (320, 240, "bgra8", 1280, 320 * 240 * 4),
          "image layout %s" % ((im.width, im.height, im.encoding, im.step, len(im.data)),))
    check(im.header.frame_id == "rgb", "image frame id %r" % im.header.frame_id)
    check(near(im.header.stamp) is not None,
          "image stamp %s is a tick's time (%s)" % (im.header.stamp, sorted(ticked)[:3]))
same = [im for im in late if near(im.header.stamp) in streamed]
check(len(same) >= 3, "ROS 2 images of frames the stream also delivered: %d" % len(same))
for im in same:
    check(bytes(im.data) == streamed[near(im.header.stamp)],
          "the ROS 2 image of frame %d has the streamed image's pixels" % near(im.header.stamp))
camera.stop()
info = got["info"][-1]
check(abs(info.k[0] - 160.0) < 1e-6 and info.k[2] == 160.0 and info.k[5] == 120.0,
      "camera_info K (fx 160 for 320 px at 90 degrees): %s" % list(info.k))
check(info.distortion_model == "plumb_bob" and info.header.frame_id == "rgb", "camera_info")
for pc in got["cloud"]:
    names = [(f.name, f.offset, f.datatype, f.count) for f in pc.fields]
    check(names == [("x", 0, 7, 1), ("y", 4, 7, 1), ("z", 8, 7, 1), ("intensity", 12, 7, 1)], "fields %s" % names)
    check(pc.point_step == 16 and pc.height == 1 and len(pc.data) == 16 * pc.width and pc.width > 0,
          "point cloud layout")
    check(near(pc.header.stamp) is not None, "cloud stamp is a tick's time")
for m in got["imu"]:
    check(abs(m.linear_acceleration.z - 9.81) < 0.5, "IMU at rest feels g: %s" % m.linear_acceleration)
    check(near(m.header.stamp) is not None, "imu stamp")
for m in got["gnss"]:
    check(-90 <= m.latitude <= 90 and m.header.frame_id == "gnss", "NavSatFix")
clocks = [c.clock for c in got["clock"]]
check(all(near(c) is not None for c in clocks[-5:]), "clock stamps are tick times")
tfs = {(t.header.frame_id, t.child_frame_id): t.transform for m in got["tf"] for t in m.transforms}
check(("hero", "rgb") in tfs and ("hero", "lidar") in tfs, "tf frames %s" % sorted(tfs))
rgb = tfs[("hero", "rgb")]
check(abs(rgb.translation.x + 4.5) < 1e-6 and abs(rgb.translation.z - 2.5) < 1e-6, "rgb tf translation")
check(abs(rgb.rotation.y - math.sin(math.radians(10))) < 1e-6, "rgb tf pitch +20 degrees in ROS")

# A control from Cyclone moves the hero (2 s of full throttle: room to
# slow down to the Ackermann speed below before the road ends).
before = hero.get_location()
for _ in range(40):
    control_writer.write(CarlaEgoVehicleControl(
        header=Header(stamp=Time(sec=0, nanosec=0), frame_id="hero"),
        throttle=1.0, steer=0.0, brake=0.0, hand_brake=False, reverse=False, gear=1, manual_gear_shift=False))
    time.sleep(0.02)
    ticked[stamp_of(world.get_snapshot().timestamp.elapsed_seconds)] = world.tick()
    drain()
moved = hero.get_location().distance(before)
check(moved > 1.0, "the hero moved %.2f m under ROS control" % moved)
check(hero.get_control().throttle > 0.9, "the hero's control is the ROS one: %s" % hero.get_control())

# An Ackermann drive from Cyclone sets the hero's speed (3 m/s, straight).
# CARLA's default gains make the controller hunt slowly around its target
# (about ±0.4 m/s here): the speed over the last second, not at one tick.
speeds = []
for i in range(80):
    ackermann_writer.write(AckermannDriveStamped(
        header=Header(stamp=Time(sec=0, nanosec=0), frame_id="hero"),
        drive=AckermannDrive(steering_angle=0.0, steering_angle_velocity=0.0, speed=3.0, acceleration=0.0,
                             jerk=0.0)))
    time.sleep(0.02)
    ticked[stamp_of(world.get_snapshot().timestamp.elapsed_seconds)] = world.tick()
    drain()
    if i >= 60:
        speeds.append(hero.get_velocity().length())
speed, last = sum(speeds) / len(speeds), speeds[-1]
check(abs(speed - 3.0) < 0.5, "the hero drives at %.2f m/s under a 3 m/s Ackermann drive" % speed)
# Its odometry: in the map frame, ROS's axes (y negated), the twist in the
# car's own frame (forward is +x).
check(len(got["odometry"]) >= 50, "odometry every tick: %d" % len(got["odometry"]))
odo = got["odometry"][-1]
check(odo.header.frame_id == "map" and odo.child_frame_id == "hero", "odometry frames %s, %s"
      % (odo.header.frame_id, odo.child_frame_id))
p = odo.pose.pose.position
at = hero.get_location()
check(abs(p.x - at.x) < 0.5 and abs(p.y + at.y) < 0.5 and abs(p.z - at.z) < 0.5,
      "odometry position %s vs the hero at %s" % ((p.x, p.y, p.z), at))
lin = odo.twist.twist.linear
check(abs(lin.x - last) < 0.3 and abs(lin.y) < 0.3, "odometry twist %s at %.2f m/s straight"
      % ((lin.x, lin.y, lin.z), last))
# Its vehicle status: the speed, the orientation of its odometry, and the
# control it drives under (the throttle of the ROS control before, then
# what the Ackermann drive sets), in the same stamps as the odometry.
check(len(got["status"]) >= 50, "vehicle_status every tick: %d" % len(got["status"]))
same = [s for s in got["status"] if s.header.stamp == odo.header.stamp]
check(len(same) == 1, "one vehicle_status at the last odometry's stamp: %d" % len(same))
status = same[0] if same else got["status"][-1]
check(status.header.frame_id == "map", "vehicle_status frame %s" % status.header.frame_id)
check(abs(status.velocity - last) < 0.3, "vehicle_status speed %.2f at %.2f m/s" % (status.velocity, last))
o, q = status.orientation, odo.pose.pose.orientation
check(max(abs(o.x - q.x), abs(o.y - q.y), abs(o.z - q.z), abs(o.w - q.w)) < 1e-9, "orientation as the odometry's")
c = status.control
check(not c.reverse and abs(c.steer) < 0.1 and 0.0 <= c.throttle <= 1.0,
      "vehicle_status control under a straight 3 m/s drive: %s" % (c,))
check(any(s.control.throttle > 0.9 and not s.control.reverse for s in got["status"]),
      "the ROS control's full throttle in a vehicle_status")

# The DVS, while the hero drove.
check(len(got["dvs"]) >= 5 and len(got["events"]) >= 5,
      "DVS images and events while the hero drives: %d, %d" % (len(got["dvs"]), len(got["events"])))
for im in got["dvs"]:
    check((im.width, im.height, im.encoding, im.step, len(im.data)) == (64, 48, "bgr8", 192, 64 * 48 * 3),
          "DVS image layout %s" % ((im.width, im.height, im.encoding, im.step, len(im.data)),))
    check(im.header.frame_id == "dvs" and near(im.header.stamp) is not None, "DVS image frame and stamp")
    check(set(im.data) <= {0, 255}, "DVS pixels are black, or full red or blue")
for pc in got["events"]:
    names = [(f.name, f.offset, f.datatype) for f in pc.fields]
    check(names == [("x", 0, 4), ("y", 2, 4), ("pol", 12, 1)], "DVS fields %s" % names)
    check(pc.point_step == 13 and len(pc.data) == 13 * pc.width, "DVS point cloud layout")
    for i in range(pc.width):
        x, y = (int.from_bytes(bytes(pc.data[13 * i + k:13 * i + k + 2]), "little") for k in (0, 2))
        check(x < 64 and y < 48, "a DVS event inside the image: %d, %d" % (x, y))
check(sum(pc.width for pc in got["events"]) > 0, "DVS events while the town moves")

# /carla/map: the OpenDRIVE text, transient local, so a reader that joins
# now (long after it was written) still gets it.
late = DataReader(dp, Topic(dp, "rt/carla/map", String),
                  qos=Qos(Policy.Reliability.Reliable(1_000_000_000), Policy.Durability.TransientLocal,
                          Policy.History.KeepLast(1)))
text = None
deadline = time.time() + 15
while text is None and time.time() < deadline:
    for m in late.take(N=4):
        text = m.data
    time.sleep(0.05)
opendrive = world.get_map().to_opendrive()
check(text == opendrive, "/carla/map carries the map's OpenDRIVE text (%s bytes, want %d)"
      % (None if text is None else len(text), len(opendrive)))

# /carla/traffic_lights/status: every light's state, written when one
# changes, transient local (this reader joins late, and gets the last list
# at once); the lights cycle as the world ticks, and the list follows.
light_reader = DataReader(dp, Topic(dp, "rt/carla/traffic_lights/status", CarlaTrafficLightStatusList),
                          qos=Qos(Policy.Reliability.Reliable(1_000_000_000), Policy.Durability.TransientLocal,
                                  Policy.History.KeepLast(1)))
town_lights = list(world.get_actors().filter("traffic.traffic_light"))
check(len(town_lights) > 0, "the town has traffic lights")
listed, want, changes = None, {}, 0
deadline = time.time() + 30
while time.time() < deadline:
    world.tick()
    time.sleep(0.01)
    for m in light_reader.take(N=10):
        now = {light.id: light.state for light in m.traffic_lights}
        changes += listed is not None and now != listed
        listed = now
    want = {tl.id: int(tl.state) for tl in world.get_actors().filter("traffic.traffic_light")}
    if changes and listed == want:
        break
check(changes > 0, "a new /carla/traffic_lights/status when a light changed")
check(listed == want, "/carla/traffic_lights/status %s vs the lights' states %s" % (listed, want))
check(set(want.values()) <= {0, 1, 2, 3, 4}, "CARLA's state numbers")

for s in sensors:
    s.disable_for_ros()
check(not camera.is_enabled_for_ros(), "disable_for_ros()")
settings.synchronous_mode, settings.fixed_delta_seconds = False, None
world.apply_settings(settings)
for s in sensors:
    s.destroy()
hero.destroy()
print("RESULT", {k: len(v) for k, v in got.items()}, "moved %.1f m" % moved, "%.1f m/s" % speed, flush=True)
print("OK", flush=True)
