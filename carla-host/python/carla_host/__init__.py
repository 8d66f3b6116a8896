"""A headless CARLA server for testing CARLA client code.

``carla_host.serve()`` starts the bundled ``carla-host`` binary on free
ports and returns it once clients can connect::

    import carla_host

    with carla_host.serve(seed=7) as server:
        client = server.client()
        world = client.get_world()
        ...

Installing the wheel also installs a pytest plugin with the fixtures
``carla_server`` (one server per test session, per xdist worker) and
``carla_world`` (a fresh, synchronous, seeded episode per test); see
``carla_host.pytest_plugin``.
"""

from ._server import BINARY_ENV, Server, ServerStartError, find_binary, free_port, serve

__version__ = "0.1.0"

__all__ = [
    "BINARY_ENV",
    "Server",
    "ServerStartError",
    "find_binary",
    "free_port",
    "serve",
    "__version__",
]
