"""Checks the built-in town's OpenDRIVE text with the unmodified
`carla==0.9.16` client, offline: `carla.Map(name, xodr)` runs LibCarla's
parser and map queries without a server. The Rust test
(carla-host/src/world/map/builtin_client_tests.rs) writes the map and what
to expect of it, runs this script and fails unless the last line is OK.

Usage: python builtin_map_offline.py MAP.xodr EXPECT.json
EXPECT.json holds (Unreal frame, metres, degrees; roads and lanes as
OpenDRIVE numbers them):
  junctions:   [[id, x, y, movements], ...]       node centres
  approaches:  [[road, lane, s, junction, movements], ...]  every lane
               arriving at a junction, s 0.5 m before the road's end
  lights:      [[id, road, lane, s, x, y], ...]    traffic lights
  groups:      [[junction, [light ids]], ...]      each light its controller
  speed_signs: [[id, road, lane, s, x, y, km/h], ...]
  stop_signs:  [[id, road, lane, s, x, y], ...]
  starts:      [[x, y, yaw], ...]  lane centres 20 m past every node
  geo, lane_width, sidewalk_width, topology_segments, driving_lanes,
  driving_lane_length
"""
import json
import os
import sys
import tempfile

import carla

xodr_path, expect_path = sys.argv[1], sys.argv[2]
expect = json.load(open(expect_path))
DRIVING = carla.LaneType.Driving


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def yaw_diff(a, b):
    return abs((a - b + 180.0) % 360.0 - 180.0)


def where(wp):
    loc = wp.transform.location
    return "road %d lane %d s %.2f at (%.2f, %.2f) yaw %.1f" % (
        wp.road_id, wp.lane_id, wp.s, loc.x, loc.y, wp.transform.rotation.yaw)


# Parse with both output streams captured: LibCarla logs its warnings there.
captured = tempfile.TemporaryFile()
sys.stdout.flush()
saved = os.dup(1), os.dup(2)
os.dup2(captured.fileno(), 1)
os.dup2(captured.fileno(), 2)
try:
    town = carla.Map("SyntheticTown", open(xodr_path).read())
finally:
    sys.stdout.flush()
    os.dup2(saved[0], 1)
    os.dup2(saved[1], 2)
captured.seek(0)
log = captured.read().decode(errors="replace").strip()
check(log == "", "the parser printed: %r" % log)

# Every approach: a driving lane before its junction, whose next() fans out
# into one connecting lane per movement, each leading out of the junction
# onto another road's driving lane (no U-turns).
movements = 0
for road, lane, s, junction, count in expect["approaches"]:
    wp = town.get_waypoint_xodr(road, lane, s)
    check(wp is not None and wp.lane_type == DRIVING and not wp.is_junction,
          "approach road %d lane %d" % (road, lane))
    ways = wp.next(1.0)
    check(len(ways) == count, "%s: %d ways, expected %d" % (where(wp), len(ways), count))
    exits = set()
    for w in ways:
        check(w.is_junction and w.get_junction().id == junction,
              "%s goes into %s, not junction %d" % (where(wp), where(w), junction))
        steps = 0
        while w.is_junction:
            nxt = w.next(1.0)
            check(len(nxt) == 1, "%s: %d ways inside a junction" % (where(w), len(nxt)))
            gap = nxt[0].transform.location.distance(w.transform.location)
            check(gap < 1.3, "a 1 m step from %s jumped %.2f m" % (where(w), gap))
            w, steps = nxt[0], steps + 1
            check(steps < 30, "stuck in junction %d at %s" % (junction, where(w)))
        check(w.lane_type == DRIVING and w.road_id != road,
              "out of junction %d from road %d onto %s" % (junction, road, where(w)))
        exits.add(w.road_id)
    check(len(exits) == count, "road %d lane %d leaves junction %d onto %s"
          % (road, lane, junction, sorted(exits)))
    movements += count

# Junctions at the nodes, with one connecting lane per movement.
for jid, x, y, count in expect["junctions"]:
    wp = town.get_waypoint(carla.Location(x, y, 0.0))
    check(wp is not None and wp.is_junction and wp.get_junction().id == jid,
          "no junction %d at (%.0f, %.0f)" % (jid, x, y))
    pairs = wp.get_junction().get_waypoints(DRIVING)
    check(len(pairs) == count, "junction %d: %d lanes, expected %d" % (jid, len(pairs), count))
check(movements == sum(j[3] for j in expect["junctions"]), "approaches miss movements")


def landmarks(kind, expected, what, back):
    found = {lm.id: lm for lm in town.get_all_landmarks_of_type(kind)}
    check(len(found) == len(expected) == len(town.get_all_landmarks_of_type(kind)),
          "%d %s (type %s), expected %d" % (len(found), what, kind, len(expected)))
    for item in expected:
        sid, road, lane, s, x, y = item[:6]
        lm = found.get(str(sid))
        check(lm is not None, "%s %d missing" % (what, sid))
        orientation = (carla.LandmarkOrientation.Positive if lane < 0
                       else carla.LandmarkOrientation.Negative)
        check(lm.road_id == road and abs(lm.s - s) < 1e-6 and lm.orientation == orientation,
              "%s %d: road %d s %.2f %s" % (what, sid, lm.road_id, lm.s, lm.orientation))
        check(lm.get_lane_validities() == [(lane, lane)],
              "%s %d valid for %s" % (what, sid, lm.get_lane_validities()))
        # LibCarla moves a light 0.25 m along its transform's forward axis.
        loc = lm.transform.location
        check(loc.distance(carla.Location(x, y, 0.0)) < 0.3,
              "%s %d stands at (%.2f, %.2f), expected (%.2f, %.2f)" % (what, sid, loc.x, loc.y, x, y))
        wp = town.get_waypoint_xodr(road, lane, s)
        check(wp is not None and wp.lane_type == DRIVING and not wp.is_junction,
              "%s %d: its lane %s" % (what, sid, wp and where(wp)))
        # Seen ahead by a car `back` metres before it, as a Traffic Manager
        # looks for them.
        before = wp.previous(back)
        check(len(before) == 1 and not before[0].is_junction,
              "%s %d: %d ways %.0f m back" % (what, sid, len(before), back))
        ahead = before[0].get_landmarks_of_type(back + 5.0, kind, False)
        hits = [a for a in ahead if a.id == str(sid)]
        check(len(hits) == 1 and abs(hits[0].distance - back) < 0.1,
              "%s %d not found %.0f m ahead of %s" % (what, sid, back, where(before[0])))
    return found


lights = landmarks("1000001", expect["lights"], "light", 20.0)
for light in lights.values():
    check(light.is_dynamic, "light %s is not dynamic" % light.id)
for jid, ids in expect["groups"]:
    for sid in ids:
        light = lights[str(sid)]
        # Its controller switches it alone: LibCarla links a controller to
        # its lights only through the junction that lists it.
        group = [g.id for g in town.get_landmark_group(light)]
        check(group == [str(sid)], "light %d of junction %d is grouped with %s" % (sid, jid, group))
        # The light stands before its own junction.
        lane = light.get_lane_validities()[0][0]
        wp = town.get_waypoint_xodr(light.road_id, lane, light.s)
        check(all(w.get_junction().id == jid for w in wp.next(1.0)),
              "light %d is not before junction %d" % (sid, jid))

speed = landmarks("274", expect["speed_signs"], "speed sign", 5.0)
for sid, *_, kmh in expect["speed_signs"]:
    sign = speed[str(sid)]
    check(not sign.is_dynamic and sign.value == kmh and sign.sub_type == str(kmh)
          and sign.unit == "km/h", "speed sign %d: %s %s %s" % (sid, sign.value, sign.sub_type, sign.unit))
landmarks("206", expect["stop_signs"], "stop sign", 20.0)
total = len(expect["lights"]) + len(expect["speed_signs"]) + len(expect["stop_signs"])
check(len(town.get_all_landmarks()) == total, "%d landmarks" % len(town.get_all_landmarks()))

# Lane centres 20 m past every node: lanes, widths and marks as written.
width, walk = expect["lane_width"], expect["sidewalk_width"]
starts = []
for x, y, yaw in expect["starts"]:
    wp = town.get_waypoint(carla.Location(x, y, 0.0))
    check(wp is not None and wp.lane_type == DRIVING and not wp.is_junction,
          "no lane at (%.2f, %.2f)" % (x, y))
    dist = wp.transform.location.distance(carla.Location(x, y, 0.0))
    check(dist < 0.01 and yaw_diff(wp.transform.rotation.yaw, yaw) < 0.1,
          "lane point (%.2f, %.2f) yaw %.0f: %s" % (x, y, yaw, where(wp)))
    check(abs(wp.lane_width - width) < 1e-6, "%s is %.2f m wide" % (where(wp), wp.lane_width))
    left, right = wp.get_left_lane(), wp.get_right_lane()
    check(left is not None and left.lane_type == DRIVING and left.lane_id == -wp.lane_id
          and yaw_diff(left.transform.rotation.yaw, yaw + 180.0) < 0.1,
          "left of %s is not the opposite lane" % where(wp))
    check(right is not None and right.lane_type == carla.LaneType.Sidewalk
          and abs(right.lane_width - walk) < 1e-6 and right.get_right_lane() is None,
          "right of %s is not the outermost sidewalk" % where(wp))
    centre, edge = wp.left_lane_marking, wp.right_lane_marking
    check(centre.type == carla.LaneMarkingType.Broken
          and centre.color == carla.LaneMarkingColor.Yellow
          and edge.type == carla.LaneMarkingType.Solid
          and edge.color == carla.LaneMarkingColor.White
          and abs(edge.width - 0.125) < 1e-6,
          "marks of %s: %s %s / %s %s" % (where(wp), centre.type, centre.color,
                                          edge.type, edge.color))
    check(right.right_lane_marking.type == carla.LaneMarkingType.NONE,
          "a mark on the sidewalk of %s" % where(wp))
    starts.append(wp)

# From every start, 600 m along next(2.0) (varying the way taken at
# junctions) and 100 m along previous(2.0): no dead ends anywhere.
for i, wp in enumerate(starts):
    here, crossed = wp, 0
    for step in range(300):
        ways = here.next(2.0)
        check(len(ways) > 0, "dead end %d m from start %d at %s" % (2 * step, i, where(here)))
        nxt = ways[(i + step) % len(ways)]
        # s runs along the reference line: a left turn's lane is longer.
        gap = nxt.transform.location.distance(here.transform.location)
        check(gap < 2.6, "a 2 m step from %s jumped %.2f m to %s" % (where(here), gap, where(nxt)))
        crossed += nxt.is_junction and not here.is_junction
        here = nxt
    check(crossed >= 8, "start %d crossed only %d junctions in 600 m" % (i, crossed))
    here = wp
    for step in range(50):
        ways = here.previous(2.0)
        check(len(ways) > 0, "no way back %d m from start %d at %s" % (2 * step, i, where(here)))
        here = ways[step % len(ways)]

waypoints = town.generate_waypoints(2.0)
lanes, length = expect["driving_lanes"], expect["driving_lane_length"]
low, high = length / 2.0, length / 2.0 + lanes
check(low <= len(waypoints) <= high and all(w.lane_type == DRIVING for w in waypoints),
      "generate_waypoints(2.0): %d, expected %.0f..%.0f" % (len(waypoints), low, high))

topology = town.get_topology()
check(len(topology) == expect["topology_segments"], "topology: %d segments, expected %d"
      % (len(topology), expect["topology_segments"]))
for a, b in topology:
    check(a.lane_type == DRIVING and b.lane_type == DRIVING, "topology off driving lanes")
    check(a.is_junction != b.is_junction, "a segment from %s to %s" % (where(a), where(b)))
    # Where a junction lane meets the road ahead, get_waypoint answers that
    # road, not a lane of the junction from another arm (ScenarioRunner's
    # npc_agent maps its route's points so, and plans round the block from
    # a wrong one).
    if a.is_junction:
        at = town.get_waypoint(b.transform.location)
        check((at.road_id, at.lane_id) == (b.road_id, b.lane_id),
              "the exit of %s is read as %s" % (where(a), where(at)))

lat, lon = expect["geo"]
g = town.transform_to_geolocation(carla.Location(0.0, 0.0, 0.0))
check(abs(g.latitude - lat) < 1e-9 and abs(g.longitude - lon) < 1e-9 and abs(g.altitude) < 1e-6,
      "the origin is at %s" % g)

print("approaches %d, movements %d, lights %d in %d groups, signs %d, waypoints %d, topology %d"
      % (len(expect["approaches"]), movements, len(lights), len(expect["groups"]),
         len(expect["speed_signs"]) + len(expect["stop_signs"]), len(waypoints), len(topology)))
print("OK")
