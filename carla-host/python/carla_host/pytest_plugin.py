"""pytest fixtures for testing CARLA client code against ``carla-host``.

Installed with the wheel as a pytest plugin (entry point ``pytest11``), so
``pip install carla-host`` is enough. Fixtures:

- ``carla_server`` (session): a running :class:`carla_host.Server` on free
  ports; with pytest-xdist each worker starts its own.
- ``carla_client`` (session): a ``carla.Client`` connected to it.
- ``carla_world`` (function): a fresh episode for each test
  (``reload_world``), in synchronous mode at ``--carla-step`` seconds, the
  walkers' seed set; the settings the test found are put back afterwards.
- ``carla_traffic_manager`` (function): the Traffic Manager on the
  server's own free port, synchronous and seeded with ``--carla-seed``;
  shut down after the test (CARLA's client crashes in the next
  ``reload_world`` while a Traffic Manager with cars runs in its process,
  so a test that makes its own must shut it down too).
- ``carla_seed`` (session): the seed, for a test's own ``random.Random``.

Options: ``--carla-maps DIR``, ``--carla-town NAME``,
``--carla-server-arg ARG`` (repeat it; each is one word of the server's
command line), ``--carla-seed N``, ``--carla-step SECONDS``,
``--carla-timeout SECONDS``. They can go in ``addopts`` of a pytest
configuration file.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from ._server import Server, serve


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("carla_host", "CARLA server for tests (carla-host)")
    group.addoption("--carla-maps", default=None, metavar="DIR",
                    help="folder of OpenDRIVE maps (*.xodr) the server loads by file stem")
    group.addoption("--carla-town", default=None, metavar="NAME",
                    help="the map the server starts on (default: the built-in town)")
    group.addoption("--carla-server-arg", action="append", default=[], metavar="ARG",
                    help="one more word of carla-host's command line (repeatable)")
    group.addoption("--carla-seed", type=int, default=0, metavar="N",
                    help="seed of the town's traffic, the walkers and the Traffic Manager (default 0)")
    group.addoption("--carla-step", type=float, default=0.05, metavar="SECONDS",
                    help="carla_world's fixed_delta_seconds (default 0.05)")
    group.addoption("--carla-timeout", type=float, default=10.0, metavar="SECONDS",
                    help="the client's time-out for each call (default 10)")


def pytest_report_header(config: pytest.Config) -> str:
    from ._server import ServerStartError, find_binary

    try:
        where = str(find_binary())
    except ServerStartError as e:
        where = f"not found ({e})"
    return f"carla-host: {where}"


@pytest.fixture(scope="session")
def carla_seed(request: pytest.FixtureRequest) -> int:
    """The run's seed (``--carla-seed``)."""
    return int(request.config.getoption("--carla-seed"))


@pytest.fixture(scope="session")
def carla_server(request: pytest.FixtureRequest, carla_seed: int) -> Iterator[Server]:
    """A CARLA server on free ports for this session (each xdist worker
    has its own); stopped when the session ends."""
    opt = request.config.getoption
    server = serve(
        maps=opt("--carla-maps"),
        town=opt("--carla-town"),
        seed=carla_seed,
        extra_args=opt("--carla-server-arg"),
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def carla_client(request: pytest.FixtureRequest, carla_server: Server) -> Any:
    """A ``carla.Client`` connected to ``carla_server``."""
    return carla_server.client(timeout=float(request.config.getoption("--carla-timeout")))


@pytest.fixture
def carla_world(request: pytest.FixtureRequest, carla_client: Any, carla_seed: int) -> Iterator[Any]:
    """A fresh episode (``reload_world``) in synchronous mode at
    ``--carla-step`` seconds, walkers seeded; the settings found are put
    back after the test."""
    world = carla_client.reload_world()
    found = world.get_settings()
    settings = world.get_settings()
    settings.synchronous_mode = True
    settings.fixed_delta_seconds = float(request.config.getoption("--carla-step"))
    world.apply_settings(settings)
    world.set_pedestrians_seed(carla_seed)
    try:
        yield world
    finally:
        world.apply_settings(found)


@pytest.fixture
def carla_traffic_manager(carla_client: Any, carla_server: Server, carla_world: Any, carla_seed: int) -> Iterator[Any]:
    """The Traffic Manager on the server's free port, synchronous like
    ``carla_world`` and seeded; shut down after the test (the next test's
    ``reload_world`` would crash the client while it ran)."""
    tm = carla_client.get_trafficmanager(carla_server.traffic_manager_port)
    tm.set_synchronous_mode(True)
    tm.set_random_device_seed(carla_seed)
    try:
        yield tm
    finally:
        tm.shut_down()
