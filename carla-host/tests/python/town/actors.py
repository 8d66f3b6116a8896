"""Item 4: the town's actors and the control of spawned vehicles."""
import math

import carla
from common import end_ok, connect, check, synchronous, asynchronous, free_spawn

client, world = connect()
synchronous(world, 0.05)
world.tick()
actors = world.get_actors()
town_vehicles = actors.filter("vehicle.*")
lights = actors.filter("traffic.traffic_light")
walkers = actors.filter("walker.pedestrian.*")
check(len(town_vehicles) >= 1 and len(lights) >= 10 and len(walkers) >= 1,
      "town actors: %d vehicles, %d lights, %d walkers" % (len(town_vehicles), len(lights), len(walkers)))
snap = world.get_snapshot()
for a in list(town_vehicles) + list(lights):
    check(snap.find(a.id) is not None, "actor %d in the snapshot" % a.id)
check(town_vehicles[0].bounding_box.extent.x > 1.0, "vehicle bounding box")
states = {l.get_state() for l in lights}
check(states <= {carla.TrafficLightState.Red, carla.TrafficLightState.Yellow, carla.TrafficLightState.Green}
      and len(states) >= 2, "traffic light states: %s" % states)
l0 = lights[0]
check(abs(l0.get_green_time() - 10.0) < 1e-3 and abs(l0.get_yellow_time() - 3.0) < 1e-3, "light times")

bl = world.get_blueprint_library()
points = world.get_map().get_spawn_points()
car = free_spawn(world, bl.find("vehicle.tesla.model3"), points)
world.tick()
start = car.get_transform()
car.apply_control(carla.VehicleControl(throttle=1.0))
for _ in range(40):
    world.tick()
end = car.get_transform()
fwd = start.get_forward_vector()
moved = (end.location.x - start.location.x) * fwd.x + (end.location.y - start.location.y) * fwd.y
check(moved > 5.0, "full throttle moves forward: %.2f m" % moved)
v = car.get_velocity()
check(math.hypot(v.x, v.y) > 3.0, "velocity reported: %s" % v)
check(car.get_control().throttle == 1.0, "control reported back")
check(car.get_acceleration() is not None, "acceleration")
check(car.get_traffic_light_state() in (carla.TrafficLightState.Red, carla.TrafficLightState.Yellow,
                                        carla.TrafficLightState.Green), "player's light state")

# set_transform and set_target_velocity.
target = points[-1]
car.apply_control(carla.VehicleControl(brake=1.0))
car.set_transform(target)
world.tick()
check(car.get_location().distance(target.location) < 1.0, "set_transform moved it")
car.apply_control(carla.VehicleControl())
f = target.get_forward_vector()
car.set_target_velocity(carla.Vector3D(f.x * 8.0, f.y * 8.0, 0.0))
world.tick()
vel = car.get_velocity()
check(abs(math.hypot(vel.x, vel.y) - 8.0) < 1.0, "set_target_velocity: %s" % vel)

# apply_batch_sync: spawn two, control them, destroy them.
bp = bl.find("vehicle.audi.a2")
responses = client.apply_batch_sync([carla.command.SpawnActor(bp, points[3]),
                                     carla.command.SpawnActor(bp, points[5])], True)
ids = [r.actor_id for r in responses if not r.error]
check(len(ids) == 2, "batch spawn: %s" % [r.error for r in responses])
client.apply_batch([carla.command.ApplyVehicleControl(i, carla.VehicleControl(throttle=1.0)) for i in ids])
before = [world.get_actor(i).get_location() for i in ids]
for _ in range(30):
    world.tick()
after = [world.get_actor(i).get_location() for i in ids]
check(all(a.distance(b) > 2.0 for a, b in zip(after, before)), "batch control moved them")
responses = client.apply_batch_sync([carla.command.DestroyActor(i) for i in ids], True)
check(all(not r.error for r in responses), "batch destroy")
world.tick()
alive = {a.id for a in world.get_actors()}
check(not (set(ids) & alive), "destroyed by batch")

# Weather accepted and reported back.
w = carla.WeatherParameters.HardRainNoon
world.set_weather(w)
got = world.get_weather()
check(abs(got.precipitation - w.precipitation) < 1e-3, "weather reported back")
car.destroy()
world.tick()
asynchronous(world)
end_ok()
