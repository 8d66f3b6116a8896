"""Switches the world to synchronous mode, ticks once and leaves without
switching back (a script that crashed)."""
from common import end_ok, connect, synchronous

client, world = connect()
synchronous(world, 0.05)
world.tick()
end_ok()
