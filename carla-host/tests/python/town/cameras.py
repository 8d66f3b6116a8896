"""The cameras manual_control.py offers beyond rgb/depth/segmentation:
normals, optical flow, DVS events and the Cosmos visualization, decoded by
the stock client, on a car driving down a straight road towards a parked
car, and an RGB camera's G-buffer textures (listen_to_gbuffer, as
tutorial_gbuffer.py); then a collision with the town's static geometry
names what was hit as CARLA does (id 0, "static.<tag>")."""
import time

import carla
import numpy as np
from common import end_ok, connect, check, synchronous, asynchronous, stop_sensors, car_and_parked_car

W, H = 160, 120
client, world = connect()
synchronous(world, 0.05)
bl = world.get_blueprint_library()
m = world.get_map()

car, parked = car_and_parked_car(world, 15.0)
world.tick()

data = {}


def attach(bp_id, **attrs):
    bp = bl.find(bp_id)
    for k, v in dict(image_size_x=W, image_size_y=H, **attrs).items():
        bp.set_attribute(k, str(v))
    s = world.spawn_actor(bp, carla.Transform(carla.Location(x=1.5, z=1.4)), attach_to=car)
    data[bp_id] = []
    s.listen(lambda d, k=bp_id: data[k].append(d))
    return s


sensors = [attach(b) for b in (
    "sensor.camera.normals",
    "sensor.camera.optical_flow",
    "sensor.camera.dvs",
    "sensor.camera.cosmos_visualization",
    "sensor.camera.rgb",
)]
rgb = sensors[-1]
rgb.enable_gbuffers(True)
textures = {}
for name in ("SceneColor", "SceneDepth", "GBufferA", "CustomStencil", "GBufferB"):
    textures[name] = []
    rgb.listen_to_gbuffer(getattr(carla.GBufferTextureID, name),
                          lambda d, k=name: textures[k].append(d))
car.apply_control(carla.VehicleControl(throttle=0.6))
for _ in range(30):
    world.tick()
speed = car.get_velocity().length()
car.apply_control(carla.VehicleControl(brake=1.0))
frame = world.tick()
# The frame's data went out before the tick's answer; the client's stream
# threads may still be delivering it.
streams = [v for k, v in data.items() if k != "sensor.camera.dvs"]
streams += [v for k, v in textures.items() if k != "GBufferB"]
for _ in range(1000):
    if all(any(i.frame >= frame for i in v) for v in streams):
        break
    time.sleep(0.01)
check(speed > 2.0, "the car drives (%.1f m/s)" % speed)


def last(key):
    items = data[key]
    check(items, "%s sent data" % key)
    check(all(i.frame >= 0 and i.timestamp > 0 for i in items), "%s frames and times" % key)
    return items[-1]


def bgra(img, x, y):
    i = (y * img.width + x) * 4
    return tuple(img.raw_data[i:i + 4])


# Normals: world normals, [-1, 1] -> [0, 255]; the road is z-up.
n = last("sensor.camera.normals")
check((n.width, n.height) == (W, H), "normals image size")
road = bgra(n, W // 2, H - 2)
check(road == (255, 128, 128, 255), "road normal z up (B 255, G/R 128): %s" % (road,))
kinds = {bgra(n, x, y) for x in range(0, W, 4) for y in range(0, H, 4)}
check(len(kinds) >= 3, "several surface orientations: %s" % kinds)

# Optical flow: driving forward, the road flows out of the image's centre:
# down-left on the left, down-right on the right (x right, y up).
f = last("sensor.camera.optical_flow")
check((f.width, f.height) == (W, H) and len(f) == W * H, "flow image size")
left, right = f[(H - 3) * W + 10], f[(H - 3) * W + W - 11]
check(left.x < 0 and left.y < 0, "left road pixel flows down-left: %.4f %.4f" % (left.x, left.y))
check(right.x > 0 and right.y < 0, "right road pixel flows down-right: %.4f %.4f" % (right.x, right.y))
coded = f.get_color_coded_flow()
check(len(coded.raw_data) == W * H * 4, "colour-coded flow decodes")

# DVS: events between consecutive ticks, both polarities, inside the image.
events = [e for d in data["sensor.camera.dvs"] for e in d]
check(len(events) > 100, "DVS events (%d)" % len(events))
check(all(0 <= e.x < W and 0 <= e.y < H for e in events), "events inside the image")
check({e.pol for e in events} == {True, False}, "both polarities")
d = data["sensor.camera.dvs"][-1]
ts = [e.t for e in d]
check(ts == sorted(ts), "events sorted by time")
check(d.timestamp * 1e9 - 0.05e9 - 1e3 <= ts[0] and ts[-1] <= d.timestamp * 1e9 + 1e3,
      "events within the last tick: %d..%d at %.3f s" % (ts[0], ts[-1], d.timestamp))

# Cosmos visualization: the parked car ahead is red, the road blue.
c = last("sensor.camera.cosmos_visualization")
cols = {bgra(c, x, y) for x in range(0, W, 2) for y in range(0, H, 2)}
check((0, 0, 255, 255) in cols, "a red car in the Cosmos view")
check((221, 103, 56, 255) in cols, "the lanes' blue in the Cosmos view")

parked.destroy()

# G-buffers: the RGB camera's SceneColor is its image, GBufferA the world
# normals (the normals camera sits on the same mount); each of the frame.
def of_frame(items, f):
    got = [i for i in items if i.frame == f]
    check(got, "an item of frame %d (got %s)" % (f, sorted({i.frame for i in items})))
    return got[0]


f = data["sensor.camera.rgb"][-1].frame
for k in ("SceneColor", "SceneDepth", "GBufferA", "CustomStencil"):
    check(textures[k], "G-buffer %s received" % k)
color = of_frame(textures["SceneColor"], f)
# SceneColor is the picture before post-processing (as CARLA's): the
# same but on the edges the default camera smooths.
scene = np.frombuffer(color.raw_data, dtype=np.uint8).reshape(H, W, 4).astype(int)
final = np.frombuffer(data["sensor.camera.rgb"][-1].raw_data, dtype=np.uint8).reshape(H, W, 4).astype(int)
same = (scene == final).all(axis=2)
check(same.mean() > 0.6, "SceneColor is the image on %.0f%% of pixels only" % (100 * same.mean()))
steps = np.zeros((H, W), bool)
luma = scene[:, :, :3] @ [0.25, 0.5, 0.25]
steps[:, 1:] |= np.abs(np.diff(luma, axis=1)) >= 13
steps[:, :-1] |= np.abs(np.diff(luma, axis=1)) >= 13
steps[1:, :] |= np.abs(np.diff(luma, axis=0)) >= 13
steps[:-1, :] |= np.abs(np.diff(luma, axis=0)) >= 13
check(not (~same & ~steps).any(), "SceneColor differs from the image off its edges")
check(bytes(of_frame(textures["GBufferA"], f).raw_data) == bytes(of_frame(data["sensor.camera.normals"], f).raw_data),
      "GBufferA holds the world normals")
stencil = of_frame(textures["CustomStencil"], f)
check({stencil.raw_data[i * 4] for i in range(W * H)} >= {0, 14}, "custom stencil: the parked car (14), else 0")
check(not textures["GBufferB"], "a texture the world does not render never arrives")
check(rgb.is_listening_gbuffer(carla.GBufferTextureID.GBufferA), "listening")
rgb.stop_gbuffer(carla.GBufferTextureID.GBufferA)
stop_sensors(sensors)
sensors = []

# Static geometry: drive across the sidewalk into the town's buildings.
hits = []
col = world.spawn_actor(bl.find("sensor.other.collision"), carla.Transform(), attach_to=car)
col.listen(hits.append)
t = car.get_transform()
t.rotation.yaw += 90.0
car.set_transform(t)
car.apply_control(carla.VehicleControl(throttle=1.0))
for _ in range(200):
    world.tick()
    if hits:
        break
world.tick()
check(hits, "a collision with the town")
o = hits[0].other_actor
if o.id == 0:
    check(o.type_id.startswith("static."), "level geometry is 'static.<tag>' as in CARLA: %s" % o.type_id)
else:
    # A light's pole or a sign's post: part of that actor, as in CARLA.
    check(o.type_id.startswith("traffic.") and world.get_actor(o.id) is not None,
          "a pole hit is its light's or sign's actor: %d %s" % (o.id, o.type_id))
stop_sensors([col])
car.destroy()
world.tick()

# A traffic light's pole is part of that light, a sign's post of that
# sign: props with real ids the client can look up, as in CARLA.
signs = world.get_actors().filter("traffic.speed_limit.*")
check(len(signs) == 4 and all(s.semantic_tags == [8] for s in signs), "the town's speed-limit signs")
light = world.get_actors().filter("traffic.traffic_light")[0]
p = light.get_location()
car = world.spawn_actor(bl.find("vehicle.tesla.model3"),
                        carla.Transform(carla.Location(p.x - 7.0, p.y, 0.3), carla.Rotation(yaw=0.0)))
hits = []
col = world.spawn_actor(bl.find("sensor.other.collision"), carla.Transform(), attach_to=car)
col.listen(hits.append)
car.apply_control(carla.VehicleControl(throttle=0.7))
for _ in range(100):
    world.tick()
    if hits:
        break
stop_sensors([col])
check(hits and hits[0].other_actor.id == light.id and hits[0].other_actor.type_id == "traffic.traffic_light",
      "a collision with a light's pole names the light: %s" % [(h.other_actor.id, h.other_actor.type_id) for h in hits[:1]])
car.destroy()
world.tick()
asynchronous(world)
end_ok()
