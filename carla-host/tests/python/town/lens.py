"""The RGB camera's lens and post-processing attributes, through the stock
client, each against a default camera at the same pose in the same tick:
enable_postprocess_effects smooths the edges (False leaves the hard
steps), lens_circle_multiplier darkens the corners, chromatic aberration
parts red from blue at the borders but not at the centre, and lens_k
bends the picture of every camera alike: the distorted RGB picture's
skyline follows the distorted semantic picture's, and depth and semantic
pictures distort identically; motion blur (CARLA's default) smears a
driving car's picture and leaves a standing one's; the distance blur
(blur_radius, blur_amount) blurs the far and leaves the near.

Usage: python lens.py PORT"""

import carla
import numpy as np
from common import end_ok, connect, check, synchronous, stop_sensors, listening_camera, frame_image

W, H = 400, 300
SKY = 11  # CARLA 0.9.16's semantic tag
client, world = connect()
synchronous(world, 0.05)
world.set_weather(carla.WeatherParameters.ClearNoon)
bl = world.get_blueprint_library()
spot = world.get_map().get_spawn_points()[3]
pose = carla.Transform(spot.location + carla.Location(z=1.8), spot.rotation)
cams = {}


def camera(name, kind, **attrs):
    cams[name] = listening_camera(world, kind, pose, (W, H), **attrs)


camera("rgb", "rgb")
camera("sharp", "rgb", enable_postprocess_effects=False)
camera("circle", "rgb", lens_circle_multiplier=2.0)
camera("fringe", "rgb", chromatic_aberration_intensity=5.0, chromatic_aberration_offset=0.3,
       enable_postprocess_effects=False)
camera("bent", "rgb", lens_k=-3.0, enable_postprocess_effects=False)
camera("far", "rgb", blur_radius=30.0)
camera("bent_sem", "semantic_segmentation", lens_k=-3.0)
camera("bent_depth", "depth", lens_k=-3.0)
camera("sem", "semantic_segmentation")
for _ in range(2):
    frame = world.tick()
img = {name: frame_image(q, frame)[:, :, :3].astype(int) for name, (_, q) in cams.items()}
stop_sensors([c for c, _ in cams.values()])
luma = lambda a: a @ [0.114, 0.587, 0.299]

# Smoothing: fewer hard steps between neighbours.
steps = lambda a: (np.abs(np.diff(luma(a), axis=1)) > 40).sum()
print("hard steps: default %d, without post-processing %d" % (steps(img["rgb"]), steps(img["sharp"])))
check(steps(img["rgb"]) < 0.8 * steps(img["sharp"]), "enable_postprocess_effects smooths nothing")

# The lens circle: dark corners, the centre as it was.
c = (slice(H // 2 - 20, H // 2 + 20), slice(W // 2 - 20, W // 2 + 20))
k = (slice(0, 30), slice(0, 40))
check(abs(luma(img["circle"][c]).mean() - luma(img["rgb"][c]).mean()) < 3, "the circle darkens the centre")
check(luma(img["circle"][k]).mean() < 0.5 * luma(img["rgb"][k]).mean(), "the circle leaves the corners")

# The distance blur (blur_radius 30 px at 1920 wide, half of it at
# blur_amount's 1 km): the sky and the far skyline blurred, the road at
# the camera's feet as drawn.
top, bottom = (slice(0, H // 4), slice(0, W)), (slice(H - H // 5, H), slice(0, W))
far_changed = (img["far"][top] != img["rgb"][top]).any(axis=2).mean()
print("distance blur: %.0f%% of the top quarter changed" % (100 * far_changed))
check(far_changed > 0.02, "blur_radius blurs nothing far away")
check((img["far"][bottom] == img["rgb"][bottom]).all(), "blur_radius blurs the near road")

# Chromatic aberration: red and blue apart at the borders, not within the
# offset (0.3 of the way to the corners).
def parted(a, b, part):
    return np.abs(a[part][:, :, 2] - b[part][:, :, 2]).mean() + np.abs(a[part][:, :, 0] - b[part][:, :, 0]).mean()
edge = (slice(0, H), slice(0, 40))
print("fringe: centre %.2f, border %.2f" % (parted(img["fringe"], img["sharp"], c),
                                            parted(img["fringe"], img["sharp"], edge)))
check(parted(img["fringe"], img["sharp"], c) == 0, "chromatic aberration moves the centre")
check(parted(img["fringe"], img["sharp"], edge) > 2.0, "chromatic aberration moves nothing at the border")
check((img["fringe"][c][:, :, 1] == img["sharp"][c][:, :, 1]).all(), "green moved at the centre")

# Distortion: every camera alike.
sky_sem = img["bent_sem"][:, :, 2] == SKY
check((sky_sem != (img["sem"][:, :, 2] == SKY)).sum() > 200, "lens_k does not bend the picture")
far = (img["bent_depth"] == 255).all(axis=2)
check((far == sky_sem).all(), "the bent depth and semantic pictures disagree")
# The skyline, column by column: where the semantic sky ends and where the
# RGB picture first steps sharply (the sky's own gradient is smooth).
def skyline_sem(a, x):
    rows = np.nonzero(a[:, x, 2] != SKY)[0]
    return rows[0] if len(rows) else None


def skyline_rgb(a, x):
    rows = np.nonzero(np.abs(np.diff(luma(a[:, x]))) > 12)[0]
    return rows[0] + 1 if len(rows) else None


def agree(rgb, sem):
    pairs = [(skyline_rgb(rgb, x), skyline_sem(sem, x)) for x in range(2, W - 2, 8)]
    pairs = [(r, s) for r, s in pairs if s is not None and 3 < s < H - 3]
    return sum(r is not None and abs(r - s) <= 2 for r, s in pairs), len(pairs)


# (Thin things against the sky and the far haze make a few columns
# differ; a picture bent and one not differ in most.)
for name, rgb, sem in (("pinhole", img["sharp"], img["sem"]), ("lens_k -3", img["bent"], img["bent_sem"])):
    same, n = agree(rgb, sem)
    print("%s: the RGB skyline is the semantic one in %d of %d columns" % (name, same, n))
    check(n >= 20 and same >= 0.8 * n, "%s: the RGB and semantic skylines differ" % name)
same, n = agree(img["sharp"], img["bent_sem"])
print("a pinhole RGB skyline is the bent semantic one in %d of %d columns" % (same, n))
check(same < 0.6 * n, "the skyline test cannot tell a bent picture")

# Motion blur: two cameras on a car, CARLA's default motion_blur_intensity
# and 0. Standing, their pictures are the same; driving at 15 m/s the
# default one's edges are smeared along the motion.
car = world.spawn_actor(bl.find("vehicle.tesla.model3"), world.get_map().get_spawn_points()[0])
pair = {}
mount = carla.Transform(carla.Location(x=1.5, z=1.7))
for name, attrs in (("blurred", {}), ("crisp", {"motion_blur_intensity": 0.0})):
    pair[name] = listening_camera(world, "rgb", mount, (W, H), attach_to=car, **attrs)


def shots():
    frame = world.tick()
    return {name: frame_image(q, frame)[:, :, :3].astype(int) for name, (_, q) in pair.items()}


for _ in range(3):
    standing = shots()
check((standing["blurred"] == standing["crisp"]).all(), "motion blur on a camera standing still")
car.enable_constant_velocity(carla.Vector3D(15.0, 0.0, 0.0))
for _ in range(10):
    moving = shots()
border = (slice(H // 2, H), slice(0, W // 4))
sharp = lambda a: (np.abs(np.diff(luma(a[border]), axis=1)) > 20).sum()
print("driving: hard steps at the lower left, blurred %d, crisp %d" % (sharp(moving["blurred"]),
                                                                       sharp(moving["crisp"])))
check((moving["blurred"] != moving["crisp"]).any(axis=2).mean() > 0.05, "driving, nothing is blurred")
check(sharp(moving["blurred"]) < 0.8 * sharp(moving["crisp"]), "driving, the edges are not smeared")
stop_sensors([c for c, _ in pair.values()])
end_ok()
