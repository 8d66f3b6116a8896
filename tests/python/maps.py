"""Maps with the unmodified `carla` package of a release (0.9.12 ... 0.9.16)
against the Rust host of tests/rpc/maps.rs, which lists two maps (Town01,
Town02: one straight road each, 100 m and 200 m) and loads them, builds a
world from OpenDRIVE text and refuses text without an <OpenDRIVE> element.
A second client watches: every map change reaches it too. Every check
raises on failure; the last line is OK.

Usage: python maps.py HOST PORT RELEASE FOLDER MODE
FOLDER holds Town01.xodr, Town02.xodr and generated.xodr (the texts the
host serves and the one this script sends); MODE `full` also sends a
100 MiB OpenDRIVE text (over the server's 16 MiB bound), `short` does not.
"""
import os
import sys
import time

import carla

host, port, release, folder, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def text(name):
    with open(os.path.join(folder, name + ".xodr"), encoding="utf-8", newline="") as f:
        return f.read()


def refused(call, what):
    """The RuntimeError text of `call`, which must fail."""
    try:
        call()
    except RuntimeError as e:
        return str(e)
    check(False, "%s raised nothing" % what)


TEXTS = {"Town01": text("Town01"), "Town02": text("Town02")}
GENERATED = text("generated")
SPAWN_POINTS = {"Town01": 1, "Town02": 2}
ALL = ["/Game/Carla/Maps/Town01", "/Game/Carla/Maps/Town02"]

client = carla.Client(host, port)
client.set_timeout(30.0)
check(client.get_client_version() == release, "the %s wheel runs" % release)
world = client.get_world()
# A second client that never loads anything: it must see each new map.
watcher = carla.Client(host, port)
watcher.set_timeout(30.0)
watched = watcher.get_world()

check(client.get_available_maps() == ALL, "available maps: %s" % client.get_available_maps())


def waypoints(m):
    return len(m.generate_waypoints(10.0))


def same_map(m, name, xodr, what):
    check(m.name == "Carla/Maps/" + name, "%s: map name %s" % (what, m.name))
    check(m.to_opendrive() == xodr, "%s: to_opendrive() is the map's text (%d bytes, want %d)"
          % (what, len(m.to_opendrive()), len(xodr)))


def watcher_sees(old_episode, name, xodr, what):
    """The watching client's own world (never reloaded) shows the new
    episode, then the new map."""
    deadline = time.time() + 30
    while watched.wait_for_tick(10.0).id == old_episode:
        check(time.time() < deadline, "%s: the watcher never saw a new episode" % what)
    same_map(watched.get_map(), name, xodr, "%s, seen by the watcher" % what)


m = world.get_map()
same_map(m, "Town01", TEXTS["Town01"], "at start")
same_map(watched.get_map(), "Town01", TEXTS["Town01"], "at start, seen by the watcher")
short_road = waypoints(m)

# Each name form; ASCII case does not matter.
for asked, name in (("Town02", "Town02"), ("Carla/Maps/Town01", "Town01"),
                    ("/Game/Carla/Maps/Town02", "Town02"), ("/Game/Carla/Maps/town01.umap", "Town01"),
                    ("TOWN02", "Town02")):
    old = world.get_snapshot().id
    world = client.load_world(asked)
    check(world.id != old, "load_world(%r) starts a new episode" % asked)
    m = world.get_map()
    same_map(m, name, TEXTS[name], "load_world(%r)" % asked)
    check(len(m.get_spawn_points()) == SPAWN_POINTS[name], "%s's spawn points" % name)
    watcher_sees(old, name, TEXTS[name], "load_world(%r)" % asked)
    print("LOADED %s %s" % (asked, name), flush=True)
check(waypoints(world.get_map()) > short_road, "Town02's road is the longer one: the client parsed it")

old = world.id
world = client.reload_world()
check(world.id != old, "reload_world starts a new episode")
same_map(world.get_map(), "Town02", TEXTS["Town02"], "reload_world")

e = refused(lambda: client.load_world("Town99"), "an unknown map")
check("Town99" in e and "Town01" in e and "Town02" in e, "the unknown map's error names it and the maps: %s" % e)
e = refused(lambda: client.load_world("OpenDriveMap"), "OpenDriveMap before any was built")
check("OpenDriveMap" in e and "not available" in e, "no OpenDriveMap yet: %s" % e)

# A world from OpenDRIVE text, with parameters of our own.
params = carla.OpendriveGenerationParameters(
    vertex_distance=1.5, max_road_length=30.0, wall_height=0.0, additional_width=0.25,
    smooth_junctions=False, enable_mesh_visibility=True, enable_pedestrian_navigation=False)
old = world.id
world = client.generate_opendrive_world(GENERATED, params, reset_settings=False)
check(world.id != old, "generate_opendrive_world starts a new episode")
same_map(world.get_map(), "OpenDriveMap", GENERATED, "generate_opendrive_world")
watcher_sees(old, "OpenDriveMap", GENERATED, "generate_opendrive_world")
print("GENERATED", flush=True)
old = world.id
world = client.reload_world()
check(world.id != old, "reload_world of the generated world")
same_map(world.get_map(), "OpenDriveMap", GENERATED, "reload_world of the generated world")
world = client.load_world("OpenDriveMap")
same_map(world.get_map(), "OpenDriveMap", GENERATED, "load_world('OpenDriveMap')")

# The host's refusal reaches the client; the world stays as it was.
e = refused(lambda: client.generate_opendrive_world("a road, in words"), "text without <OpenDRIVE>")
check("the test host cannot build a world" in e and "no <OpenDRIVE> element" in e, "the host's refusal: %s" % e)
e = refused(lambda: client.generate_opendrive_world(
    GENERATED, carla.OpendriveGenerationParameters(vertex_distance=-1.0)), "a negative vertex distance")
check("vertex_distance" in e, "the library's refusal of the parameters: %s" % e)
same_map(world.get_map(), "OpenDriveMap", GENERATED, "after the refusals")

if mode == "full":
    big = "a" * (100 << 20)
    started = time.time()
    e = refused(lambda: client.generate_opendrive_world(big), "a 100 MiB OpenDRIVE text")
    del big
    check("copy_opendrive_to_file" in e and "over this server's limit of 16 MiB" in e,
          "the 100 MiB request's error names the limit: %s" % e)
    print("OVERSIZED %.2f s: %s" % (time.time() - started, e), flush=True)
    # The same connection goes on, and so do the others.
    check(client.get_available_maps() == ALL, "the same client's next call")
    same_map(client.get_world().get_map(), "OpenDriveMap", GENERATED, "after the oversized request")
    check(watcher.get_available_maps() == ALL, "the other client's next call")

# Back to a listed map: the watcher follows once more.
old = world.get_snapshot().id
world = client.load_world("Town01")
same_map(world.get_map(), "Town01", TEXTS["Town01"], "back to Town01")
watcher_sees(old, "Town01", TEXTS["Town01"], "back to Town01")
print("OK", flush=True)
