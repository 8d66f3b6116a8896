"""Vehicle components and sockets: names, relative transforms on the
blueprint's box, world transforms that follow the car, clear errors."""
import carla
from common import end_ok, connect, check, synchronous

client, world = connect()
synchronous(world, 0.05)
bl = world.get_blueprint_library()
points = world.get_map().get_spawn_points()
audi = world.spawn_actor(bl.find("vehicle.audi.tt"), points[0])
bike = world.spawn_actor(bl.find("vehicle.bh.crossbike"), points[3])
world.tick()

names = audi.get_component_names()
for n in ("VehicleMesh", "front-blinker-r-1", "front-blinker-l-1", "rear-brake-l-1", "door-fl", "mirror-r"):
    check(n in names, "%s among %s" % (n, names))
e = audi.bounding_box.extent
rel = audi.get_component_relative_transform("front-blinker-r-1")
check(rel.location.x > 0.8 * e.x and rel.location.y > 0.5 * e.y, "front right: %s (extent %s)" % (rel, e))
check(audi.get_component_relative_transform("rear-brake-l-1").location.x < -0.8 * e.x, "rear")
sockets = audi.get_socket_names()
check(sockets[0] == "Vehicle_Base" and "Wheel_Front_Left" in sockets and len(sockets) == 5, str(sockets))
wheels = audi.get_physics_control().wheels
socket_rel = audi.get_socket_relative_transforms()
check(len(socket_rel) == 5 and len(audi.get_socket_world_transforms()) == 5, "a transform per socket")
check(socket_rel[1].location.x > 0 and socket_rel[3].location.x < 0, "front and rear wheels")
check(bike.get_socket_names() == ["Vehicle_Base", "Wheel_Front", "Wheel_Rear"], str(bike.get_socket_names()))
check("door-fl" not in bike.get_component_names(), "a bicycle has no doors")


def blinker_matches(car):
    t = car.get_transform()
    w = car.get_component_world_transform("front-blinker-r-1")
    # transform() turns its argument in place: give it a copy.
    want = t.transform(carla.Location(rel.location.x, rel.location.y, rel.location.z))
    check(w.location.distance(want) < 0.02, "world %s vs the car's %s" % (w.location, want))
    return w


first = blinker_matches(audi)
# The car moves: the light moves with it.
audi.set_transform(carla.Transform(points[0].location + carla.Location(x=0.0, y=0.0, z=0.0),
                                   carla.Rotation(yaw=points[0].rotation.yaw + 90.0)))
audi.enable_constant_velocity(carla.Vector3D(8.0, 0.0, 0.0))
for _ in range(20):
    world.tick()
second = blinker_matches(audi)
check(second.location.distance(first.location) > 3.0, "the light moved: %s -> %s" % (first.location, second.location))

try:
    audi.get_component_world_transform("no-such-part")
    check(False, "an unknown component is an error")
except RuntimeError as err:
    check("no-such-part" in str(err), str(err))

audi.destroy()
bike.destroy()
world.tick()
end_ok()
