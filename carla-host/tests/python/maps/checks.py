"""Checks the test maps that make_maps.py writes with the unmodified
`carla==0.9.16` client's own map code, offline: `carla.Map(name, xodr)` runs
LibCarla's OpenDRIVE parser and map queries without a server.

Usage: python checks.py [MAP_DIR]
Every MAP_DIR/*.xodr is checked; a map named in EXPECT below is held to
more. Without MAP_DIR it runs make_maps.py (beside this file) into a
temporary folder and checks those, every map in EXPECT among them.
One line per map, the problems under it, and last
"checks: N passed, N failed"; the exit status is 1 when any map failed.

For every map:
- LibCarla parses it without printing anything (it prints its warnings);
- generate_waypoints(2.0) gives driving waypoints, get_topology() segments;
- no dead ends: every driving waypoint has one 5 m ahead and 5 m behind;
- the lanes join up: where one ends the next begins (within 0.1 m and 3
  degrees), and a step 1 m ahead never leaps (LibCarla's NaN or misplaced
  geometry shows here);
- sidewalk lanes exist, and those inside junctions join the sidewalks on
  either side and keep off the junction's driving lanes;
- a junction's right turns start from the rightmost lane, its left turns
  from the leftmost.
And it reports how many parts the lane graph (successors and allowed lane
changes) falls into: a map whose traffic can reach every lane from every
other is one part; a loop without junctions is two, one each way.
"""
import glob
import os
import subprocess
import sys
import tempfile

import carla

HERE = os.path.dirname(os.path.abspath(__file__))

# What each generated map must have beyond the common checks:
#   sidewalk_edges: every driving waypoint off junctions has a sidewalk as
#     the outermost lane on its right (so both sides of two-way roads)
#   min_rise: metres between the lowest and the highest driving waypoint
#   junctions: at least this many junctions
#   lights: this many traffic lights (type 1000001), each on the lanes that
#     enter a junction, and every lane entering a junction sees one ahead
#   lanes_each_way: some road has at least this many driving lanes in one
#     direction, with lane changes allowed between them
#   parts: the lane graph falls into exactly this many strongly connected
#     parts
#   corners: at least this many sidewalk lanes inside junctions
EXPECT = {
    "Curves": dict(sidewalk_edges=True, min_rise=5.0, lanes_each_way=2, parts=2),
    "Crossing": dict(sidewalk_edges=True, junctions=1, lights=4, lanes_each_way=2, parts=1,
                     corners=4),
    "Roundabout": dict(sidewalk_edges=True, junctions=8, parts=1, corners=8),
    "Highway": dict(sidewalk_edges=True, junctions=2, lanes_each_way=3, parts=2, min_rise=3.0,
                    corners=4),
}

DRIVING = carla.LaneType.Driving
SIDEWALK = carla.LaneType.Sidewalk
LIGHT = "1000001"


def parse(name, text):
    """The carla.Map, and what LibCarla printed while parsing it."""
    captured = tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    os.dup2(captured.fileno(), 1)
    os.dup2(captured.fileno(), 2)
    try:
        town = carla.Map(name, text)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    captured.seek(0)
    return town, captured.read().decode(errors="replace").strip()


def where(wp):
    loc = wp.transform.location
    return "road %d lane %d s %.1f (%.1f, %.1f, %.1f)" % (
        wp.road_id, wp.lane_id, wp.s, loc.x, loc.y, loc.z)


def lane_key(wp):
    return (wp.road_id, wp.section_id, wp.lane_id)


def yaw_diff(a, b):
    return abs((a - b + 180.0) % 360.0 - 180.0)


def strongly_connected(nodes, edges):
    """The strongly connected components of a directed graph (Kosaraju,
    iterative)."""
    forward = {n: [] for n in nodes}
    backward = {n: [] for n in nodes}
    for a, b in edges:
        forward[a].append(b)
        backward[b].append(a)
    order, seen = [], set()
    for root in nodes:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(forward[root]))]
        while stack:
            node, it = stack[-1]
            nxt = next((n for n in it if n not in seen), None)
            if nxt is None:
                order.append(node)
                stack.pop()
            else:
                seen.add(nxt)
                stack.append((nxt, iter(forward[nxt])))
    components, done = [], set()
    for root in reversed(order):
        if root in done:
            continue
        component, stack = [], [root]
        done.add(root)
        while stack:
            node = stack.pop()
            component.append(node)
            for n in backward[node]:
                if n not in done:
                    done.add(n)
                    stack.append(n)
        components.append(component)
    return components


def right_edge(wp):
    """The lane types from `wp` out to its road's right-hand edge."""
    types, seen = [], set()
    while wp is not None and wp.lane_id not in seen and len(types) < 20:
        seen.add(wp.lane_id)
        types.append(wp.lane_type)
        nxt = wp.get_right_lane()
        # past the centre line the next lane runs the other way: stop there
        if nxt is None or (nxt.lane_id > 0) != (wp.lane_id > 0):
            break
        wp = nxt
    return types


def check_map(name, text, expect):
    """The problems found, and a summary of what was measured."""
    problems = []
    town, log = parse(name, text)
    if log:
        problems.append("the parser printed: %r" % log)

    wps = town.generate_waypoints(2.0)
    driving = [w for w in wps if w.lane_type == DRIVING]
    if not driving:
        return problems + ["no driving waypoints"], ""
    topology = town.get_topology()
    if not topology:
        problems.append("get_topology() is empty")

    # no dead ends, no wild steps inside a lane
    ends, jumps = [], []
    for w in driving:
        if not w.next(5.0):
            ends.append("nothing 5 m ahead of " + where(w))
        if not w.previous(5.0):
            ends.append("nothing 5 m behind " + where(w))
        for n in w.next(1.0):
            # s runs along the reference line: a lane off it on a curve
            # moves a little more or less than 1 m
            gap = n.transform.location.distance(w.transform.location)
            turn = yaw_diff(n.transform.rotation.yaw, w.transform.rotation.yaw)
            if not 0.5 < gap < 2.0 or turn > 30.0:
                jumps.append("1 m ahead of %s is %s: %.2f m away, %.0f deg off" % (
                    where(w), where(n), gap, turn))
    # where one lane ends and the next begins they meet, facing the same way
    for a, b in topology:
        if a.lane_type != DRIVING:
            continue
        end = a.next_until_lane_end(0.5)
        end = end[-1] if end else a
        gap = end.transform.location.distance(b.transform.location)
        turn = yaw_diff(end.transform.rotation.yaw, b.transform.rotation.yaw)
        if gap > 0.1 or turn > 3.0:
            jumps.append("%s ends %.2f m and %.1f deg from %s" % (where(end), gap, turn, where(b)))
    for what, found in (("dead ends", ends), ("jumps", jumps)):
        if found:
            problems.append("%d %s, e.g. %s" % (len(found), what, "; ".join(found[:3])))

    # the lane graph: successors and lane changes
    nodes = sorted({lane_key(w) for w in driving}
                   | {lane_key(w) for pair in topology for w in pair})
    edges = [(lane_key(a), lane_key(b)) for a, b in topology]
    for w in driving:
        for allowed, neighbour in ((carla.LaneChange.Right, w.get_right_lane()),
                                   (carla.LaneChange.Left, w.get_left_lane())):
            if (w.lane_change in (allowed, carla.LaneChange.Both) and neighbour is not None
                    and neighbour.lane_type == DRIVING
                    and (neighbour.lane_id > 0) == (w.lane_id > 0)):
                edges.append((lane_key(w), lane_key(neighbour)))
    components = strongly_connected(nodes, edges)
    if "parts" in expect and len(components) != expect["parts"]:
        sizes = sorted((len(c) for c in components), reverse=True)
        smallest = min(components, key=len)
        problems.append("the lane graph falls into %d parts (sizes %s), want %d; e.g. %s" % (
            len(components), sizes, expect["parts"], sorted(smallest)[:4]))

    # sidewalks
    off_junction = [w for w in driving if not w.is_junction]
    edges_seen = [right_edge(w) for w in off_junction]
    sidewalks = sum(1 for e in edges_seen if SIDEWALK in e)
    if sidewalks == 0:
        problems.append("no sidewalk lanes")
    if expect.get("sidewalk_edges"):
        bare = [w for w, e in zip(off_junction, edges_seen) if e[-1] != SIDEWALK]
        if bare:
            problems.append("%d driving waypoints with no sidewalk at their right edge, "
                            "e.g. %s" % (len(bare), where(bare[0])))

    # sidewalks through junctions meet the sidewalks on either side
    corners = []
    for junction in {w.junction_id: w.get_junction() for w in driving if w.is_junction}.values():
        corners += junction.get_waypoints(SIDEWALK)
    for a, b in corners:
        for there, here in ((a.previous(1.0), a), (b.next(1.0), b)):
            if not any(w.lane_type == SIDEWALK and not w.is_junction
                       and 0.5 < w.transform.location.distance(here.transform.location) < 2.0
                       for w in there):
                problems.append("the junction sidewalk at %s meets no sidewalk" % where(here))
    if len(corners) < expect.get("corners", 0):
        problems.append("%d sidewalks in junctions, want %d" % (len(corners), expect["corners"]))

    # junction sidewalks keep off the junction's driving lanes
    junction_lanes = []
    for junction in {w.junction_id: w.get_junction() for w in driving if w.is_junction}.values():
        for a, _ in junction.get_waypoints(DRIVING):
            junction_lanes += [a] + a.next_until_lane_end(0.5)
    for a, _ in corners:
        for w in [a] + a.next_until_lane_end(0.5):
            near = [d for d in junction_lanes
                    if d.transform.location.distance(w.transform.location)
                    < (d.lane_width + w.lane_width) / 2 - 0.05]
            if near:
                problems.append("the junction sidewalk at %s runs over the driving lane at %s" % (
                    where(w), where(near[0])))
                break

    # turns start from the proper lane: right from the rightmost, left from
    # the leftmost of the lanes going the same way
    for junction in {w.junction_id: w.get_junction() for w in driving if w.is_junction}.values():
        for a, b in junction.get_waypoints(DRIVING):
            turn = (b.transform.rotation.yaw - a.transform.rotation.yaw + 180.0) % 360.0 - 180.0
            before = a.previous(0.5)
            if abs(turn) < 30.0 or not before:
                continue
            lane = before[0]
            # CARLA's yaw grows clockwise: a right turn adds to it
            beside = lane.get_right_lane() if turn > 0 else lane.get_left_lane()
            if (beside is not None and beside.lane_type == DRIVING
                    and (beside.lane_id > 0) == (lane.lane_id > 0)):
                problems.append("a %s turn of %.0f deg into %s starts from %s, not the %s lane" % (
                    "right" if turn > 0 else "left", abs(turn), where(a), where(lane),
                    "rightmost" if turn > 0 else "leftmost"))

    # several lanes each way, lane changes allowed between them
    most = 0
    for w in off_junction:
        lanes = [t for t in right_edge(w) if t == DRIVING]
        if len(lanes) > 1 and w.lane_change in (carla.LaneChange.Right, carla.LaneChange.Both):
            most = max(most, len(lanes) + (abs(w.lane_id) - 1))
    if most < expect.get("lanes_each_way", 0):
        problems.append("at most %d lanes one way with lane changes allowed, want %d" % (
            most, expect["lanes_each_way"]))

    # elevation
    zs = [w.transform.location.z for w in driving]
    rise = max(zs) - min(zs)
    if rise < expect.get("min_rise", 0.0):
        problems.append("driving waypoints rise only %.2f m, want %.1f" % (
            rise, expect["min_rise"]))

    # junctions
    junctions = {w.junction_id for w in driving if w.is_junction}
    if len(junctions) < expect.get("junctions", 0):
        problems.append("%d junctions, want %d" % (len(junctions), expect["junctions"]))

    # traffic lights
    lights = town.get_all_landmarks_of_type(LIGHT)
    if "lights" in expect:
        problems += check_lights(town, lights, topology, expect["lights"])

    summary = ("%d driving waypoints, %d topology segments, %d lanes, %d junctions, "
               "%d lane-graph parts, %d waypoints with a sidewalk at the edge, %d junction "
               "sidewalks, %d lanes each way, z %.1f..%.1f m, %d lights" % (
                   len(driving), len(topology), len(nodes), len(junctions), len(components),
                   sidewalks, len(corners), most, min(zs), max(zs), len(lights)))
    return problems, summary


def check_lights(town, lights, topology, want):
    problems = []
    if len(lights) != want:
        problems.append("%d traffic lights, want %d" % (len(lights), want))
    for lm in lights:
        label = "light %s on road %d s %.1f" % (lm.id, lm.road_id, lm.s)
        if not lm.is_dynamic:
            problems.append(label + " is not dynamic")
        validities = lm.get_lane_validities()
        if not validities:
            problems.append(label + " has no lane validities")
        for low, high in validities:
            for lane in range(low, high + 1):
                wp = town.get_waypoint_xodr(lm.road_id, lane, lm.s)
                if wp is None or wp.lane_type != DRIVING:
                    problems.append("%s is valid on lane %d, not a driving lane" % (label, lane))
        group = town.get_landmark_group(lm)
        if not any(g.id == lm.id for g in group):
            problems.append(label + " is in no controller group")
    # every lane that enters a junction sees a light a little before it
    unlit = []
    for a, b in topology:
        if a.is_junction or not b.is_junction:
            continue
        ahead = a.next_until_lane_end(1.0)
        before = ahead[-1].previous(10.0) if ahead else []
        seen = before[0].get_landmarks_of_type(20.0, LIGHT) if before else []
        if not seen:
            unlit.append(where(a))
    if unlit:
        problems.append("%d lanes enter a junction with no light ahead, e.g. %s" % (
            len(set(unlit)), sorted(set(unlit))[0]))
    return problems


def check_dir(map_dir, want_all):
    """Checks every map in `map_dir`; with `want_all` each map in EXPECT
    must be there. Returns the exit status."""
    paths = sorted(glob.glob(os.path.join(map_dir, "*.xodr")))
    names = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    passed = failed = 0
    if want_all:
        for name in sorted(set(EXPECT) - set(names)):
            failed += 1
            print("FAIL %s: make_maps.py wrote no %s.xodr" % (name, name))
    for name, path in zip(names, paths):
        with open(path) as f:
            text = f.read()
        problems, summary = check_map(name, text, EXPECT.get(name, {}))
        if problems:
            failed += 1
            print("FAIL %s: %s" % (name, summary))
            for p in problems:
                print("  " + p)
        else:
            passed += 1
            print("ok   %s: %s" % (name, summary))
    print("checks: %d passed, %d failed" % (passed, failed))
    return 1 if failed or not paths else 0


def main(argv):
    if len(argv) > 2:
        sys.stderr.write(__doc__)
        return 2
    if len(argv) == 2:
        return check_dir(argv[1], want_all=False)
    with tempfile.TemporaryDirectory(prefix="maps-") as map_dir:
        subprocess.run([sys.executable, os.path.join(HERE, "make_maps.py"), map_dir],
                       check=True, stdout=subprocess.DEVNULL)
        return check_dir(map_dir, want_all=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
