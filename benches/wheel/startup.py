"""How long a test waits for carla-host, measured with the installed wheel.

- start-up: from ``carla_host.serve()`` being called to a client's first
  answer (``get_server_version``), over --starts runs; the baseline in the
  same run is the bare binary (``carla-host --port 0 --ports-file F``)
  from spawn to its ports file, so the ratio is what the Python side and
  the first client call add;
- a fresh episode: ``client.reload_world()`` (what ``carla_world`` does
  before each test) over --reloads runs, and the fixture's whole set-up
  (reload, synchronous settings, the walkers' seed); the baseline is one
  plain call's round trip (``get_server_version``) on the same client.

Goals: start-up median under 300 ms on a 2-core machine,
``reload_world`` under 50 ms. Prints medians and p90s; exits 0 either way
(speed is reported, not asserted: the machines are shared).

    python benches/wheel/startup.py [--starts 20] [--reloads 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, List

import carla  # noqa: F401  (imported before timing: a test imports it first too)

import carla_host


def quantile(xs: List[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1e3


def serve_to_answer() -> float:
    t = time.perf_counter()
    server = carla_host.serve()
    try:
        server.client(timeout=10.0).get_server_version()
        return (time.perf_counter() - t) * 1e3
    finally:
        server.stop()


def bare_binary() -> float:
    exe = os.fspath(carla_host.find_binary())
    with tempfile.TemporaryDirectory() as d:
        ports = Path(d) / "ports.json"
        t = time.perf_counter()
        p = subprocess.Popen([exe, "--port", "0", "--host", "127.0.0.1", "--ports-file", str(ports),
                              "--exit-with-stdin"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not ports.exists():
                if p.poll() is not None:
                    raise RuntimeError(f"carla-host exited with {p.returncode}")
                time.sleep(0.001)
            return (time.perf_counter() - t) * 1e3
        finally:
            p.stdin.close()
            p.wait(10)


def line(name: str, xs: List[float], base: List[float]) -> str:
    m, b = statistics.median(xs), statistics.median(base)
    return f"{name:<34} median {m:7.1f} ms  p90 {quantile(xs, 0.9):7.1f} ms  ({m / b:5.2f}x the baseline's {b:.1f} ms)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--reloads", type=int, default=20)
    a = ap.parse_args()

    starts, bare = [], []
    for _ in range(a.starts):  # alternated, so both see the same machine
        bare.append(bare_binary())
        starts.append(serve_to_answer())
    print(line("serve() -> first answer", starts, bare))
    print(f"{'  baseline: bare binary -> ready':<34} median {statistics.median(bare):7.1f} ms")

    with carla_host.serve() as server:
        client = server.client(timeout=10.0)
        client.get_world()
        calls, reloads, fixture = [], [], []
        for _ in range(a.reloads):
            calls.append(timed(client.get_server_version))
            reloads.append(timed(client.reload_world))

            def fixture_setup() -> None:
                world = client.reload_world()
                world.get_settings()
                s = world.get_settings()
                s.synchronous_mode = True
                s.fixed_delta_seconds = 0.05
                world.apply_settings(s)
                world.set_pedestrians_seed(0)

            fixture.append(timed(fixture_setup))
            world = client.get_world()
            s = world.get_settings()
            s.synchronous_mode = False
            s.fixed_delta_seconds = None
            world.apply_settings(s)
    print(line("reload_world()", reloads, calls))
    print(line("carla_world set-up (reload + sync)", fixture, calls))
    print(f"{'  baseline: get_server_version()':<34} median {statistics.median(calls):7.1f} ms")
    verdict = "met" if statistics.median(starts) < 300 and statistics.median(reloads) < 50 else "NOT met"
    print(f"goals (start-up < 300 ms, reload_world < 50 ms, medians): {verdict}")


if __name__ == "__main__":
    main()
