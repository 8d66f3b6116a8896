"""Writes the test maps: OpenDRIVE worlds made with scenariogeneration.

Usage: python make_maps.py OUT_DIR

Each map is a file OUT_DIR/<Name>.xodr; the file stem is the map's name.
Together they cover line, arc, spiral and paramPoly3 geometry, elevation and
superelevation, junctions with traffic lights, a roundabout, roads of several
lanes each way with lane changes allowed, and shoulder and sidewalk lanes. No
driving lane dead-ends: every road ends in a junction or another road, so the
world's traffic can drive on the lane graph for as long as it runs.

The output is the same bytes on every run: the header's date is fixed, the
signal ids are set here, and nothing depends on the clock or on hashing.
Standard library and scenariogeneration (pinned in scripts/test.sh) only.
"""
import math
import os
import sys
import xml.etree.ElementTree as ET

from scenariogeneration import xodr

LANE = 3.5  # driving lane width
SHOULDER = 1.0
SIDEWALK = 2.5
CURB = 0.15  # a sidewalk's height above the road
HEADER_DATE = "2025-01-01T00:00:00"
# map x east, y north, in metres from latitude and longitude 0
GEO_REFERENCE = "+proj=tmerc +lat_0=0 +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs"


# ---------------------------------------------------------------- lanes


def mark(kind):
    """A lane's outer road mark: "solid", "broken" (lane change allowed),
    "double" (the centre line of a two-way road) or "none"."""
    if kind == "none":
        return xodr.RoadMark(xodr.RoadMarkType.none)
    kinds = {
        "solid": (xodr.RoadMarkType.solid, xodr.LaneChange.none),
        "broken": (xodr.RoadMarkType.broken, xodr.LaneChange.both),
        "double": (xodr.RoadMarkType.solid_solid, xodr.LaneChange.none),
    }
    mark_type, change = kinds[kind]
    rm = xodr.RoadMark(mark_type, 0.15, laneChange=change)
    if kind == "double":
        rm.color = xodr.RoadMarkColor.yellow
    return rm


def side(driving, shoulder=True, sidewalk=True):
    """The lanes of one side of a road from its centre outwards, as
    (type, width) pairs: `driving` driving lanes, then a shoulder, then a
    sidewalk."""
    lanes = [("driving", LANE)] * driving
    if shoulder:
        lanes.append(("shoulder", SHOULDER))
    if sidewalk:
        lanes.append(("sidewalk", SIDEWALK))
    return lanes


def make_lane(kind, width, outer):
    """One lane; `outer` is the type of the lane beyond it (None at the
    road's edge), which picks its outer road mark."""
    lane = xodr.Lane(getattr(xodr.LaneType, kind), a=width)
    if kind == "driving":
        lane.add_roadmark(mark("broken" if outer == "driving" else "solid"))
    else:
        lane.add_roadmark(mark("none"))
    if kind == "sidewalk":
        lane.add_height(CURB, CURB)
    return lane


def lane_section(left, right, s=0.0):
    """A lane section with the `left` and `right` lanes (see side())."""
    two_way = any(k == "driving" for k, _ in left) and any(
        k == "driving" for k, _ in right
    )
    centre = xodr.Lane(a=0)
    centre.add_roadmark(mark("double" if two_way else "solid"))
    section = xodr.LaneSection(s, centre)
    for lanes, add in ((left, section.add_left_lane), (right, section.add_right_lane)):
        for i, (kind, width) in enumerate(lanes):
            outer = lanes[i + 1][0] if i + 1 < len(lanes) else None
            add(make_lane(kind, width, outer))
    return section


def make_road(road_id, geometry, left, right, start=None, junction=-1, name=None):
    """A road of the `geometry` pieces with one lane section. `start`
    (x, y, heading) fixes where it begins; without it the road is placed from
    its links."""
    plan = xodr.PlanView(*start) if start is not None else xodr.PlanView()
    for piece in geometry:
        plan.add_geometry(piece)
    lanes = xodr.Lanes()
    lanes.add_lanesection(lane_section(left, right))
    return xodr.Road(road_id, plan, lanes, road_type=junction, name=name)


def make_sidewalk(road):
    """Turns a connecting road's lanes (made as driving lanes by
    scenariogeneration's junction creator) into sidewalk."""
    section = road.lanes.lanesections[0]
    for lane in section.leftlanes + section.rightlanes:
        lane.lane_type = xodr.LaneType.sidewalk
        lane.roadmark = [mark("none")]
        lane.add_height(CURB, CURB)


def new_map(name):
    return xodr.OpenDrive(name, geo_reference=GEO_REFERENCE)


def length_of(geometry):
    return sum(piece.length for piece in geometry)


# ------------------------------------------------------------- profiles


def smooth_step(s0, s1, z0, z1):
    """The cubic record from (s0, z0) to (s1, z1) with zero slope at both
    ends, as (s, a, b, c, d)."""
    length, rise = s1 - s0, z1 - z0
    return (s0, z0, 0.0, 3.0 * rise / length**2, -2.0 * rise / length**3)


def add_profile(road, knots, add):
    """Joins the (s, value) knots with smooth steps (flat at every knot) and
    a constant after the last, through `add` (road.add_elevation or
    road.add_superelevation)."""
    for (s0, z0), (s1, z1) in zip(knots, knots[1:]):
        if z0 == z1:
            add(s0, z0, 0.0, 0.0, 0.0)
        else:
            add(*smooth_step(s0, s1, z0, z1))
    s_last, z_last = knots[-1]
    add(s_last, z_last, 0.0, 0.0, 0.0)


# ---------------------------------------------------------------- maps


def curves():
    """A loop of four roads, two lanes each way with shoulders and
    sidewalks: two straights of line and paramPoly3 pieces (an S-bend, its
    parameter running 0..1 on one straight and along its length on the
    other) and two half turns of spiral, arc and spiral pieces. The first
    straight climbs 6 m and the first turn comes down again; the second
    turn banks into its curve (superelevation).

    The second half (roads 3 and 4) has the same plan as the first and
    starts where the first ends, facing back, so it is the first half turned
    half a turn about the midpoint between its ends: the loop closes
    exactly."""
    radius = 40.0  # the arcs'
    spiral = 40.0  # each spiral's length: it turns spiral / (2 radius) rad

    # an S-bend 8 m sideways over 60 m, back to the same heading:
    # u = 60 p, v = 8 (3 p^2 - 2 p^3), p from 0 to 1
    bend = xodr.ParamPoly3(0, 60, 0, 0, 0, 0, 24, -16, prange="normalized")
    # the same curve with p from 0 to its length
    n = bend.length
    bend_s = xodr.ParamPoly3(0, 60 / n, 0, 0, 0, 0, 24 / n**2, -16 / n**3,
                             prange="arcLength", length=n)

    def straight(s_bend):
        return [xodr.Line(40), s_bend, xodr.Line(30)]

    def turn():
        return [
            xodr.Spiral(0.0, 1.0 / radius, length=spiral),
            xodr.Arc(1.0 / radius, angle=math.pi - spiral / radius),
            xodr.Spiral(1.0 / radius, 0.0, length=spiral),
            xodr.Line(20),
        ]

    lanes = side(2)
    roads = [
        make_road(1, straight(bend), lanes, lanes, start=(0.0, 0.0, 0.0)),
        make_road(2, turn(), lanes, lanes),
        make_road(3, straight(bend_s), lanes, lanes),
        make_road(4, turn(), lanes, lanes),
    ]
    chain(roads, loop=True)
    one, two, three, four = roads

    # the hill: up 6 m along road 1, down along road 2 through its turn
    add_profile(one, [(0.0, 0.0), (15.0, 0.0), (115.0, 6.0)], one.add_elevation)
    add_profile(two, [(0.0, 6.0), (30.0, 6.0), (170.0, 0.0)], two.add_elevation)
    for road in (three, four):
        add_profile(road, [(0.0, 0.0)], road.add_elevation)
    # the bank: the left (inner) side 0.06 rad down through the arc, rolled
    # in and out along the spirals
    arc_end = spiral + radius * (math.pi - spiral / radius)
    add_profile(
        four,
        [(0.0, 0.0), (spiral, -0.06), (arc_end, -0.06), (arc_end + spiral, 0.0)],
        four.add_superelevation,
    )
    for road in (one, two, three):
        add_profile(road, [(0.0, 0.0)], road.add_superelevation)

    odr = new_map("Curves")
    for road in roads:
        odr.add_road(road)
    odr.adjust_roads_and_lanes()
    return odr, None


def chain(roads, loop=False):
    """Links each road's end to the next one's start (and the last's to the
    first's when `loop`)."""
    pairs = list(zip(roads, roads[1:]))
    if loop:
        pairs.append((roads[-1], roads[0]))
    for a, b in pairs:
        a.add_successor(xodr.ElementType.road, b.id, xodr.ContactPoint.start)
        b.add_predecessor(xodr.ElementType.road, a.id, xodr.ContactPoint.end)


def crossing():
    """A four-way junction of two-lane-each-way roads with shoulders and
    sidewalks, its four approaches under traffic lights. Each arm runs
    straight out from the junction; two ring roads of three left quarter
    turns join the east arm's far end to the north arm's and the west arm's
    to the south arm's, so every lane goes on forever: round a ring or
    through the junction. The junction's corners carry the sidewalks from
    arm to arm.

    The lights are scenariogeneration signals (type 1000001, dynamic) on
    the sidewalk beside each arm's incoming lanes; scenariogeneration has
    no controllers, so add_controllers() gives each light one and lists
    them in the junction."""
    half = 15.0  # from the junction's centre to where each arm starts
    reach = 60.0  # from the centre to each arm's far end
    radius = 20.0  # the rings' quarter turns
    lanes = side(2)
    walk = len(lanes)  # the sidewalk's lane id
    junction_id = 100
    creator = xodr.CommonJunctionCreator(junction_id, "Crossing", startnum=200)

    # arms 1..4 point east, north, west and south
    arms = []
    for k in range(4):
        angle = k * math.pi / 2
        start = (half * math.cos(angle), half * math.sin(angle), angle)
        arm = make_road(k + 1, [xodr.Line(reach - half)], lanes, lanes, start=start)
        creator.add_incoming_road_cartesian_geometry(
            arm, start[0], start[1], angle + math.pi, "predecessor"
        )
        arms.append(arm)

    # rings 11 and 12: from the east arm's end round to the north arm's and
    # from the west arm's to the south arm's, three left quarter turns each
    rings = []
    for k in (0, 2):
        angle = k * math.pi / 2
        geometry = [
            xodr.Arc(1.0 / radius, angle=math.pi / 2), xodr.Line(reach - radius),
            xodr.Arc(1.0 / radius, angle=math.pi / 2), xodr.Line(reach - radius),
            xodr.Arc(1.0 / radius, angle=math.pi / 2),
        ]
        start = (reach * math.cos(angle), reach * math.sin(angle), angle)
        ring = make_road(11 + k // 2, geometry, lanes, lanes, start=start)
        here, there = arms[k], arms[k + 1]
        here.add_successor(xodr.ElementType.road, ring.id, xodr.ContactPoint.start)
        ring.add_predecessor(xodr.ElementType.road, here.id, xodr.ContactPoint.end)
        ring.add_successor(xodr.ElementType.road, there.id, xodr.ContactPoint.end)
        there.add_successor(xodr.ElementType.road, ring.id, xodr.ContactPoint.end)
        rings.append(ring)

    # Each arm's left lanes (1 inner, 2 outer) come in, its right lanes
    # (-1, -2) go out: straight on lane to lane, right from the outer lane,
    # left from the inner one. The sidewalks turn each corner.
    for k in range(4):
        here = arms[k].id
        # anticlockwise from here: the arm on the right of traffic coming
        # in, the one ahead, the one on its left
        right, ahead, left = (arms[(k + j) % 4].id for j in (1, 2, 3))
        creator.add_connection(here, ahead, [1, 2], [-1, -2])
        creator.add_connection(here, right, 2, -2)
        creator.add_connection(here, left, 1, -1)
        creator.add_connection(here, right, walk, -walk)
        make_sidewalk(creator.get_connecting_roads()[-1])

    for arm in arms:
        arm.add_signal(
            xodr.Signal(
                # 3 m before the junction, on the sidewalk on the incoming side
                s=3.0, t=2 * LANE + SHOULDER + 0.5, country="OpenDRIVE", Type="1000001",
                subtype="-1", name="TrafficLight", dynamic=xodr.Dynamic.yes,
                orientation=xodr.Orientation.negative, zOffset=0.0, height=4.0, width=0.5,
            ).add_validity(1, 2)
        )

    odr = new_map("Crossing")
    for road in arms + rings:
        odr.add_road(road)
    odr.add_junction_creator(creator)
    odr.adjust_roads_and_lanes()
    return odr, lambda root: add_controllers(root, {junction_id: [arm.id for arm in arms]})


def roundabout():
    """A one-lane roundabout with four two-way arms, sidewalks along the
    arms and round the ring's outside. Where each arm meets the ring a
    junction holds the ring's arc through it, the way in, the way out and
    the two sidewalk corners; scenariogeneration's junction creator makes
    all but the arc (its clothoid fit would flatten the circle), which is
    added to the junction here. Each arm's far end is a turnaround: a
    junction whose one road loops back (right, left round, right) from the
    arm's outgoing lane to its incoming one, so traffic leaving the
    roundabout comes back."""
    ring_radius = 35.0
    gap = math.radians(20)  # each junction spans the ring from -gap to +gap
    arm_start = 55.0  # radius where the arms begin
    arm_length = 60.0
    ring_right = [("driving", 4.0), ("shoulder", SHOULDER), ("sidewalk", SIDEWALK)]
    ring_left = [("shoulder", SHOULDER)]
    arm_lanes = side(1)
    walk = len(arm_lanes)  # the sidewalk's lane id on the arms and the ring

    odr = new_map("Roundabout")
    angles = [k * math.pi / 2 for k in range(4)]
    # ring segments 1..4 run anticlockwise from junction k to junction k+1
    ring = []
    for k, angle in enumerate(angles):
        start_angle = angle + gap
        start = (ring_radius * math.cos(start_angle), ring_radius * math.sin(start_angle),
                 start_angle + math.pi / 2)
        arc = xodr.Arc(1.0 / ring_radius, angle=math.pi / 2 - 2 * gap)
        road = make_road(k + 1, [arc], ring_left, ring_right, start=start)
        road.add_predecessor(xodr.ElementType.junction, 100 + k)
        road.add_successor(xodr.ElementType.junction, 100 + (k + 1) % 4)
        ring.append(road)
    # arms 11..14 run outwards from junction k to turnaround 110 + k
    arms = []
    for k, angle in enumerate(angles):
        start = (arm_start * math.cos(angle), arm_start * math.sin(angle), angle)
        road = make_road(11 + k, [xodr.Line(arm_length)], arm_lanes, arm_lanes, start=start)
        road.add_predecessor(xodr.ElementType.junction, 100 + k)
        arms.append(road)
    for road in ring + arms:
        odr.add_road(road)

    for k, angle in enumerate(angles):
        up, down, arm = ring[(k - 1) % 4], ring[k], arms[k]
        creator = xodr.CommonJunctionCreator(100 + k, "Roundabout %d" % k, startnum=200 + 20 * k)
        # where each road meets the junction, heading into it
        for road, at, heading in (
            (up, angle - gap, angle - gap + math.pi / 2),
            (down, angle + gap, angle + gap - math.pi / 2),
            (arm, None, angle + math.pi),
        ):
            radius = ring_radius if at is not None else arm_start
            at = angle if at is None else at
            creator.add_incoming_road_cartesian_geometry(
                road, radius * math.cos(at), radius * math.sin(at), heading
            )
        creator.add_connection(arm.id, down.id, 1, -1)  # in
        creator.add_connection(up.id, arm.id, -1, -1)  # out
        creator.add_connection(up.id, arm.id, -walk, -walk)
        make_sidewalk(creator.get_connecting_roads()[-1])
        creator.add_connection(arm.id, down.id, walk, -walk)
        make_sidewalk(creator.get_connecting_roads()[-1])
        # round: the ring's own arc
        through = make_road(
            190 + k, [xodr.Arc(1.0 / ring_radius, angle=2 * gap)], [], [("driving", 4.0)],
            junction=100 + k,
        )
        through.add_predecessor(xodr.ElementType.road, up.id, xodr.ContactPoint.end)
        through.add_successor(xodr.ElementType.road, down.id, xodr.ContactPoint.start)
        connection = xodr.Connection(up.id, through.id, xodr.ContactPoint.start)
        connection.add_lanelink(-1, -1)
        creator.junction.add_connection(connection)
        odr.add_road(through)
        odr.add_junction_creator(creator)

    turns = []
    for k, arm in enumerate(arms):
        turn, junction = turnaround(arm, 180 + k, 110 + k)
        odr.add_road(turn)
        odr.add_junction(junction)
        turns.append(turn)
    odr.adjust_roads_and_lanes()
    for turn in turns:
        # scenariogeneration links a lane to one road only once: the loop's
        # lane got its successor (the arm's lane 1), not its predecessor
        turn.lanes.lanesections[0].rightlanes[0].add_link("predecessor", -1)
    return odr, None


def turnaround(road, turn_id, junction_id, small=10.0, big=12.0):
    """A junction at `road`'s end with one connecting road that takes its
    outgoing lane -1 round a loop back into its incoming lane 1: a right
    turn of radius `small`, a left turn of radius `big` and the right turn
    again. The left turn's centre lies on the road's line when
    cos(a) = small / (small + big), a being each right turn's angle; then
    the loop is symmetric about that line and ends where it began."""
    a = math.acos(small / (small + big))
    loop = [
        xodr.Arc(-1.0 / small, angle=a),
        xodr.Arc(1.0 / big, angle=math.pi + 2 * a),
        xodr.Arc(-1.0 / small, angle=a),
    ]
    turn = make_road(turn_id, loop, [], [("driving", LANE)], junction=junction_id)
    road.add_successor(xodr.ElementType.junction, junction_id)
    turn.add_predecessor(xodr.ElementType.road, road.id, xodr.ContactPoint.end)
    turn.add_successor(xodr.ElementType.road, road.id, xodr.ContactPoint.end)
    junction = xodr.Junction("Turnaround %d" % junction_id, junction_id)
    connection = xodr.Connection(road.id, turn.id, xodr.ContactPoint.start)
    connection.add_lanelink(-1, -1)
    junction.add_connection(connection)
    return turn, junction


def highway():
    """A loop of three lanes each way with shoulders and sidewalks, with an
    exit: in one junction the outer lane may leave for a one-lane ramp that
    swings out (arc, line, arc) over a 4 m rise and comes back in another
    junction, where it merges into the outer lane again. Scenariogeneration's
    junction creator makes each lane's connecting road. The left sidewalk
    runs on through both junctions; the right one follows the ramp, so no
    sidewalk crosses it (the one between the ramp and the road ends at both
    junctions).

    Like Curves the loop is two halves, a straight and a half turn each,
    the second the first turned half a turn, so it closes exactly."""
    lanes = side(3)
    drive = [1, 2, 3]
    walk = len(lanes)
    span = 40.0  # each junction's length
    ramp_out = 15.0  # the ramp's start and end, to the right of the line
    bend = 0.25  # the ramp's heading off the line's at both ends
    bend_radius = 200.0
    ramp_line = 60.0
    ramp_reach = 2 * bend_radius * math.sin(bend) + ramp_line
    lead = 60.0  # line before the exit and after the entry
    straight = lead + span + ramp_reach + span + lead

    def turn():
        radius, spiral = 60.0, 60.0
        return [
            xodr.Spiral(0.0, 1.0 / radius, length=spiral),
            xodr.Arc(1.0 / radius, angle=math.pi - spiral / radius),
            xodr.Spiral(1.0 / radius, 0.0, length=spiral),
        ]

    before = make_road(1, [xodr.Line(lead)], lanes, lanes, start=(0.0, 0.0, 0.0))
    between = make_road(2, [xodr.Line(ramp_reach)], lanes, lanes,
                        start=(lead + span, 0.0, 0.0))
    after = make_road(3, [xodr.Line(lead)] + turn(), lanes, lanes,
                      start=(lead + span + ramp_reach + span, 0.0, 0.0))
    back = make_road(4, [xodr.Line(straight)], lanes, lanes)
    home = make_road(5, turn(), lanes, lanes)
    chain([after, back, home, before])
    ramp_geometry = [
        xodr.Arc(1.0 / bend_radius, angle=bend), xodr.Line(ramp_line),
        xodr.Arc(1.0 / bend_radius, angle=bend),
    ]
    ramp_lanes = side(1)
    ramp_walk = len(ramp_lanes)
    ramp = make_road(6, ramp_geometry, [("shoulder", SHOULDER)], ramp_lanes,
                     start=(lead + span, -ramp_out, -bend))
    length = length_of(ramp_geometry)
    add_profile(ramp, [(0.0, 0.0), (15.0, 0.0), (55.0, 4.0), (length - 55.0, 4.0),
                       (length - 15.0, 0.0)], ramp.add_elevation)

    exit_ = xodr.CommonJunctionCreator(100, "Exit", startnum=200)
    exit_.add_incoming_road_cartesian_geometry(before, lead, 0.0, 0.0, "successor")
    exit_.add_incoming_road_cartesian_geometry(between, lead + span, 0.0, math.pi, "predecessor")
    exit_.add_incoming_road_cartesian_geometry(
        ramp, lead + span, -ramp_out, math.pi - bend, "predecessor")
    exit_.add_connection(before.id, between.id, [-k for k in drive], [-k for k in drive])
    exit_.add_connection(between.id, before.id, drive, drive)
    exit_.add_connection(before.id, ramp.id, -3, -1)
    # the left sidewalk goes straight on, the right one follows the ramp;
    # each made from the side where it is the connecting road's lane -1:
    # the 0.9.12 to 0.9.15 clients find nothing beyond such a road's lane 1
    exit_.add_connection(between.id, before.id, walk, walk)
    make_sidewalk(exit_.get_connecting_roads()[-1])
    exit_.add_connection(before.id, ramp.id, -walk, -ramp_walk)
    make_sidewalk(exit_.get_connecting_roads()[-1])

    x = lead + span + ramp_reach
    entry = xodr.CommonJunctionCreator(101, "Entry", startnum=220)
    entry.add_incoming_road_cartesian_geometry(between, x, 0.0, 0.0, "successor")
    entry.add_incoming_road_cartesian_geometry(after, x + span, 0.0, math.pi, "predecessor")
    entry.add_incoming_road_cartesian_geometry(ramp, x, -ramp_out, bend, "successor")
    entry.add_connection(between.id, after.id, [-k for k in drive], [-k for k in drive])
    entry.add_connection(after.id, between.id, drive, drive)
    entry.add_connection(ramp.id, after.id, -1, -3)
    entry.add_connection(after.id, between.id, walk, walk)
    make_sidewalk(entry.get_connecting_roads()[-1])
    entry.add_connection(ramp.id, after.id, -ramp_walk, -walk)
    make_sidewalk(entry.get_connecting_roads()[-1])

    odr = new_map("Highway")
    for road in (before, between, after, back, home, ramp):
        odr.add_road(road)
    odr.add_junction_creator(exit_)
    odr.add_junction_creator(entry)
    odr.adjust_roads_and_lanes()
    return odr, None


MAPS = {
    "Curves": curves,
    "Crossing": crossing,
    "Roundabout": roundabout,
    "Highway": highway,
}


# -------------------------------------------------------------- writing


def add_controllers(root, lights):
    """Numbers the traffic lights (signals of type 1000001) 1, 2, ... in
    the order of the file and gives each its own <controller>, listed in the
    junction that `lights` maps to the roads the lights stand on.

    scenariogeneration writes signals but neither <controller> elements nor
    a junction's <controller> references; CARLA groups a junction's lights
    by them (each controller one phase of the junction's cycle). It also
    upper-cases the country, which CARLA's own maps write "OpenDRIVE"."""
    roads = {road.get("id"): road for road in root.findall("road")}
    junctions = {j.get("id"): j for j in root.findall("junction")}
    controllers = []
    number = 0
    for junction_id, road_ids in lights.items():
        junction = junctions[str(junction_id)]
        for sequence, road_id in enumerate(road_ids):
            for signal in roads[str(road_id)].iter("signal"):
                if signal.get("type") != "1000001":
                    continue
                number += 1
                signal.set("id", str(number))
                signal.set("country", "OpenDRIVE")
                controller = ET.Element(
                    "controller", id=str(number), name="Light%d" % number, sequence="0"
                )
                ET.SubElement(controller, "control", signalId=str(number), type="0")
                controllers.append(controller)
                ET.SubElement(
                    junction, "controller", id=str(number), type="0", sequence=str(sequence)
                )
    first_junction = list(root).index(root.find("junction"))
    for offset, controller in enumerate(controllers):
        root.insert(first_junction + offset, controller)


def arcs_for_flat_spirals(root):
    """Rewrites each spiral whose curvature hardly changes as an arc (or a
    line where it is all but straight).

    scenariogeneration's junction creator joins roads with three clothoids
    (pyclothoids' G2 fit) and writes each as a <spiral>, often one whose
    curvature changes by nothing or by 1e-9; LibCarla's spiral code divides
    by that change and puts such lanes at NaN or metres off. An arc of the
    mean curvature turns the same way and ends within a micrometre."""
    for geometry in root.iter("geometry"):
        spiral = geometry.find("spiral")
        if spiral is None:
            continue
        start = float(spiral.get("curvStart"))
        end = float(spiral.get("curvEnd"))
        if abs(end - start) * float(geometry.get("length")) > 1e-6:
            continue
        geometry.remove(spiral)
        if max(abs(start), abs(end)) < 1e-7:
            ET.SubElement(geometry, "line")
        else:
            ET.SubElement(geometry, "arc", curvature=repr((start + end) / 2.0))


def to_xml(odr, post=None):
    """The map's bytes: scenariogeneration's element tree with the header's
    date fixed and flat spirals made arcs, then `post` applied to the root,
    then indented."""
    root = odr.get_element()
    root.find("header").set("date", HEADER_DATE)
    arcs_for_flat_spirals(root)
    if post is not None:
        post(root)
    ET.indent(root, space="  ")
    text = ET.tostring(root, encoding="utf-8")
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + text + b"\n"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name, build in MAPS.items():
        odr, post = build()
        data = to_xml(odr, post)
        with open(os.path.join(out_dir, name + ".xodr"), "wb") as f:
            f.write(data)
        print("%s.xodr %d bytes" % (name, len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
