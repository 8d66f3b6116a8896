"""What the glue's Python checks share: failing with a reason, waiting with
a bound that says what it waited for and how long, and the stand-in
engine's "rendered" image (byte c of pixel (x, y) at frame f with material
salt s is (7x + 13y + 61c + 29f + 101s) mod 256)."""
import queue
import sys
import time


def check(cond, what):
    if not cond:
        print("FAILED:", what, flush=True)
        sys.exit(1)


def take(source, what, seconds=10.0):
    """The next message of a sensor's queue; a failure says which and how long."""
    started = time.monotonic()
    try:
        return source.get(timeout=seconds)
    except queue.Empty:
        check(False, "waited %.1f s for a message of %s" % (time.monotonic() - started, what))


def tick_until(world, ready, what, seconds=30.0):
    """Ticks until ready() (stream connections are set up by client threads:
    on a busy machine that takes a while, so the bound is time, not ticks);
    a failure says what it waited for, how long and how many ticks."""
    started, ticks = time.monotonic(), 0
    while not ready():
        check(time.monotonic() - started < seconds,
              "waited %.1f s (%d ticks) for %s" % (time.monotonic() - started, ticks, what))
        world.tick()
        ticks += 1
    return ticks


def same_pixels(what, got, want):
    # The client hands images out with alpha 255 (checked below); B, G, R
    # must be the stand-in's.
    alphas = set(got[3::4])
    check(alphas == {255}, "%s: alpha %s" % (what, sorted(alphas)[:5]))
    got = bytes(b for i, b in enumerate(got) if i % 4 != 3)
    want = bytes(b for i, b in enumerate(want) if i % 4 != 3)
    if got == want:
        return
    i = next(k for k in range(min(len(got), len(want))) if got[k] != want[k]) if len(got) == len(want) else -1
    check(False, "%s: %d bytes (want %d), first difference at byte %d: %s vs %s" % (
        what, len(got), len(want), i, list(got[max(i, 0):max(i, 0) + 8]), list(want[max(i, 0):max(i, 0) + 8])))


def expected(w, h, frame, salt):
    out = bytearray(w * h * 4)
    i = 0
    for y in range(h):
        for x in range(w):
            for c in range(4):
                out[i] = (7 * x + 13 * y + 61 * c + 29 * frame + 101 * salt) & 0xFF
                i += 1
    return bytes(out)
