"""The recorder and replayer with the unmodified carla 0.9.16 client: record
a drive with the town's traffic, read the file back with a parser of this
script's own (CARLA's format: header, frames, packet order, poses against
what the client saw), the three queries, bad input, then replay the file
while a second client watches the poses match the recording within 1 cm,
at time factor 1 and 2, and with the hero ignored.

argv: port, the server's recording folder."""
import math
import os
import struct
import sys
import time

import carla

from common import end_ok, asynchronous, check, connect, stop_sensors, synchronous, watched

folder = sys.argv[2]
client, world = connect()
synchronous(world, 0.05)
bl = world.get_blueprint_library()
points = world.get_map().get_spawn_points()

# A drive: a hero and three cars on throttle; the town's own traffic too.
cars = []
for i, p in enumerate(points):
    if len(cars) == 4:
        break
    bp = bl.find("vehicle.tesla.model3" if not cars else "vehicle.audi.a2")
    if not cars:
        bp.set_attribute("role_name", "hero")
    car = world.try_spawn_actor(bp, p)
    if car is not None:
        cars.append(car)
check(len(cars) == 4, "four cars spawned")
hero = cars[0]
for c in cars:
    c.apply_control(carla.VehicleControl(throttle=0.5))
cam_bp = bl.find("sensor.camera.rgb")
cam_bp.set_attribute("image_size_x", "64")
cam_bp.set_attribute("image_size_y", "48")
camera = world.spawn_actor(cam_bp, carla.Transform(carla.Location(x=1.5, z=1.4)), attach_to=hero)
world.tick()

path = client.start_recorder("ci/drive.log", True)
check(path == os.path.join(folder, "ci", "drive.log"), "the answer is the path: %r" % path)
seen = {}  # tick -> {vehicle id: transform}
vids = [a.id for a in world.get_actors().filter("vehicle.*")]
gone = cars.pop()
for k in range(1, 61):
    if k == 31:
        gone_id = gone.id
        gone.destroy()
    frame = world.tick()
    snap = watched(world, frame)
    seen[k] = {v: snap.find(v).get_transform() for v in vids if snap.find(v) is not None}
client.stop_recorder()
# A call that waits: the asynchronous stop ran before it (one connection).
info = client.show_recorder_file_info("ci/drive.log", False)

# --- The file, read with this script's own parser. ---
with open(path, "rb") as f:
    data = f.read()
at = 0


def take(fmt):
    global at
    v = struct.unpack_from("<" + fmt, data, at)
    at += struct.calcsize("<" + fmt)
    return v


def string():
    global at
    (n,) = take("H")
    s = data[at:at + n].decode()
    at += n
    return s


(version,) = take("H")
magic = string()
(date,) = take("q")
mapname = string()
check(version == 2 and magic == "CARLA_RECORDER", "header %r %r" % (version, magic))
check(abs(date - time.time()) < 600, "date %d is now" % date)
check(mapname == world.get_map().name.split("/")[-1], "map %r" % mapname)
frames = []
while at < len(data):
    pid, size = take("BI")
    body = data[at:at + size]
    at += size
    if pid == 0:
        fid, duration, elapsed = struct.unpack("<Qdd", body)
        frames.append({"id": fid, "duration": duration, "elapsed": elapsed, "order": [0], "packets": {}})
    else:
        frames[-1]["order"].append(pid)
        frames[-1]["packets"][pid] = body
check(len(frames) == 60, "60 frames, got %d" % len(frames))
want_order = [0, 20, 2, 3, 4, 5, 23, 6, 7, 8, 9, 10, 21, 22, 12, 13, 14, 19, 1]
for i, fr in enumerate(frames):
    check(fr["id"] == i + 1, "frame ids count from 1")
    check(abs(fr["elapsed"] - 0.05 * i) < 1e-6, "frame %d elapsed %r" % (i + 1, fr["elapsed"]))
    order = [p for p in fr["order"] if p != 16]
    check(order == want_order, "frame %d packet order %r" % (i + 1, fr["order"]))
    want = -1.0 if i == 59 else 0.05
    check(abs(fr["duration"] - want) < 1e-6, "frame %d duration %r" % (i + 1, fr["duration"]))


def poses(fr):
    body = fr["packets"][6]
    (n,) = struct.unpack_from("<H", body)
    out = {}
    for i in range(n):
        rid, x, y, z, roll, pitch, yaw = struct.unpack_from("<I6f", body, 2 + 28 * i)
        out[rid] = (x / 100, y / 100, z / 100, yaw)
    return out


def adds(fr):
    body = fr["packets"][2]
    (n,) = struct.unpack_from("<H", body)
    p = 2
    out = {}
    for _ in range(n):
        rid, kind = struct.unpack_from("<IB", body, p)
        p += 5 + 24 + 4
        (ln,) = struct.unpack_from("<H", body, p)
        bp = body[p + 2:p + 2 + ln].decode()
        p += 2 + ln
        (na,) = struct.unpack_from("<H", body, p)
        p += 2
        attrs = {}
        for _ in range(na):
            p += 1
            (ln,) = struct.unpack_from("<H", body, p)
            key = body[p + 2:p + 2 + ln].decode()
            p += 2 + ln
            (ln,) = struct.unpack_from("<H", body, p)
            attrs[key] = body[p + 2:p + 2 + ln].decode()
            p += 2 + ln
        out[rid] = (kind, bp, attrs)
    return out


first = adds(frames[0])
check(first.get(hero.id, (0, "", {}))[:2] == (1, "vehicle.tesla.model3"), "the hero is added in frame 1")
check(first[hero.id][2].get("role_name") == "hero", "with its attributes")
town = [i for i, a in first.items() if a[1].startswith("vehicle.") and i >= 1000]
check(len(town) >= 3, "the town's own cars are recorded: %r" % town)
dels = struct.unpack_from("<H", frames[30]["packets"][3])[0]
check(dels == 1 and struct.unpack_from("<I", frames[30]["packets"][3], 2)[0] == gone_id,
      "the destroyed car is deleted in frame 31")
for k in range(1, 61):
    rec = poses(frames[k - 1])
    for vid, t in seen[k].items():
        check(vid in rec, "vehicle %d has a pose in frame %d" % (vid, k))
        x, y, z, yaw = rec[vid]
        d = math.dist((x, y, z), (t.location.x, t.location.y, t.location.z))
        check(d < 0.01, "frame %d vehicle %d recorded %.4f m from what the client saw" % (k, vid, d))
moved = math.dist(poses(frames[0])[hero.id][:2], poses(frames[59])[hero.id][:2])
check(moved > 3, "the hero drove %.1f m" % moved)
kin = frames[10]["packets"][12]
check(struct.unpack_from("<H", kin)[0] >= 3, "velocities recorded with additional data")

# --- The queries. ---
check(info.startswith("Version: 2\nMap: %s\nDate: " % mapname), info[:80])
check(info.endswith("\nFrames: 60\nDuration: 2.95 seconds\n"), info[-80:])
check(info.count("Frame 1 at 0 seconds\n Create ") == 1, "frame 1 creates")
check(" Create %d: vehicle.tesla.model3 (1) at (" % hero.id in info, "the hero's create line")
check("  role_name = hero\n" in info, "attributes listed")
check(" Destroy %d\n" % gone_id in info, "destroy line")
full = client.show_recorder_file_info("ci/drive.log", True)
check(" Positions: " in full and " Current platform time: " in full, "show_all lists positions")
col = client.show_recorder_collisions("ci/drive.log", "a", "a")
check("    Time  Types     Id Actor 1" in col, "collision table")
blocked = client.show_recorder_actors_blocked("ci/drive.log", 1.0, 10.0)
check("    Time     Id Actor                                 Duration\n" in blocked, "blocked table")

# --- Bad input: clear answers, the world goes on. ---
missing = client.show_recorder_file_info("nope.log", False)
check(missing == "File %s not found on server\n" % os.path.join(folder, "nope.log"), missing)
try:
    client.start_recorder("../escape.log")
    check(False, "a name leaving the folder is refused")
except RuntimeError as e:
    check("leaves the recording folder" in str(e), str(e))
with open(os.path.join(folder, "junk.log"), "wb") as f:
    f.write(b"\x02\x00\x05\x00hello" + b"\x00" * 40)
check(client.show_recorder_file_info("junk.log", True) == "File is not a CARLA recorder\n", "junk")
with open(os.path.join(folder, "cut.log"), "wb") as f:
    f.write(data[:len(data) // 2 + 3])
cut = client.show_recorder_file_info("cut.log", False)
check("The file is damaged" in cut, "a cut file is named damaged: " + cut[-200:])
check(world.tick() > 0, "the world ticks on")

# --- Replay, watched by a second client. ---
camera.destroy()
for c in cars:
    c.destroy()
world.tick()
watcher = carla.Client("127.0.0.1", int(sys.argv[1]))
watcher.set_timeout(20.0)
wworld = watcher.get_world()
# In synchronous mode a state sent before the watcher's subscription is in
# place is never sent again: tick until it sees one.
for _ in range(100):
    f = world.tick()
    time.sleep(0.02)
    if wworld.get_snapshot().frame >= f:
        break
check(wworld.get_snapshot().frame >= f, "the watcher receives the world's states")
text = client.replay_file("ci/drive.log", 0.0, 0.0, 0, True)
check("Total time recorded: 2.95\nReplaying from 0 s - 2.95 s (2.95 s) at 1.0x\n" in text, text)
tracked = [hero.id] + town[:3]


def matched_frame(snap, ids):
    """The recorded frame whose poses all of `ids` hold now (1 cm)."""
    for j, fr in enumerate(frames):
        rec = poses(fr)
        ok = True
        for vid in ids:
            a = snap.find(vid)
            if a is None or vid not in rec:
                ok = False
                break
            loc = a.get_transform().location
            if math.dist(rec[vid][:3], (loc.x, loc.y, loc.z)) >= 0.01:
                ok = False
                break
        if ok:
            return j + 1
    return None


# The state of the tick that started the replay is the world's; each
# later one is the next recorded frame's.
got = []
images = []
replayed_cam = None
for k in range(61):
    frame = world.tick()
    got.append(matched_frame(watched(wworld, frame), tracked))
    if k == 1:
        # replay_sensors: the recorded camera is back on the replayed hero
        # and sees the replay.
        cams = [a for a in world.get_actors().filter("sensor.camera.rgb")
                if a.parent is not None and a.parent.id == hero.id]
        check(len(cams) == 1, "the recorded camera is replayed on the hero: %r" % cams)
        replayed_cam = cams[0]
        replayed_cam.listen(images.append)
check(got == [None] + list(range(1, 61)), "the watcher saw frames %r" % got)
world.tick()
stop_sensors([replayed_cam], then_destroy=False)
image_frames = set(i.frame for i in images)
check(len(images) >= 50 and len(image_frames) == len(images), "replayed camera images: %d" % len(images))
bp_seen = wworld.get_actor(hero.id)
check(bp_seen is not None and bp_seen.type_id == "vehicle.tesla.model3", "the hero is back, same id")
# The replay ended: the town's traffic drives again.
snap = wworld.get_snapshot()
before = {v: snap.find(v).get_transform().location for v in town}
for _ in range(100):
    world.tick()
snap = watched(wworld, world.tick())
moved = [math.dist((before[v].x, before[v].y), (snap.find(v).get_transform().location.x,
                                                snap.find(v).get_transform().location.y))
         for v in town]
check(max(moved) > 1.0, "town traffic resumed: %r" % moved)

# Time factor 2, from 1 s for 1 s; then with the hero ignored.
client.apply_batch_sync([carla.command.DestroyActor(a.id) for a in watched(world, world.tick())
                         if a.id < 1000 and world.get_actor(a.id) is not None
                         and world.get_actor(a.id).type_id.startswith("vehicle.")])
world.tick()
client.set_replayer_time_factor(2.0)
text = client.replay_file("ci/drive.log", 1.0, 1.0, hero.id, False)
check("Replaying from 1 s - 2 s (2.95 s) at 2.0x\n" in text, text)
got = []
for _ in range(6):
    snap = watched(wworld, world.tick())
    got.append(matched_frame(snap, tracked))
check(got == [None, 21, 23, 25, 27, 29], "twice as fast: %r" % got)
# follow_id: the spectator 10 m behind and 5 m above the hero.
spec = snap.find(wworld.get_spectator().id).get_transform().location
car = snap.find(hero.id).get_transform().location
check(abs(math.dist((spec.x, spec.y, spec.z), (car.x, car.y, car.z)) - math.hypot(10, 5)) < 0.05,
      "the spectator follows the hero: %r %r" % (spec, car))
client.set_replayer_time_factor(1.0)
client.apply_batch_sync([carla.command.DestroyActor(a.id) for a in watched(world, world.tick())
                         if a.id < 1000 and world.get_actor(a.id) is not None
                         and world.get_actor(a.id).type_id.startswith("vehicle.")])
client.set_replayer_ignore_hero(True)
text = client.replay_file("ci/drive.log", 0.0, 0.0, 0, False)
check("Ignoring Hero vehicle\n" in text, text)
for _ in range(4):
    world.tick()
snap = watched(wworld, world.tick())
check(snap.find(hero.id) is None, "the ignored hero is not replayed")
check(snap.find(cars[1].id) is not None, "the other cars are")
client.stop_replayer(False)
client.set_replayer_ignore_hero(False)
snap = watched(world, world.tick())
check(snap.find(cars[1].id) is None, "stop_replayer(False) removed the replayed cars")
asynchronous(world)
end_ok()
