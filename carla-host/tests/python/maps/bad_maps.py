"""Maps the world must refuse, each with an error that says why, and the
world goes on: after each refusal a tick works, the town's traffic moves
and the map is still the one before.

    bad_maps.py --write-broken DIR   writes DIR/Broken.xodr: DIR/Crossing.xodr
                                     with road 2's lane section emptied
    bad_maps.py PORT                 the checks (the server's --maps holds
                                     Crossing, Curves and Broken)

generate_opendrive_world with: text that is not XML, an OpenDRIVE with no
roads, a road of length NaN, of negative length, of 1e9 m, a lane section
with no lanes, a link to a road that does not exist, a straight road whose
successor is itself, 100 MB of text (the RPC library's 16 MiB bound on a
request) and a million roads (the 100000-road limit); load_world of a name
the server does not have and of the broken file. Then the minimal map the
bad ones are made from is accepted, so each refusal is the one change's.
Prints RESULT {...}, then OK.
"""
import json
import os
import sys
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "town"))


def write_broken(folder):
    """DIR/Broken.xodr: Crossing with no lanes in road 2's lane section."""
    tree = ET.parse(os.path.join(folder, "Crossing.xodr"))
    road = next(r for r in tree.getroot().iter("road") if r.get("id") == "2")
    section = road.find("lanes/laneSection")
    for side in ("left", "right"):
        part = section.find(side)
        if part is not None:
            section.remove(part)
    tree.write(os.path.join(folder, "Broken.xodr"), encoding="utf-8", xml_declaration=True)


if len(sys.argv) == 3 and sys.argv[1] == "--write-broken":
    write_broken(sys.argv[2])
    sys.exit(0)

import carla  # noqa: E402
from common import end_ok, asynchronous, check, synchronous  # noqa: E402

HEADER = ('<?xml version="1.0" encoding="utf-8"?>\n<OpenDRIVE>\n'
          '  <header revMajor="1" revMinor="4" name="Bad" version="1.0">'
          "<geoReference><![CDATA[+proj=tmerc +lat_0=0 +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84"
          " +units=m +no_defs]]></geoReference></header>\n")
LANE = ('<lane id="{id}" type="driving" level="false"><link/>'
        '<width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane>')
SIDES = ("<left>" + LANE.format(id=1) + "</left>"
         '<center><lane id="0" type="none" level="false"/></center>'
         "<right>" + LANE.format(id=-1) + "</right>")


def road(length="100.0", geometry=None, link="", lanes=SIDES, rid="1"):
    """A straight road of one lane each way along x from the origin."""
    geometry = length if geometry is None else geometry
    return ('  <road id="{rid}" junction="-1" length="{length}">\n'
            '    <link>{link}</link>\n'
            '    <planView><geometry s="0" x="0" y="0" hdg="0" length="{geometry}"><line/>'
            '</geometry></planView>\n'
            '    <lanes><laneSection s="0">{lanes}</laneSection></lanes>\n'
            '  </road>\n').format(rid=rid, length=length, geometry=geometry, link=link,
                                 lanes=lanes)


def document(*roads):
    return HEADER + "".join(roads) + "</OpenDRIVE>\n"


def many_roads(n):
    """n minimal roads, each `<road id="..."/>` with the shortest distinct
    ids (letters, digits, '-' and '_'), so a million fit in 16 MiB."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
    parts, width, k = [], 1, 0
    while k < n:
        for m in range(min(n - k, len(digits) ** width)):
            ident = []
            for _ in range(width):
                m, r = divmod(m, len(digits))
                ident.append(digits[r])
            parts.append('<road id="%s"/>' % "".join(ident))
        k += min(n - k, len(digits) ** width)
        width += 1
    return HEADER + "".join(parts) + "</OpenDRIVE>\n"


MIB = 1 << 20
good = document(road())
million = many_roads(1_000_000)
BAD = [
    ("not XML", "this is not XML: <road id=", ["not an OpenDRIVE document", "malformed"]),
    ("no roads", document(), ["no <road>"]),
    ("a road of length NaN", document(road(length="NaN")),
     ['road "1"', 'length="NaN"', "not a finite number"]),
    ("a road of negative length", document(road(length="-100.0")),
     ['road "1"', "length -100 is negative"]),
    ("a road of 1e9 m", document(road(length="1e9")),
     ['road "1"', "length 1000000000 m is over the limit of 100000 m"]),
    ("a lane section with no lanes",
     document(road(lanes='<center><lane id="0" type="none" level="false"/></center>')),
     ['road "1"', "<laneSection> 0", "has no lanes"]),
    ("a link to a road that does not exist",
     document(road(link='<successor elementType="road" elementId="99" contactPoint="start"/>')),
     ['road "1"', 'its successor is road "99", which does not exist']),
    ("a straight road whose successor is itself",
     document(road(link='<successor elementType="road" elementId="1" contactPoint="start"/>')),
     ['road "1"', "its successor is itself", "circular link"]),
    ("100 MB of text", good.replace("</OpenDRIVE>", "<!--" + "x" * (100 * MIB) + "--></OpenDRIVE>"),
     ["over this server's limit of 16 MiB"]),
    ("a million roads", million,
     ["the map has 1000000 <road> elements, over the limit of 100000"]),
]

client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(120.0)
result = {"million_roads_bytes": len(million)}
check(len(million.encode()) < 16 * MIB - 4096,
      "a million roads in %d bytes, under the 16 MiB request bound" % len(million))

world = client.load_world("Crossing")
synchronous(world, 0.05)
before = world.get_map().name
world_id = world.id
town = list(world.get_actors().filter("vehicle.*"))
check(town, "the town's traffic")


def goes_on(what):
    """The world after a refusal: the same episode and map, and it ticks
    with its traffic moving."""
    w = client.get_world()
    check(w.id == world_id and w.get_map().name == before,
          "%s: the world is still %s (episode %d): %s (episode %d)"
          % (what, before, world_id, w.get_map().name, w.id))
    start = [v.get_location() for v in town]
    frame = w.get_snapshot().frame
    for _ in range(10):
        last = w.tick()
    check(last == frame + 10, "%s: ten ticks, frames %d to %d" % (what, frame, last))
    moved = max(v.get_location().distance(s) for v, s in zip(town, start))
    check(moved > 0.5, "%s: the town's traffic moves (%.2f m)" % (what, moved))


def refused(what, call, texts):
    started = time.time()
    try:
        call()
    except RuntimeError as e:
        message = str(e)
    else:
        check(False, "%s was refused" % what)
    for text in texts:
        check(text in message, "%s: the error names %r: %r" % (what, text, message[:400]))
    result[what] = round(time.time() - started, 3)
    print("%s: %s" % (what, message[:200]), flush=True)
    goes_on(what)


params = carla.OpendriveGenerationParameters()
for what, text, texts in BAD:
    refused(what, lambda: client.generate_opendrive_world(text, params, False), texts)
refused("load_world of a map the server does not have",
        lambda: client.load_world("NoSuchTown", False), ['"NoSuchTown"', "not available"])
refused("load_world of a broken file", lambda: client.load_world("Broken", False),
        ["Broken", 'road "2"', "<laneSection> 0", "has no lanes"])
check("/Game/Carla/Maps/Broken" in client.get_available_maps(), "Broken is listed")

# The server goes on serving: another map by name, then the minimal map the
# bad ones were made from (accepted: each refusal above was its one change).
world = client.load_world("Curves")
check(world.get_map().name == "Carla/Maps/Curves", "Curves loads after the refusals")
world = client.generate_opendrive_world(good, params)
check(world.get_map().name == "Carla/Maps/OpenDriveMap" and world.get_map().to_opendrive() == good,
      "the minimal map is accepted")
synchronous(world, 0.05)
frame = world.get_snapshot().frame
check(world.tick() == frame + 1, "the minimal map's world ticks")
asynchronous(world)
print("RESULT " + json.dumps(result), flush=True)
end_ok()
