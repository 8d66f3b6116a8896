"""Bad DDS input against carla-host --ros2 (tests/demo_world/town_09.rs
runs it and watches the host's memory): garbage datagrams on every DDS
port of the domain, a participant that joins and leaves 1000 times, a
crashed peer whose reliable reader will never acknowledge (an endless
lease), a reader that subscribes and never reads; the hero's camera keeps
publishing to a healthy reader (Eclipse Cyclone DDS, `cyclonedds`) after
the garbage and the churn, and without a silence beside the crashed peer
and the stalled reader; beside the stalled reader its TCP stream keeps
every frame and the host's memory stays bounded.

Usage: python ros2_abuse.py PORT DOMAIN. Prints phase lines (the test
samples the host's memory from `STALL MID`, after 100 frames beside the
stalled reader, to `STALL END`, 300 frames later) and OK.
"""
import os
import random
import socket
import sys
import time

from common import asynchronous, check, connect, ros_hero, synchronous
from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from ros2_msgs import Image
from rtps_forge import crashed_peer

port, domain = int(sys.argv[1]), int(sys.argv[2])
TOPIC = "rt/carla/hero/rgb/image"


client, world = connect()
hero, camera = ros_hero(world, 1, (640, 480))
synchronous(world)

dp = DomainParticipant(domain)
qos = Qos(Policy.Reliability.Reliable(1_000_000_000), Policy.History.KeepLast(1))
healthy = DataReader(dp, Topic(dp, TOPIC, Image), qos=qos)


def images_within(seconds, ticks=True):
    """Frames the healthy reader got while the world ticked."""
    got, end = [], time.time() + seconds
    while time.time() < end and len(got) < 10:
        if ticks:
            world.tick()
        # Cyclone hands an InvalidSample (no data) when the instance's
        # state changes, e.g. the writer's liveliness lapsing while 1000
        # participants churn: not an image, so not counted.
        got.extend(s.header.stamp for s in healthy.take(N=10) if hasattr(s, "header"))
        time.sleep(0.02)
    return got


check(len(images_within(30)) >= 3, "images before the abuse")
print("HEALTHY", flush=True)

# 1. Garbage datagrams on every port of the domain (discovery multicast and
# unicast, user traffic), and RTPS-looking ones with lying lengths.
base = 7400 + 250 * domain
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rng = random.Random(7)
sent = 0
for p in range(base, base + 250):
    for _ in range(20):
        junk = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 300)))
        if rng.random() < 0.5:
            # An RTPS header (version 2.3, vendor 0.0, a guid prefix), then a
            # submessage whose length points past the datagram.
            junk = b"RTPS\x02\x03\x00\x00" + os.urandom(12) + bytes([rng.randrange(256), 1]) + b"\xff\xff" + junk
        sock.sendto(junk, ("127.0.0.1", p))
        sent += 1
print("GARBAGE %d datagrams" % sent, flush=True)
check(len(images_within(30)) >= 3, "images after the garbage")

# 2. A participant that joins (with a reader of the topic) and leaves, 1000
# times.
for i in range(1000):
    p = DomainParticipant(domain)
    DataReader(p, Topic(p, TOPIC, Image), qos=qos)
    del p
print("CHURN 1000", flush=True)
# A reliable reader that left without a word holds rustdds's send window
# until its participant's lease ends (docs/ros2.md); on a busy machine the
# last of the 1000 may take that long.
check(len(images_within(90)) >= 3, "images after 1000 participants came and went")

# 3. A peer that crashed with a reliable reader of the topic matched, and
# announced an endless lease: nothing ends it. The writers keep the last
# samples (KEEP_LAST) and drop the oldest unacknowledged one rather than
# refuse a new sample, so the healthy reader is served throughout: no
# silence (a rejoin of the domain would cost a second or more of it).
dead = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dead.bind(("127.0.0.1", 0))  # never read: no sample is acknowledged
# Its announcements, repeated for 3 s as a live peer's would be: the reader
# counts once the participant is known, however busy the host is.
for datagram in crashed_peer(TOPIC, "sensor_msgs::msg::dds_::Image_", dead.getsockname()[1]) * 6:
    for p in range(base, base + 250):
        sock.sendto(datagram, ("127.0.0.1", p))
    time.sleep(0.25)
# Ticking for 20 s: the longest silence of the healthy reader.
silence, last, after, start = 0.0, time.time(), 0, time.time()
while time.time() < start + 20:
    world.tick()
    got = len(healthy.take(N=10))
    now = time.time()
    if got:
        silence = max(silence, now - last)
        last = now
        after += got
    time.sleep(0.02)
silence = max(silence, time.time() - last)
print("longest silence after the crashed peer: %.1f s, %d images in 20 s" % (silence, after), flush=True)
check(after >= 100, "images in 20 s after a crashed peer's reader matched: %d" % after)
check(silence < 4.0, "the healthy reader went %.1f s without an image beside a crashed peer" % silence)
print("CRASHED PEER", flush=True)

# 4. A reliable reader that never reads, while 400 frames of 1.2 MB go out.
stalled_dp = DomainParticipant(domain)
stalled = DataReader(stalled_dp, Topic(stalled_dp, TOPIC, Image),
                     qos=Qos(Policy.Reliability.Reliable(1_000_000_000), Policy.History.KeepAll))
time.sleep(1.0)


healthy_frames = []


def frames(n):
    for _ in range(n):
        world.tick()
        healthy_frames.extend(s.header.stamp for s in healthy.take(N=10) if hasattr(s, "header"))
        time.sleep(0.005)


# The TCP stream of the same camera meanwhile: every frame.
tcp = []
camera.listen(lambda image: tcp.append(image.frame))
frames(100)  # whatever is bounded reaches its peak
print("STALL MID", flush=True)
sys.stdin.readline()  # the test samples the host's memory from now on
frames(300)
print("STALL END", flush=True)
sys.stdin.readline()
camera.stop()
check(len(tcp) >= 350, "the TCP stream kept up beside the stalled DDS reader: %d of 400" % len(tcp))
# The healthy DDS reader meanwhile: the stalled one holds nothing back.
print("healthy reader beside the stalled one: %d of 400 frames" % len(healthy_frames), flush=True)
check(len(healthy_frames) >= 200, "the healthy reader beside the stalled one: %d of 400" % len(healthy_frames))

asynchronous(world)
camera.destroy()
hero.destroy()
print("OK", flush=True)
