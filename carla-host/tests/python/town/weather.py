"""The weather lights the RGB camera's picture, through the stock client:
one camera 1.8 m up a straight street, a depth and a semantic camera
beside it, under CARLA's presets and a fog of our own. Night is far darker
than noon, clouds and rain dim the day, a sunset is warmer, wetness
darkens the road, fog takes the far contrast away and leaves the near; depth and
semantic images do not change with the weather. At noon the buildings'
shadows split the near road into a dark and a lit part. The RGB camera's
exposure_compensation and gamma attributes change its levels.

Usage: python weather.py PORT [low]   (low: the server runs with
--quality-level low, and the near road has no shadows)"""
import sys

import carla
import numpy as np
from common import end_ok, connect, check, synchronous, stop_sensors, listening_camera, frame_image

W, H = 400, 300
ROADS, SKY = 1, 11  # CARLA 0.9.16's semantic tags
client, world = connect()
synchronous(world, 0.05)
bl = world.get_blueprint_library()
spot = world.get_map().get_spawn_points()[3]
pose = carla.Transform(spot.location + carla.Location(z=1.8), spot.rotation)


def camera(kind, **attrs):
    """A W x H camera of `kind` at `pose` with `attrs`, and its queue."""
    return listening_camera(world, kind, pose, (W, H), **attrs)


cams = {kind: camera(kind) for kind in ("rgb", "depth", "semantic_segmentation")}


def shoot(weather):
    """The three images of one tick under `weather` (BGRA arrays)."""
    world.set_weather(weather)
    frame = world.tick()
    return {kind: frame_image(q, frame) for kind, (_, q) in cams.items()}


FIELDS = ("cloudiness", "precipitation", "precipitation_deposits", "wind_intensity",
          "sun_azimuth_angle", "sun_altitude_angle", "fog_density", "fog_distance", "fog_falloff",
          "wetness", "scattering_intensity", "mie_scattering_scale", "rayleigh_scattering_scale",
          "dust_storm")


def like(preset, **changes):
    """A new carla.WeatherParameters: `preset` with `changes` (the presets
    are shared objects: setting a field of one changes it for all)."""
    fields = {k: getattr(preset, k) for k in FIELDS}
    fields.update(changes)
    return carla.WeatherParameters(**fields)


def luma(bgra):
    return bgra[:, :, 2] * 0.299 + bgra[:, :, 1] * 0.587 + bgra[:, :, 0] * 0.114


P = carla.WeatherParameters
clear = shoot(P.ClearNoon)
depth = clear["depth"][:, :, :3].astype(np.float64)
metres = (depth[:, :, 2] + depth[:, :, 1] * 256 + depth[:, :, 0] * 65536) / (256 ** 3 - 1) * 1000
tags = clear["semantic_segmentation"][:, :, 2]
road = tags == ROADS
far = (metres > 60) & (metres < 900) & (tags != SKY)
near = metres < 15
check(road.sum() > 5000 and far.sum() > 2000 and near.sum() > 5000,
      "the view has road, far and near pixels: %d %d %d" % (road.sum(), far.sum(), near.sum()))

# The sun's shadows: against the same view with the sun overhead (whose
# shadows lie under things), the road pixels a building shades at 45° lose
# more than half their light; the lit ones only what the lower sun gives
# a flat road less (about a sixth).
high = shoot(like(P.ClearNoon, sun_altitude_angle=90.0))
y45, y90 = luma(clear["rgb"].astype(np.float64)), luma(high["rgb"].astype(np.float64))
ratio = y45[road] / np.maximum(y90[road], 1.0)
shaded, lit = ratio < 0.6, ratio > 0.75
print("road under a 45° sun against an overhead one: %.0f%% shaded, %.0f%% lit; "
      "mean luminance shaded %.1f, lit %.1f" % (100 * shaded.mean(), 100 * lit.mean(),
                                               y45[road][shaded].mean() if shaded.any() else -1,
                                               y45[road][lit].mean() if lit.any() else -1))
if sys.argv[2:] == ["low"]:
    check(shaded.mean() < 0.01, "no shadows at --quality-level low: %.3f" % shaded.mean())
    stop_sensors([c for c, _ in cams.values()])
    end_ok()
check(shaded.mean() > 0.05 and lit.mean() > 0.02, "shaded and lit road: %.3f %.3f" % (
    shaded.mean(), lit.mean()))
check(y45[road][shaded].mean() < 0.7 * y45[road][lit].mean(), "a shadowed patch of road is darker")

shots = {"ClearNoon": clear}
for name in ("CloudyNoon", "HardRainNoon", "ClearSunset", "ClearNight", "WetNight"):
    shots[name] = shoot(getattr(P, name))
shots["fog 90 from 10 m"] = shoot(like(P.ClearNoon, fog_density=90.0, fog_distance=10.0))
shots["ClearNoon, wetness 100"] = shoot(like(P.ClearNoon, wetness=100.0))

stats = {}
for name, s in shots.items():
    rgb, y = s["rgb"].astype(np.float64), luma(s["rgb"].astype(np.float64))
    stats[name] = dict(
        mean=y.mean(), road=y[road].mean(), far_contrast=y[far].std(), near_contrast=y[near].std(),
        warmth=rgb[:, :, 2].mean() / max(rgb[:, :, 0].mean(), 1e-6))
    print("%-18s mean %6.1f road %6.1f far contrast %5.1f near contrast %5.1f R/B %.3f" % (
        name, stats[name]["mean"], stats[name]["road"], stats[name]["far_contrast"],
        stats[name]["near_contrast"], stats[name]["warmth"]))
    # Depth and semantic images are the weather's to keep.
    check((s["depth"] == clear["depth"]).all(), "%s: the depth image is ClearNoon's" % name)
    check((s["semantic_segmentation"] == clear["semantic_segmentation"]).all(),
          "%s: the semantic image is ClearNoon's" % name)

noon, st = stats["ClearNoon"], stats
check(st["ClearNight"]["mean"] < 0.15 * noon["mean"], "night is dark: %s" % st["ClearNight"])
check(st["WetNight"]["mean"] < 0.15 * noon["mean"], "a wet night is dark: %s" % st["WetNight"])
check(st["CloudyNoon"]["mean"] < 0.92 * noon["mean"], "clouds dim the day: %s" % st["CloudyNoon"])
check(st["HardRainNoon"]["mean"] < 0.9 * st["CloudyNoon"]["mean"],
      "hard rain is darker than clouds: %s" % st["HardRainNoon"])
wet = st["ClearNoon, wetness 100"]
check(wet["road"] < 0.7 * noon["road"], "a wet road is darker: %s" % wet)
check(st["ClearSunset"]["warmth"] > noon["warmth"] + 0.03, "a sunset is warmer: %s" % st["ClearSunset"])
fogged = st["fog 90 from 10 m"]
check(fogged["far_contrast"] < 0.3 * noon["far_contrast"], "fog takes the far contrast: %s" % fogged)
check(fogged["near_contrast"] > 0.6 * noon["near_contrast"], "fog leaves the near: %s" % fogged)

# The RGB camera's gamma and exposure_compensation, as CARLA documents
# them: one stop more is twice the light, gamma 1 darkens the middle
# tones; CARLA's defaults leave the picture as drawn.
toned = {name: camera("rgb", **attrs) for name, attrs in (
    ("default", {}), ("exposure +1", {"exposure_compensation": 1.0}),
    ("exposure -1", {"exposure_compensation": -1.0}), ("gamma 1", {"gamma": 1.0}))}
world.set_weather(P.ClearNoon)
frame = world.tick()
means = {}
for name, (cam, q) in toned.items():
    a = frame_image(q, frame)[:, :, :3].astype(np.float64)
    means[name] = a.mean()
    if name == "default":
        check((a == clear["rgb"][:, :, :3]).all(), "CARLA's defaults leave the picture as drawn")
print("RGB means by camera attributes: %s" % {k: round(v, 1) for k, v in means.items()})
check(means["exposure +1"] > 1.25 * means["default"], "one stop more is brighter: %s" % means)
check(means["exposure -1"] < 0.8 * means["default"], "one stop less is darker: %s" % means)
check(means["gamma 1"] < 0.7 * means["default"], "gamma 1 darkens the middle tones: %s" % means)
stop_sensors([c for c, _ in list(cams.values()) + list(toned.values())])
end_ok()
