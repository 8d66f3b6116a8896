"""Walker skeletons through the stock client: get_bones reports CARLA's
bone names (every one draw_skeleton.py draws) in world, component and
relative transforms that agree with each other; the bones projected into
a camera land on the walker the camera draws (what draw_skeleton.py shows
by hand); set_bones + show_pose raise an arm in the picture too, hide_pose
lowers it; walking moves the legs, and get_pose_from_animation freezes
that pose while the walker walks on.

Usage: python bones.py PORT"""
import math

import carla
import numpy as np
from common import end_ok, connect, check, synchronous, stop_sensors, listening_camera, frame_image

W, H = 400, 300
FOCAL = W / 2  # a 90° lens
DRAWN = """crl_hips__C crl_spine__C crl_thigh__R crl_thigh__L crl_spine01__C crl_shoulder__L
crl_neck__C crl_shoulder__R crl_arm__L crl_foreArm__L crl_hand__L crl_handThumb__L crl_handIndex__L
crl_handMiddle__L crl_handRing__L crl_handPinky__L crl_handThumb01__L crl_handThumb02__L
crl_handThumbEnd__L crl_handIndex01__L crl_handIndex02__L crl_handIndexEnd__L crl_handMiddle01__L
crl_handMiddle02__L crl_handMiddleEnd__L crl_handRing01__L crl_handRing02__L crl_handRingEnd__L
crl_handPinky01__L crl_handPinky02__L crl_handPinkyEnd__L crl_Head__C crl_eye__L crl_eye__R
crl_arm__R crl_foreArm__R crl_hand__R crl_handThumb__R crl_handIndex__R crl_handMiddle__R
crl_handRing__R crl_handPinky__R crl_handThumb01__R crl_handThumb02__R crl_handThumbEnd__R
crl_handIndex01__R crl_handIndex02__R crl_handIndexEnd__R crl_handMiddle01__R crl_handMiddle02__R
crl_handMiddleEnd__R crl_handRing01__R crl_handRing02__R crl_handRingEnd__R crl_handPinky01__R
crl_handPinky02__R crl_handPinkyEnd__R crl_leg__R crl_foot__R crl_toe__R crl_toeEnd__R crl_leg__L
crl_foot__L crl_toe__L crl_toeEnd__L""".split()

client, world = connect()
synchronous(world, 0.05)
world.set_weather(carla.WeatherParameters.ClearNoon)
bl = world.get_blueprint_library()
spot = world.get_map().get_spawn_points()[2]
yaw = spot.rotation.yaw
fwd = spot.get_forward_vector()
walker = world.spawn_actor(bl.find("walker.pedestrian.0001"),
                           carla.Transform(spot.location + carla.Location(z=1.0), carla.Rotation(yaw=yaw + 180)))
# A camera 4 m in front of the walker, looking at it.
pose = carla.Transform(spot.location - fwd * 4.0 + carla.Location(z=1.0), carla.Rotation(yaw=yaw))
cams = {kind: listening_camera(world, kind, pose, (W, H)) for kind in ("rgb", "instance_segmentation")}


def shot():
    """A tick's instance image (H x W x 4 BGRA) and the walker's bones by
    name."""
    frame = world.tick()
    images = {kind: frame_image(q, frame) for kind, (_, q) in cams.items()}
    bones = {b.name: b for b in walker.get_bones().bone_transforms}
    return images["instance_segmentation"], bones


def mask_of(labels):
    ids = labels[:, :, 0].astype(np.int64) * 256 + labels[:, :, 1]
    return (labels[:, :, 2] == 12) & (ids == (walker.id & 0xFFFF))


def pixel(loc):
    """Where a world point lands in the camera's picture (pinhole)."""
    rel = loc - pose.location
    f, r, u = pose.get_forward_vector(), pose.get_right_vector(), pose.get_up_vector()
    x, y, z = (rel.x * f.x + rel.y * f.y + rel.z * f.z, rel.x * r.x + rel.y * r.y + rel.z * r.z,
               rel.x * u.x + rel.y * u.y + rel.z * u.z)
    return W / 2 + FOCAL * y / x, H / 2 - FOCAL * z / x


for _ in range(3):
    labels, bones = shot()
check(len(bones) >= len(DRAWN), "%d bones" % len(bones))
missing = [n for n in DRAWN if n not in bones]
check(not missing, "bones draw_skeleton.py draws are missing: %s" % missing)
check("crl_root" in bones, "no crl_root")
z = lambda n: bones[n].world.location.z
check(z("crl_Head__C") > z("crl_spine01__C") > z("crl_hips__C") > z("crl_leg__L") > z("crl_foot__L"),
      "the bones do not stand head over hips over feet")
ground = world.get_map().get_waypoint(spot.location).transform.location.z
check(abs(z("crl_root") - ground) < 0.15 and 1.5 < z("crl_Head__C") - ground < 1.8,
      "root %.2f and head %.2f over ground %.2f" % (z("crl_root"), z("crl_Head__C"), ground))
# The component transform is the world's in the walker's frame.
wt = walker.get_transform()
for n in ("crl_hand__R", "crl_foot__L", "crl_Head__C"):
    c = bones[n].component.location
    back = wt.transform(carla.Location(c.x, c.y, c.z))
    check(back.distance(bones[n].world.location) < 0.02, "%s: component and world disagree" % n)
# The relative transform places a bone from its parent's: forearm to hand.
parent, child = bones["crl_foreArm__L"].world, bones["crl_hand__L"]
rel = child.relative.location
check(parent.transform(carla.Location(rel.x, rel.y, rel.z)).distance(child.world.location) < 0.02,
      "the relative transform does not lead from the forearm to the hand")

# The drawn skeleton lies on the drawn walker.
mask = mask_of(labels)
check(mask.sum() > 500, "the walker covers %d pixels" % mask.sum())
grown = mask.copy()
for dy in (-2, -1, 0, 1, 2):
    for dx in (-2, -1, 0, 1, 2):
        grown |= np.roll(np.roll(mask, dy, 0), dx, 1)
on, off = 0, []
for n in DRAWN:
    u, v = pixel(bones[n].world.location)
    if 0 <= int(v) < H and 0 <= int(u) < W and grown[int(v), int(u)]:
        on += 1
    else:
        off.append(n)
check(on >= 0.9 * len(DRAWN), "only %d of %d bones land on the walker's pixels" % (on, len(DRAWN)))
top = np.nonzero(mask.any(1))[0][0]
print("skeleton on the walker: %d of %d bones (off: %s); the walker's top row %d"
      % (on, len(DRAWN), " ".join(off), top))

# set_bones raises the left arm; show_pose shows it, hide_pose hides it.
arm = bones["crl_arm__L"].relative
raised = carla.Transform(arm.location, carla.Rotation(pitch=arm.rotation.pitch + 180, yaw=arm.rotation.yaw,
                                                      roll=arm.rotation.roll))
walker.set_bones(carla.WalkerBoneControlIn([("crl_arm__L", raised), ("no_such_bone", raised)]))
labels, bones = shot()
check(z("crl_hand__L") < z("crl_hips__C") + 0.3, "set_bones alone changed the pose")
walker.show_pose()
labels, bones = shot()
check(z("crl_hand__L") > z("crl_Head__C"), "show_pose: the hand is not raised")
raised_top = np.nonzero(mask_of(labels).any(1))[0][0]
check(raised_top < top - 8, "the raised arm is not in the picture (top row %d, was %d)" % (raised_top, top))
walker.hide_pose()
labels, bones = shot()
check(z("crl_hand__L") < z("crl_hips__C") + 0.3, "hide_pose: the hand stays raised")

# Walking swings the legs; the pose taken from the animation stays put.
walker.apply_control(carla.WalkerControl(direction=carla.Vector3D(-fwd.x, -fwd.y, 0), speed=1.4))
feet = []
for _ in range(12):
    _, bones = shot()
    feet.append(bones["crl_foot__L"].component.location.x - bones["crl_foot__R"].component.location.x)
check(max(feet) - min(feet) > 0.3, "walking does not swing the legs: %s" % feet)
walker.get_pose_from_animation()
walker.show_pose()
_, a = shot()
_, b = shot()
moved = a["crl_foot__L"].component.location.distance(b["crl_foot__L"].component.location)
check(moved < 1e-3, "the pose from the animation moves on (%.3f m)" % moved)
check(a["crl_hips__C"].world.location.distance(b["crl_hips__C"].world.location) > 0.03,
      "the walker stopped walking")

stop_sensors([c for c, _ in cams.values()])
end_ok()
