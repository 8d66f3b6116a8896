"""Item 3: the map of the town, used by the client's own map code."""
import carla
from common import end_ok, connect, check

client, world = connect()
m = world.get_map()
points = m.get_spawn_points()
check(len(points) >= 20, "spawn points: %d" % len(points))
for p in points:
    wp = m.get_waypoint(p.location, project_to_road=True, lane_type=carla.LaneType.Driving)
    check(wp is not None and wp.lane_type == carla.LaneType.Driving, "spawn point on a driving lane")
    check(wp.transform.location.distance(p.location) < 1.0, "spawn point within 1 m of its lane")
    # Spawn points keep clear of junctions: 10 m ahead is the same lane.
    ahead = wp.next(10.0)[0]
    check(ahead.road_id == wp.road_id and ahead.lane_id == wp.lane_id, "10 m ahead: same road and lane")
    check(not ahead.is_junction, "10 m ahead is not in a junction")
    d = ahead.transform.location.distance(wp.transform.location)
    check(abs(d - 10.0) < 0.1, "10 m ahead is 10 m away: %.3f" % d)
    # On the lane's centre (the server's lanes are the client's), 0.5 m up.
    centre = wp.transform.location
    check(abs(p.location.x - centre.x) < 0.02 and abs(p.location.y - centre.y) < 0.02,
          "spawn point on its lane's centre: %s vs %s" % (p.location, centre))
    check(abs(p.location.z - centre.z - 0.5) < 0.02, "spawn point 0.5 m above the road")
wps = m.generate_waypoints(2.0)
check(len(wps) > 1000, "generate_waypoints: %d" % len(wps))
topology = m.get_topology()
check(len(topology) > 100, "topology: %d segments" % len(topology))
check(any(w.is_junction for w in wps), "junctions")
left = m.get_waypoint(points[0].location).get_left_lane()
check(left is not None and left.lane_id * m.get_waypoint(points[0].location).lane_id < 0, "left lane is the opposite direction")
end_ok()
