"""Renders the gallery of docs/demo-world.md ("Pictures") through the
stock client, saved with its own PNG writer (or OpenCV for the drawings):

- weather-<Preset>.png: one street of the built-in town under CARLA's
  weather presets, 400x300;
- street-day.png, street-night.png: a street with walkers and cars,
  640x480, by day and at night (the cars' lamps on, one braking);
- street-detected.png: the day picture with what OpenCV's stock HOG people
  detector finds (red), the instance camera's true boxes (green) and a
  Canny + Hough lane pipeline's ego-lane boundaries (blue);
- walker-skeleton.png: a walker in mid-stride with the bones get_bones
  reports projected onto the picture.

Usage: python render_gallery.py PORT OUT_DIR   (scripts/render-gallery.sh
starts the server and runs it)"""
import math
import os
import queue
import sys

import carla
import cv2
import numpy as np

PRESETS = ["ClearNoon", "CloudyNoon", "WetNoon", "HardRainNoon", "ClearSunset", "CloudySunset",
           "WetSunset", "ClearNight", "WetNight"]
OUT = sys.argv[2]
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.get_world()
settings = world.get_settings()
settings.synchronous_mode, settings.fixed_delta_seconds = True, 0.05
world.apply_settings(settings)
bl = world.get_blueprint_library()
spots = world.get_map().get_spawn_points()


def camera(pose, w, h, kind="rgb"):
    bp = bl.find("sensor.camera." + kind)
    bp.set_attribute("image_size_x", str(w))
    bp.set_attribute("image_size_y", str(h))
    cam = world.spawn_actor(bp, pose)
    q = queue.Queue()
    cam.listen(q.put)
    return cam, q


def image_of(q, frame):
    while True:
        image = q.get(timeout=10.0)
        if image.frame == frame:
            return image


def pixels(image):
    return np.frombuffer(image.raw_data, dtype=np.uint8).reshape(image.height, image.width, 4)


# The presets.
spot = spots[3]
cam, q = camera(carla.Transform(spot.location + carla.Location(z=1.8), spot.rotation), 400, 300)
for name in PRESETS:
    world.set_weather(getattr(carla.WeatherParameters, name))
    image = image_of(q, world.tick())
    path = os.path.join(OUT, "weather-%s.png" % name)
    image.save_to_disk(path)
    print(path)
cam.stop()
cam.destroy()

# A street with walkers and cars.
W, H = 640, 480
spot = spots[5]
fwd, right = spot.get_forward_vector(), spot.get_right_vector()
pose = carla.Transform(spot.location + carla.Location(z=1.6), spot.rotation)
actors = []
for k, (ahead, side, yaw) in enumerate([(7, -2.6, 90), (9, 3.2, -100), (11, 4.4, 180), (13, -3.8, 20),
                                        (8.5, 4.2, 0), (15, 2.4, 160)]):
    at = spot.location + fwd * ahead + right * side + carla.Location(z=1.0)
    w = world.try_spawn_actor(bl.find("walker.pedestrian.%04d" % (k * 5 + 2)),
                              carla.Transform(at, carla.Rotation(yaw=spot.rotation.yaw + yaw)))
    if w is not None:
        actors.append(w)
        r = math.radians(spot.rotation.yaw + yaw)
        w.apply_control(carla.WalkerControl(direction=carla.Vector3D(math.cos(r), math.sin(r), 0), speed=1.2))
cars = []
for ahead, side, model, colour in [(18, 0, "vehicle.tesla.model3", "200,30,30"),
                                   (30, -3.5, "vehicle.audi.a2", "30,80,200"),
                                   (40, 0, "vehicle.lincoln.mkz_2020", "230,230,230")]:
    bp = bl.find(model)
    if bp.has_attribute("color"):
        bp.set_attribute("color", colour)
    t = carla.Transform(spot.location + fwd * ahead + right * side + carla.Location(z=0.3),
                        carla.Rotation(yaw=spot.rotation.yaw + (180 if side < 0 else 0)))
    car = world.try_spawn_actor(bp, t)
    if car is not None:
        cars.append(car)
        actors.append(car)
rgb, qr = camera(pose, W, H)
inst, qi = camera(pose, W, H, "instance_segmentation")
world.set_weather(carla.WeatherParameters.ClearNoon)
for _ in range(8):
    frame = world.tick()
day, labels = image_of(qr, frame), image_of(qi, frame)
day.save_to_disk(os.path.join(OUT, "street-day.png"))

# What stock detectors find in it.
picture = np.ascontiguousarray(pixels(day)[:, :, :3])
drawn = picture.copy()
lab = pixels(labels)
ids = lab[:, :, 0].astype(int) * 256 + lab[:, :, 1]
for i in np.unique(ids[lab[:, :, 2] == 12]):
    ys, xs = np.nonzero((lab[:, :, 2] == 12) & (ids == i))
    cv2.rectangle(drawn, (int(xs.min()), int(ys.min())), (int(xs.max()), int(ys.max())), (0, 200, 0), 1)
hog = cv2.HOGDescriptor()
hog.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
big = cv2.resize(picture, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
for x, y, w, h in hog.detectMultiScale(big, winStride=(4, 4), padding=(16, 16), scale=1.03)[0]:
    cv2.rectangle(drawn, (x // 2, y // 2), ((x + w) // 2, (y + h) // 2), (0, 0, 255), 2)
edges = cv2.Canny(cv2.GaussianBlur(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY), (5, 5), 0), 50, 150)
mask = np.zeros_like(edges)
cv2.fillPoly(mask, np.array([[(-W * 0.3, H), (W * 0.4, H * 0.58), (W * 0.6, H * 0.58), (W * 1.3, H)]],
                            dtype=np.int32), 255)
segments = cv2.HoughLinesP(edges & mask, 1, np.pi / 180, 20, minLineLength=20, maxLineGap=100)
for x1, y1, x2, y2 in (segments if segments is not None else np.zeros((0, 1, 4), int))[:, 0]:
    if y1 != y2 and abs((y2 - y1) / (x2 - x1 + 1e-9)) > 0.4:
        cv2.line(drawn, (x1, y1), (x2, y2), (255, 120, 0), 2)
cv2.imwrite(os.path.join(OUT, "street-detected.png"), drawn)

# The same street at night: the cars' lamps on, the first one braking.
for i, car in enumerate(cars):
    lamps = carla.VehicleLightState.Position | carla.VehicleLightState.LowBeam
    car.set_light_state(carla.VehicleLightState(lamps | (carla.VehicleLightState.Brake if i == 0 else 0)))
world.set_weather(carla.WeatherParameters.ClearNight)
frame = world.tick()
image_of(qr, frame).save_to_disk(os.path.join(OUT, "street-night.png"))
image_of(qi, frame)

# A walker's skeleton on the picture: bones joined to their parents (the
# body's; get_bones lists parents first).
walker = actors[0]
close = carla.Transform(walker.get_location() + carla.Location(z=0.2) - fwd * 3.0 + right * 0.5,
                        spot.rotation)
world.set_weather(carla.WeatherParameters.ClearNoon)
near, qn = camera(close, 400, 400)
frame = world.tick()
shot = np.ascontiguousarray(pixels(image_of(qn, frame))[:, :, :3]).copy()
bones = {b.name: b.world.location for b in walker.get_bones().bone_transforms}
LINKS = [("crl_hips__C", "crl_spine__C"), ("crl_spine__C", "crl_spine01__C"), ("crl_spine01__C", "crl_neck__C"),
         ("crl_neck__C", "crl_Head__C")] + [
    (a.replace("%s", s), b.replace("%s", s)) for s in ("L", "R") for a, b in [
        ("crl_spine01__C", "crl_shoulder__%s"), ("crl_shoulder__%s", "crl_arm__%s"),
        ("crl_arm__%s", "crl_foreArm__%s"), ("crl_foreArm__%s", "crl_hand__%s"),
        ("crl_hips__C", "crl_thigh__%s"), ("crl_thigh__%s", "crl_leg__%s"), ("crl_leg__%s", "crl_foot__%s"),
        ("crl_foot__%s", "crl_toe__%s")]]
inverse = np.array(close.get_inverse_matrix())


def project(loc):
    x, y, z, _ = inverse @ np.array([loc.x, loc.y, loc.z, 1.0])
    return int(200 + 200 * y / x), int(200 - 200 * z / x)


for a, b in LINKS:
    cv2.line(shot, project(bones[a]), project(bones[b]), (0, 255, 0), 2)
for loc in bones.values():
    cv2.circle(shot, project(loc), 2, (0, 0, 255), -1)
cv2.imwrite(os.path.join(OUT, "walker-skeleton.png"), shot)

for c in (rgb, inst, near):
    c.stop()
for c in [rgb, inst, near] + actors:
    c.destroy()
settings.synchronous_mode, settings.fixed_delta_seconds = False, None
world.apply_settings(settings)
