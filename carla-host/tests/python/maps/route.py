"""A route drive as ScenarioRunner's route mode judges one, with a planner
and a driver of this test's own (agent.py): on map NAME a hero (Lincoln
MKZ 2020, role_name hero) follows a route of 300 m or more through two
junctions or more, planned over the client's lane graph (get_topology and
next()), among Traffic Manager vehicles, in synchronous mode. It keeps its
distance to vehicles ahead and stops while it is at a light that is not
green, as CARLA's BasicAgent does.

    route.py PORT NAME [--vehicles N] [--seed S]

The driver steers by the route's heading and its distance from the route
(a Stanley law: pure pursuit, tried first, cut the built-in town's tight
junction turns by 1.3-1.6 m, the car's body 0.8 m over the centre line)
and holds its speed with a PID.

It must reach the route's end with:
- no collision (a sensor.other.collision on the hero) but being struck
  by a vehicle: from behind (its impulse pushes the hero forward: the
  follower's fault), or by one that closed in on the hero faster than the
  hero on it (a Traffic Manager car changing lanes into its side); counted
  apart, as struck_from_behind (each as frame, type, id, N·s, the hero's
  and the other's speed towards each other);
- no red light run: for each light its stop lines, its stop waypoints
  followed to where their lanes enter the junction (as ScenarioRunner's
  RunningRedLightTest places them); the hero's front crossing one while
  that light is red is a violation;
- no lane left: every tick the hero's location is on a driving lane per
  the client's map (agent.on_driving_lane). The route runs along lane
  centres, junction turns included, and the driver keeps within 0.35 m of
  it (max_off_route_m), so a tick off the driving lanes is a fault: 0
  allowed.
Prints RESULT {...} with the route's length, ticks, collisions, red lights
crossed, off-lane ticks and time, then OK.
"""
import argparse
import json
import math
import random
import time

import carla
from agent import Driver, LaneGraph, check, free_port, on_driving_lane, route_length, ticker
from common import end_ok, asynchronous, stop_sensors, synchronous

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("name")
parser.add_argument("--vehicles", type=int, default=25)
parser.add_argument("--seed", type=int, default=3)
args = parser.parse_args()
random.seed(args.seed)
started = time.time()
DT = 0.05
OFF_LANE_ALLOWED = 0

client = carla.Client("127.0.0.1", args.port)
client.set_timeout(60.0)
world = client.load_world(args.name)
step = ticker(world)
m = world.get_map()
check(m.name == "Carla/Maps/" + args.name, "map %s: %r" % (args.name, m.name))
synchronous(world, DT)
bl = world.get_blueprint_library()
result = {"map": args.name}

# ------------------------------------------------------------------ route

graph = LaneGraph(m)
points = m.get_spawn_points()
order = list(range(len(points)))
random.shuffle(order)
bp = bl.find("vehicle.lincoln.mkz_2020")
bp.set_attribute("role_name", "hero")
hero = route = None
for k in order:
    start = m.get_waypoint(points[k].location)
    seg = graph.segment_of(start)
    if seg is None:
        continue
    path = graph.walk(seg, 320.0, 2, seed=args.seed + k)
    if path is None:
        continue
    wps = graph.waypoints(path, start)
    passes = sum(1 for a, b in zip(wps, wps[1:]) if b.is_junction and not a.is_junction)
    if route_length(wps) < 300.0 or passes < 2:
        continue
    hero = world.try_spawn_actor(bp, points[k])
    if hero is not None:
        route = wps
        break
check(hero is not None, "a hero on a route of 300 m through 2 junctions")
length = route_length(route)
junctions = sorted({w.junction_id for w in route if w.is_junction})
passes = sum(1 for a, b in zip(route, route[1:]) if b.is_junction and not a.is_junction)
result.update(route_m=round(length, 1), junction_passes=passes, junctions=len(junctions))
step()

# --------------------------------------------------- Traffic Manager around

tm_port = free_port()
tm = client.get_trafficmanager(tm_port)
tm.set_synchronous_mode(True)
tm.set_random_device_seed(args.seed)
cars = [b for b in bl.filter("vehicle.*") if b.get_attribute("base_type").as_str() == "car"]
hero_at = hero.get_location()
route_pts = [w.transform.location for w in route[::5]]


def to_route(p):
    return min(p.location.distance(q) for q in route_pts)


# The spawn points nearest the route first, none within 15 m of the hero.
near = sorted((p for p in points if p.location.distance(hero_at) > 15.0), key=to_route)
SpawnActor, SetAutopilot, FutureActor = (
    carla.command.SpawnActor, carla.command.SetAutopilot, carla.command.FutureActor)
batch = [SpawnActor(random.choice(cars), p).then(SetAutopilot(FutureActor, True, tm_port))
         for p in near[:args.vehicles + 10]]
vehicle_ids = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
for extra in vehicle_ids[args.vehicles:]:
    world.get_actor(extra).destroy()
vehicle_ids = vehicle_ids[:args.vehicles]
check(20 <= len(vehicle_ids) <= 30, "20-30 Traffic Manager vehicles: %d" % len(vehicle_ids))
result["tm_vehicles"] = len(vehicle_ids)

collisions = []
sensor = world.spawn_actor(bl.find("sensor.other.collision"), carla.Transform(), attach_to=hero)
struck = []  # hit by a vehicle that closed in on the hero (that driver's fault)


def on_collision(e):
    f = e.actor.get_transform().get_forward_vector()
    j = e.normal_impulse
    size = math.sqrt(j.x * j.x + j.y * j.y + j.z * j.z)
    vehicle = e.other_actor.type_id.startswith("vehicle.")
    behind = vehicle and size > 0.0 and (j.x * f.x + j.y * f.y) > 0.7 * size
    # Which of the two closed in on the other: each one's speed towards
    # the other (a Traffic Manager car changing lanes into the hero's side
    # is that car's doing, as one running into its back is).
    a, b = e.actor.get_location(), e.other_actor.get_location()
    dx, dy = b.x - a.x, b.y - a.y
    n = math.hypot(dx, dy) or 1.0
    hv, ov = e.actor.get_velocity(), e.other_actor.get_velocity()
    hero_in = (hv.x * dx + hv.y * dy) / n
    other_in = -(ov.x * dx + ov.y * dy) / n
    by_other = vehicle and other_in > max(hero_in, 0.0)
    (struck if behind or by_other else collisions).append(
        (e.frame, e.other_actor.type_id, e.other_actor.id, round(size), round(hero_in, 2), round(other_in, 2)))


sensor.listen(on_collision)
step()

# ------------------------------------------------------------ stop lines

lights = list(world.get_actors().filter("traffic.traffic_light"))
stop_lines = []  # (light, location, forward (x, y), half width)
for tl in lights:
    for wp in tl.get_stop_waypoints():
        # Follow the lane to where it enters the junction.
        for _ in range(200):
            ahead = wp.next(0.5)
            if not ahead or ahead[0].is_junction:
                break
            wp = ahead[0]
        t = wp.transform
        f = t.get_forward_vector()
        stop_lines.append((tl, t.location, (f.x, f.y), wp.lane_width / 2.0))
result["stop_lines"] = len(stop_lines)


def front(t, extent):
    f = t.get_forward_vector()
    return carla.Location(t.location.x + f.x * extent, t.location.y + f.y * extent, t.location.z)


def crossed(p0, p1, line):
    """Whether the step p0 -> p1 crosses the stop line (forwards)."""
    _, c, (fx, fy), half = line
    a = (p0.x - c.x) * fx + (p0.y - c.y) * fy
    b = (p1.x - c.x) * fx + (p1.y - c.y) * fy
    if not (a <= 0.0 < b) or abs(p1.z - c.z) > 3.0:
        return False
    u = a / (a - b)
    x = p0.x + (p1.x - p0.x) * u
    y = p0.y + (p1.y - p0.y) * u
    return abs(-(x - c.x) * fy + (y - c.y) * fx) <= half


# ------------------------------------------------------------------ drive

driver = Driver(hero, route, cruise=8.0)
# Everything on the move it keeps its distance to: vehicles and walkers.
others = {a.id: a.bounding_box for a in world.get_actors()
          if a.id != hero.id and a.type_id.split(".")[0] in ("vehicle", "walker")}
extent = hero.bounding_box.extent.x
limit = int((length / 2.0 + 2 * 60.0 * passes + 60.0) / DT)
off_lane, red_runs, crossings, stops = [], [], 0, {"light": 0, "vehicle": 0}
crossed_on = {}  # stop lines crossed, by the light's state then
snap = world.get_snapshot()
last_front = front(snap.find(hero.id).get_transform(), extent)
tick, done, worst_lateral, worst_at = 0, False, 0.0, None
drive_started = time.time()
while tick < limit:
    hero.apply_control(driver.control(snap, others))
    if driver.stopped_for:
        stops[driver.stopped_for] += 1
    step()
    tick += 1
    snap = world.get_snapshot()
    t = snap.find(hero.id).get_transform()
    if driver.lateral > worst_lateral:
        worst_lateral = driver.lateral
        worst_at = (tick, "(%.1f, %.1f)" % (t.location.x, t.location.y))
    if not on_driving_lane(m, t.location):
        off_lane.append((tick, "(%.2f, %.2f)" % (t.location.x, t.location.y)))
    now = front(t, extent)
    for line in stop_lines:
        if crossed(last_front, now, line):
            crossings += 1
            crossed_on[str(line[0].state)] = crossed_on.get(str(line[0].state), 0) + 1
            if line[0].state == carla.TrafficLightState.Red:
                red_runs.append((tick, line[0].get_opendrive_id()))
    last_front = now
    if driver.done(t.location):
        done = True
        break
drive_seconds = time.time() - drive_started
final = hero.get_location()
result.update(
    reached=done, ticks=tick, sim_s=round(tick * DT, 1),
    to_goal_m=round(final.distance(route[-1].transform.location), 1),
    collisions=len(collisions), struck_from_behind=len(struck), struck=struck[:5], stop_lines_crossed=crossings, crossed_on=crossed_on,
    red_lights_crossed=len(red_runs), off_lane_ticks=len(off_lane),
    max_off_route_m=round(worst_lateral, 2), max_off_route_at=worst_at,
    ticks_braking_for=stops, drive_s=round(drive_seconds, 1),
    seconds=round(time.time() - started, 1))
stop_sensors([sensor])
print("RESULT " + json.dumps(result), flush=True)
check(done, "the hero completed its route within %d ticks: %s" % (limit, result))
check(not collisions, "no collision: %s" % collisions[:5])
check(not red_runs, "no red light run: %s" % red_runs)
check(crossings >= 1 or not stop_lines, "the hero crossed a light's stop line")
check(len(off_lane) <= OFF_LANE_ALLOWED, "on driving lanes: %d ticks off, first %s"
      % (len(off_lane), off_lane[:5]))

# The Traffic Manager lets go of its cars first (see town/traffic.py).
client.apply_batch_sync([carla.command.SetAutopilot(i, False, tm_port) for i in vehicle_ids],
                        False)
client.apply_batch_sync([carla.command.DestroyActor(i) for i in vehicle_ids], False)
tm.shut_down()
hero.destroy()
step()
asynchronous(world)
end_ok()
