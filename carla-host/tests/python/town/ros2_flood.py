"""A discovery flood against carla-host --ros2 (tests/demo_world/town_09.rs
runs it): 20,000 forged DDS participants announced in 15 s (hand-made SPDP
announcements, `rtps_forge.py`, each with its own guid and a 300 s lease,
sent to the host's discovery port) while a healthy Eclipse Cyclone DDS
reader (`cyclonedds`) reads the hero's camera at 10 ticks a second. The
healthy reader keeps at least 90% of its images per tick during the flood
and the host spends under half a core on it; within 10 s after it the
host's CPU is back to idle (under 10% of a core over a second); its
resident memory grows by less than 64 MB.

Usage: python ros2_flood.py PORT DOMAIN HOST_PID [FORGED]. Prints figures and
OK. (FORGED: how many, 20,000 by default, at the same rate.)
"""
import os
import socket
import sys
import threading
import time

from common import asynchronous, check, connect, ros_hero, synchronous
from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from ros2_msgs import Image
from rtps_forge import announcement

port, domain, host_pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
TOPIC = "rt/carla/hero/rgb/image"
FORGED = int(sys.argv[4]) if len(sys.argv) > 4 else 20000
FLOOD_S, HZ = 15.0 * FORGED / 20000, 10.0
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds():
    with open("/proc/%d/stat" % host_pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def rss_mib():
    with open("/proc/%d/status" % host_pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


client, world = connect()
hero, camera = ros_hero(world, 1, (320, 240))
synchronous(world, delta=0.1)

dp = DomainParticipant(domain)
qos = Qos(Policy.Reliability.Reliable(1_000_000_000), Policy.History.KeepLast(10))
healthy = DataReader(dp, Topic(dp, TOPIC, Image), qos=qos)


def rate(seconds):
    """Images a second the healthy reader gets while the world ticks at HZ,
    and images per tick (what a machine busy with other work cannot skew)."""
    got, start, ticks = 0, time.time(), 0
    while time.time() < start + seconds:
        world.tick()
        ticks += 1
        got += sum(1 for s in healthy.take(N=10) if hasattr(s, "header"))
        wait = start + ticks / HZ - time.time()
        if wait > 0:
            time.sleep(wait)
    return got / (time.time() - start), got / ticks


rate(5)  # discovery settles
before, per_tick_before = rate(5)
print("healthy reader before: %.1f images/s, %.2f per tick" % (before, per_tick_before), flush=True)
check(per_tick_before >= 0.7, "the healthy reader keeps up before the flood: %.2f per tick" % per_tick_before)
rss_before = rss_mib()


def flood():
    # The host's participant is the domain's first: its discovery unicast
    # port is 7400 + 250 domain + 10 (RTPS 9.6.1.1, participant id 0).
    target = ("127.0.0.1", 7400 + 250 * domain + 10)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    start = time.time()
    for i in range(FORGED):
        sock.sendto(announcement(os.urandom(12), 9, 300), target)
        if i % 100 == 99:
            wait = start + (i + 1) * FLOOD_S / FORGED - time.time()
            if wait > 0:
                time.sleep(wait)


sender = threading.Thread(target=flood)
cpu0, t0 = cpu_seconds(), time.time()
sender.start()
during, per_tick = rate(FLOOD_S)
sender.join()
flood_end = time.time()
cpu_flood = (cpu_seconds() - cpu0) / (flood_end - t0)
print("healthy reader during the flood: %.1f images/s (%.0f%% of before), %.2f per tick; host CPU %.0f%%"
      % (during, 100 * during / before, per_tick, 100 * cpu_flood), flush=True)
check(per_tick >= 0.9 * per_tick_before,
      "the healthy reader kept %.0f%% of its images per tick" % (100 * per_tick / per_tick_before))
check(cpu_flood < 0.5, "the host spent %.0f%% of a core during the flood" % (100 * cpu_flood))

# Idle: no ticks. The host's CPU over each second after the flood, and
# its busiest thread in that second (for a failure's message).
def per_thread():
    out = {}
    for tid in os.listdir("/proc/%d/task" % host_pid):
        try:
            with open("/proc/%d/task/%s/stat" % (host_pid, tid)) as f:
                s = f.read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        fields = s.rsplit(")", 1)[1].split()
        out[(tid, name)] = (int(fields[11]) + int(fields[12])) / TICK
    return out


idle_at = None
while time.time() < flood_end + 30:
    c, t, a = cpu_seconds(), time.time(), per_thread()
    time.sleep(1.0)
    share = (cpu_seconds() - c) / (time.time() - t)
    b = per_thread()
    busy = sorted(((b[k] - a.get(k, 0), k) for k in b), reverse=True)[:3]
    print("  %.0f s after the flood: host CPU %.0f%% (%s)" % (
        time.time() - flood_end, 100 * share,
        ", ".join("%s/%s %.0f%%" % (k[1], k[0], 100 * d) for d, k in busy)), flush=True)
    if share < 0.10:
        idle_at = time.time() - flood_end
        break
check(idle_at is not None and idle_at <= 10.0,
      "the host's CPU is idle within 10 s after the flood (at %s)" % idle_at)
growth = rss_mib() - rss_before
print("host memory grew %.1f MB over the flood" % growth, flush=True)
check(growth < 64, "the host's memory grew %.1f MB" % growth)
after, per_tick_after = rate(5)
print("healthy reader after: %.1f images/s, %.2f per tick" % (after, per_tick_after), flush=True)
check(per_tick_after >= 0.9 * per_tick_before,
      "the healthy reader keeps up after the flood: %.2f per tick" % per_tick_after)

asynchronous(world)
camera.destroy()
hero.destroy()
print("OK", flush=True)
