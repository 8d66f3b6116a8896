"""An agent-style route follower, as users write them over the client's map
API: a route of waypoints from a spawn point through the next junctions,
driven with a pure-pursuit steer and a proportional speed control through
vehicle.apply_control, synchronous ticks. A second client checks that the
hero reached its destination and stayed on its lanes."""
import math
import sys

import carla
from common import end_ok, connect, check, synchronous, asynchronous, free_spawn, watched

client, world = connect()
watcher = carla.Client("127.0.0.1", int(sys.argv[1]))
watcher.set_timeout(20.0)
seen = watcher.get_world()


m = world.get_map()
synchronous(world, 0.05)
bp = world.get_blueprint_library().find("vehicle.lincoln.mkz_2020")
bp.set_attribute("role_name", "hero")
hero = free_spawn(world, bp, m.get_spawn_points()[5:])
world.tick()

# The route: 200 m of waypoints, 2 m apart, turning where the lane turns
# (the first way on at each junction).
route = [m.get_waypoint(hero.get_location())]
while len(route) < 100:
    route.append(route[-1].next(2.0)[0])
goal = route[-1].transform.location

target_speed = 8.0  # m/s
i = 0
off_lane = 0
for k in range(1200):
    t = hero.get_transform()
    loc = t.location
    # The first route point at least 5 m ahead.
    while i < len(route) - 1 and route[i].transform.location.distance(loc) < 5.0:
        i += 1
    p = route[i].transform.location
    yaw = math.radians(t.rotation.yaw)
    dx, dy = p.x - loc.x, p.y - loc.y
    alpha = math.atan2(dy, dx) - yaw
    alpha = math.atan2(math.sin(alpha), math.cos(alpha))
    dist = max(math.hypot(dx, dy), 1.0)
    wheel = math.atan(2 * 2.9 * math.sin(alpha) / dist)
    steer = max(-1.0, min(1.0, wheel / math.radians(70)))
    v = hero.get_velocity().length()
    near_goal = loc.distance(goal)
    want = min(target_speed, 0.5 * near_goal)
    err = want - v
    hero.apply_control(carla.VehicleControl(
        throttle=max(0.0, min(1.0, 0.5 * err)), steer=steer,
        brake=max(0.0, min(1.0, -0.5 * err)) if err < -0.3 else 0.0))
    frame = world.tick()
    at = watched(seen, frame).find(hero.id).get_transform().location
    wp = m.get_waypoint(at, project_to_road=False, lane_type=carla.LaneType.Driving)
    off_lane += wp is None
    if at.distance(goal) < 2.0 and v < 0.5:
        break

final = watched(seen, frame).find(hero.id).get_transform().location
print("RESULT reached %.2f m from the goal after %d ticks, %d ticks off lane" % (
    final.distance(goal), k, off_lane), flush=True)
check(final.distance(goal) < 2.0, "the hero reached its destination")
check(off_lane < 20, "the hero kept to driving lanes")
hero.destroy()
world.tick()
asynchronous(world)
end_ok()
