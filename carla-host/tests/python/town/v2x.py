"""V2X: CAMs between two equipped cars (what a CAM says, how often a
standing and a driving car send, what the receiver's settings cut), and
custom messages a client sends, all through the stock client's decoders."""
import math
import time

import carla
from common import end_ok, connect, check, synchronous, stop_sensors

client, world = connect()
synchronous(world, 0.05)
bl = world.get_blueprint_library()
m = world.get_map()
points = m.get_spawn_points()
car = bl.find("vehicle.audi.tt")
a = world.spawn_actor(car, points[0])
# The receiver: 20 m down the same lane.
ahead = m.get_waypoint(points[0].location).next(20.0)[0].transform
ahead.location.z += 0.5
b = world.try_spawn_actor(car, ahead)
check(b is not None, "a second car 20 m ahead")
world.tick()

received = {"a": [], "b": [], "deaf": [], "ca": [], "cb": []}


def keep(name):
    def callback(event):
        check(len(event) == event.get_message_count(), "length is the message count")
        for msg in event:
            d = msg.get()
            check(d["Power"] == msg.power, "get() carries the power")
            received[name].append((event.frame, msg.power, d["Message"]))
    return callback


def v2x(parent, name, **attrs):
    bp = bl.find("sensor.other.v2x_custom" if name.startswith("c") else "sensor.other.v2x")
    for k, v in attrs.items():
        bp.set_attribute(k, v)
    s = world.spawn_actor(bp, carla.Transform(), attach_to=parent)
    s.listen(keep(name))
    return s


sensors = [v2x(a, "a"), v2x(b, "b", path_loss_model="geometric"),
           v2x(b, "deaf", receiver_sensitivity="-20"), v2x(a, "ca"), v2x(b, "cb")]
# The streams subscribe while the first ticks run.
for _ in range(100):
    world.tick()
    if received["b"] and received["a"]:
        break
    time.sleep(0.01)
check(received["b"] and received["a"], "both cars hear each other")
start = world.tick()
for _ in range(60):  # 3 s standing
    world.tick()
time.sleep(0.3)
from_a = [r for r in received["b"] if r[0] > start and r[2]["Header"]["Station ID"] == a.id]
check(2 <= len(from_a) <= 4, "a standing car sends once a second: %d in 3 s" % len(from_a))
frame, power, msg = from_a[-1]
check(-99.0 <= power <= 21.5 + 10.0, "received power %f dBm" % power)
check(msg["Header"]["Message ID"] == "CAM" and msg["Header"]["Protocol Version"] == 2, str(msg["Header"]))
params = msg["Message"]["CAM Parameters"]
basic = params["Basic Container"]
check(basic["Station Type"] == "Passenger Car", basic["Station Type"])
geo = m.transform_to_geolocation(a.get_location())
ref = basic["Reference Position"]
check(abs(ref["Latitude"] - geo.latitude * 1e7) < 20 and abs(ref["Longitude"] - geo.longitude * 1e7) < 20,
      "reference position %s vs %s" % (ref, geo))
hf = params["High Frequency Container"]
check(hf["High Frequency Container Present"] == "Basic Vehicle Container High Frequency", str(hf))
bvc = hf["Basic Vehicle Container High Frequency"]
want = (a.get_transform().rotation.yaw + 90.0) % 360.0 * 10.0
got = bvc["Heading"]["Value"]
check(min(abs(got - want), 3600 - abs(got - want)) <= 2, "heading %d vs %d" % (got, want))
e = a.bounding_box.extent
check(abs(bvc["Vehicle Length"]["Value"] - e.x * 20) <= 1 and abs(bvc["Vehicle Width"] - e.y * 20) <= 1,
      "size in decimetres: %s, %s" % (bvc["Vehicle Length"], bvc["Vehicle Width"]))
check(bvc["Speed"]["Value"] <= 5, "standing: %s" % bvc["Speed"])
check(bvc["Vertical Acceleration"]["Value"] in (97, 98, 99), "gravity: %s" % bvc["Vertical Acceleration"])
low = [r for r in from_a if r[2]["Message"]["CAM Parameters"]["Low Frequency Container"]
       ["Low Frequency Container Present"] != "No Container Present"]
check(low, "low-frequency containers")
check(not received["deaf"], "a receiver at -20 dBm hears nothing: %d" % len(received["deaf"]))

# Driving at 10 m/s: a CAM every 4 m, about every 0.45 s. The second car
# moves out of the way first (a would reach it within the 2.5 s, and a
# car pushing another changes speed).
far = m.get_waypoint(points[0].location).next(80.0)[0].transform
far.location.z += 0.5
b.set_transform(far)
world.tick()
a.enable_constant_velocity(carla.Vector3D(10.0, 0.0, 0.0))
for _ in range(10):
    world.tick()
start = world.tick()
for _ in range(40):  # 2 s
    world.tick()
time.sleep(0.3)
moving = [r for r in received["b"] if r[0] > start and r[2]["Header"]["Station ID"] == a.id]
check(3 <= len(moving) <= 6, "a car at 10 m/s sends every ~0.45 s: %d in 2 s" % len(moving))
speed = moving[-1][2]["Message"]["CAM Parameters"]["High Frequency Container"][
    "Basic Vehicle Container High Frequency"]["Speed"]["Value"]
check(abs(speed - 1000) <= 30, "speed %d cm/s" % speed)
a.disable_constant_velocity()

# Custom messages: sent once, to the other custom sensors only.
text = "hello V2X " + "x" * 120
sensors[3].send(text)
for _ in range(5):
    world.tick()
time.sleep(0.3)
check(len(received["cb"]) == 1, "one custom message: %d" % len(received["cb"]))
_, power, msg = received["cb"][0]
check(msg["Header"]["Message ID"] == "CUSTOM" and msg["Header"]["Station ID"] == a.id, str(msg["Header"]))
check(msg["Message"] == text[:99], "the text, cut to the field's 99 bytes: %r" % msg["Message"])
check(not received["ca"], "the sender does not hear itself")
check(all(r[2]["Header"]["Message ID"] == "CAM" for r in received["b"]), "CAM sensors get CAMs only")

stop_sensors(sensors)
world.tick()
for x in (a, b):
    x.destroy()
world.tick()
end_ok()
