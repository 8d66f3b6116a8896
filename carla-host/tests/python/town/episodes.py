"""Item 1: one port for both protocols. Waits (reading stdin) while the
test runs a 0.8 episode on the same port, then checks the new episode."""
import sys
import time

from common import end_ok, connect, check

client, world = connect()
first = world.id
bp = world.get_blueprint_library().find("vehicle.audi.a2")
car = world.try_spawn_actor(bp, world.get_map().get_spawn_points()[7])
check(car is not None, "spawned")
print("READY", first, flush=True)
sys.stdin.readline()  # the test ran a 0.8 episode meanwhile
# The new episode's first state may still be on its way.
for _ in range(40):
    world2 = client.get_world()
    if world2.id != first:
        break
    time.sleep(0.05)
check(world2.id != first, "a 0.8 episode is a new 0.9 episode: %d -> %d" % (first, world2.id))
hero = world2.get_actors().filter("vehicle.*")
check(any(a.attributes.get("role_name") == "hero" for a in hero), "the 0.8 player is listed as hero")
check(car.id not in {a.id for a in world2.get_actors()}, "the old episode's actors are gone")
end_ok()
