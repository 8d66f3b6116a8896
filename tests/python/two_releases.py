"""Clients of different CARLA releases in one world (tests/rpc/python.rs):
a leader and followers, each run by its release's unmodified `carla`
package on its release's RPC port. Every check raises on failure; the last
line is OK.

Usage: python two_releases.py lead HOST PORT RELEASE
  spawns a car (role_name "lead"), prints `LEAD <id>`; then reads
  `FOLLOWER <car> <camera> <release>` lines until `GO`, checks it sees each
  follower's car and camera, switches to synchronous mode and ticks, printing
  `TICKED <frame>`, until a line `END`.
Usage: python two_releases.py follow HOST PORT RELEASE LEAD_ID
  checks it sees the leader's car, spawns a car (role_name "follow") with a
  camera, listens, prints `FOLLOWER <car> <camera> <release>`, and once it has
  30 images from synchronous mode on prints their frames (`IMAGES ...`) and
  its snapshots' (`SNAPSHOTS ...`).
"""
import sys
import threading
import time

import carla

role, host, port, release = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
minor = int(release.split(".")[2])


def check(cond, what):
    if not cond:
        raise AssertionError("%s %s: %s" % (role, release, what))


client = carla.Client(host, port)
client.set_timeout(10.0)
check(client.get_client_version() == release, "the wheel runs")
check(client.get_server_version() == release, "its port answers its release")
world = client.get_world()
library = world.get_blueprint_library()
car_bp = library.find("vehicle.test.box")
car_tag = 14 if minor >= 14 else 10  # Car, or the old Vehicles

if role == "lead":
    car_bp.set_attribute("role_name", "lead")
    car = world.spawn_actor(car_bp, carla.Transform(carla.Location(x=20, z=0.5)))
    print("LEAD %d" % car.id, flush=True)
    followers = []
    for line in sys.stdin:
        if line.strip() == "GO":
            break
        _, car_id, camera_id, their = line.split()
        followers.append((int(car_id), int(camera_id), their))
    actors = {a.id: a for a in world.get_actors()}
    for car_id, camera_id, their in followers:
        theirs = actors.get(car_id)
        check(theirs is not None, "sees the %s car %d" % (their, car_id))
        check(theirs.type_id == "vehicle.test.box", "its type")
        check(theirs.attributes.get("role_name") == "follow", "its role_name")
        check(list(theirs.semantic_tags) == [car_tag], "its tags %s" % list(theirs.semantic_tags))
        camera = actors.get(camera_id)
        check(camera is not None and camera.type_id == "sensor.camera.rgb", "its camera")
        check(camera.parent is not None and camera.parent.id == car_id, "the camera's parent")
    end = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), end.set()), daemon=True).start()
    settings = world.get_settings()
    settings.synchronous_mode = True
    settings.fixed_delta_seconds = 0.05
    world.apply_settings(settings)
    started = time.time()
    while not end.is_set():
        check(time.time() - started < 120, "the followers ended within 120 s")
        print("TICKED %d" % world.tick(), flush=True)
        time.sleep(0.02)
    settings.synchronous_mode = False
    settings.fixed_delta_seconds = None
    world.apply_settings(settings)
    check(car.destroy(), "destroy")
else:
    lead_id = int(sys.argv[5])
    lead = world.get_actor(lead_id)
    check(lead is not None and lead.attributes.get("role_name") == "lead", "sees the leader's car")
    check(list(lead.semantic_tags) == [car_tag], "its tags in my numbering")
    car_bp.set_attribute("role_name", "follow")
    car = world.spawn_actor(car_bp, carla.Transform(carla.Location(x=30 + 10 * minor, z=0.5)))
    cam_bp = library.find("sensor.camera.rgb")
    cam_bp.set_attribute("image_size_x", "64")
    cam_bp.set_attribute("image_size_y", "48")
    camera = world.spawn_actor(cam_bp, carla.Transform(carla.Location(z=2)), attach_to=car)
    images, snapshots = [], []
    camera.listen(lambda image: images.append((image.frame, image.width, len(image.raw_data))))
    on_tick = world.on_tick(lambda snapshot: snapshots.append(snapshot.frame))
    print("FOLLOWER %d %d %s" % (car.id, camera.id, release), flush=True)
    deadline = time.time() + 90
    # The leader's ticks begin once it switched to synchronous mode.
    while not world.get_settings().synchronous_mode:
        check(time.time() < deadline, "synchronous mode within 90 s")
        time.sleep(0.02)
    start = len(images)
    while len(images) < start + 30:
        check(time.time() < deadline, "30 images within 90 s (%d)" % (len(images) - start))
        time.sleep(0.02)
    camera.stop()
    got = images[start:]
    # The host sends a tick's images before its episode state, on another
    # connection: the state of the last image's frame may still be on its
    # way.
    while got[-1][0] not in snapshots:
        check(time.time() < deadline, "the snapshot of frame %d within 90 s" % got[-1][0])
        time.sleep(0.01)
    # A callback still registered when the interpreter ends can crash the
    # older clients in their teardown (SIGSEGV after the last line).
    world.remove_on_tick(on_tick)
    check(all(w == 64 and n == 64 * 48 * 4 for _, w, n in got), "image sizes")
    print("IMAGES " + " ".join(str(f) for f, _, _ in got), flush=True)
    print("SNAPSHOTS " + " ".join(str(f) for f in list(snapshots)), flush=True)
    check(camera.destroy() and car.destroy(), "destroy")
print("OK", flush=True)
