"""A classic lane pipeline on the RGB camera, through the stock client: a
camera 1.5 m up on a car driven down the middle of its lane on straight
roads, by day. Per frame: grey, blur, Canny, a trapezoid ahead, a
probabilistic Hough transform, the segments split by slope into the
lane's left and right boundary, the innermost line of each side kept. In at least 90% of the
frames both boundaries are found, and where found they lie within 10 px
of the lane marks the semantic camera shows (at rows across the lower
part of the picture).

Usage: python lanes.py PORT"""
import math

import carla
import cv2
import numpy as np
from common import end_ok, connect, check, synchronous, stop_sensors, listening_camera, frame_image

W, H = 800, 600
ROAD_LINE = 24  # CARLA 0.9.16's semantic tag
STEP = 4.0  # metres between frames
client, world = connect()
synchronous(world, 0.05)
world.set_weather(carla.WeatherParameters.ClearNoon)
m = world.get_map()
bl = world.get_blueprint_library()


def straight_ahead(wp, metres=40.0):
    """Whether the lane runs straight (within 2°) and off junctions for
    `metres` ahead of waypoint `wp`."""
    yaw = wp.transform.rotation.yaw
    for d in range(4, int(metres), 4):
        nxt = wp.next(float(d))
        if not nxt or nxt[0].is_junction or nxt[0].road_id != wp.road_id:
            return False
        if abs((nxt[0].transform.rotation.yaw - yaw + 180) % 360 - 180) > 2:
            return False
    return True


# Places to drive: driving-lane waypoints every STEP metres whose lane runs
# straight for 40 m, at most 60 frames from several roads.
spots = [wp for wp in m.generate_waypoints(STEP) if wp.lane_type == carla.LaneType.Driving
         and not wp.is_junction and straight_ahead(wp)]
spots.sort(key=lambda wp: (wp.road_id, wp.lane_id, wp.s))
spots = spots[::max(1, len(spots) // 60)][:60]
check(len(spots) >= 30, "only %d straight stretches" % len(spots))

car = world.spawn_actor(bl.find("vehicle.tesla.model3"), m.get_spawn_points()[0])
car.set_simulate_physics(False)
mount = carla.Transform(carla.Location(x=1.5, z=1.7))
cams = {kind: listening_camera(world, kind, mount, (W, H), attach_to=car)
        for kind in ("rgb", "semantic_segmentation")}

ROI = np.array([[(-W * 0.3, H), (W * 0.4, H * 0.58), (W * 0.6, H * 0.58), (W * 1.3, H)]], dtype=np.int32)
ROWS = range(int(H * 0.65), H - 10, 20)


def boundaries(bgr):
    """The lane's left and right boundary as (slope, intercept) of x in y,
    or None for one not found."""
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(cv2.GaussianBlur(grey, (5, 5), 0), 50, 150)
    mask = np.zeros_like(edges)
    cv2.fillPoly(mask, ROI, 255)
    segs = cv2.HoughLinesP(edges & mask, 1, np.pi / 180, 20, minLineLength=20, maxLineGap=100)
    sides = {"left": [], "right": []}
    for x1, y1, x2, y2 in (segs[:, 0] if segs is not None else []):
        if y1 == y2:
            continue
        k = (x2 - x1) / (y2 - y1)  # x = k·y + c
        slope = (y2 - y1) / (x2 - x1) if x2 != x1 else math.inf
        if abs(slope) < 0.4:
            continue  # level: not a lane boundary
        side = "left" if slope < 0 else "right"
        if (side == "left") != ((x1 + x2) / 2 < W / 2):
            continue
        sides[side].append((k, x1 - k * y1, math.hypot(x2 - x1, y2 - y1)))
    out = {}
    for side, lines in sides.items():
        if not lines:
            continue
        # The innermost line: the segments whose bottom end lies within
        # 40 px of the one nearest the centre (the next lane's mark is
        # further out), averaged by length.
        bottom = lambda k, c: abs(k * H + c - W / 2)
        inner = min(bottom(k, c) for k, c, _ in lines)
        lines = [(k, c, l) for k, c, l in lines if bottom(k, c) <= inner + 40]
        weight = sum(l for _, _, l in lines)
        out[side] = (sum(k * l for k, _, l in lines) / weight, sum(c * l for _, c, l in lines) / weight)
    return out


def ego_marks(labels, y):
    """The lane mark pixels of row y that bound the ego lane: no further
    from the centre than 1.4 half lanes (3.5 m lanes; the camera 1.7 m up,
    its focal length W/2), so not the next lane's marks."""
    half = 1.75 * (y - H / 2) / 1.7
    xs = np.nonzero(labels[y, :, 2] == ROAD_LINE)[0]
    return xs[np.abs(xs - W / 2) <= 1.4 * half]


both = placed = near = 0
for wp in spots:
    t = wp.transform
    car.set_transform(carla.Transform(t.location + carla.Location(z=0.1), t.rotation))
    frame = world.tick()
    img = {kind: frame_image(q, frame) for kind, (_, q) in cams.items()}
    found = boundaries(np.ascontiguousarray(img["rgb"][:, :, :3]))
    both += len(found) == 2
    for side, (k, c) in found.items():
        for y in ROWS:
            xs = ego_marks(img["semantic_segmentation"], y)
            xs = xs[xs < W / 2] if side == "left" else xs[xs >= W / 2]
            if len(xs) == 0:
                continue  # between two dashes
            placed += 1
            # Within 10 px of the mark (of its inner or outer side: a mark
            # is 10-20 px wide near the car).
            near += np.abs(xs - (k * y + c)).min() <= 10
stop_sensors([c for c, _ in cams.values()])
print("both boundaries found in %d of %d frames; found lines within 10 px of a lane mark at %d of %d rows"
      % (both, len(spots), near, placed))
check(both >= 0.9 * len(spots), "both boundaries found in %d of %d frames" % (both, len(spots)))
check(placed > 0 and near >= 0.9 * placed, "found boundaries off the lane marks")
end_ok()
