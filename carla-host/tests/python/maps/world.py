"""One map as the world, checked with the stock carla==0.9.16 client.

    world.py PORT NAME [XODR]

Loads map NAME by name (load_world) and checks, against the client's own
map code:
- spawn points: on a driving lane, 0.5 m above it and within 2 cm of its
  centre line (x and y);
- lights (where the map has any): one traffic.traffic_light actor per
  OpenDRIVE signal of type 1000001, each with stop waypoints on driving
  lanes outside junctions that enter one junction (the light's group's)
  within STOP_AHEAD m, affected lane waypoints, an OpenDRIVE id among the
  signals', and a state that changes during the run;
- a semantic camera 2.5 m above a spawn point looking down the road sees
  Roads (1) and RoadLines (24); a semantic lidar there hits Roads;
- 30 Traffic Manager vehicles (on a map with fewer spawn points, the rest
  at driving waypoints of generate_waypoints(10) outside junctions, 8 m
  apart, 0.5 m up) for 600 synchronous ticks of 0.05 s: each drives 20 m
  or more (or stands behind a walker that the client's crowd holds in
  its way, or in a queue behind such a car: the client's Traffic Manager
  and walkers can wait for each other, in CARLA too; at most a third
  of them), is on a driving lane every tick, and no two vehicles' oriented
  boxes overlap (the world's own included; a Traffic Manager car that
  bumps into another, up to BUMP deep, is counted, not failed); 16 AI walkers each get more
  than 2 m from where they were, and every tick stand on a sidewalk (a map without: a shoulder), a
  crosswalk (a lane of the road within CROSSWALK m of where it enters a
  junction) or a junction's corner (off its driving lanes, within
  CORNER_REACH m of their centre, or out to the nearest sidewalk's outer
  edge as far as it lies from the driving lane centre nearest it, and
  CORNER_SLACK m more); the world's own traffic is on the client's lane centres (x,
  y and z within 2 cm) every tick. On a map with lights the run goes on,
  at most one light cycle more, until every vehicle has driven its 20 m
  and every light has changed: a car that starts at the back of a queue
  at a light that just turned red stands through the whole red phase (43 s
  at a four-phase junction), longer than the 600 ticks;
then generates the same map from its OpenDRIVE text (XODR, or the
by-name map's to_opendrive() for the built-in town) with
generate_opendrive_world: the name is Carla/Maps/OpenDriveMap,
to_opendrive() gives the text back byte for byte, the spawn points pass
the same checks, and three cars driven along routes from spawn points for
150 ticks get 10 m on and stay on driving lanes.

"On a lane" and "on a lane centre" are measured on the client's lanes
(agent.py: lane_centre, on_lane): get_waypoint() alone answers a point
near a curve's centre line up to 0.4 m along the lane from its nearest
point, and near the edge between two lanes for the wrong lane.

Prints what failed (FAILED: ...), then RESULT {...} with the numbers, then
OK when all held.
"""
import json
import math
import random
import sys
import time

import carla
from agent import (BOUNDARY, DRIVING, Driver, LaneGraph, check, corners, free_port, lane_centre,
                   offsets, on_driving_lane, on_lane, outside, overlap_depth, placement, ticker)
from common import end_ok, asynchronous, stop_sensors, synchronous

SIDEWALK = carla.LaneType.Sidewalk
LIGHT = "1000001"
DT = 0.05
TICKS = 600
VEHICLES = 30
WALKERS = 16
CENTRE_TOL = 0.02  # metres: spawn points and the world's traffic on lane centres
CROSSWALK = 4.0  # metres from a road's end into a junction
EDGE = 0.02  # metres: a point this near a crosswalk counts as on it
CORNER_REACH = 6.0  # metres a junction's corner reaches from its driving lanes
CORNER_SLACK = 0.5  # ... or past their edge, beyond the nearest sidewalk's width
STOP_AHEAD = 12.0  # a stop waypoint's lane enters the junction within this
OVERLAP_TOL = 0.001  # metres: boxes closer than this to touching count as touching (f32)
# metres: a Traffic Manager car is a rigid body, so meeting another car it
# is stopped by the physics engine's contact, which the footprints here
# (yaw only, no pitch of a braking car's nose) see up to a few cm deep:
# a bump (the client's Traffic Manager braking late, in CARLA too), not
# one car passing through another. The world's own are kinematic: 1 mm.
BUMP = 0.05
SpawnActor, SetAutopilot, FutureActor, DestroyActor = (
    carla.command.SpawnActor, carla.command.SetAutopilot, carla.command.FutureActor,
    carla.command.DestroyActor)

port, name = int(sys.argv[1]), sys.argv[2]
xodr_path = sys.argv[3] if len(sys.argv) > 3 else None
random.seed(11)
started = time.time()
client = carla.Client("127.0.0.1", port)
client.set_timeout(60.0)
result = {"map": name}


def fail(what):
    print("RESULT " + json.dumps(result), flush=True)
    check(False, "%s: %s" % (name, what))


def need(cond, what):
    if not cond:
        fail(what)


failures = []


def expect(cond, what):
    """A check whose failure is reported with the others at the end."""
    if not cond:
        failures.append(what)
        print("FAILED:", "%s: %s" % (name, what), flush=True)


def at(loc):
    return "(%.2f, %.2f, %.2f)" % (loc.x, loc.y, loc.z)


# ------------------------------------------------------------------ load

need("/Game/Carla/Maps/" + name in client.get_available_maps(),
     "listed by get_available_maps: %s" % client.get_available_maps())
world = client.load_world(name)
step = ticker(world)
m = world.get_map()
# The lanes walkers walk: sidewalks, or on a map without any (CARLA's
# Town06 file) its shoulders, as the world's navigation mesh has them.
WALK = SIDEWALK if 'type="sidewalk"' in m.to_opendrive() else carla.LaneType.Shoulder
need(m.name == "Carla/Maps/" + name, "the map's name: %r" % m.name)
# The world's own traffic: what is there before anything is spawned.
town_ids = [a.id for a in world.get_actors().filter("vehicle.*")]
synchronous(world, DT)
bl = world.get_blueprint_library()


# ----------------------------------------------------------- spawn points

def check_spawn_points(m, label):
    points = m.get_spawn_points()
    need(points, "%s: spawn points" % label)
    worst_xy = worst_z = 0.0
    for p in points:
        wp = m.get_waypoint(p.location, project_to_road=False, lane_type=DRIVING)
        need(wp is not None, "%s: spawn point %s on a driving lane" % (label, p.location))
        c = lane_centre(m, p.location, wp)
        dx, dy, _ = offsets(p.location, c)
        dz = p.location.z - c.transform.location.z
        worst_xy = max(worst_xy, dx, dy)
        worst_z = max(worst_z, abs(dz - 0.5))
        need(dx <= CENTRE_TOL and dy <= CENTRE_TOL,
             "%s: spawn point %s within %.2f m of its lane centre %s (dx %.3f, dy %.3f)"
             % (label, p.location, CENTRE_TOL, c.transform.location, dx, dy))
        need(abs(dz - 0.5) <= CENTRE_TOL,
             "%s: spawn point %s 0.5 m above its lane (%.3f m)" % (label, p.location, dz))
    return points, worst_xy, worst_z


points, sp_xy, sp_z = check_spawn_points(m, "by name")
result.update(spawn_points=len(points), spawn_off_centre_m=round(sp_xy, 4),
              spawn_height_err_m=round(sp_z, 4))

# ----------------------------------------------------------------- lights

landmarks = {lm.id for lm in m.get_all_landmarks_of_type(LIGHT)}
lights = list(world.get_actors().filter("traffic.traffic_light"))
need(len(lights) == len(landmarks),
     "one light actor per 1000001 signal: %d actors, %d signals" % (len(lights), len(landmarks)))
light_ids = [tl.get_opendrive_id() for tl in lights]
need(set(light_ids) == landmarks and len(set(light_ids)) == len(lights),
     "the lights' OpenDRIVE ids %s are the signals' %s" % (sorted(light_ids), sorted(landmarks)))


def junction_ahead(wp, limit):
    """The junction the lane of `wp` enters within `limit` m (following it
    0.5 m at a time; any branch), and how far; (None, None) if none."""
    frontier, d = [wp], 0.0
    while d < limit and frontier:
        d += 0.5
        nxt = []
        for w in frontier:
            for n in w.next(0.5):
                if n.is_junction:
                    return n.get_junction().id, d
                nxt.append(n)
        frontier = nxt[:4]
    return None, None


stop_dist = []
junction_of_light = {}
for tl in lights:
    stops = tl.get_stop_waypoints()
    need(stops, "light %s: stop waypoints" % tl.get_opendrive_id())
    need(tl.get_affected_lane_waypoints(),
         "light %s: affected lane waypoints" % tl.get_opendrive_id())
    for wp in stops:
        where = "light %s: stop waypoint road %d lane %d s %.1f" % (
            tl.get_opendrive_id(), wp.road_id, wp.lane_id, wp.s)
        need(wp.lane_type == DRIVING and not wp.is_junction,
             "%s on a driving lane outside junctions" % where)
        junction, d = junction_ahead(wp, STOP_AHEAD)
        need(junction is not None, "%s: its lane enters a junction within %.0f m" % (where, STOP_AHEAD))
        need(junction_of_light.setdefault(tl.id, junction) == junction,
             "%s: all its lanes enter one junction" % where)
        stop_dist.append(d)
for tl in lights:
    for other in tl.get_group_traffic_lights():
        need(junction_of_light.get(other.id) == junction_of_light[tl.id],
             "light %s's group is its junction's lights" % tl.get_opendrive_id())
result["lights"] = len(lights)
if stop_dist:
    result["stop_waypoint_to_junction_m"] = [round(min(stop_dist), 1), round(max(stop_dist), 1)]
light_states = {tl.id: {tl.state} for tl in lights}


def note_lights():
    for tl in lights:
        light_states[tl.id].add(tl.state)  # the latest snapshot's


# ---------------------------------------------------------------- sensors

def semantic_view():
    """A semantic camera and a semantic lidar 2.5 m above a spawn point,
    looking down the road; (pixels of Roads, of RoadLines, lidar hits of
    Roads, all pixels)."""
    spot = points[len(points) // 3]
    view = carla.Transform(spot.location + carla.Location(z=2.5),
                           carla.Rotation(pitch=-15.0, yaw=spot.rotation.yaw))
    cam_bp = bl.find("sensor.camera.semantic_segmentation")
    cam_bp.set_attribute("image_size_x", "320")
    cam_bp.set_attribute("image_size_y", "240")
    lidar_bp = bl.find("sensor.lidar.ray_cast_semantic")
    lidar_bp.set_attribute("channels", "32")
    lidar_bp.set_attribute("range", "50")
    lidar_bp.set_attribute("points_per_second", "56000")
    lidar_bp.set_attribute("rotation_frequency", str(1.0 / DT))
    lidar_bp.set_attribute("upper_fov", "5")
    lidar_bp.set_attribute("lower_fov", "-40")
    images, sweeps = [], []
    cam = world.spawn_actor(cam_bp, view)
    lidar = world.spawn_actor(lidar_bp, view)
    cam.listen(images.append)
    lidar.listen(sweeps.append)
    for _ in range(100):
        step()
        # The tick's data are sent before its answer; the client's stream
        # threads may take a moment to hand them over on a busy machine.
        for _ in range(20):
            if images and sweeps:
                break
            time.sleep(0.01)
        if images and sweeps:
            break
    stop_sensors([cam, lidar])
    need(images and sweeps, "the semantic camera and lidar sent data")
    tags = bytes(images[-1].raw_data)[2::4]  # BGRA: the tag in R
    hits = [d.object_tag for d in sweeps[-1]]
    return tags.count(1), tags.count(24), hits.count(1), len(tags)


roads_px, lines_px, road_hits, pixels = semantic_view()
result.update(camera_roads_px=roads_px, camera_roadlines_px=lines_px, lidar_road_hits=road_hits)
need(roads_px >= pixels // 20, "the camera sees Roads (tag 1): %d of %d pixels" % (roads_px, pixels))
need(lines_px >= 20, "the camera sees RoadLines (tag 24): %d pixels" % lines_px)
need(road_hits >= 50, "the lidar hits Roads (ObjTag 1): %d hits" % road_hits)

# ------------------------------------------------- Traffic Manager, walkers

tm_port = free_port()
tm = client.get_trafficmanager(tm_port)
tm.set_synchronous_mode(True)
tm.set_random_device_seed(11)
cars = [b for b in bl.filter("vehicle.*") if b.get_attribute("base_type").as_str() == "car"]


def candidates():
    """Where the Traffic Manager's cars start: the spawn points (shuffled),
    then, if there are fewer than VEHICLES, driving waypoints 10 m apart
    outside junctions, 8 m or more from every spawn point and each other."""
    spots = list(points)
    random.shuffle(spots)
    extra = []
    if len(points) < VEHICLES:
        taken = [p.location for p in points]
        for wp in m.generate_waypoints(10.0):
            if wp.lane_type != DRIVING or wp.is_junction:
                continue
            loc = wp.transform.location
            if all(loc.distance(t) >= 8.0 for t in taken):
                taken.append(loc)
                t = wp.transform
                extra.append(carla.Transform(t.location + carla.Location(z=0.5), t.rotation))
    return spots, extra


spots, extra = candidates()
vehicle_ids, spawned = [], []
for batch_spots in (spots, extra):
    before, k = len(vehicle_ids), 0
    while len(vehicle_ids) < VEHICLES and k < len(batch_spots):
        take = batch_spots[k:k + VEHICLES - len(vehicle_ids)]
        k += len(take)
        batch = [SpawnActor(random.choice(cars), p).then(SetAutopilot(FutureActor, True, tm_port))
                 for p in take]
        vehicle_ids += [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
    spawned.append(len(vehicle_ids) - before)
need(len(vehicle_ids) == VEHICLES, "%d Traffic Manager vehicles spawned (%d spots, %d extra)"
     % (len(vehicle_ids), len(spots), len(extra)))
result["tm_vehicles"] = len(vehicle_ids)
if spawned[1]:
    result["tm_vehicles_at_extra_waypoints"] = spawned[1]
    print("%s: %d spawn points for %d vehicles; the rest start at driving waypoints "
          "(generate_waypoints(10), outside junctions, 8 m apart, 0.5 m up)"
          % (name, len(points), VEHICLES), flush=True)

walker_bps = bl.filter("walker.pedestrian.*")
# Every walker may cross roads (on the mesh's crosswalks), so those are
# walked too.
world.set_pedestrians_cross_factor(1.0)
batch = []
for _ in range(WALKERS):
    loc = world.get_random_location_from_navigation()
    need(loc is not None, "a random location on the navigation mesh")
    batch.append(SpawnActor(random.choice(walker_bps), carla.Transform(loc)))
walker_ids = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
need(len(walker_ids) == WALKERS, "%d walkers spawned" % len(walker_ids))
controller_bp = bl.find("controller.ai.walker")
batch = [SpawnActor(controller_bp, carla.Transform(), w) for w in walker_ids]
controller_ids = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
need(len(controller_ids) == WALKERS, "a controller per walker")
step()
for c in world.get_actors(controller_ids):
    c.start()
    c.go_to_location(world.get_random_location_from_navigation())
    c.set_max_speed(1.4)

boxes = {a.id: a.bounding_box for a in world.get_actors(vehicle_ids + town_ids)}
types = {a.id: a.type_id for a in world.get_actors(vehicle_ids + town_ids)}
walker_half = {a.id: a.bounding_box.extent.z for a in world.get_actors(walker_ids)}


def near_junction_end(wp):
    """Whether `wp` lies within CROSSWALK m of an end of its road where the
    road enters a junction (where this world puts crosswalks)."""
    if wp.is_junction:
        return False
    for forward in (True, False):
        ahead = wp.next(CROSSWALK) if forward else wp.previous(CROSSWALK)
        if any(n.is_junction for n in ahead):
            return True
    return False


def walker_ok(loc, half):
    """Whether a walker's ground point is on a sidewalk, or on a crosswalk
    (a lane of the road, driving or the shoulder between it and the
    sidewalk, within CROSSWALK m of the road's end into a junction): (ok,
    where, metres off every lane or None)."""
    ground = carla.Location(loc.x, loc.y, loc.z - half)
    if on_lane(m, ground, WALK):
        return True, "sidewalk", None
    # A junction's corner: where two sidewalks meet round a junction, which
    # a map need not cover with a lane (the world then joins them with a
    # corner of its own), off every driving lane.
    drive = m.get_waypoint(ground, project_to_road=True, lane_type=DRIVING)
    near = m.get_waypoint(ground, project_to_road=True, lane_type=carla.LaneType.Any)
    side = m.get_waypoint(ground, project_to_road=True, lane_type=WALK)
    if drive is not None:
        off_centre = drive.transform.location.distance(ground)
        # Or out to the nearest sidewalk's outer edge, as far from a driving
        # lane's centre as it is from the driving lane nearest it (a T
        # junction's closed side: Town01's 4 m sidewalks, Town03's and
        # Town05's behind parking lanes and shoulders, go on along it).
        reach = max(CORNER_REACH, drive.lane_width / 2 + (side.lane_width if side else 0.0)
                    + CORNER_SLACK)
        own = side and m.get_waypoint(side.transform.location, project_to_road=True,
                                      lane_type=DRIVING)
        if own is not None:
            band = own.transform.location.distance(side.transform.location)
            reach = max(reach, band + side.lane_width / 2 + CORNER_SLACK)
    if (drive is not None and (drive.is_junction or (near is not None and near.is_junction))
            and not on_lane(m, ground, DRIVING) and off_centre <= reach):
        return True, "corner", None
    lanes = placement(m, ground)
    if not lanes:
        return False, "no road near", None
    if lanes[0][1] > BOUNDARY:
        w, d = lanes[0]
        return False, "on no lane: the nearest, %.3f m away, is %s road %d lane %d%s" % (
            d, w.lane_type, w.road_id, w.lane_id, " (junction %d)" % w.junction_id
            if w.is_junction else ""), d
    lane = lanes[0][0]
    drive = lane if lane.lane_type == DRIVING else m.get_waypoint(
        ground, project_to_road=True, lane_type=DRIVING)
    if drive is not None and drive.road_id == lane.road_id and near_junction_end(drive):
        return True, "crosswalk", None
    # A crosswalk's side at the junction is also the junction's edge: a
    # walker on that line may be read as on a lane of the junction.
    for dx, dy in ((EDGE, 0), (-EDGE, 0), (0, EDGE), (0, -EDGE)):
        nudged = carla.Location(ground.x + dx, ground.y + dy, ground.z)
        wp = m.get_waypoint(nudged, project_to_road=False, lane_type=DRIVING)
        if wp is not None and near_junction_end(wp):
            return True, "crosswalk", None
    gap = outside(m, ground, WALK)
    return False, "%s road %d lane %d%s, %s m from a sidewalk" % (
        lane.lane_type, lane.road_id, lane.lane_id, " (junction)" if lane.is_junction else "",
        "?" if gap is None else "%.3f" % gap), None


travelled = {i: 0.0 for i in vehicle_ids}
trail = {}  # by vehicle: its last 41 ticks (tick, location, speed, yaw)
history = {}  # by overlapping pair: both vehicles' last 2 s when it began


def story(i):
    """A vehicle's last 2 s, every 0.5 s: tick, where, m/s, yaw, lane, and
    the state of the light it is at (- at none)."""
    out = []
    for tick_, loc, speed, yaw, light in trail[i][::10]:
        wp = m.get_waypoint(loc)
        out.append("%d %s %.1f m/s yaw %.0f road %d lane %d%s light %s" % (
            tick_, at(loc), speed, yaw, wp.road_id, wp.lane_id, " J" if wp.is_junction else "", light))
    return out


standing = {i: 0 for i in vehicle_ids}  # ticks stopped
at_light = {i: 0 for i in vehicle_ids}  # ticks stopped at a light that is not green
tm_actors = {a.id: a for a in world.get_actors(vehicle_ids)}
all_vehicles = {a.id: a for a in world.get_actors(vehicle_ids + town_ids)}


def light_of(i):
    """The state of the light vehicle i is at (from the tick's snapshot),
    as a letter: - when it is at none."""
    v = all_vehicles[i]
    if not v.is_at_traffic_light():
        return "-"
    return str(v.get_traffic_light_state())[0]
last = {}
walker_start, walker_far = {}, {i: 0.0 for i in walker_ids}
off_lane, overlaps, bumps, max_depth = [], [], [], 0.0
town_worst = [0.0, 0.0, 0.0]
town_raw = 0.0
town_off = []
walker_bad, walker_on = [], {"sidewalk": 0, "crosswalk": 0, "corner": 0}
walker_off_lane_max = 0.0  # metres: the farthest a walker stood off every lane
checked_pairs = 0


def check_town(snap, tick):
    global town_raw
    for i in town_ids:
        a = snap.find(i)
        need(a is not None, "town vehicle %d in the snapshot" % i)
        loc = a.get_transform().location
        wp = m.get_waypoint(loc)
        town_raw = max(town_raw, loc.distance(wp.transform.location))
        c = lane_centre(m, loc, wp)
        d = offsets(loc, c)
        if max(d) > CENTRE_TOL and wp.is_junction:
            # Where a junction's lanes overlap as they fork, get_waypoint may
            # answer a neighbour of the car's own lane: measure to the
            # nearest of the junction's lane centres.
            for start, _ in wp.get_junction().get_waypoints(carla.LaneType.Driving):
                c2 = lane_centre(m, loc, start)
                if c2 is not None and max(offsets(loc, c2)) < max(d):
                    c, d = c2, offsets(loc, c2)
        for k in range(3):
            town_worst[k] = max(town_worst[k], d[k])
        if max(d) > CENTRE_TOL:
            town_off.append("tick %d: town vehicle %d at %s is %.3f/%.3f/%.3f m (x/y/z) from the "
                            "client's lane centre %s (road %d lane %d)" % (
                                tick, i, at(loc), d[0], d[1], d[2], at(c.transform.location),
                                c.road_id, c.lane_id))


# The run: TICKS ticks; on a map with lights, then on while a vehicle has
# not yet driven 20 m or a light has not changed, for at most one light
# cycle more (a car that starts at the back of a queue at a light that just
# turned red may stand through a whole red phase: 43 s at Crossing's
# four-phase junction).
# A group's cycle: each of its phases' green, yellow and red (a phase is a
# pole index; a group of one phase cycles as if it had two).
cycle = max([(tl.get_green_time() + tl.get_yellow_time() + tl.get_red_time())
             * max(2, len({g.get_pole_index() for g in tl.get_group_traffic_lights()}))
             for tl in lights] or [0.0])
most_ticks = TICKS + int(math.ceil(cycle / DT))
tick = -1
while True:
    tick += 1
    if tick >= TICKS and (tick >= most_ticks or (
            min(travelled.values()) >= 20.0 and all(len(v) >= 2 for v in light_states.values()))):
        break
    frame = step()
    snap = world.get_snapshot()
    need(snap.frame == frame, "the snapshot is the tick's")
    check_town(snap, tick)
    note_lights()
    # Traffic Manager vehicles: distance, lanes, boxes.
    shapes = {}
    for i in vehicle_ids + town_ids:
        a = snap.find(i)
        t = a.get_transform()
        shapes[i] = corners(t, boxes[i]) + (t.location.z,)
        trail.setdefault(i, []).append((tick, t.location, a.get_velocity().length(), t.rotation.yaw,
                                        light_of(i)))
        del trail[i][:-41]
        if i in travelled:
            if a.get_velocity().length() < 0.1:
                standing[i] += 1
                if tm_actors[i].is_at_traffic_light() and \
                        tm_actors[i].get_traffic_light_state() != carla.TrafficLightState.Green:
                    at_light[i] += 1
            if i in last:
                travelled[i] += t.location.distance(last[i])
            last[i] = t.location
            if not on_driving_lane(m, t.location):
                off_lane.append((tick, i, at(t.location)))
    ids = list(shapes)
    for x in range(len(ids)):
        qa, ca, za = shapes[ids[x]]
        for y in range(x + 1, len(ids)):
            qb, cb, zb = shapes[ids[y]]
            if math.hypot(ca.x - cb.x, ca.y - cb.y) > 8.0 or abs(za - zb) > 2.0:
                continue
            checked_pairs += 1
            depth = overlap_depth(qa, qb)
            if depth > OVERLAP_TOL:
                max_depth = max(max_depth, depth)
                kind = "".join("T" if i in travelled else "W" for i in (ids[x], ids[y]))
                if "T" in kind and depth <= BUMP:
                    bumps.append((tick, kind, ids[x], ids[y], round(depth, 3)))
                    continue
                overlaps.append((tick, kind, ids[x], ids[y], round(depth, 3), at(ca), at(cb)))
                if (ids[x], ids[y]) not in history:
                    history[(ids[x], ids[y])] = {i: story(i) for i in (ids[x], ids[y])}
    # Walkers: once they are on their way (the first ticks put them down).
    if tick == 10:
        for w in walker_ids:
            walker_start[w] = snap.find(w).get_transform().location
    if tick >= 10:
        for w in walker_ids:
            loc = snap.find(w).get_transform().location
            walker_far[w] = max(walker_far[w], loc.distance(walker_start[w]))
            ok, where, off = walker_ok(loc, walker_half[w])
            if ok:
                walker_on[where] += 1
            else:
                walker_bad.append((tick, w, at(loc), where))
                if off is not None:
                    walker_off_lane_max = max(walker_off_lane_max, off)

moved = sorted(travelled.values())
walked = sorted(walker_far.values())
result.update(
    ticks=tick, light_cycle_s=cycle,
    tm_min_travel_m=round(moved[0], 1), tm_median_travel_m=round(moved[len(moved) // 2], 1),
    tm_off_lane_ticks=len(off_lane), overlaps=len(overlaps), overlap_max_m=round(max_depth, 3),
    bump_ticks=len(bumps), bump_pairs=len({b[2:4] for b in bumps}),
    pairs_checked=checked_pairs,
    town_vehicles=len(town_ids), town_off_centre_m=[round(v, 4) for v in town_worst],
    town_raw_get_waypoint_m=round(town_raw, 3),
    walkers=len(walker_ids), walker_min_m=round(walked[0], 1),
    walker_median_m=round(walked[len(walked) // 2], 1),
    walker_ticks_on=walker_on, walker_off_ticks=len(walker_bad),
)


def why_slow(i):
    """What a vehicle that drove little did: its distance, ticks standing,
    ticks standing at a light that was not green, where it is, its last
    control, and the nearest vehicles ahead of it (distance, id, speed)."""
    t = tm_actors[i].get_transform()
    f = t.get_forward_vector()
    ahead = [(round(t.location.distance(tr[1]), 1), j,
              round(all_vehicles[j].get_velocity().length(), 1)) for j, tr in shapes.items() if j != i
             and (tr[1].x - t.location.x) * f.x + (tr[1].y - t.location.y) * f.y > 0
             and t.location.distance(tr[1]) < 15.0]
    wp = m.get_waypoint(t.location)
    return dict(id=i, m=round(travelled[i], 1), standing=standing[i], at_red=at_light[i],
                at=at(t.location), road=wp.road_id, lane=wp.lane_id, junction=wp.is_junction,
                control=controls(i), ahead=sorted(ahead)[:2])


def controls(i):
    """Vehicle i's last control: throttle, steer, brake, hand brake."""
    c = all_vehicles[i].get_control()
    return (round(c.throttle, 2), round(c.steer, 2), round(c.brake, 2), c.hand_brake)


def walker_in_front(i):
    """A walker beside or up to 4 m before vehicle i's front (the client's
    Traffic Manager brakes for it; the client's crowd may hold the walker
    there in turn, in CARLA as here)."""
    t = world.get_actor(i).get_transform()
    f, e = t.get_forward_vector(), boxes[i].extent
    for w in walker_ids:
        wl = world.get_actor(w).get_transform().location
        dx, dy = wl.x - t.location.x, wl.y - t.location.y
        along, across = dx * f.x + dy * f.y, -dx * f.y + dy * f.x
        if -e.x <= along <= e.x + 4.0 and abs(across) <= e.y + 1.5:
            return w
    return None


def vehicles_ahead(i):
    """The vehicles within 15 m before vehicle i's centre."""
    t = world.get_actor(i).get_transform()
    f = t.get_forward_vector()
    return [j for j, tr in shapes.items() if j != i and t.location.distance(tr[1]) < 15.0
            and (tr[1].x - t.location.x) * f.x + (tr[1].y - t.location.y) * f.y > 0]


# Vehicles standing behind a walker, and those queued behind them.
standing_now = [i for i in shapes if world.get_actor(i).get_velocity().length() < 0.1]
held = {i: walker_in_front(i) for i in standing_now}
held = {i: "walker %d" % w for i, w in held.items() if w is not None}
grew = True
while grew:
    grew = False
    for i in standing_now:
        if i not in held:
            queue = [j for j in vehicles_ahead(i) if j in held]
            if queue:
                held[i], grew = "behind %d" % queue[0], True
slow = [i for i, d in travelled.items() if d < 20.0]
result["tm_short_of_20m_held_by_walkers"] = sorted(i for i in slow if i in held)
result["tm_ticks_standing_at_lights_max"] = max(at_light.values())
expect(all(i in held for i in slow), "every Traffic Manager vehicle drove 20 m: %s" % [
    why_slow(i) for i in slow if i not in held])
expect(sum(i in held for i in slow) <= len(vehicle_ids) // 3,
       "at most a third of the vehicles held by walkers: %s" % held)
expect(not off_lane, "Traffic Manager vehicles stay on driving lanes: %d ticks off, first %s"
     % (len(off_lane), off_lane[:5]))
episodes = {}
for o in overlaps:
    e = episodes.setdefault(o[2:4], dict(kind=o[1], first=o[0], last=o[0], ticks=0, depth=0.0,
                                          at=o[5:7], boxes=[
                                              "%s %.3fx%.3f" % (types[i], boxes[i].extent.x,
                                                                boxes[i].extent.y)
                                              for i in o[2:4]]))
    e["last"], e["ticks"], e["depth"] = o[0], e["ticks"] + 1, max(e["depth"], o[4])
result["overlap_pairs"] = len(episodes)
expect(not overlaps, "vehicles never overlap (T: Traffic Manager, W: the world's own): %d ticks "
       "in %d pairs %s" % (len(overlaps), len(episodes), [
           dict(pair=k, before=history.get(k), **e) for k, e in list(episodes.items())[:3]]))
expect(walked[0] > 2.0, "every walker moved more than 2 m: %s" % [
    (i, round(d, 1)) for i, d in walker_far.items() if d <= 2.0])
by_walker = {}
for b in walker_bad:
    by_walker.setdefault(b[1], []).append(b)
result["walkers_off"] = len(by_walker)
result["walker_off_lane_max_m"] = round(walker_off_lane_max, 3)
expect(not walker_bad, "walkers stay on sidewalks and crosswalks: %d ticks off, by %d walkers; "
       "each one's first: %s" % (len(walker_bad), len(by_walker), [
           dict(walker=w, ticks=len(bs), tick=bs[0][0], at=bs[0][2], where=bs[0][3])
           for w, bs in list(by_walker.items())[:4]]))

expect(not town_off, "the world's traffic is on the client's lane centres (%.2f m): %d ticks "
       "off, first %s" % (CENTRE_TOL, len(town_off), town_off[:3]))
unchanged = [tl.get_opendrive_id() for tl in lights if len(light_states[tl.id]) < 2]
result["lights_changed"] = len(lights) - len(unchanged)
# Done with traffic. (The Traffic Manager goes too: it would go on being
# ticked with no vehicles.)
for c in world.get_actors(controller_ids):
    c.stop()
# The Traffic Manager lets go of its cars first (see town/traffic.py: the
# stock client's, left with cars destroyed under it, can overflow its
# thread's stack).
client.apply_batch_sync([SetAutopilot(i, False, tm_port) for i in vehicle_ids], False)
client.apply_batch_sync([DestroyActor(i) for i in controller_ids + walker_ids + vehicle_ids], False)
tm.shut_down()
step()
expect(not unchanged, "every light changes state within a cycle (%.0f s): %s stayed" % (cycle, unchanged))

# ------------------------------------------------ generate_opendrive_world

if xodr_path is not None:
    with open(xodr_path, encoding="utf-8") as f:
        text = f.read()
else:
    text = m.to_opendrive()
by_name_points = len(points)
world = client.generate_opendrive_world(text, carla.OpendriveGenerationParameters(
    vertex_distance=2.0, max_road_length=50.0, wall_height=1.0, additional_width=0.6,
    smooth_junctions=True, enable_mesh_visibility=True, enable_pedestrian_navigation=True))
step = ticker(world)
m = world.get_map()
need(m.name == "Carla/Maps/OpenDriveMap", "the generated map's name: %r" % m.name)
back = m.to_opendrive()
if back != text:
    differ = next((k for k in range(min(len(text), len(back))) if text[k] != back[k]), None)
    fail("to_opendrive() is the text sent: %d bytes sent, %d back, first difference at %s"
         % (len(text), len(back), differ))
synchronous(world, DT)
points, _, _ = check_spawn_points(m, "generated")
need(len(points) == by_name_points, "the generated world has the by-name world's %d spawn "
     "points: %d" % (by_name_points, len(points)))
graph = LaneGraph(m)
drivers, bp = [], bl.find("vehicle.tesla.model3")
# Spread over the map; a point the world's own traffic stands on is skipped.
for k, p in enumerate(points[::max(1, len(points) // 9)]):
    if len(drivers) == 3:
        break
    car = world.try_spawn_actor(bp, p)
    if car is None:
        continue
    start = m.get_waypoint(p.location)
    path = graph.walk(graph.segment_of(start), 80.0, 0, seed=k)
    need(path is not None, "a route of 80 m from %s" % p.location)
    route = graph.waypoints(path, start)
    drivers.append((car, Driver(car, route, cruise=6.0, lights=False), p.location))
need(len(drivers) == 3, "three cars on the generated map")
step()
# Each keeps its distance to the others and to the world's own traffic.
moving = {a.id: a.bounding_box for a in world.get_actors().filter("vehicle.*")}
gen_off, gen_travel = 0, []
for _ in range(150):
    snap = world.get_snapshot()
    for car, d, _ in drivers:
        car.apply_control(d.control(snap, {i: b for i, b in moving.items() if i != car.id}))
    step()
    snap = world.get_snapshot()
    for car, _, _ in drivers:
        gen_off += not on_driving_lane(m, snap.find(car.id).get_transform().location)
for car, d, start in drivers:
    gen_travel.append(round(car.get_location().distance(start), 1))
    car.destroy()
step()
result.update(generated_spawn_points=len(points), generated_drive_m=gen_travel,
              generated_off_lane_ticks=gen_off, seconds=round(time.time() - started, 1))
expect(min(gen_travel) >= 10.0, "the cars drive on the generated map: %s" % gen_travel)
expect(gen_off == 0, "the cars stay on driving lanes on the generated map: %d ticks off" % gen_off)

if failures:
    print("RESULT " + json.dumps(result), flush=True)
    sys.exit(1)
asynchronous(world)
print("RESULT " + json.dumps(result), flush=True)
end_ok()
