"""A subscriber process of the ROS 2 benchmark (benches/pipeline/ros2.rs):
reads N image topics for SECONDS over DDS (Cyclone DDS, `cyclonedds`), or
over the library's TCP streams, and prints `frames bytes`.

Usage: ros2_reader.py dds DOMAIN SECONDS TOPIC... | tcp PORT SECONDS STREAM_ID...
"""
import socket
import struct
import sys
import threading
import time

mode, where, seconds, names = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
counts = {"frames": 0, "bytes": 0}
lock = threading.Lock()


def add(n):
    with lock:
        counts["frames"] += 1
        counts["bytes"] += n


def tcp_reader(stream_id, end):
    s = socket.create_connection(("127.0.0.1", where))
    s.sendall(struct.pack("<I", int(stream_id)))
    buf = bytearray(64 << 20)
    view = memoryview(buf)
    while time.time() < end:
        head = s.recv(4, socket.MSG_WAITALL)
        if len(head) < 4:
            return
        size = struct.unpack("<I", head)[0]
        got = 0
        while got < size:
            n = s.recv_into(view[got:size], size - got)
            if n == 0:
                return
            got += n
        add(size)


if mode == "tcp":
    end = time.time() + seconds
    threads = [threading.Thread(target=tcp_reader, args=(i, end), daemon=True) for i in names]
    for t in threads:
        t.start()
    time.sleep(seconds)
else:
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../carla-host/tests/python/town"))
    from cyclonedds.core import Policy, Qos
    from cyclonedds.domain import DomainParticipant
    from cyclonedds.sub import DataReader
    from cyclonedds.topic import Topic
    from ros2_msgs import Image

    dp = DomainParticipant(where)
    qos = Qos(Policy.Reliability.Reliable(1_000_000_000), Policy.History.KeepLast(1))
    readers = [DataReader(dp, Topic(dp, n, Image), qos=qos) for n in names]
    end = time.time() + seconds
    while time.time() < end:
        for r in readers:
            for s in r.take(N=4):
                add(len(s.data))
        time.sleep(0.002)
print(counts["frames"], counts["bytes"], flush=True)
