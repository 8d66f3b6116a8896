"""What the map scripts share: lane-centre and box geometry over the
client's map, a route planner over the client's lane graph, and a driver
(a Stanley steer law and a speed PID) that keeps its distance to what is
ahead and stops for lights that are not green, as an agent written over
CARLA's client API does (CARLA's agents and ScenarioRunner read for their
behaviour only). Written for these tests; only the stock `carla` client
and the standard library."""
import faulthandler
import math
import os
import random
import socket
import sys
import time

import carla

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "town"))
from common import check  # noqa: E402,F401  (the town scripts' helper, for the map scripts)

DRIVING = carla.LaneType.Driving
# The steer law's gains: the cross-track gain (1/s), and how far ahead of
# the front axle the route's heading is taken (m, and s of speed).
STANLEY_K, STEER_AHEAD, STEER_AHEAD_GAIN = 2.0, 1.0, 0.2
# A crash in the client (a segmentation fault seen once in CI, 2 s into
# route.py, with no output) prints where Python was.
faulthandler.enable()
TICK_LIMIT = 60.0  # seconds one world.tick() may take before the run is called hung
# Seconds a tick waits before it is sent: the stock Traffic Manager's worker
# asks the server for the episode settings after each step and only then
# waits for the next step's signal, which the main thread sends without the
# worker's lock; when the signal lands in between, both wait for ever
# (docs/compatibility.md). With this server's quick answers the two came
# together in 7 of 18 route.py runs; 2 ms first: 1 of 10; 5 ms: 0 of 10.
TM_HEADSTART = 0.005


def ticker(world):
    """world.tick, watched: a tick that has not returned within TICK_LIMIT s
    ends the process with Python's stack dump ("Timeout (0:01:00)!"). In
    synchronous mode the server answers a tick in milliseconds; what hangs
    is the stock Traffic Manager's SynchronousTick (a lost wake-up,
    docs/compatibility.md), and the harness tries such a run once more."""
    faulthandler.enable()

    def tick():
        time.sleep(TM_HEADSTART)
        faulthandler.dump_traceback_later(TICK_LIMIT, exit=True)
        try:
            return world.tick()
        finally:
            faulthandler.cancel_dump_traceback_later()
    return tick


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------ geometry


def lane_centre(m, loc, wp=None):
    """The point of the client's lane centre line nearest `loc`, on the lane
    of `wp` (default: get_waypoint(loc)), as a waypoint.

    get_waypoint's own answer lies on the lane's centre line but up to a few
    decimetres along it from the nearest point on curves (LibCarla finds it
    between samples of the lane); next()/previous() by the distance along
    the lane to `loc` take it to the foot of the perpendicular. They count
    the road's reference line, which on a curve is longer or shorter than a
    lane away from it, so each step is scaled by how far the last one went."""
    best = wp if wp is not None else m.get_waypoint(loc)
    if best is None:
        return None

    def along_of(w):
        t = w.transform
        f = t.get_forward_vector()
        return (loc.x - t.location.x) * f.x + (loc.y - t.location.y) * f.y

    scale = 1.0
    along = along_of(best)
    for _ in range(12):
        if abs(along) < 0.002:
            break
        move = along * scale
        ahead = best.next(move) if move > 0 else best.previous(-move)
        if not ahead:
            break
        best = min(ahead, key=lambda w: w.transform.location.distance(loc))
        gone, along = along - along_of(best), along_of(best)
        if abs(gone) > 1e-4 and 0.2 < move / gone < 5.0:
            scale = move / gone
    return best


def offsets(loc, wp):
    """(|dx|, |dy|, |dz|) from waypoint `wp`'s location to `loc`."""
    p = wp.transform.location
    return abs(loc.x - p.x), abs(loc.y - p.y), abs(loc.z - p.z)


def corners(transform, box):
    """A bounding box's four corners in the ground plane (world x, y)."""
    yaw = math.radians(transform.rotation.yaw)
    c, s = math.cos(yaw), math.sin(yaw)
    # (transform() moves the point it is given in place: a copy)
    centre = transform.transform(carla.Location(box.location.x, box.location.y, box.location.z))
    ex, ey = box.extent.x, box.extent.y
    return [(centre.x + c * dx - s * dy, centre.y + s * dx + c * dy)
            for dx, dy in ((ex, ey), (-ex, ey), (-ex, -ey), (ex, -ey))], centre


def overlap_depth(a, b):
    """How far two convex quads (corner lists) overlap, metres (separating
    axes; 0 when they are apart or touch)."""
    depth = math.inf
    for quad in (a, b):
        for i in range(2):
            (x0, y0), (x1, y1) = quad[i], quad[i + 1]
            nx, ny = y0 - y1, x1 - x0
            n = math.hypot(nx, ny)
            nx, ny = nx / n, ny / n
            pa = [x * nx + y * ny for x, y in a]
            pb = [x * nx + y * ny for x, y in b]
            d = min(max(pa), max(pb)) - max(min(pa), min(pb))
            if d <= 0:
                return 0.0
            depth = min(depth, d)
    return depth


def across(wp):
    """The lanes of `wp`'s road section at its s, by get_left_lane and
    get_right_lane from it."""
    lanes, todo, seen = [], [wp], {wp.lane_id}
    while todo and len(lanes) < 24:
        w = todo.pop()
        lanes.append(w)
        for n in (w.get_left_lane(), w.get_right_lane()):
            if n is not None and n.lane_id not in seen and n.lane_id != 0:
                seen.add(n.lane_id)
                todo.append(n)
    return lanes


BOUNDARY = 0.01  # metres: a point this near a lane's edge counts as on it


def placement(m, loc):
    """[(waypoint, metres outside it)] for the lanes across the road whose
    centre line is nearest `loc`, by the lanes' centres and widths in the
    client's map (0: inside), nearest first."""
    near = m.get_waypoint(loc, project_to_road=True, lane_type=carla.LaneType.Any)
    if near is None:
        return []
    c = lane_centre(m, loc, near)
    t = c.transform
    f = t.get_forward_vector()
    rx, ry = -f.y, f.x  # to the right
    lateral = (loc.x - t.location.x) * rx + (loc.y - t.location.y) * ry
    out = []
    for w in across(c):
        p = w.transform.location
        centre = (p.x - t.location.x) * rx + (p.y - t.location.y) * ry
        inside = abs(lateral - centre) - w.lane_width / 2  # < 0 inside
        out.append((inside, w))
    out.sort(key=lambda e: e[0])
    return [(w, max(d, 0.0)) for d, w in out]


def outside(m, loc, lane_type):
    """How far `loc` lies outside the nearest lane of `lane_type` across
    its road (metres; 0 inside, None when the road has none)."""
    return next((d for w, d in placement(m, loc) if w.lane_type == lane_type), None)


def on_lane(m, loc, lane_type):
    """Whether `loc` is on a lane of `lane_type` per the client's map.

    get_waypoint(loc, project_to_road=False, lane_type=...) tests the point
    against the lane whose centre it finds nearest (its search runs between
    samples of the lane) and so, within a few millimetres of the edge
    between two lanes (a car changing lanes, a walker at a sidewalk's inner
    edge), answers for the wrong one. When it says no, the point is placed
    among the lanes across the road by their centres and widths; on the
    lane's edge within BOUNDARY counts as on it."""
    if m.get_waypoint(loc, project_to_road=False, lane_type=lane_type) is not None:
        return True
    d = outside(m, loc, lane_type)
    if d is not None and d <= BOUNDARY:
        return True
    # Where roads overlap (Town07's rural roads run beside each other), the
    # client's get_waypoint may answer with another road's lane than the
    # one that holds the point, even when asked for the nearest lane of
    # this type: the lanes of this type it finds from points around, each
    # measured from the foot of its centre line.
    seen = set()
    for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (2, 0), (-2, 0), (0, 2), (0, -2)):
        near = m.get_waypoint(carla.Location(loc.x + dx, loc.y + dy, loc.z),
                              project_to_road=True, lane_type=lane_type)
        if near is None or (near.road_id, near.section_id, near.lane_id) in seen:
            continue
        seen.add((near.road_id, near.section_id, near.lane_id))
        c = lane_centre(m, loc, near)
        t = c.transform
        f = t.get_forward_vector()
        ex, ey = loc.x - t.location.x, loc.y - t.location.y
        along, lateral = ex * f.x + ey * f.y, -ex * f.y + ey * f.x
        if abs(along) < 0.05 and abs(lateral) <= c.lane_width / 2 + BOUNDARY:
            return True
    return False


def on_driving_lane(m, loc):
    return on_lane(m, loc, DRIVING)


# -------------------------------------------------------------- routes


def lane_key(wp):
    return (wp.road_id, wp.section_id, wp.lane_id)


class LaneGraph:
    """The client's driving lane segments (get_topology) and which follows
    which (next() from each segment's end)."""

    def __init__(self, m):
        self.segments = []  # (entry, exit)
        by_key = {}
        for entry, exit_ in m.get_topology():
            if entry.lane_type != DRIVING:
                continue
            by_key.setdefault(lane_key(entry), len(self.segments))
            self.segments.append((entry, exit_))
        self.by_key = by_key
        self._lengths = {}
        self.successors = []
        for entry, exit_ in self.segments:
            nxt = []
            for w in exit_.next(1.0):
                j = by_key.get(lane_key(w))
                if j is not None and j not in nxt:
                    nxt.append(j)
            self.successors.append(nxt)

    def length(self, i):
        """Metres from the segment's entry to its lane's end."""
        if i not in self._lengths:
            entry, exit_ = self.segments[i]
            wps = [entry] + entry.next_until_lane_end(1.0)
            self._lengths[i] = max(route_length(wps), 0.1)
        return self._lengths[i]

    def segment_of(self, wp):
        return self.by_key.get(lane_key(wp))

    def walk(self, start, min_length, min_junctions, seed):
        """A route of segments from segment `start`, choosing among the ways
        on at random (seeded) but never into a segment it used already,
        until it is at least `min_length` m long and has passed through
        junctions `min_junctions` times; None when the graph runs out."""
        rng = random.Random(seed)
        for _ in range(200):
            path, used, length, passes = [start], {start}, 0.0, 0
            while True:
                i = path[-1]
                if len(path) > 1:
                    length += self.length(i)
                    passes += self.segments[i][0].is_junction
                if length >= min_length and passes >= min_junctions:
                    return path
                ways = [j for j in self.successors[i] if j not in used]
                if not ways:
                    break
                j = rng.choice(ways)
                path.append(j)
                used.add(j)
        return None

    def waypoints(self, path, first, step=2.0):
        """The route's waypoints `step` m apart, from waypoint `first` (on
        the first segment) along each segment in turn."""
        out = [first]
        for k, i in enumerate(path):
            key = lane_key(self.segments[i][0])
            nxt_key = lane_key(self.segments[path[k + 1]][0]) if k + 1 < len(path) else None
            while True:
                ahead = out[-1].next(step)
                if not ahead:
                    return out
                same = [w for w in ahead if lane_key(w) == key]
                if same:
                    out.append(same[0])
                    continue
                into = [w for w in ahead if lane_key(w) == nxt_key]
                if nxt_key is not None and into:
                    out.append(into[0])
                break
        return out


def route_length(wps):
    return sum(a.transform.location.distance(b.transform.location) for a, b in zip(wps, wps[1:]))


# -------------------------------------------------------------- driver


def _project(p, q, x, y):
    """Segment p-q against the point (x, y): (its length, metres along it
    of its point nearest (x, y), the distance to that point); None for a
    segment of no length."""
    dx, dy = q.x - p.x, q.y - p.y
    n = math.hypot(dx, dy)
    if n < 1e-6:
        return None
    u = max(0.0, min(n, ((x - p.x) * dx + (y - p.y) * dy) / n))
    return n, u, math.hypot(x - p.x - dx * u / n, y - p.y - dy * u / n)


class Driver:
    """Follows a list of waypoints: a Stanley law for the steer, a PID on
    speed for throttle and brake. It slows in curves, keeps its distance to
    vehicles and walkers on its way ahead (and yields to those about to
    cross it), and stops while the world says it is at a light that is not
    green (is_at_traffic_light)."""

    WHEELBASE = 2.9
    MAX_WHEEL = math.radians(70.0)  # the steer angle at full lock

    def __init__(self, vehicle, route, cruise=8.0, lights=True):
        self.v = vehicle
        self.route = route
        self.points = [w.transform.location for w in route]
        self.cruise = cruise
        self.lights = lights
        self.i = 0
        self.integral = 0.0
        self.last_err = 0.0
        self.half_length = vehicle.bounding_box.extent.x
        self.stopped_for = None  # why it last braked: "light", "vehicle", None
        self.lateral = 0.0  # metres from the route, last tick

    def done(self, loc, tol=3.0):
        return self.i >= len(self.points) - 2 and loc.distance(self.points[-1]) < tol

    def _advance(self, loc):
        # The first route point ahead of the car (not behind it).
        while self.i < len(self.points) - 1:
            p, q = self.points[self.i], self.points[self.i + 1]
            dx, dy = q.x - p.x, q.y - p.y
            if (loc.x - q.x) * dx + (loc.y - q.y) * dy > 0 or loc.distance(p) < 1.0:
                self.i += 1
            else:
                break

    def _nearest(self, x, y):
        """(segment, metres along it, signed distance to its left) of the
        route point nearest (x, y), near the car's place on the route."""
        best = None
        for k in range(max(self.i - 3, 0), min(self.i + 6, len(self.points) - 1)):
            p, q = self.points[k], self.points[k + 1]
            seg = _project(p, q, x, y)
            if seg is None:
                continue
            n, u, d = seg
            if best is None or d < best[0]:
                # CARLA's y runs to the right of x: a positive cross product
                # of the way on and the offset puts the point on the right.
                side = ((q.x - p.x) * (y - p.y) - (q.y - p.y) * (x - p.x)) / n
                best = (d, k, u, -side)
        if best is None:
            return max(min(self.i, len(self.points) - 2), 0), 0.0, 0.0
        return best[1], best[2], best[3]

    def _point_along(self, seg, u, dist):
        """The route point `dist` m on from metre `u` of segment `seg`."""
        k = seg
        left = dist + u
        while k < len(self.points) - 1:
            p, q = self.points[k], self.points[k + 1]
            n = p.distance(q)
            if left <= n or k == len(self.points) - 2:
                f = min(left / n, 1.0) if n > 1e-6 else 0.0
                return (p.x + (q.x - p.x) * f, p.y + (q.y - p.y) * f)
            left -= n
            k += 1
        last = self.points[-1]
        return (last.x, last.y)

    def _lateral(self, loc):
        """Metres from the route's polyline near the car."""
        best = math.inf
        for k in range(max(self.i - 3, 0), min(self.i + 3, len(self.points) - 1)):
            seg = _project(self.points[k], self.points[k + 1], loc.x, loc.y)
            if seg is not None:
                best = min(best, seg[2])
        return best

    def _curve_speed(self, horizon):
        """The most speed for the curves within `horizon` route points:
        lateral acceleration at most 2.5 m/s^2."""
        worst = self.cruise
        pts = self.points
        for k in range(self.i, min(self.i + horizon, len(pts) - 4)):
            a, b, c = pts[k], pts[k + 2], pts[k + 4]
            h1 = math.atan2(b.y - a.y, b.x - a.x)
            h2 = math.atan2(c.y - b.y, c.x - b.x)
            turn = abs(math.atan2(math.sin(h2 - h1), math.cos(h2 - h1)))
            dist = a.distance(b) + b.distance(c)
            if turn > 1e-3 and dist > 0:
                radius = dist / turn
                worst = min(worst, math.sqrt(2.5 * radius))
        return max(worst, 3.0)

    def _gap_ahead(self, snap, loc, others, speed):
        """Metres of free way ahead along the route (None: clear), from the
        others' boxes in the snapshot, now and where their velocity takes
        them within 2 s."""
        corridor = 1.6
        look = 8.0 + 2.5 * speed
        best = None
        pts = self.points
        segs = []
        travelled = 0.0
        prev = loc
        k = self.i
        while k < len(pts) and travelled < look:
            travelled += prev.distance(pts[k])
            segs.append((prev, pts[k], travelled))
            prev = pts[k]
            k += 1
        if not segs:
            return None
        for actor_id, box in others.items():
            a = snap.find(actor_id)
            if a is None:
                continue
            t = a.get_transform()
            centre = t.location
            if centre.distance(loc) > look + 10.0:
                continue
            vel = a.get_velocity()
            width = box.extent.y
            for dt in (0.0, 0.5, 1.0, 1.5, 2.0):
                p = carla.Location(centre.x + vel.x * dt, centre.y + vel.y * dt, centre.z)
                for s0, s1, along_end in segs:
                    dx, dy = s1.x - s0.x, s1.y - s0.y
                    seg = math.hypot(dx, dy)
                    if seg < 1e-6:
                        continue
                    u = ((p.x - s0.x) * dx + (p.y - s0.y) * dy) / seg
                    if u < -1.0 or u > seg + 1.0:
                        continue
                    lateral = abs((p.x - s0.x) * dy - (p.y - s0.y) * dx) / seg
                    if abs(p.z - s0.z) > 3.0 or lateral > corridor + width:
                        continue
                    gap = along_end - seg + u - self.half_length - box.extent.x
                    if dt > 0.0:
                        # Where it will be: keep out of its way, not behind it.
                        gap -= 2.0
                    if best is None or gap < best:
                        best = gap
                    break
        return best

    def control(self, snap, others):
        """The control for this tick; `others` maps the ids of the vehicles
        and walkers to keep clear of to their bounding boxes."""
        me = snap.find(self.v.id)
        t = me.get_transform()
        loc = t.location
        speed = me.get_velocity().length()
        self._advance(loc)
        # The steer: the route's heading a little ahead of the front axle
        # (so it turns in with the lane), plus the front axle's distance
        # from the route, corrected within a few metres (a Stanley law).
        yaw = math.radians(t.rotation.yaw)
        fx = loc.x + math.cos(yaw) * self.WHEELBASE / 2
        fy = loc.y + math.sin(yaw) * self.WHEELBASE / 2
        seg, u, cross = self._nearest(fx, fy)
        p, q = self.points[seg], self.points[seg + 1]
        ahead = self._point_along(seg, u, STEER_AHEAD + STEER_AHEAD_GAIN * speed)
        base = self._point_along(seg, u, 0.0)
        path_yaw = math.atan2(ahead[1] - base[1], ahead[0] - base[0]) \
            if math.hypot(ahead[0] - base[0], ahead[1] - base[1]) > 0.1 \
            else math.atan2(q.y - p.y, q.x - p.x)
        heading = math.atan2(math.sin(path_yaw - yaw), math.cos(path_yaw - yaw))
        wheel = heading + math.atan2(STANLEY_K * cross, speed + 1.0)
        steer = max(-1.0, min(1.0, wheel / self.MAX_WHEEL))
        self.lateral = self._lateral(loc)

        want = min(self._curve_speed(12), self.cruise)
        to_goal = loc.distance(self.points[-1]) if self.i >= len(self.points) - 10 else math.inf
        want = min(want, math.sqrt(2.0 * 2.0 * max(to_goal - 1.0, 0.0)))
        self.stopped_for = None
        gap = self._gap_ahead(snap, loc, others, speed)
        if gap is not None:
            # The speed it can brake from at 3 m/s^2 to stand 4 m short.
            safe = math.sqrt(max(2.0 * 3.0 * (gap - 4.0), 0.0))
            if safe < want:
                want = safe
                self.stopped_for = "vehicle"
        if self.lights and self.v.is_at_traffic_light():
            light = self.v.get_traffic_light()
            if light is not None and light.state != carla.TrafficLightState.Green:
                want = 0.0
                self.stopped_for = "light"
        err = want - speed
        if want < 0.1:
            self.integral = 0.0
            return carla.VehicleControl(throttle=0.0, steer=steer, brake=1.0)
        self.integral = max(-5.0, min(5.0, self.integral + err * 0.05))
        deriv = (err - self.last_err) / 0.05
        self.last_err = err
        u = 0.4 * err + 0.05 * self.integral + 0.01 * deriv
        if u >= 0:
            return carla.VehicleControl(throttle=min(u, 0.8), steer=steer, brake=0.0)
        return carla.VehicleControl(throttle=0.0, steer=steer, brake=min(-u, 1.0))
