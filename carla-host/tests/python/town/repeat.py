"""One run of a script, to be compared with another on a fresh server
(CARLA's empty world: the town's own traffic would move in real time
before synchronous mode is on): 15 cars, each under a control of its own
that changes every tick (throttle, a weaving steer, braking now and
then), 400 synchronous ticks of 0.05 s. (Not the Traffic
Manager: its commands reach the server from its own thread, and on a busy
machine a tick may go before them; docs/physics.md.) Writes OUT.txt
(a hash of every actor's id, transform and velocity per tick) and records
the ticks with CARLA's recorder to OUT.log (the path is absolute: the
server writes it).

Usage: python repeat.py PORT OUT"""
import math
import sys

import carla
from common import end_ok, connect, check, state_hash, synchronous

TICKS = 400
out = sys.argv[2]
client, world = connect()
# A fresh episode, whatever ran on the server before, that starts in
# synchronous mode (reload_world keeps the settings): its clock does not
# run before the first tick, so the recordings' times repeat too.
synchronous(world, 0.05)
world = client.reload_world(False)
points = world.get_map().get_spawn_points()
four = sorted((b for b in world.get_blueprint_library().filter("vehicle.*")
               if int(b.get_attribute("number_of_wheels")) == 4), key=lambda b: b.id)
cars = []
for i in range(15):
    bp = four[i % len(four)]
    if bp.has_attribute("color"):
        bp.set_attribute("color", "10,20,30")
    car = world.try_spawn_actor(bp, points[(i * 3) % len(points)])
    if car is not None:
        cars.append(car)
check(len(cars) >= 12, "15 cars spawned: %d" % len(cars))
world.tick()
client.start_recorder(out + ".log")
hashes = []
moved = {c.id: c.get_location() for c in cars}
for tick in range(TICKS):
    for i, car in enumerate(cars):
        braking = (tick + 37 * i) % 120 < 15
        car.apply_control(carla.VehicleControl(
            throttle=0.0 if braking else 0.4 + 0.2 * (i % 3),
            steer=0.3 * math.sin(0.05 * tick + i),
            brake=1.0 if braking else 0.0))
    world.tick()
    hashes.append(state_hash(sorted(world.get_snapshot(), key=lambda a: a.id), with_ids=True))
client.stop_recorder()
# The stock client sends stop_recorder without waiting for its answer, so
# this script could end before the server ran it: the server, its
# synchronous client gone, would tick on in real time (and record those
# ticks) until the test stops it. A call that waits, on the same
# connection, returns only after the stop has closed the file.
client.get_server_version()
far = sum(moved[c.id].distance(c.get_location()) > 10.0 for c in cars)
check(far >= len(cars) // 2, "the cars drove: %d of %d over 10 m" % (far, len(cars)))
with open(out + ".txt", "w") as f:
    f.write("\n".join(hashes) + "\n")
print("%d cars, %d ticks, %d moved over 10 m" % (len(cars), TICKS, far))
end_ok()
