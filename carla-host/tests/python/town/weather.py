"""The weather lights the RGB camera's picture, through the stock client:
one camera 1.8 m up a straight street, a depth and a semantic camera
beside it, under CARLA's presets and a fog of our own. Night is far darker
than noon, clouds and rain dim the day, a sunset is warmer, rain darkens
the road, fog takes the far contrast away and leaves the near; depth and
semantic images do not change with the weather."""
import queue

import carla
import numpy as np
from common import end_ok, connect, check, synchronous, stop_sensors

W, H = 400, 300
ROADS, SKY = 1, 11  # CARLA 0.9.16's semantic tags
client, world = connect()
synchronous(world, 0.05)
bl = world.get_blueprint_library()
spot = world.get_map().get_spawn_points()[3]
pose = carla.Transform(spot.location + carla.Location(z=1.8), spot.rotation)
cams = {}
for kind in ("rgb", "depth", "semantic_segmentation"):
    bp = bl.find("sensor.camera." + kind)
    bp.set_attribute("image_size_x", str(W))
    bp.set_attribute("image_size_y", str(H))
    cam = world.spawn_actor(bp, pose)
    q = queue.Queue()
    cam.listen(q.put)
    cams[kind] = (cam, q)


def shoot(weather):
    """The three images of one tick under `weather` (BGRA arrays)."""
    world.set_weather(weather)
    frame = world.tick()
    out = {}
    for kind, (_, q) in cams.items():
        while True:
            img = q.get(timeout=10.0)
            if img.frame == frame:
                break
        out[kind] = np.frombuffer(img.raw_data, dtype=np.uint8).reshape(H, W, 4).copy()
    return out


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

fog = P.ClearNoon
fog.fog_density, fog.fog_distance = 90.0, 10.0
shots = {"ClearNoon": clear}
for name in ("CloudyNoon", "HardRainNoon", "ClearSunset", "ClearNight", "WetNight"):
    shots[name] = shoot(getattr(P, name))
shots["fog 90 from 10 m"] = shoot(fog)

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
check(st["HardRainNoon"]["road"] < 0.8 * noon["road"], "rain darkens the road: %s" % st["HardRainNoon"])
check(st["ClearSunset"]["warmth"] > noon["warmth"] + 0.03, "a sunset is warmer: %s" % st["ClearSunset"])
fogged = st["fog 90 from 10 m"]
check(fogged["far_contrast"] < 0.3 * noon["far_contrast"], "fog takes the far contrast: %s" % fogged)
check(fogged["near_contrast"] > 0.6 * noon["near_contrast"], "fog leaves the near: %s" % fogged)
stop_sensors([c for c, _ in cams.values()])
end_ok()
