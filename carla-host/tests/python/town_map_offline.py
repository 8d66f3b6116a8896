"""Checks the demo town's OpenDRIVE map with the unmodified `carla==0.9.16`
client, offline: `carla.Map(name, xodr)` runs LibCarla's parser and map
queries without a server. The Rust test
(carla-host/src/world/map/opendrive_client_tests.rs) writes the map and what to
expect of it, runs this script and fails unless the last line is OK.

Usage: python town_map_offline.py MAP.xodr EXPECT.json
EXPECT.json holds (Unreal frame, metres, degrees):
  spawn_points: [[x, y, z, yaw], ...]      the server's recommended spawn points
  lane_points:  [[x, y, yaw], ...]         town lane centres and travel yaws
  junctions:    [[x, y, connections], ...] node centres and their movements
  geo:          [[x, y, z, lat, lon, alt], ...]  the server's GNSS model
  topology_segments, driving_lanes, driving_lane_length
"""
import json
import math
import os
import sys
import tempfile

import carla

xodr_path, expect_path = sys.argv[1], sys.argv[2]
expect = json.load(open(expect_path))


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
    town = carla.Map("Town", open(xodr_path).read())
finally:
    sys.stdout.flush()
    os.dup2(saved[0], 1)
    os.dup2(saved[1], 2)
captured.seek(0)
log = captured.read().decode(errors="replace").strip()
check(log == "", "the parser printed: %r" % log)

DRIVING = carla.LaneType.Driving

# Spawn points: on a driving lane's centre, facing along it, off junctions.
starts = []
for x, y, z, yaw in expect["spawn_points"]:
    loc = carla.Location(x, y, z)
    wp = town.get_waypoint(loc, project_to_road=True, lane_type=DRIVING)
    check(wp is not None, "no waypoint for spawn point (%.2f, %.2f)" % (x, y))
    dist = wp.transform.location.distance(carla.Location(x, y, 0.0))
    check(dist < 0.5, "spawn point (%.2f, %.2f) is %.2f m from %s" % (x, y, dist, where(wp)))
    check(yaw_diff(wp.transform.rotation.yaw, yaw) < 5.0,
          "spawn point (%.2f, %.2f) yaw %.1f vs %s" % (x, y, yaw, where(wp)))
    check(not wp.is_junction, "spawn point in a junction: %s" % where(wp))
    ahead = wp.next(10.0)
    check(len(ahead) > 0, "nothing 10 m ahead of %s" % where(wp))
    a = ahead[0]
    check((a.road_id, a.lane_id) == (wp.road_id, wp.lane_id),
          "10 m ahead of %s is %s" % (where(wp), where(a)))
    gap = a.transform.location.distance(wp.transform.location)
    check(abs(gap - 10.0) < 0.1, "10 m ahead of %s is %.3f m away" % (where(wp), gap))
    back = wp.previous(10.0)
    check(len(back) > 0 and (back[0].road_id, back[0].lane_id) == (wp.road_id, wp.lane_id),
          "10 m behind %s" % where(wp))
    left = wp.get_left_lane()
    check(left is not None and left.road_id == wp.road_id and left.lane_id == -wp.lane_id
          and left.lane_type == DRIVING
          and yaw_diff(left.transform.rotation.yaw, wp.transform.rotation.yaw + 180.0) < 1.0,
          "left of %s is not the opposite lane: %s" % (where(wp), left and where(left)))
    width = left.transform.location.distance(wp.transform.location)
    check(abs(width - 3.5) < 0.01, "lanes of %s %.3f m apart" % (where(wp), width))
    right = wp.get_right_lane()
    check(right is not None and right.lane_type == carla.LaneType.Sidewalk,
          "right of %s is not a sidewalk" % where(wp))
    check(wp.left_lane_marking.type == carla.LaneMarkingType.Broken
          and wp.right_lane_marking.type == carla.LaneMarkingType.Solid
          and wp.right_lane_marking.color == carla.LaneMarkingColor.White,
          "marks of %s: %s / %s" % (where(wp), wp.left_lane_marking.type,
                                    wp.right_lane_marking.type))
    starts.append(wp)

# From every spawn point, 500 m along next(2.0) (varying the way taken at
# junctions) and 100 m along previous(2.0): the network has no dead ends.
junction_seen = 0
for i, wp in enumerate(starts):
    here, seen = wp, False
    for step in range(250):
        ways = here.next(2.0)
        check(len(ways) > 0, "dead end after %d m from spawn %d at %s" % (2 * step, i, where(here)))
        nxt = ways[(i + step) % len(ways)]
        gap = nxt.transform.location.distance(here.transform.location)
        # s runs along the centre line: up to (6.5 + 1.75) / 6.5 times
        # longer steps on a left turn's lane.
        check(gap < 2.6, "a 2 m step from %s jumped %.2f m to %s" % (where(here), gap, where(nxt)))
        here = nxt
        seen = seen or here.is_junction
    junction_seen += seen
    here = wp
    for step in range(50):
        ways = here.previous(2.0)
        check(len(ways) > 0, "no way back after %d m from spawn %d at %s" % (2 * step, i, where(here)))
        here = ways[step % len(ways)]
check(junction_seen == len(starts), "only %d of %d walks crossed a junction"
      % (junction_seen, len(starts)))

# Town lane points: the lane of travel direction d has the yaw 90 d there.
for x, y, yaw in expect["lane_points"]:
    wp = town.get_waypoint(carla.Location(x, y, 0.0))
    check(wp is not None and wp.lane_type == DRIVING, "no lane at (%.2f, %.2f)" % (x, y))
    dist = wp.transform.location.distance(carla.Location(x, y, 0.0))
    check(dist < 0.05 and yaw_diff(wp.transform.rotation.yaw, yaw) < 1.0,
          "lane point (%.2f, %.2f) yaw %.0f: %s" % (x, y, yaw, where(wp)))

# Junctions at the nodes, with one connecting lane per movement.
for x, y, count in expect["junctions"]:
    wp = town.get_waypoint(carla.Location(x, y, 0.0))
    check(wp is not None and wp.is_junction, "no junction at (%.0f, %.0f)" % (x, y))
    pairs = wp.get_junction().get_waypoints(DRIVING)
    check(len(pairs) == count, "junction at (%.0f, %.0f): %d lanes, expected %d"
          % (x, y, len(pairs), count))

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

# The map's geo-reference is the server's GNSS reference: both put the
# world origin there (their projections differ away from it in 0.9.16).
for x, y, z, lat, lon, alt in expect["geo"]:
    g = town.transform_to_geolocation(carla.Location(x, y, z))
    check(abs(g.latitude - lat) < 1e-7 and abs(g.longitude - lon) < 1e-7
          and abs(g.altitude - alt) < 1e-3,
          "geolocation of (%.0f, %.0f, %.0f): map %s, GNSS (%.8f, %.8f, %.2f)"
          % (x, y, z, g, lat, lon, alt))

print("spawn points %d, topology segments %d, waypoints %d, junctions %d"
      % (len(starts), len(topology), len(waypoints), len(expect["junctions"])))
print("OK")
