"""Traffic lights as a client changes them (the stock client's calls):
set_state, the phase times, freezing (the 0.9.16 client's freeze() freezes
every light), reset_group, reset_all_traffic_lights, and a vehicle at a
light seeing the state a client set."""
import carla
from common import end_ok, connect, check, synchronous

TLS = carla.TrafficLightState
DT = 0.05

client, world = connect()
synchronous(world, DT)
world.tick()
lights = list(world.get_actors().filter("traffic.traffic_light"))
check(len(lights) >= 10, "%d lights" % len(lights))


def ticks(n):
    for _ in range(n):
        world.tick()


def seen():
    """Every light's state and elapsed time, as the last tick left them."""
    return [(l.get_state(), round(l.get_elapsed_time(), 4)) for l in lights]


# A state set by hand shows at the next tick and holds.
red = [l for l in lights if l.get_state() == TLS.Red]
check(red, "a red light")
light = red[0]
light.set_state(TLS.Green)
world.tick()
check(light.get_state() == TLS.Green, "set_state(Green): %s" % light.get_state())
check(light.get_elapsed_time() < 2 * DT, "elapsed since set: %s" % light.get_elapsed_time())
ticks(20)
check(light.get_state() == TLS.Green, "a second later: %s" % light.get_state())

# Frozen: nothing changes, elapsed times included, however long.
light.freeze(True)
world.tick()
check(all(l.is_frozen() for l in lights), "freeze() freezes every light")
before = seen()
ticks(300)
check(seen() == before, "15 s frozen: the lights changed")
world.freeze_all_traffic_lights(False)
world.tick()
check(not any(l.is_frozen() for l in lights), "unfrozen")
ticks(20)
grown = [b[1] for b, a in zip(before, seen()) if a[0] == b[0]]
check(grown and all(a[1] > b[1] + 0.9 for b, a in zip(before, seen()) if a[0] == b[0]),
      "elapsed times run on after unfreezing")

# Reset: the group's first phase green, the others red, from 0 s.
group = light.get_group_traffic_lights()
check(len(group) >= 2, "a group of %d" % len(group))
light.reset_group()
world.tick()
states = [l.get_state() for l in group]
check(TLS.Green in states and TLS.Red in states and TLS.Yellow not in states,
      "after reset_group: %s" % states)
check(all(l.get_elapsed_time() < 2 * DT for l in group), "elapsed from 0 after reset_group")
first = [l for l in group if l.get_state() == TLS.Green][0]

# The phase's times: reported at once, used from the stage's next start.
first.set_green_time(25.0)
first.set_yellow_time(4.0)
first.set_red_time(2.0)
world.tick()
check((first.get_green_time(), first.get_yellow_time(), first.get_red_time()) == (25.0, 4.0, 2.0),
      "times: %s" % ((first.get_green_time(), first.get_yellow_time(), first.get_red_time()),))
others = [l for l in lights if l.get_group_traffic_lights()[0].id != group[0].id]
check(others and others[0].get_green_time() == 10.0, "another group's green time")
first.reset_group()
ticks(int(20.0 / DT))
check(first.get_state() == TLS.Green, "20 s into a 25 s green: %s" % first.get_state())
ticks(int(6.0 / DT))
check(first.get_state() == TLS.Yellow, "26 s into it: %s" % first.get_state())

# Reset all: every group from its first phase's green.
ticks(40)
world.reset_all_traffic_lights()
world.tick()
check(max(l.get_elapsed_time() for l in lights) < 2 * DT,
      "every light from 0 s after reset_all_traffic_lights")

# A town vehicle waiting at a light sees the state a client sets on it.
waiting = None
for _ in range(600):
    world.tick()
    waiting = next((v for v in world.get_actors().filter("vehicle.*")
                    if v.is_at_traffic_light() and v.get_traffic_light_state() == TLS.Red), None)
    if waiting:
        break
check(waiting is not None, "a town vehicle waiting at a red light")
at = waiting.get_traffic_light()
at.set_state(TLS.Off)
world.tick()
check(at.get_state() == TLS.Off, "set_state(Off): %s" % at.get_state())
check(waiting.get_traffic_light_state() == TLS.Off,
      "the waiting vehicle's light: %s" % waiting.get_traffic_light_state())
end_ok()
